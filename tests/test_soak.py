"""A 500-turn soak with learning: memory, threads, open files and the database stay bounded."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

import tiny
from engram.assistant.events import Finished
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from test_consolidation_support import ScriptedModel, ScriptedSource, episode_ids, minilm
from test_lessons import KmChat

TURNS = 500
TOPICS = ["garden", "bicycle", "sister", "piano", "recipe", "marathon", "museum", "cat"]


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _figures(store: MemoryStore) -> dict[str, float]:
    size = db.scalar(store.conn, "PRAGMA page_count") * db.scalar(store.conn, "PRAGMA page_size")
    return {
        "rss_mb": _rss_mb(),
        "threads": threading.active_count(),
        "fds": len(os.listdir("/proc/self/fd")),
        "db_mb": size / 1e6,
        "memories": len(store.memories(limit=10_000)),
    }


def _distiller(messages: list[dict[str, str]]) -> dict[str, Any]:
    ids = episode_ids(messages)
    said = messages[-1]["content"]
    topic = next((t for t in TOPICS if t in said), "day")
    return {
        "memories": [
            {"kind": "fact", "content": f"The user talks about their {topic}.", "importance": 3,
             "episodes": ids[:1]},
        ],
        "summary": "",
        "plan": {"goal": "", "steps": [], "current_step": 0},
    }  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_five_hundred_turns_with_learning_stay_bounded(starter_models: Path) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, lambda: tiny.settings(consolidate_every_turns=5))
    assistant = Assistant(
        EpisodeLog(store.conn),
        KmChat(),
        recall=Recall(store, lambda text: len(text) // 4),
        scheduler=scheduler,
    )
    source = ScriptedSource(ScriptedModel(_distiller))
    chat = assistant.new_conversation("soak")
    jobs = 0
    warm: dict[str, float] = {}
    for turn in range(TURNS):
        if turn % 100 == 99:
            chat = assistant.new_conversation(f"soak {turn}")
        topic = TOPICS[turn % len(TOPICS)]
        events = list(assistant.turn(chat, f"Turn {turn}: today I spent time on my {topic}."))
        assert any(isinstance(e, Finished) for e in events)
        while (job := queue.claim()) is not None:
            assert run_job(job, store, queue, source, CancelToken(), retry_delay=0).outcome
            jobs += 1
        if turn == 49:
            warm = _figures(store)
    end = _figures(store)
    print(
        f"\nsoak: {TURNS} turns, {jobs} learning jobs; after 50 turns {warm}; after {TURNS} {end}"
    )
    assert jobs >= TURNS // 5 - 5
    assert end["threads"] == warm["threads"]
    assert end["fds"] <= warm["fds"] + 2
    assert end["rss_mb"] - warm["rss_mb"] < 60
    assert end["db_mb"] < 20  # 1,000 messages and their vectors
    assert end["memories"] <= len(TOPICS) + 1  # the same facts are reconciled, not repeated
    store.conn.close()
