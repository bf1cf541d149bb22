"""A memory's history keeps the text each change replaced; Engram's changes can be undone."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from engram.assistant.learning import reconcile
from engram.assistant.learning.proposals import Candidate
from engram.assistant.session import USER
from engram.core import paths
from engram.core.errors import InputError
from engram.memory import db, embed
from engram.memory.records import Provenance
from engram.memory.store import MemoryStore
from test_memory_store import embedder  # noqa: F401  (shared fixture)

DISTILLER = Provenance("distiller", model="qwen2.5-1.5b-instruct")


@pytest.fixture
def store(embedder: embed.FastEmbedder) -> Iterator[MemoryStore]:  # noqa: F811
    opened = MemoryStore.open(paths.database_path(), embedder, writer=USER)
    yield opened
    opened.conn.close()


def _vector(store: MemoryStore, memory_id: int) -> np.ndarray:
    assert store.index is not None
    return store.index.get("memories", [memory_id])[memory_id].reshape(-1)


def _learned_update(store: MemoryStore, target: int, text: str) -> None:
    """The distiller merging a candidate into ``target`` (reconcile's update, as a job does)."""
    candidate = Candidate("preference", text, 0.6, ())
    decision = reconcile.Decision("update", target, text, "model")
    with store.writing(DISTILLER):
        reconcile.apply(store, decision, candidate, origin="local", conversation_id=None, job_id=3)


def test_an_update_by_the_distiller_keeps_the_earlier_text_and_undo_puts_it_back(
    store: MemoryStore,
) -> None:
    mine = "I like my coffee black, no sugar."
    memory = store.add(mine, "preference", origin="local")
    merged = "The user likes coffee black with no sugar and oat milk in tea."
    _learned_update(store, memory.id, merged)
    assert store.get(memory.id).content == merged
    change = store.writes(memory.id)[-1]
    assert (change.via, change.model, change.before) == ("distiller", DISTILLER.model, mine)
    assert change.undoable and "content" in change.change

    restored = store.undo(memory.id, change.id)
    assert restored.content == mine
    expected = store.embedder.embed([mine]).reshape(-1)
    assert float(np.dot(_vector(store, memory.id), expected)) == pytest.approx(1.0, abs=1e-5)
    undone = store.writes(memory.id)[-1]
    assert (undone.via, undone.before) == ("user", merged)
    assert undone.detail == f"undid write #{change.id}" and not undone.undoable
    assert store.search("black coffee without sugar", k=1)[0].memory.id == memory.id


def test_every_change_of_the_text_keeps_what_it_replaced_and_other_writes_keep_none(
    store: MemoryStore,
) -> None:
    memory = store.add("The user's bike is green.")
    store.update(memory.id, "The user's bike is dark green.")
    store.update(memory.id, importance=0.9)
    with store.writing(Provenance("hygiene")):
        store.update(memory.id, status="archived")
    writes = store.writes(memory.id)
    assert [w.before for w in writes] == [None, "The user's bike is green.", None, None]
    # The user's own edit is not offered to undo; neither is a write that kept the text.
    assert not any(w.undoable for w in writes)
    with pytest.raises(InputError):
        store.undo(memory.id, writes[1].id)


def test_undoing_a_replacement_restores_the_replaced_memory_and_archives_the_new_one(
    store: MemoryStore,
) -> None:
    old = store.add("The user lives in Munich.", origin="local")
    with store.writing(DISTILLER):
        new = store.supersede(old.id, "The user lives in Berlin.", origin="local")
    (replacing,) = [w for w in store.writes(old.id) if w.replaced_by is not None]
    assert replacing.replaced_by == new.id and replacing.undoable
    store.undo(old.id, replacing.id)
    back, gone = store.get(old.id), store.get(new.id)
    assert (back.status, back.superseded_by, back.content) == ("active", None, old.content)
    assert gone.status == "archived"
    assert [m.id for m in store.memories()] == [old.id]
    assert [(w.change, w.via) for w in store.writes(new.id)][-1] == ("status → archived", "user")
    assert store.replaced_by(new.id) is None


def test_deleting_a_memory_erases_the_earlier_texts_too(store: MemoryStore) -> None:
    memory = store.add("The user's PIN hint is the dog's birthday.")
    with store.writing(DISTILLER):
        store.update(memory.id, "The user has a PIN hint.")
    store.delete(memory.id)
    assert (
        db.scalar(
            store.conn, "SELECT COUNT(*) FROM memory_writes WHERE memory_id = ?", (memory.id,)
        )
        == 0
    )
