"""A known API key and known personal data go through every path; then every byte Engram wrote
and every byte it sent to the (test) cloud API is searched for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from openai_server import KEY, running
from test_redact import REPLY, SECRETS, TEXT

TESTS = Path(__file__).parent

CHILD = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import keyring
from test_secrets import MemoryKeyring
from test_consolidation_support import minilm
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.distiller_backends import CloudDistiller
from engram.memory.jobs import JobQueue
from engram.core import log, paths
from engram.core.cancel import CancelToken
from engram.memory import backup, transfer
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models import secrets
from engram.models.cloud import CloudClient

base_url, models, text, name = sys.argv[2:6]
log.setup(to_file=True)
keyring.set_keyring(MemoryKeyring())
keys = secrets.KeyStore()
keys.set("cloud-test", sys.argv[6])
client = CloudClient(base_url, "test-model", keys.get("cloud-test"), retries=0, timeout=5)
store = MemoryStore.open(paths.database_path(), minilm(Path(models)))
chats = EpisodeLog(store.conn)
chat = chats.new_conversation("secrets").id
chats.append(chat, "user", text)
chats.append(chat, "assistant", f"Thanks {name}, noted.")
queue = JobQueue(store.conn)
queue.enqueue(chat)
for attempt in range(2):  # the first answer is an error quoting the key, the second succeeds
    job = queue.claim(now=10**10)
    result = run_job(job, store, queue, CloudDistiller(client, names=[name]), CancelToken(),
                     retry_delay=0)
    print(attempt, result.outcome, flush=True)
store.add(f"remember this: {text[:200]}", origin="user")
out = paths.data_dir() / "export.jsonl"  # the user's own export: their data, never the key
with out.open("w", encoding="utf-8") as handle:
    transfer.export_jsonl(store, handle, episodes=True)
transfer.import_jsonl(store, out)
backup.backup(paths.database_path(), backup.folder_of(paths.database_path()), 3)
store.search(name)
store.conn.close()
"""


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


@pytest.mark.slow
@pytest.mark.network_local
def test_the_key_is_nowhere_and_personal_data_only_in_the_database(
    starter_models: Path, engram_home: Path
) -> None:
    with running() as server:
        server.script = ["echo_key"]
        server.reply = REPLY
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(TESTS), server.base_url, str(starter_models),
             TEXT, SECRETS["name"], KEY],
            capture_output=True,
            text=True,
            env={**os.environ, "ENGRAM_HOME": str(engram_home)},
            timeout=300,
            check=False,
        )  # fmt: skip
        sent = [json.dumps(r, ensure_ascii=False).encode() for r in server.requests]
    assert child.returncode == 0, child.stderr
    assert child.stdout.split("\n")[:2] == ["0 deferred", "1 done"]  # a 500 waits, then works
    assert len(sent) == 2
    written = _files(engram_home)
    # The database, its WAL, backups and the user's export hold what the user said.
    stored = {p for p in written if ".sqlite3" in p.name or p.name == "export.jsonl"}
    assert stored and any(p.parent.name == "backups" for p in stored)
    scanned = 0
    for path in written:
        data = path.read_bytes()
        scanned += len(data)
        assert KEY.encode() not in data, path  # not in the log, the job's error, any file
        if path not in stored:  # the log, settings: ids and counts only
            for what, value in SECRETS.items():
                assert value.encode() not in data, (what, path)
    for body in sent:
        for what, value in SECRETS.items():
            assert value.encode() not in body, what  # the cloud saw placeholders only
    assert (child.stderr.encode() + child.stdout.encode()).count(KEY.encode()) == 0
    print(
        f"\nscanned {len(written)} files, {scanned:,} bytes, and {sum(map(len, sent)):,} bytes sent"
    )
