"""A model that fails mid-answer, or a process killed or crashed mid-answer, loses nothing: the
window stays usable and says what happened in words, the user's message is kept (stored, or
back in the message box when it never was), Regenerate answers it, and the next start says the
last answer was interrupted (and whether a crash was recorded)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.core import paths
from engram.memory import db
from engram.memory.episodes import Episode, EpisodeLog
from engram.models.capabilities import Capabilities
from engram.ui.main_window import MainWindow

LOAD_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 60_000


class BreakingModel:
    """Writes ``said`` in pieces, then fails as llama.cpp does when a decode fails; with
    ``said`` None it answers ``reply`` whole."""

    n_ctx = 4096
    capabilities = Capabilities()

    def __init__(self, said: str | None, reply: str = "") -> None:
        self.said = said
        self.reply = reply

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def stream_chat(
        self, messages: list[Any], max_tokens: int = 512, cancelled: Any = None, **_: Any
    ) -> Iterator[str]:
        if self.said is None:
            yield self.reply
            return
        for start in range(0, len(self.said), 4):
            yield self.said[start : start + 4]
        raise RuntimeError("llama_decode returned -3")

    def prefill(self, messages: list[Any], cancelled: Any = None, **_: Any) -> int:
        return 0


def _episodes(conversation_id: int) -> list[Episode]:
    conn = db.connect(paths.database_path())
    try:
        return EpisodeLog(conn).episodes(conversation_id)
    finally:
        conn.close()


def _open(qtbot: QtBot, models: LoadedModels) -> MainWindow:
    window = MainWindow(tiny.settings(max_answer_tokens=24), models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=LOAD_TIMEOUT_MS)
    return window


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    win = _open(qtbot, loaded_models)
    yield win
    win.close()


def _use(window: MainWindow, model: object) -> None:
    session = window.worker.app.session
    assert session is not None
    session.assistant.model = model  # type: ignore[assignment]
    session.assistant.tools = None


def _send(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.submit(text)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)


def test_a_model_failing_mid_answer_keeps_the_message_says_so_and_regenerate_answers(
    qtbot: QtBot, window: MainWindow
) -> None:
    _use(window, BreakingModel("Tides rise twice a"))
    _send(qtbot, window, "Why are there two tides a day?")
    user, answer = window.chat.bubbles()
    assert user.text == "Why are there two tides a day?" and user.episode_id
    assert answer.text == "Tides rise twice a"  # what it said stays on screen
    assert answer.marker.text() == "Interrupted by an error"
    assert window.notice.kind == "problem"
    said = window.notice.text()
    assert said.startswith("The answer broke off: the model failed while writing it.")
    assert "Regenerate answers it again" in said and "Something went wrong" not in said
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()
    stored = _episodes(window.conversation_id)
    assert [(e.role, e.content) for e in stored] == [("user", "Why are there two tides a day?")]

    answer.actions_row.show()
    assert answer.buttons["regenerate"].isVisible()  # the way on is offered where it works
    _use(window, BreakingModel(None, "The moon pulls the sea on both sides of the Earth."))
    qtbot.mouseClick(answer.buttons["regenerate"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.turns.busy and len(window.chat.bubbles()) == 2)
    assert window.chat.bubbles()[-1].text == "The moon pulls the sea on both sides of the Earth."
    stored = _episodes(window.conversation_id)
    assert [e.role for e in stored] == ["user", "assistant"]
    assert stored[0].content == "Why are there two tides a day?"


def test_a_failure_before_the_message_was_stored_puts_it_back_in_the_message_box(
    qtbot: QtBot, window: MainWindow
) -> None:
    session = window.worker.app.session
    assert session is not None

    def prepare(*_args: object, **_kwargs: object) -> None:
        raise MemoryError

    session.assistant.prepare = prepare  # type: ignore[assignment,method-assign]
    _send(qtbot, window, "Plan my week, please")
    assert window.chat.bubbles() == []
    assert window.composer.toPlainText() == "Plan my week, please"
    assert window.notice.text().startswith("Your message was not sent")
    assert "back in the message box" in window.notice.text()
    assert window.send_button.isEnabled()


CHILD = textwrap.dedent(
    """
    import ctypes, faulthandler, os, signal, sys
    import tiny
    from engram.assistant.app import Engram
    from engram.assistant.events import Token
    from engram.core import paths
    from engram.core.cancel import CancelToken

    how = sys.argv[1]
    faults = (paths.logs_dir() / "faults.log").open("a", encoding="utf-8")
    faulthandler.enable(faults)  # as the desktop app's crash reporter does
    app = Engram(tiny.settings(max_answer_tokens=64), on_status=lambda _status: None)
    app.open()
    for event in app.send(0, "Tell me a long story about a lighthouse keeper.", CancelToken()):
        if isinstance(event, Token):
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            ctypes.string_at(0)  # llama.cpp dying: a segmentation fault
    """
)


def _die_mid_answer(how: str) -> int:
    """A child process answers with the real tiny model and dies at its first token; returns
    its exit status."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-c", CHILD, how]
    done = subprocess.run(command, check=False, env=env, capture_output=True, timeout=300)
    return done.returncode


@pytest.mark.slow
@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("kill", "The last answer was interrupted: Engram closed while writing it."),
        ("crash", "Engram stopped unexpectedly while answering your last message"),
    ],
)
def test_the_next_start_says_the_last_answer_was_interrupted_and_nothing_was_lost(
    qtbot: QtBot, loaded_models: LoadedModels, how: str, said: str
) -> None:
    status = _die_mid_answer(how)
    assert status in (-9, -11), status
    window = _open(qtbot, loaded_models)
    qtbot.waitUntil(window.notice.isVisible, timeout=5_000)
    assert window.notice.text().startswith(said)
    assert "Nothing you wrote was lost" in window.notice.text()
    if how == "crash":
        assert str(paths.logs_dir() / "faults.log") in window.notice.text()
    user, placeholder = window.chat.bubbles()
    assert user.text == "Tell me a long story about a lighthouse keeper."
    assert placeholder.marker.text().startswith("Not answered: the answer was interrupted")
    placeholder.actions_row.show()
    assert placeholder.buttons["regenerate"].isVisible()
    qtbot.mouseClick(placeholder.buttons["regenerate"], Qt.MouseButton.LeftButton)

    def answered() -> bool:
        stored = [e.role for e in _episodes(window.conversation_id)]
        return not window.turns.busy and stored == ["user", "assistant"]

    qtbot.waitUntil(answered, timeout=ANSWER_TIMEOUT_MS)
    assert not window.chat.bubbles()[-1].marker.text().startswith("Not answered")
    window.close()
