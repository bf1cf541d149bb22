"""No control leads nowhere: Regenerate and Edit are offered only where they work, Remember is off
in a temporary chat (its tooltip says why), and Remember's "Learning from this chat…" always
ends in a result: what was learned, nothing new, or why it failed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import Learned, Status
from engram.assistant.learn import NOTHING_NEW
from engram.core import paths
from engram.core.errors import EngramError, tr
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import Job, JobQueue
from engram.ui import toast
from engram.ui.main_window import MainWindow


def _seed_two_turns() -> None:
    conn = db.connect(paths.database_path())
    try:
        log = EpisodeLog(conn)
        conversation = log.new_conversation("Fruit").id
        turns = (("user", "Name a fruit"), ("assistant", "Apple."), ("user", "Another one"),
                 ("assistant", "Pear."))  # fmt: skip
        for role, text in turns:
            log.append(conversation, role, text)
    finally:
        conn.close()


def _open(qtbot: QtBot, loaded_models: LoadedModels, **prefs: object) -> MainWindow:
    window = MainWindow(tiny.settings(**prefs), loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    return window


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    _seed_two_turns()
    win = _open(qtbot, loaded_models)
    yield win
    win.close()


def _offered(bubble: object) -> set[str]:
    """The hover buttons shown when the pointer is over the message."""
    bubble.actions_row.show()  # type: ignore[attr-defined]
    buttons = bubble.buttons.items()  # type: ignore[attr-defined]
    return {name for name, button in buttons if button.isVisible()}


def test_regenerate_and_edit_are_offered_only_on_the_latest_turn(window: MainWindow) -> None:
    first_user, first_answer, user, answer = window.chat.bubbles()
    assert "regenerate" not in _offered(first_answer) and "edit" not in _offered(first_user)
    assert {"copy", "thumbs_up", "thumbs_down"} <= _offered(first_answer)
    assert "regenerate" in _offered(answer) and "edit" in _offered(user)
    menu = [action.text() for action in first_answer.menu_actions().actions()]
    assert "Regenerate" not in menu and "Copy message" in menu
    assert "Regenerate" in [action.text() for action in answer.menu_actions().actions()]

    window.turns.set_busy(True)  # while an answer runs nothing can be changed
    assert "regenerate" not in _offered(answer) and "edit" not in _offered(user)
    window.turns.set_busy(False)
    assert "regenerate" in _offered(answer)

    window.chat.drop_latest_turn()  # the turn before becomes the latest
    assert "regenerate" in _offered(first_answer) and "edit" in _offered(first_user)


def test_remember_is_off_in_a_temporary_chat_and_its_tooltip_says_why(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.remember_button.isEnabled()
    qtbot.mouseClick(window.temporary_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.turns.temporary, timeout=5_000)
    assert not window.remember_button.isEnabled()
    assert window.remember_button.toolTip() == "Temporary chats are not learned from."
    window._remember()  # even if asked: no job, no claim to learn
    assert not window.notice.isVisible() or "Learning" not in window.notice.text()

    qtbot.mouseClick(window.temporary_button, Qt.MouseButton.LeftButton)  # back to a normal chat
    window.sidebar.selected.emit(window.sidebar.chat_items()[0].data(Qt.ItemDataRole.UserRole))
    assert window.remember_button.isEnabled()
    assert window.remember_button.toolTip().startswith("Learn from this chat now")


@pytest.fixture
def scripted_learning(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> Iterator[MainWindow]:
    """The window hears only the statuses a test gives it (no real job runs)."""
    monkeypatch.setattr(toast, "TOAST_MS", 600_000)
    window.remember_requested.disconnect(window.worker.remember)
    window.worker.learning_status.disconnect(window.show_learning)
    window.show_learning(Status("idle", model="loaded"))
    yield window


def _remember(window: MainWindow, *statuses: Status) -> str:
    """Press Remember, let learning report ``statuses``; what the notice says at the end."""
    window._remember()
    assert "Learning" not in window.notice.text()  # nothing is claimed before a job is queued
    window._on_learning_queued(None)  # the worker queued one
    assert window.notice.text() == "Learning from this chat…"
    for status in statuses:
        window.show_learning(status)
    return window.notice.text()


def test_remember_ends_with_what_was_learned(scripted_learning: MainWindow) -> None:
    learned = (Learned(7, "add", "The user likes pears."),)
    said = _remember(
        scripted_learning,
        Status("distilling", 0.5, queued=1, model="loaded", job_id=3),
        Status("idle", model="loaded", learned=learned),
    )
    assert said.startswith("Memory updated: 1 new, 0 changed") and "likes pears" in said


def test_remember_ends_with_nothing_new_when_nothing_was_learned(
    scripted_learning: MainWindow,
) -> None:
    said = _remember(
        scripted_learning,
        Status("waiting", queued=1, model="loaded"),
        Status("distilling", 0.5, queued=1, model="loaded", job_id=3),
        Status("idle", model="loaded"),
    )
    assert said == "Nothing new to learn from this chat: your memories are up to date."


def test_remember_ends_with_why_learning_failed(scripted_learning: MainWindow) -> None:
    problem = EngramError(tr("No large model is configured for memory consolidation.")).problem
    said = _remember(
        scripted_learning,
        Status("distilling", queued=1, model="loaded", job_id=3),
        Status("failed", queued=1, model="loaded", error=problem, job_id=3),
    )
    assert said == (
        "Engram could not learn from this chat: "
        "No large model is configured for memory consolidation."
    )


def test_remember_while_memory_is_paused_says_so_at_once(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    _seed_two_turns()
    window = _open(qtbot, loaded_models, memory_paused=True)
    asked: list[int] = []
    window.remember_requested.connect(asked.append)
    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)
    assert asked == []
    assert window.notice.text().startswith("Memory is paused: Engram learns nothing new")
    window.close()


def test_remember_says_learning_only_when_a_job_was_queued(
    qtbot: QtBot, scripted_learning: MainWindow
) -> None:
    window = scripted_learning  # the real worker queues; how learning ends is not heard here
    window.remember_requested.connect(window.worker.remember)
    said: list[object] = []
    window.worker.learning_queued.connect(said.append)
    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(said) == 1, timeout=10_000)
    assert said == [None]  # a job was queued
    # The window hears the worker through a queued connection: its notice may come a moment later.
    qtbot.waitUntil(lambda: window.notice.text() == "Learning from this chat…", timeout=10_000)
    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)  # all of it is queued
    qtbot.waitUntil(lambda: len(said) == 2, timeout=10_000)
    assert said[1] == NOTHING_NEW
    qtbot.waitUntil(
        lambda: window.notice.text().startswith(
            "Nothing new to learn from this chat: Engram has learned from all of it already."
        ),
        timeout=10_000,
    )
    assert [job.reason for job in _jobs()] == ["remember"]


def _jobs() -> list[Job]:
    conn = db.connect(paths.database_path())
    try:
        return JobQueue(conn).jobs()
    finally:
        conn.close()
