"""Undoing a learning job: what it added is retired, what it changed or replaced is as before, no
tombstone is written; and the "Memory updated" toast that offers it stays, whole, until read.

A real job on a real file (SQLite, MiniLM) with a scripted distiller: the exact adds, updates and
replacements are the point here (the same paths run with real models in the consolidation
tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant import unlearn
from engram.assistant.events import Learned
from engram.assistant.learning.consolidation import run_job
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.core.messages import Message
from engram.memory import embed
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from engram.ui import toast
from engram.ui.notices import Notices
from engram.ui.toast import Notice
from test_consolidation_support import ScriptedModel, ScriptedSource, chat, memories_answer, minilm

BEIJING = "The user lives in Beijing."
CATS = "The user has a cat called Mimi."
CELLO = "The user plays the cello."
# Longer than any toast ever cut at: shown whole.
PARTY = (
    "For Lily's seventh birthday party in May the user plans a dinosaur theme with a cake shaped"
    " like a stegosaurus, a treasure hunt for plastic fossils in the garden, paper hats, and"
    " recommends bringing a new favourite toy or a book about dinosaurs as a present."
)


@pytest.fixture(scope="module")
def embedder(starter_models: Path) -> embed.FastEmbedder:
    return minilm(starter_models)


@pytest.fixture
def store(embedder: embed.FastEmbedder) -> Iterator[MemoryStore]:
    tiny.save()  # the app's settings: the embedder the undo opens the file with
    opened = MemoryStore.open(paths.database_path(), embedder)
    yield opened
    opened.conn.close()


def _reconcile(messages: list[Message]) -> dict[str, Any]:
    """Moving replaces where the user lives; the second cat updates the cat."""
    asked = messages[-1]["content"]
    if "Shanghai" in asked:
        return {"decision": "supersede", "target_id": _id_of(asked, BEIJING), "content": ""}
    if "two cats" in asked:
        return {
            "decision": "update",
            "target_id": _id_of(asked, CATS),
            "content": "The user has two cats, one called Mimi.",
        }
    return {"decision": "add", "target_id": 0, "content": ""}


def _id_of(asked: str, content: str) -> int:
    line = next(line for line in asked.splitlines() if content in line and line.startswith("["))
    return int(line[1 : line.index("]")])


def _learn(store: MemoryStore) -> tuple[Learned, ...]:
    """One learning job over a chat, run as the learning thread runs it."""
    chat(
        store,
        [("I moved to Shanghai last month.", "Exciting!"),
         ("We adopted a second cat, Tofu.", "Lovely."),
         (PARTY, "Sounds fun.")],
    )  # fmt: skip
    model = ScriptedModel(
        memories_answer(
            ("profile", "The user moved to Shanghai."),
            ("fact", "The user has two cats."),
            ("fact", PARTY),
        ),
        _reconcile,
    )
    queue = JobQueue(store.conn)
    queue.enqueue(1)
    job = queue.claim()
    assert job is not None
    result = run_job(job, store, queue, ScriptedSource(model), CancelToken())
    assert result.outcome == "done"
    return result.learned


def _state(store: MemoryStore) -> dict[str, tuple[str, int | None]]:
    return {m.content: (m.status, m.superseded_by) for m in store.memories(statuses=None)}


def _tombstones() -> int:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return int(conn.execute("SELECT COUNT(*) FROM tombstones").fetchall()[0][0])
    finally:
        conn.close()


def test_undoing_a_job_retires_what_it_added_and_restores_what_it_changed(
    store: MemoryStore,
) -> None:
    for content, kind in ((BEIJING, "profile"), (CATS, "fact"), (CELLO, "fact")):
        store.add(content, kind, origin="local")
    before = _state(store)
    learned = _learn(store)
    assert sorted((i.action, i.job_id) for i in learned) == [
        ("add", 1), ("supersede", 1), ("supersede", 1)
    ]  # fmt: skip
    assert _state(store)[BEIJING][0] == _state(store)[CATS][0] == "superseded"

    undone = unlearn.undo(store, {1})

    assert undone == unlearn.Unlearned(retired=3, restored=2)
    after = _state(store)
    assert {c: s for c, s in after.items() if c in before} == before  # as they were
    for new in ("The user moved to Shanghai.", "The user has two cats.", PARTY):
        assert after[new] == ("archived", None)
    assert next(m.content for m in store.search("cats", k=3)) == CATS  # its vector is back too
    assert _tombstones() == 0  # taken back, not called wrong: it may be learned again
    cats = next(m for m in store.memories() if m.content == CATS)
    assert store.writes(cats.id)[-1].via == "user"  # the undo is the user's own write
    assert unlearn.undo(store, {1}) == unlearn.Unlearned()  # once is all


def test_the_learning_toast_stays_whole_and_its_undo_reverts_the_job(
    qtbot: QtBot, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 50)  # a passing toast lives 50 ms here, not 6 s
    store.add(CATS, "fact", origin="local")
    store.add(BEIJING, "profile", origin="local")
    learned = _learn(store)
    notice = Notice()
    qtbot.addWidget(notice)
    notices = Notices(notice, lambda: pytest.fail("Manage was not clicked"))
    notice.show()
    notices.learned(learned)
    text = notice.text()
    qtbot.wait(250)  # five lifetimes of a passing toast: 30 s at the real length
    assert notice.isVisible() and notice.text() == text
    assert text.startswith("Memory updated: 1 new, 2 changed")
    assert f"+ {PARTY}" in text.splitlines()  # whole, on its own line: no word cut off
    assert notice.label.wordWrap()
    assert '<a href="undo_learning">Undo</a>' in notice.label.text()

    notice.label.linkActivated.emit("undo_learning")
    qtbot.waitUntil(lambda: notice.text().startswith("Undone:"), timeout=30_000)
    assert notice.text() == "Undone: your memories are as they were before this learning."
    state = _state(store)
    assert state[BEIJING] == ("active", None) and state[CATS] == ("active", None)
    assert state[PARTY] == ("archived", None)
    qtbot.waitUntil(lambda: not notice.isVisible(), timeout=2_000)  # the Undo is gone with it
    assert notices._unlearning is None
