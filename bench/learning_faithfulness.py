"""What the real distiller keeps from short conversations: stated preferences and corrections.

Each task of a task file (``engram-tasks/1``: setup tasks stating a preference, teaching tasks
with feedback) becomes one conversation: the user's messages answered by the small model (no
memory, temperature 0; cached in ``--out`` so runs compare the same conversations), then the
feedback (a said correction or praise is the user's next message and is answered too; a thumb is
a signal on the answer). Every conversation is distilled by the large model into one store per
file through ``consolidation.run_job`` (the path of the app and the eval), and the memories each
job wrote are listed in ``<out>/<file>-memories.json`` with their kind, content and meta.

    .venv/bin/python bench/learning_faithfulness.py FILE.json [FILE.json ...] --out DIR

Counting a memory faithful or invented is left to the reader of that listing (the script prints
it per conversation and a few automatic counts: kinds per conversation, lessons in "When …" form).
The data files are read where they are; nothing of them is copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, cast

from engram.assistant.events import Finished, TurnStarted
from engram.assistant.learning import distill
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.distiller_backends import LocalDistiller
from engram.assistant.learning.signals import POSITIVE
from engram.assistant.session import embedder_for
from engram.assistant.turn.pipeline import Assistant
from engram.core.cancel import CancelToken
from engram.core.settings import Settings
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore
from engram.models import roles
from engram.models.background import LazyModel
from engram.models.local import LocalModel

SAID = {"correction", "praise"}
_WHEN = re.compile(
    r"^\s*(?:when(?:ever)?|if|before|after|for|in)\b|^\s*(?:当|如果|每当|在|凡)", re.I
)


def answers(path: Path, out: Path, settings: Settings) -> list[dict[str, Any]]:
    """The conversations of a task file, answered by the small model (cached)."""
    cache = out / f"{path.stem}-conversations.json"
    if cache.exists():
        return list(json.loads(cache.read_text(encoding="utf-8")))
    data = json.loads(path.read_text(encoding="utf-8"))
    language = "zh_CN" if data.get("language", "en").startswith("zh") else "en"
    small = roles.load_local(settings, "small")
    store = MemoryStore.open(out / f"{path.stem}-answers.sqlite3", embedder_for(settings))
    assistant = Assistant(
        EpisodeLog(store.conn), small, max_answer_tokens=160, language=language, recall=None
    )
    small.temperature = 0.0
    made = []
    for task in data["tasks"]:
        if not task.get("setup") and not task.get("feedback"):
            continue
        turns: list[tuple[str, str]] = []
        said = [*task["messages"]]
        feedback = task.get("feedback")
        if feedback and feedback["kind"] in SAID:
            said.append(feedback["text"])
        conversation = 0
        for text in said:
            reply = ""
            for event in assistant.turn(conversation, text):
                if isinstance(event, TurnStarted):
                    conversation = event.conversation_id
                elif isinstance(event, Finished):
                    reply = event.text
            turns.append((text, reply))
        made.append({"id": task["id"], "turns": turns, "feedback": feedback})
        print(f"answered {task['id']}", file=sys.stderr, flush=True)
    small.close()
    store.conn.close()
    cache.write_text(json.dumps(made, ensure_ascii=False, indent=1), encoding="utf-8")
    return made


class _Recording:
    """The large model, keeping every structured answer it gives (the raw distillation)."""

    def __init__(self, model: Any, answers: list[dict[str, Any]]) -> None:
        self.model, self.answers = model, answers

    def structured(self, messages: Any, json_schema: Any, max_tokens: int = 512, *rest: Any) -> Any:
        answer = self.model.structured(messages, json_schema, max_tokens, *rest)
        self.answers.append(answer)
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


def distil(
    path: Path, conversations: list[dict[str, Any]], out: Path, settings: Settings, label: str
) -> list[dict[str, Any]]:
    """Distil each conversation into one store; the memories each job wrote."""
    db = out / f"{path.stem}-{label}.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    store = MemoryStore.open(db, embedder_for(settings))
    large = roles.load_local(settings, "large")
    answers: list[dict[str, Any]] = []
    recording = cast(LocalModel, _Recording(large, answers))
    source = LocalDistiller(LazyModel(lambda: recording, float("inf")))
    log, queue, outcomes = EpisodeLog(store.conn), JobQueue(store.conn), Outcomes(store)
    results = []
    for item in conversations:
        conversation = log.new_conversation(item["id"])
        first_answer = None
        for user, reply in item["turns"]:
            log.append(conversation.id, "user", user)
            answer = log.append(conversation.id, "assistant", reply)
            first_answer = first_answer or answer.id
        feedback = item.get("feedback")
        if feedback and first_answer is not None:
            kind = feedback["kind"]
            outcomes.record(first_answer, kind, kind in POSITIVE, feedback.get("text") or None)
        before = {m.id for m in store.memories(statuses=("active",), limit=100_000)}
        started = time.perf_counter()
        answers.clear()
        job = queue.enqueue(conversation.id, reason="outcome" if feedback else "turns")
        while (job := queue.claim()) is not None:
            run_job(job, store, queue, source, CancelToken(), limits=distill.Limits())
        wrote = [
            {
                "id": m.id,
                "kind": m.kind,
                "content": m.content,
                "applies_to": m.meta.get("applies_to"),
            }
            for m in store.memories(limit=100_000)
            if m.id not in before
        ]
        results.append(
            {
                "id": item["id"],
                "said": [u for u, _ in item["turns"]],
                "feedback": feedback,
                "seconds": round(time.perf_counter() - started, 1),
                "wrote": wrote,
                "raw": list(answers),
            }
        )
        print(f"\n== {item['id']} ({results[-1]['seconds']} s)", flush=True)
        for user, _ in item["turns"]:
            print(f"   user: {user}")
        for m in wrote:
            print(f"   -> {m['kind']}: {m['content']}  {m['applies_to'] or ''}")
    large.close()
    store.conn.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--label", default="run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    for path in args.files:
        conversations = answers(path, args.out, settings)
        results = distil(path, conversations, args.out, settings, args.label)
        listing = args.out / f"{path.stem}-{args.label}-memories.json"
        listing.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
        kinds: dict[str, int] = {}
        for r in results:
            for m in r["wrote"]:
                kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
        lessons = [m for r in results for m in r["wrote"] if m["kind"] == "lesson"]
        when = sum(bool(_WHEN.match(m["content"])) for m in lessons)
        print(
            f"\n{path.name}: {len(results)} conversations, kinds {kinds},"
            f" lessons in rule form {when}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
