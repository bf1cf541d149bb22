"""PrefEval with the stated preferences stored as written: what the small model does with memory
when distillation is perfect, against no memory and the reminder ceiling (same run, same model).

    .venv/bin/python bench/prefeval_oracle.py ../shared/data/prefeval-dev/prefeval-dev-0.json \
        [--small ID] [--preferences N]

Each setup task's message becomes a preference memory (its vector embeds the message alone), then
every test question is answered through ``Assistant.turn`` with recall on; printed: the pass rate
with its 95 % interval, how often the stated preference was given (recalled, or among the saved
memories the system part holds), and the same questions without memory and with the preference
pasted in (the ``*-reminder.json`` set).
Separates what the answering model can do with a preference from what the distiller writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from engram.assistant.events import Finished, Recalling
from engram.assistant.session import embedder_for
from engram.assistant.turn import recall as recall_mod
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import settings as settings_mod
from engram.evaluation import metrics, tasks
from engram.memory.episodes import EpisodeLog
from engram.memory.kinds import PREFERENCE
from engram.memory.store import MemoryStore
from engram.models import roles


def _letter(answer: str) -> str:
    """The option an answer picked (its first capital A-D), or "?"."""
    found = re.search(r"\b([A-D])\b", answer)
    return found.group(1) if found else "?"


def _answer(assistant: Assistant, text: str) -> tuple[str, set[int]]:
    said, given = "", set()
    for event in assistant.turn(0, text):
        if isinstance(event, Recalling):  # the notes, and the saved memories in front
            given = {i.memory_id for i in (*event.items, *event.in_system) if i.memory_id}
        elif isinstance(event, Finished):
            said = event.text
    return said, given


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--small", help="small model id (default: Settings)")
    parser.add_argument("--preferences", type=int, default=recall_mod.PREFERENCES)
    args = parser.parse_args()
    recall_mod.PREFERENCES = args.preferences
    chosen = settings_mod.load()
    prefs = dataclasses.replace(chosen, small_model=args.small or chosen.small_model)
    task_set = tasks.load(args.dataset)
    told = tasks.load(args.dataset.with_name(args.dataset.stem + "-reminder.json"))
    small = roles.load_local(prefs, "small")
    small.temperature = 0.0
    embedder = embedder_for(prefs)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore.open(Path(folder) / "oracle.sqlite3", embedder)
        stated = {
            t.kind: store.add(t.messages[-1], PREFERENCE, origin="user").id
            for t in task_set.tasks
            if t.setup
        }
        results: dict[str, list[bool]] = {"none": [], "memory": [], "ceiling": []}
        letters: dict[str, Counter[str]] = {name: Counter() for name in results}
        reached = []
        with_memory = Assistant(
            EpisodeLog(store.conn), small, 96, recall=Recall(store, small.count_tokens)
        )
        # Its own file: the questions asked without memory are no earlier messages of the user's
        # who has it (the reminder questions hold the preferences).
        apart = MemoryStore.open(Path(folder) / "apart.sqlite3", embedder)
        without = Assistant(EpisodeLog(apart.conn), small, 96)
        tests = [t for t in task_set.tasks if not t.teaches]
        reminded = {t.id: t for t in told.tasks}
        for test in tests:
            said, given = _answer(with_memory, test.messages[-1])
            results["memory"].append(tasks.passes(test.check, said))
            letters["memory"][_letter(said)] += 1
            reached.append(stated.get(test.kind) in given)
            said, _ = _answer(without, test.messages[-1])
            results["none"].append(tasks.passes(test.check, said))
            letters["none"][_letter(said)] += 1
            again = reminded[test.id]
            said, _ = _answer(without, again.messages[-1])
            results["ceiling"].append(tasks.passes(again.check, said))
            letters["ceiling"][_letter(said)] += 1
        store.conn.close()
        apart.conn.close()
    small.close()
    print(
        f"{args.dataset.name}: {len(tests)} tests, small {prefs.small_model}, preferences in"
        f" front of every answer: {args.preferences}, {time.perf_counter() - start:.0f} s"
    )
    for name, passed in results.items():
        low, high = metrics.wilson(sum(passed), len(passed))
        print(
            f"  {name:8} {sum(passed) / len(passed):.2f} ({sum(passed)}/{len(passed)},"
            f" 95 % {low:.2f}-{high:.2f}), letters picked {dict(sorted(letters[name].items()))}"
        )
    print(f"  the stated preference recalled: {sum(reached)}/{len(reached)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
