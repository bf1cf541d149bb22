"""End to end: does a correction said in the user's own words become a stored lesson, and an
ordinary reply never?

Run: ``.venv/bin/python bench/lessons_kept.py [--set FILE ...] [--per N]``. For the first
``N`` corrections and standing instructions and the first ``N // 2`` ordinary replies of each
phrasing set (``resources/eval/phrasings_*.json`` by default; a blind twin is measured once),
on a fresh database, as in the window: the exchange before the reply is in the chat (the
user's request and the answer the set gives), the reply is sent as a turn (the real
Qwen2.5-Coder-0.5B answers it; the turn reads it, ``assistant/reading``), and a learning job
of the chat is run with the real Qwen2.5-Coder-1.5B (``consolidation.run_job``: the job a
correction queues at once, or the one an idle chat gets). It counts, per label: the reply
read as a correction (a signal on the answer), and a lesson stored. Each item prints the
lessons, so a miss can be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-")

from engram.assistant.learning import consolidation  # noqa: E402
from engram.assistant.learning.distiller_backends import LocalDistiller  # noqa: E402
from engram.assistant.session import embedder_for, open_session  # noqa: E402
from engram.core.cancel import CancelToken  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.memory import kinds  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.memory.jobs import JobQueue  # noqa: E402
from engram.memory.outcomes import Outcomes  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402
from engram.models import roles  # noqa: E402
from engram.models.background import LazyModel  # noqa: E402
from engram.models.local import LocalModel  # noqa: E402

DEV = [REPO / "resources/eval/phrasings_en.json", REPO / "resources/eval/phrasings_zh.json"]
CORRECTS = ("correction", "instruction")


def chosen(items: list[dict[str, Any]], per: int) -> list[dict[str, Any]]:
    """The first ``per`` corrections and instructions, and the first ``per // 2`` ordinary."""
    correcting = [i for i in items if i["label"] in CORRECTS][:per]
    return correcting + [i for i in items if i["label"] == "ordinary"][: per // 2]


def one(item: dict[str, Any], n: int, small: LocalModel, source: LocalDistiller) -> dict[str, Any]:
    """One exchange and reply, learned from; what was read and kept."""
    os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix=f"engram-bench-{n}-")  # a fresh file
    session = open_session(Settings(), small=small)
    try:
        store = session.store
        assert store is not None
        log = EpisodeLog(store.conn)
        chat = log.new_conversation().id
        log.append(chat, "user", item["context"]["user"])
        answer = log.append(chat, "assistant", item["context"]["assistant"])
        for _event in session.assistant.turn(chat, item["text"]):
            pass
        read = bool(Outcomes(store).kinds_on(answer.id))
        queue = JobQueue(store.conn)
        queue.enqueue(chat, reason="correction" if read else "idle")
        while (job := queue.claim()) is not None:
            job_store = MemoryStore(store.conn, store.embedder)
            consolidation.run_job(job, job_store, queue, source, CancelToken())
        lessons = [m.content for m in store.memories(kinds=[kinds.LESSON])]
        return {"id": item["id"], "label": item["label"], "read": read, "lessons": lessons}
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, nargs="*", default=DEV)
    parser.add_argument("--per", type=int, default=12)
    args = parser.parse_args()
    settings = Settings()
    small = roles.load_local(settings, "small")
    large = roles.load_local(settings, "large", background=True)
    source = LocalDistiller(LazyModel(lambda: large, 3600))
    print(f"embedder {embedder_for(settings).model_id}; {settings.small_model} answers, "
          f"{settings.large_model} learns", flush=True)  # fmt: skip
    start, n = time.perf_counter(), 0
    for path in args.set:
        items = chosen(json.loads(path.read_text("utf-8"))["items"], args.per)
        counts: dict[str, list[int]] = {}
        for item in items:
            n += 1
            found = one(item, n, small, source)
            label = "correcting" if item["label"] in CORRECTS else "ordinary"
            row = counts.setdefault(label, [0, 0, 0])
            row[0] += 1
            row[1] += found["read"]
            row[2] += bool(found["lessons"])
            said = f"read {found['read']}, lessons {found['lessons']}"
            print(f"{found['id']} {found['label']}: {said}", flush=True)
        for label, (total, read, kept) in counts.items():
            print(
                f"{path.name} {label}: {total}; read as a correction {read}; a lesson kept {kept}"
            )
    print(f"{time.perf_counter() - start:.0f} s")
    small.close()
    large.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
