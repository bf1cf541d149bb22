"""SIGKILL chaos: Engram killed at random moments of turns, learning, imports and backups.

A child process runs a random mix of the real write paths on one database (a turn through
``Assistant.turn`` with a scripted model, a consolidation job through ``run_job`` with a
scripted distiller, a JSON Lines import, a backup) and prints what each one reported as done.
The test kills it at a random moment, checks the file (``quick_check``), that every reported
write is there and every listed backup is whole, then starts the next child on the same file.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from engram.core import paths
from engram.memory import backup, db

TESTS = Path(__file__).parent
# 20 in every run of the suite; ENGRAM_CHAOS_KILLS=200 for a deeper one.
KILLS = int(os.environ.get("ENGRAM_CHAOS_KILLS", "20"))

CHILD = r"""
import json, random, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from test_consolidation_support import ScriptedModel, ScriptedSource, memories_answer, minilm
from engram.assistant.learning.consolidation import run_job
from engram.assistant.events import Finished
from engram.memory.jobs import JobQueue
from engram.assistant.turn.recall import Recall
from engram.assistant.turn.pipeline import Assistant
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.memory import backup, transfer
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models.capabilities import Capabilities

class Talker:
    n_ctx = 4096
    capabilities = Capabilities()
    def count_tokens(self, text): return len(text) // 4 + 1
    def prefill(self, messages, cancelled=None, tools=None): return 0
    def stream_chat(self, messages, max_tokens=0, cancelled=lambda: False):
        for word in "Noted, I will keep that in mind for later .".split():
            yield word + " "

rng = random.Random(int(sys.argv[1]))
store = MemoryStore.open(paths.database_path(), minilm(Path(sys.argv[3])))
assistant = Assistant(EpisodeLog(store.conn), Talker(), recall=Recall(store, lambda t: len(t) // 4))
queue = JobQueue(store.conn)
model = ScriptedModel(memories_answer(("fact", "The user tends a vegetable garden.")))
store.embedder.embed(["warm up"])  # so the kills land in the work, not in loading the model
print("ready", flush=True)
n = 0
while True:
    n += 1
    op = rng.choice(["turn", "turn", "turn", "remember", "learn", "import", "backup"])
    if op in ("turn", "remember"):
        chat = rng.choice([c.id for c in assistant.log.conversations()] or [0])
        text = f"remember this: my locker {n} is blue" if op == "remember" else f"note {n} on peas"
        for event in assistant.turn(chat, text):
            if isinstance(event, Finished):
                print("episode", event.episode_id, flush=True)
    elif op == "learn":
        for c in assistant.log.conversations()[:1]:
            queue.enqueue(c.id)
        job = queue.claim()
        if job is not None and run_job(job, store, queue, ScriptedSource(model), CancelToken(),
                                       retry_delay=0).outcome == "done":
            print("job", job.id, flush=True)
    elif op == "import":
        lines = [json.dumps({"type": transfer.FORMAT, "version": 1})]
        lines += [json.dumps({"type": "memory", "kind": "fact", "content": f"Imported {n}.{i}"})
                  for i in range(rng.randrange(1, 30))]
        path = Path(tempfile.mkdtemp()) / "import.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        transfer.import_jsonl(store, path)
        print("import", f"Imported {n}.0", flush=True)
    else:
        made = backup.backup(paths.database_path(), backup.folder_of(paths.database_path()), 3)
        print("backup", made, flush=True)
"""


def _check(path: Path, reported: list[list[str]]) -> dict[str, int]:
    conn = apsw.Connection(str(path))
    try:
        db.verify(conn)
        counts = {}
        for kind, table, column in (
            ("episode", "episodes", "id"),
            ("job", "consolidation_jobs", "id"),
            ("import", "memories", "content"),
        ):
            wanted = [line[1] for line in reported if line[0] == kind]
            for value in wanted:
                key = int(value) if column == "id" else value
                assert db.scalar(conn, f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (key,))
            counts[kind] = len(wanted)
        done = db.scalar(conn, "SELECT COUNT(*) FROM consolidation_jobs WHERE status = 'done'")
        assert done >= counts["job"]
    finally:
        conn.close()
    for made in backup.listed(backup.folder_of(path)):
        copy = apsw.Connection(str(made), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            db.verify(copy)
        finally:
            copy.close()
    return counts


@pytest.mark.slow
def test_kills_at_random_moments_lose_nothing_that_was_reported(
    starter_models: Path, engram_home: Path
) -> None:
    rng = random.Random(16)
    path = paths.database_path()
    totals: dict[str, int] = {}
    env = {**os.environ, "ENGRAM_HOME": str(engram_home)}
    for kill in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(kill), str(TESTS), str(starter_models)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.2, 2.5))
        os.kill(child.pid, signal.SIGKILL)
        out, _ = child.communicate(timeout=60)
        assert child.returncode == -signal.SIGKILL, out
        lines = [line.split(" ", 1) for line in out.splitlines() if " " in line]
        for kind, count in _check(path, lines).items():
            totals[kind] = totals.get(kind, 0) + count
    print(f"\n{KILLS} kills survived; reported and found: {totals}")
    assert totals["episode"] > KILLS  # the kills hit work in progress, not idle children
