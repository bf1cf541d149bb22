"""Promises users care about: pause pauses, temporary chats leave nothing, corrections stick."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant import distill
from engram.assistant.events import Finished, NotRemembered, Remembered, TurnEvent
from engram.assistant.jobs import JobQueue
from engram.assistant.recall import Recall
from engram.assistant.scheduler import Scheduler
from engram.assistant.turn import Assistant
from engram.core.settings import Settings
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models.local import LocalModel
from test_consolidation_support import ScriptedModel, minilm

SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
PIN = "4321"
PASSPORT = "E12345678"


@pytest.fixture(scope="module")
def model(starter_models: Path) -> Iterator[LocalModel]:
    loaded = LocalModel(starter_models / SMOL, n_ctx=2048, state_cache_mb=0)
    yield loaded
    loaded.close()


class Memory:
    """A switchable pause, as the settings hold it."""

    def __init__(self) -> None:
        self.paused = False

    def settings(self) -> Settings:
        return Settings(memory_paused=self.paused, consolidate_every_turns=2)


@pytest.fixture
def store(starter_models: Path, tmp_path: Path) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(tmp_path / "engram.db", minilm(starter_models))
    yield opened
    opened.conn.close()


def build(store: MemoryStore, model: LocalModel, memory: Memory) -> tuple[Assistant, JobQueue]:
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, memory.settings)
    assistant = Assistant(
        EpisodeLog(store.conn),
        model,
        max_answer_tokens=12,
        recall=Recall(store, model.count_tokens),
        scheduler=scheduler,
        paused=lambda: memory.paused,
    )
    return assistant, queue


def run(assistant: Assistant, conversation_id: int, text: str) -> list[TurnEvent]:
    events = list(assistant.turn(conversation_id, text))
    assert any(isinstance(e, Finished) for e in events), events
    return events


def learned_everything(store: MemoryStore, queue: JobQueue) -> ScriptedModel:
    """Distill every queued job with a distiller that keeps each user message as a memory."""

    def answer(messages: list[dict[str, str]]) -> dict[str, object]:
        lines = [line for line in messages[-1]["content"].splitlines() if "] user: " in line]
        return {
            "memories": [
                {
                    "kind": "fact",
                    "content": line.split("] user: ", 1)[1],
                    "importance": 4,
                    "episodes": [int(line[1 : line.index("]")])],
                }
                for line in lines
            ],
            "summary": "",
            "plan": {"goal": "", "steps": [], "current_step": 0},
        }

    scripted = ScriptedModel(answer)
    while (job := queue.claim()) is not None:
        episodes = queue.episodes(job)
        result, _raw = distill.distill(scripted, episodes)
        for candidate in result.candidates:
            store.add(candidate.content, candidate.kind, origin="local")
        queue.complete(job.id)
    return scripted


def test_nothing_said_while_paused_is_ever_learned(store: MemoryStore, model: LocalModel) -> None:
    memory = Memory()
    assistant, queue = build(store, model, memory)
    conversation = assistant.new_conversation("bank")
    run(assistant, conversation, "My favourite colour is green.")
    memory.paused = True
    events = run(assistant, conversation, f"remember this: my bank PIN is {PIN}")
    refused = [e for e in events if isinstance(e, NotRemembered)]
    assert len(refused) == 1 and "paused" in refused[0].problem.message
    assert not any(isinstance(e, Remembered) for e in events)
    run(assistant, conversation, f"My passport number is {PASSPORT}.")
    memory.paused = False
    run(assistant, conversation, "I like hiking on weekends.")
    assert assistant.scheduler is not None
    assistant.scheduler.on_exit()

    scripted = learned_everything(store, queue)
    sent = "\n".join(m["content"] for _kind, messages in scripted.calls for m in messages)
    assert "hiking" in sent and "green" in sent  # what was said unpaused is learned
    assert PIN not in sent and PASSPORT not in sent
    contents = " ".join(m.content for m in store.memories())
    assert "hiking" in contents
    assert PIN not in contents and PASSPORT not in contents
    # The messages themselves stay in the chat (recall of history can stay on).
    said = [e.content for e in assistant.log.episodes(conversation)]
    assert any(PIN in text for text in said)
    assert queue.enqueue_all() == []  # and the next exit finds nothing left to learn


def test_a_temporary_chat_is_not_learned_not_recalled_and_deleted(
    store: MemoryStore, model: LocalModel
) -> None:
    memory = Memory()
    assistant, queue = build(store, model, memory)
    temporary = assistant.new_conversation("scratch", temporary=True)
    conversation = assistant.log.conversation(temporary)
    assert conversation is not None and conversation.temporary
    events = run(assistant, temporary, "remember this: my locker code is 9911")
    refused = [e for e in events if isinstance(e, NotRemembered)]
    assert len(refused) == 1 and "temporary" in refused[0].problem.message
    run(assistant, temporary, "The locker code 9911 opens the blue locker.")
    assert queue.jobs() == [] and queue.enqueue_all() == []

    normal = assistant.new_conversation("normal")
    recall = assistant.recall
    assert recall is not None
    assert recall.episodes.search("locker code 9911", k=10) == []
    prepared = assistant.prepare("What is my locker code?", [])
    assert all("9911" not in item.content for item in prepared.items)
    run(assistant, normal, "What opens the blue locker?")

    assistant.close_conversation(temporary)
    assert assistant.log.conversation(temporary) is None
    rows = store.conn.execute("SELECT COUNT(*) FROM episodes WHERE content LIKE '%9911%'")
    assert rows.fetchall()[0][0] == 0
    assert assistant.log.conversation(normal) is not None
    assert assistant.close_conversation(normal) is None and assistant.log.conversation(normal)


def test_temporary_chats_left_by_a_crash_are_deleted_at_the_next_start(
    store: MemoryStore, model: LocalModel
) -> None:
    assistant, _queue = build(store, model, Memory())
    left = assistant.new_conversation("scratch", temporary=True)
    assistant.log.append(left, "user", "a secret said in a temporary chat")
    kept = assistant.new_conversation("normal")
    again, _ = build(store, model, Memory())
    assert again.scrub_temporary() == 1
    assert again.log.conversation(left) is None and again.log.conversation(kept) is not None
    assert again.scrub_temporary() == 0
