"""Errors always reach the user: a failing turn or worker slot ends with a message (and, for a
bug, a log entry without the user's text), and a window whose database cannot be opened says so
instead of raising before the event loop."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from PySide6.QtWidgets import QLabel, QMessageBox
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import Failed, Token, TurnEvent
from engram.core import paths
from engram.core.errors import Problem, StoreError, tr
from engram.memory import db
from engram.ui.main_window import MainWindow
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.model_manager import ModelManager
from engram.ui.settings_dialog import SettingsDialog

LOAD_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 60_000
SECRET = "my-secret-password-4711"


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    win = MainWindow(tiny.settings(max_answer_tokens=64), loaded_models)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.turns.ready, timeout=LOAD_TIMEOUT_MS)
    yield win
    win.close()


def _fail_mid_answer(window: MainWindow, error: Exception) -> list[TurnEvent]:
    """Make the session's turns raise ``error`` after the first token; collect the events."""
    session = window.worker.app.session
    assert session is not None
    real = session.assistant.turn

    def turn(*args: object, **kwargs: object) -> Iterator[TurnEvent]:
        for event in real(*args, **kwargs):  # type: ignore[arg-type]
            yield event
            if isinstance(event, Token):
                raise error

    session.assistant.turn = turn  # type: ignore[method-assign]
    events: list[TurnEvent] = []
    window.worker.turn_event.connect(events.append)
    return events


@pytest.mark.parametrize(
    "error",
    [RuntimeError(f"bug while answering {SECRET}"), apsw.IOError(f"disk I/O error {SECRET}")],
    ids=["bug", "raw-sqlite"],
)
@pytest.mark.slow
def test_an_unexpected_error_mid_answer_closes_the_answer_and_says_where_the_log_is(
    qtbot: QtBot, window: MainWindow, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    events = _fail_mid_answer(window, error)
    with caplog.at_level(logging.ERROR, logger="engram"):
        window.submit(f"Tell me a story, {SECRET}")
        qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    failed = [e for e in events if isinstance(e, Failed)]
    assert len(failed) == 1 and failed[0].problem.params["path"]
    assert window.chat._streaming is None  # the answer bubble closed
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()
    said = window.notice.text()
    assert said.startswith("The answer broke off") and window.notice.isVisible()
    assert "Regenerate answers it again" in said
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"failed with {type(error).__name__}" in logged
    assert "test_worker_failures.py" in logged and "raise error" in logged  # the traceback
    assert SECRET not in logged  # neither the message nor the error's text
    window.submit("And now?")  # the window still works
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    assert len([e for e in events if isinstance(e, Failed)]) == 2


def test_a_known_error_in_a_worker_slot_is_shown_translated(
    qtbot: QtBot, window: MainWindow
) -> None:
    session = window.worker.app.session
    assert session is not None

    def rename(conversation_id: int, title: str) -> None:
        raise StoreError(tr("The database is busy."), tr("Try again."))

    session.assistant.log.rename = rename  # type: ignore[method-assign]
    with qtbot.waitSignal(window.worker.failed, timeout=5_000) as failed:
        window.rename_requested.emit(1, "New title")
    assert isinstance(failed.args[0], Problem)
    qtbot.waitUntil(lambda: "The database is busy." in window.notice.text(), timeout=5_000)
    assert "Try again." in window.notice.text()


def _unusable_database(kind: str) -> None:
    path = paths.database_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "a folder":
        path.mkdir()
    elif kind == "newer":
        db.connect(path).close()
        conn = apsw.Connection(str(path))
        conn.execute("INSERT INTO migrations VALUES ('9999_from_the_future', 0)")
        conn.close()
    else:
        path.write_bytes(b"this is not a database, it only has its name " * 200)


@pytest.mark.parametrize("kind", ["a folder", "not a database", "newer"])
def test_windows_on_an_unusable_database_open_and_say_why(
    qtbot: QtBot, loaded_models: LoadedModels, kind: str
) -> None:
    _unusable_database(kind)
    window = MainWindow(tiny.settings(), loaded_models)
    qtbot.addWidget(window)
    window.show()
    unloaded = lambda: window.model_state.full_text() == "No model loaded"  # noqa: E731
    qtbot.waitUntil(unloaded, timeout=LOAD_TIMEOUT_MS)
    assert window.notice.isVisible() and window.notice.text()
    assert not window.send_button.isEnabled()
    browser = window.show_memories()
    assert browser.problem is not None
    label = browser.centralWidget()
    assert isinstance(label, QLabel) and label.text() == window.notice.text()
    browser.select_memory(1)  # nothing to show, nothing raised
    window.close()
    assert not browser.isVisible()


def test_the_memory_browser_alone_reports_a_missing_embedding_model(qtbot: QtBot) -> None:
    browser = MemoryBrowser(tiny.settings(embedding_model="no-such-model"))
    qtbot.addWidget(browser)
    assert browser.problem is not None and "no-such-model" in str(browser.problem)
    browser.close()


def test_the_settings_dialog_and_model_manager_open_with_a_broken_catalogue(
    qtbot: QtBot,
) -> None:
    from engram.models import catalogue

    catalogue.user_path().parent.mkdir(parents=True, exist_ok=True)
    catalogue.user_path().write_text("[[model]\nid = ", encoding="utf-8")
    dialog = SettingsDialog(tiny.settings())
    qtbot.addWidget(dialog)
    manager = ModelManager(tiny.settings())
    qtbot.addWidget(manager)
    assert not manager.notice.isHidden() and "models.toml" in manager.notice.text()
    manager.close()
    dialog.close()


def test_settings_that_cannot_be_saved_are_reported_in_the_dialog(
    qtbot: QtBot, engram_home: Path
) -> None:
    paths.settings_path().unlink()
    paths.settings_path().mkdir(parents=True)  # a folder where the file should be
    dialog = SettingsDialog(tiny.settings())
    qtbot.addWidget(dialog)
    dialog.answer_tokens.setValue(99)
    dialog.accept()
    assert not dialog.problem.isHidden()
    assert "Could not save the settings" in dialog.problem.text()
    assert dialog.settings.current.max_answer_tokens != 99


def test_a_bug_in_the_memory_browsers_worker_is_shown_and_the_window_goes_on(
    qtbot: QtBot, starter_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    browser = MemoryBrowser(tiny.settings())
    qtbot.addWidget(browser)
    # A name the file system takes, but too long for the temporary file written next to it
    # first: an OSError, not a known problem.
    target = tmp_path / ("x" * 244 + ".jsonl")
    with qtbot.waitSignal(browser.worker.failed, timeout=10_000):
        browser.export_requested.emit(str(target), "jsonl")
    qtbot.waitUntil(lambda: bool(shown), timeout=5_000)
    assert "Something went wrong" in shown[0] and "engram.log" in shown[0]
    with qtbot.waitSignal(browser.worker.changed, timeout=10_000):  # the worker still answers
        browser.export_requested.emit(str(tmp_path / "ok.jsonl"), "jsonl")
    browser.close()
