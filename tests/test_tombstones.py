"""What the user takes away stays gone: a memory deleted, forgotten or marked wrong is not
written again by learning from the chats it came from or was given in, unless the user says it
again (real SQLite, sqlite-vec and MiniLM; the reconciler's model is never asked)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from engram.assistant.learning import reconcile
from engram.assistant.learning.proposals import Candidate
from engram.assistant.remembering import Forgotten, undo
from engram.memory import db, embed
from engram.memory.episodes import EpisodeLog
from engram.memory.injections import Injections
from engram.memory.kinds import FACT, LESSON, SUMMARY
from engram.memory.store import MemoryStore
from engram.memory.tombstones import clauses
from test_consolidation_support import minilm

STATED = "My grandmother Rosa turns ninety in October and loves orchids."
DISTILLED = "The user's grandmother Rosa turns ninety in October and loves orchids."
RESTATED = "The user's grandmother, Rosa, will be ninety in October; she loves orchids."


class _Unasked:
    """A reconciler model that must not be needed."""

    def structured(self, messages: Sequence[Any], json_schema: dict[str, Any], **_: Any) -> Any:
        raise AssertionError("the model was asked")


@pytest.fixture
def store(tmp_path: Path, starter_models: Path) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(tmp_path / "m.sqlite3", minilm(starter_models))
    yield opened
    opened.conn.close()


def _told(store: MemoryStore, text: str = STATED) -> tuple[int, int, int]:
    """A chat where the user said ``text`` and a memory was learned from it."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("family").id
    said = log.append(chat, "user", text, at=time.time() - 60)
    log.append(chat, "assistant", "How lovely! Orchids make a fine present.", at=time.time() - 59)
    memory = store.add(DISTILLED, FACT, origin="local", source_episodes=[said.id]).id
    return chat, said.id, memory


def _decide(store: MemoryStore, content: str, episodes: Sequence[int], kind: str = FACT) -> str:
    candidate = Candidate(kind, content, 0.5, tuple(episodes))
    return reconcile.decide(store, _Unasked(), candidate, "en").why


def test_a_deleted_memory_is_not_learned_again_from_its_chat(store: MemoryStore) -> None:
    _chat, said, memory = _told(store)
    store.delete(memory)
    # The same words, or the same memory in other words, or as a lesson: not written again.
    for content, kind in ((DISTILLED, FACT), (RESTATED, FACT), (DISTILLED, LESSON)):
        assert _decide(store, content, [said], kind) == f"#{memory} was taken away by the user"
    # Something else the same chat said is learned as ever.
    assert _decide(store, "The user plays the cello.", [said]) == "new"
    # Its words left the file: the tombstone keeps a digest and a vector, never the text.
    rows = db.rows(store.conn, "SELECT * FROM tombstones")
    assert len(rows) == 1 and "Rosa" not in repr(rows) and rows[0]["reason"] == "deleted"


def test_the_user_saying_it_again_writes_it_again(store: MemoryStore) -> None:
    chat, _said, memory = _told(store)
    store.delete(memory)
    again = EpisodeLog(store.conn).append(chat, "user", STATED)
    assert _decide(store, DISTILLED, [again.id]) == "new"
    # In another chat, where it never lived, it is learned too.
    other = EpisodeLog(store.conn).new_conversation("other").id
    told = EpisodeLog(store.conn).append(other, "user", STATED, at=time.time() - 3600)
    assert _decide(store, DISTILLED, [told.id]) == "new"


def test_a_chat_the_memory_was_given_in_does_not_bring_it_back(store: MemoryStore) -> None:
    _chat, _said, memory = _told(store)
    log = EpisodeLog(store.conn)
    spoiled = log.new_conversation("party").id
    asked = log.append(spoiled, "user", "What should I bring to the party?", at=time.time() - 30)
    answer = log.append(spoiled, "assistant", "Orchids for Rosa!", at=time.time() - 29)
    Injections(store.conn).record(answer.id, [(memory, 0.9)])
    store.delete(memory)
    assert _decide(store, RESTATED, [asked.id, answer.id]).endswith("taken away by the user")


def test_forget_buries_and_undo_lifts(store: MemoryStore) -> None:
    _chat, said, memory = _told(store)
    store.tombstones.bury(store.get(memory), "forgotten")  # type: ignore[arg-type]
    store.update(memory, status="archived")
    assert store.tombstones.covers(RESTATED, RESTATED, [said]) == memory
    undo(store, Forgotten(memory, DISTILLED))
    assert store.tombstones.covers(RESTATED, RESTATED, [said]) is None
    assert store.get(memory).status == "active"  # type: ignore[union-attr]


def test_forgetting_everything_with_the_chats_forgets_the_tombstones(store: MemoryStore) -> None:
    _told(store)
    store.delete(store.memories()[0].id)
    store.forget_all(episodes=False)
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM tombstones") == 1
    store.forget_all(episodes=True)
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM tombstones") == 0


def test_an_unrelated_memory_is_never_covered(store: MemoryStore, starter_models: Path) -> None:
    _chat, said, memory = _told(store)
    store.delete(memory)
    far = "The user's car needs new winter tyres."
    vectors = minilm(starter_models).embed([far, DISTILLED])
    assert float(vectors[0] @ vectors[1]) < embed.MINILM_FLOORS.restated
    assert store.tombstones.covers(far, far, [said]) is None


def test_a_summary_that_restates_a_deleted_memory_among_other_things_is_not_written(
    store: MemoryStore,
) -> None:
    _chat, said, memory = _told(store)
    store.delete(memory)
    summary = (
        "The user asked for gift ideas; the user's grandmother Rosa turns ninety in October, "
        "and the assistant listed flowers and books."
    )
    assert _decide(store, summary, [said], SUMMARY) == f"#{memory} was taken away by the user"
    other = "The user asked how to repot a cactus, and the assistant explained the steps."
    assert _decide(store, other, [said], SUMMARY) == "new"
    assert clauses("The user is allergic to cats.") == []  # one statement: compared whole
    assert clauses("用户对猫过敏，助手建议养一只低敏品种的狗。") == [
        "用户对猫过敏",
        "助手建议养一只低敏品种的狗",
    ]
