"""The persisted queue survives SIGKILL mid-job: after a restart the job completes exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engram.core import paths
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from test_consolidation_support import chat, minilm
from waiting import wait_until

TESTS = Path(__file__).parent
CHILD = """
import sys, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from test_consolidation_support import ScriptedModel, ScriptedSource, memories_answer, minilm
from engram.assistant.learning.consolidation import ConsolidationWorker
from engram.core import paths
from engram.memory.store import MemoryStore

mode, marker, models = sys.argv[1:4]
answer = memories_answer(
    ("fact", "The user keeps bees on the roof of the house."),
    ("fact", "The user sells honey from the roof beehives at the market."),
)

def hang(result):
    def slow(messages):
        Path(marker).write_text("started")
        threading.Event().wait(60)  # the test kills this process long before
        return result(messages)
    return slow

add = lambda messages: {"decision": "add", "target_id": 0, "content": ""}
model = ScriptedModel(
    hang(answer) if mode == "distill" else answer,
    hang(add) if mode == "reconcile" else add,
)
embedder = minilm(Path(models))
worker = ConsolidationWorker(
    lambda: MemoryStore.open(paths.database_path(), embedder), ScriptedSource(model), poll=0.05
)
worker.start()
deadline = time.monotonic() + 60
while worker.jobs_done == 0 and time.monotonic() < deadline:
    time.sleep(0.05)
worker.stop()
sys.exit(0 if worker.jobs_done == 1 else 1)
"""


def child(mode: str, marker: Path, models: Path) -> subprocess.Popen[bytes]:
    """Start a worker process; its output goes to ``<mode>.log`` next to the marker."""
    with open(marker.with_name(f"{mode}.log"), "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", CHILD, mode, str(marker), str(models), str(TESTS)],
            env=os.environ.copy(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.slow
@pytest.mark.parametrize("kill_during", ["distill", "reconcile"])
def test_a_killed_job_is_requeued_and_completes_exactly_once(
    kill_during: str, starter_models: Path, tmp_path: Path
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    chat(store, [("I keep bees on my roof.", "Lovely!"), ("I sell the honey.", "Nice.")])
    job = JobQueue(store.conn).enqueue(1)
    assert job is not None
    marker = tmp_path / "started"

    first = child(kill_during, marker, starter_models)
    try:
        wait_until(lambda: marker.exists() or first.poll() is not None, timeout=60)
        assert first.poll() is None, (tmp_path / f"{kill_during}.log").read_text()
        os.kill(first.pid, signal.SIGKILL)
    finally:
        first.wait(30)
    assert first.returncode == -signal.SIGKILL
    killed = JobQueue(store.conn).get(job.id)
    assert killed is not None and killed.status == "running"
    written_before = len(store.memories())
    assert written_before == (1 if kill_during == "reconcile" else 0)

    second = child("none", marker, starter_models)
    assert second.wait(90) == 0, (tmp_path / "none.log").read_text()
    done = JobQueue(store.conn).get(job.id)
    assert done is not None and (done.status, done.attempts) == ("done", 2)
    contents = sorted(m.content for m in store.memories(statuses=None))
    assert contents == [
        "The user keeps bees on the roof of the house.",
        "The user sells honey from the roof beehives at the market.",
    ]
    store.conn.close()
