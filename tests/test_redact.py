"""Redaction for the cloud distiller: placeholders out, originals restored locally, no leaks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant.events import Status
from engram.assistant.learning.consolidation import ConsolidationWorker
from engram.assistant.learning.distiller_backends import CloudDistiller
from engram.assistant.learning.redact import Redactor, luhn_ok
from engram.core import paths
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from engram.models.cloud import CloudClient
from openai_server import KEY, running
from test_consolidation_support import minilm
from waiting import wait_until

SECRETS = {
    "email": "zhang.wei@example.com",
    "mobile": "13812345678",
    "phone": "+1 415-555-0134",
    "id": "11010119900307123X",
    "card": "4111 1111 1111 1111",
    "ip": "192.168.31.7",
    "url": "https://admin:s3cr3t@nas.example.org/share",
    "password": "hunter2!",
    "zh_password": "qwe789",
    "key": "sk-proj-abcdEFGH12345678",
    "name": "Zhang Wei",
    "zh_name": "李小明",
    "address": "221 Baker Street",
    "zh_address": "建国路88号",
}
TEXT = (
    f"My name is {SECRETS['name']}, mail me at {SECRETS['email']} or call {SECRETS['mobile']} / "
    f"{SECRETS['phone']}. ID {SECRETS['id']}, card {SECRETS['card']}. My NAS is at "
    f"{SECRETS['ip']} ({SECRETS['url']}), password: {SECRETS['password']}. 密码是"
    f"{SECRETS['zh_password']}。我叫{SECRETS['zh_name']}，住在北京市朝阳区{SECRETS['zh_address']}。"
    f"Key {SECRETS['key']}. I live at {SECRETS['address']}. Order 20240518 costs 1999 yuan."
)


def test_every_kind_of_personal_data_is_replaced_and_restored() -> None:
    redactor = Redactor(names=["Zhang Wei"])
    safe = redactor.redact(TEXT)
    for what, secret in SECRETS.items():
        assert secret not in safe, what
    assert "Order 20240518 costs 1999 yuan" in safe  # ordinary numbers stay
    assert redactor.restore(safe) == TEXT
    assert redactor.redact(f"again {SECRETS['email']}") == "again [EMAIL_1]"
    assert redactor.restore_value({"a": ["[EMAIL_1]", 3]}) == {"a": [SECRETS["email"], 3]}


def test_card_numbers_need_a_valid_checksum() -> None:
    assert luhn_ok("4111 1111 1111 1111")
    assert not luhn_ok("4111 1111 1111 1112")
    assert "4111 1111 1111 1112" in Redactor().redact("ref 4111 1111 1111 1112")


# The cloud distiller's answer: placeholders only, restored to the originals locally.
REPLY = json.dumps(
    {
        "memories": [
            {"kind": "profile", "content": "The user [NAME_1] uses [EMAIL_1].",
             "applies_to": [], "importance": 4, "episodes": [1]},
        ],
        "summary": "",
        "plan": {"goal": "", "steps": [], "current_step": 0},
    }
)  # fmt: skip


@pytest.fixture
def store(starter_models: Path) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(paths.database_path(), minilm(starter_models))
    yield opened
    opened.conn.close()


def consolidate(store: MemoryStore, client: CloudClient) -> list[Status]:
    statuses: list[Status] = []
    worker = ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        CloudDistiller(client, names=["Zhang Wei"]),
        on_status=statuses.append,
        poll=0.05,
    )
    worker.start()
    try:
        wait_until(lambda: any(s.state in ("failed",) for s in statuses) or worker.jobs_done > 0)
    finally:
        worker.stop()
    return statuses


@pytest.mark.network_local
def test_no_secret_reaches_the_cloud_and_the_answer_is_restored(store: MemoryStore) -> None:
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation()
    log.append(conversation.id, "user", TEXT)
    log.append(conversation.id, "assistant", f"Thanks {SECRETS['name']}, noted.")
    assert JobQueue(store.conn).enqueue(conversation.id) is not None
    with running() as server:
        server.reply = REPLY
        client = CloudClient(server.base_url, "test-model", KEY, retries=0, timeout=5)
        consolidate(store, client)
        sent = [json.dumps(r["body"], ensure_ascii=False) for r in server.requests]
    assert sent, "the distiller never called the API"
    for body in sent:
        for what, secret in SECRETS.items():
            assert secret not in body, what
    assert "[EMAIL_1]" in sent[0]
    contents = [m.content for m in store.memories()]
    assert contents == [f"The user {SECRETS['name']} uses {SECRETS['email']}."]
    assert all(m.origin == "cloud" for m in store.memories())


@pytest.mark.network_local
def test_cloud_down_keeps_the_job_waiting_with_the_reason(store: MemoryStore) -> None:
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation()
    log.append(conversation.id, "user", "I start a new job on Monday.")
    job = JobQueue(store.conn).enqueue(conversation.id)
    assert job is not None
    with running() as server:
        server.script = ["500"] * 5
        client = CloudClient(server.base_url, "test-model", KEY, retries=0, timeout=5)
        statuses = consolidate(store, client)
    assert statuses[-1].state == "failed" and "HTTP 500" in str(statuses[-1].error)
    assert statuses[-1].model == "cloud"
    waiting = JobQueue(store.conn).get(job.id)
    assert waiting is not None and (waiting.status, waiting.attempts) == ("queued", 0)
    assert store.memories() == []
