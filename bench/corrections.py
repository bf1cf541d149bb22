"""Benchmark corrections: does a fact set right in a later chat replace the old one?

Run: ``.venv/bin/python bench/corrections.py [--first said|learned] [--only ID ...]``. For each
pair of ``tests/data/corrections.json`` (English and Chinese: names, numbers, doses, dates,
places, work, "I no longer …", a negation), on a fresh database: the first chat states a fact,
kept as the user said it ("remember this: …", ``--first said``, the default) or learned by the
distiller (``--first learned``); then a second chat sets it right and is learned (``run_job``
with the real starter distiller, Qwen2.5-Coder-1.5B). A pair passes when afterwards the new fact
is active (recalled) and no active memory still holds the old value without the new one (the old
fact left beside the new).
Each pair prints what the distiller proposed and what reconciliation decided, and why, so a miss
can be traced; the last line is the count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-")

from engram.assistant import remembering  # noqa: E402
from engram.assistant.learning import consolidation, distill, reconcile  # noqa: E402
from engram.assistant.learning.distiller_backends import LocalDistiller  # noqa: E402
from engram.core import paths  # noqa: E402
from engram.core.cancel import CancelToken  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.memory import embed, kinds  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.memory.jobs import JobQueue  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402
from engram.models import catalogue, roles  # noqa: E402
from engram.models.background import LazyModel  # noqa: E402
from engram.models.local import LocalModel  # noqa: E402

PAIRS = REPO / "tests" / "data" / "corrections.json"
INJECTED = (kinds.FACT, kinds.PROFILE, kinds.PREFERENCE, kinds.SUMMARY)


def keep(store: MemoryStore, said: list[str]) -> list[str]:
    """One chat in which the user's words are kept as they said them ("remember this: …")."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    episode = log.append(chat, "user", f"remember this: {said[0]}")
    log.append(chat, "assistant", said[1])
    kept = remembering.remember(store, chat, episode.id, said[0])
    return [f"    kept #{kept.memory_id} {kept.content!r}"]


def learn(store: MemoryStore, source: LocalDistiller, said: list[str]) -> list[str]:
    """One chat (the user's words and a reply) learned by ``run_job``; what was decided."""
    log, queue = EpisodeLog(store.conn), JobQueue(store.conn)
    chat = log.new_conversation().id
    log.append(chat, "user", said[0])
    log.append(chat, "assistant", said[1])
    queue.enqueue(chat)
    job = queue.claim()
    assert job is not None
    decided: list[str] = []
    decide, run = reconcile.decide, distill.distill

    def distilled(*args: Any, **kwargs: Any) -> tuple[distill.Distillation, dict[str, Any]]:
        result, raw = run(*args, **kwargs)
        proposed = json.dumps(raw.get("memories"), ensure_ascii=False)
        decided.append(f"    proposed {proposed}, {result.dropped} dropped")
        return result, raw

    def recorded(*args: Any, **kwargs: Any) -> reconcile.Decision:
        decision = decide(*args, **kwargs)
        candidate = args[2]
        decided.append(
            f"    {candidate.kind} {candidate.content!r}{' (corrects)' * candidate.corrects}"
            f" -> {decision.action} #{decision.target_id} ({decision.why})"
        )
        return decision

    reconcile.decide, distill.distill = recorded, distilled  # type: ignore[assignment]
    try:
        result = consolidation.run_job(job, store, queue, source, CancelToken())
    finally:
        reconcile.decide, distill.distill = decide, run  # type: ignore[assignment]
    if result.outcome != "done":
        decided.append(f"    job {result.outcome}: {result.problem}")
    return decided


def verdict(store: MemoryStore, pair: dict[str, Any]) -> tuple[str, list[str]]:
    """``only new``, ``old beside new``, ``new not learned`` or ``neither``; the memories."""
    old, new = re.compile(pair["old"], re.IGNORECASE), re.compile(pair["new"], re.IGNORECASE)
    active = [m for m in store.memories(kinds=list(INJECTED))]
    stale = [m for m in active if old.search(m.content) and not new.search(m.content)]
    fresh = [m for m in active if new.search(m.content)]
    shown = [
        f"    #{m.id} {m.status:10} {m.kind:10} {m.origin:5} {m.content}"
        + (f"  (replaced by #{m.superseded_by})" if m.superseded_by else "")
        for m in store.memories(statuses=None)
    ]
    if fresh and not stale:
        return "only new", shown
    if fresh:
        return "old beside new", shown
    return ("new not learned" if stale else "neither"), shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--first", choices=("said", "learned"), default="said")
    parser.add_argument("--only", nargs="*", default=(), help="pair ids to run")
    args = parser.parse_args()
    pairs = [p for p in json.loads(PAIRS.read_text("utf-8"))["pairs"]]
    pairs = [p for p in pairs if not args.only or p["id"] in args.only]
    cat = catalogue.load()
    embedder = embed.minilm(cat.get("all-minilm-l6-v2-int8").folder())
    model = roles.load_local(Settings(), "large", cat, background=True)
    lazy: LazyModel[LocalModel] = LazyModel(lambda: model, 3600)
    source = LocalDistiller(lazy)
    print(
        f"distiller {Settings().large_model}, {len(pairs)} pairs, first {args.first}\n", flush=True
    )
    counts: dict[str, int] = {}
    start = time.perf_counter()
    for n, pair in enumerate(pairs):
        store = MemoryStore.open(paths.data_dir() / f"pair{n}.sqlite3", embedder)
        lines = [f"{pair['id']} ({pair['kind']}, {pair['language']})"]
        first = pair["first"]
        lines += [
            "  first:",
            *(keep(store, first) if args.first == "said" else learn(store, source, first)),
        ]
        lines += ["  correction:", *learn(store, source, pair["correction"])]
        outcome, shown = verdict(store, pair)
        counts[outcome] = counts.get(outcome, 0) + 1
        print("\n".join([*lines, f"  => {outcome}", *shown, ""]), flush=True)
        store.conn.close()
    model.close()
    said = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{time.perf_counter() - start:.0f} s; {said}")
    print(f"only the new fact injected: {counts.get('only new', 0)} of {len(pairs)}")


if __name__ == "__main__":
    main()
