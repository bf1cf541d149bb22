"""Bilingual recall: facts told in English or Chinese, asked in other words in both languages.

Each memory of the set (facts among close distractors) is stored as a distilled fact in a fresh
store (real SQLite, sqlite-vec and FTS5); each question is asked in the language of its fact
and in the other one. Per cell (the fact's language -> the question's), it reports:

- ``top1`` / ``top3``: the right memory ranked first / among the first three by the memory
  search that the memory browser, ``engram memory search`` and the memory tool use;
- ``turn``: the turn's recall (``Recall.recall``, the floors of the embedder included) put the
  right memory in front of the answering model.

    .venv/bin/python bench/bilingual_recall.py [SET.json] [--models a,b] [--out FILE.json]

SET defaults to the development set ``bench/data/bilingual_recall_dev.json``; the blind twin in
``bench/data/blind/`` is read once, at the end of a piece of work, and reported as such.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engram.assistant.session import embedder_of
from engram.assistant.turn.recall import Recall
from engram.memory.kinds import FACT
from engram.memory.store import MemoryStore
from engram.models import catalogue

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "bench/data/bilingual_recall_dev.json"
MODELS = ("all-minilm-l6-v2-int8", "use-multilingual-v3")
BUDGET = 384  # the memory block's tokens in a turn


def _tokens(text: str) -> int:
    return len(text) // 3 + 1


def run(data: dict[str, Any], model: str, folder: Path) -> dict[str, dict[str, int]]:
    """Counts per cell for one embedding model."""
    store = MemoryStore.open(folder / f"{model}.sqlite3", embedder_of(catalogue.load().get(model)))
    try:
        ids = {}
        for memory in data["memories"]:
            ids[memory["id"]] = store.add(memory["text"], FACT, origin="local").id
        recall = Recall(store, _tokens)
        cells: dict[str, dict[str, int]] = {}
        for question in data["questions"]:
            fact = next(m for m in data["memories"] if m["id"] == question["memory"])
            cell = cells.setdefault(
                f"{fact['lang']}->{question['lang']}", {"n": 0, "top1": 0, "top3": 0, "turn": 0}
            )
            wanted = ids[question["memory"]]
            ranked = [h.memory.id for h in store.search(question["text"], k=10)]
            given = {r.memory_id for r in recall.recall(question["text"], BUDGET)}
            cell["n"] += 1
            cell["top1"] += ranked[:1] == [wanted]
            cell["top3"] += wanted in ranked[:3]
            cell["turn"] += wanted in given
        return dict(sorted(cells.items()))
    finally:
        store.conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", nargs="?", type=Path, default=DEV)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    data = json.loads(args.set.read_text("utf-8"))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            began = time.perf_counter()
            results[model] = run(data, model, Path(tmp))
            seconds = time.perf_counter() - began
            print(f"{model} ({args.set.name}, {seconds:.1f} s)")
            for cell, c in results[model].items():
                print(
                    f"  {cell}: top1 {c['top1']}/{c['n']}  top3 {c['top3']}/{c['n']}"
                    f"  given in a turn {c['turn']}/{c['n']}"
                )
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
