"""Between Send and the first word the answer's bubble says what it waits for (reading memories,
the model reading its prompt, a tool running), with a moving bar and the seconds so far; never a
blank bubble. The first word ends it; a model loading shows a moving bar in the status bar."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engram.assistant.app import LoadedModels
from engram.models.capabilities import Capabilities
from engram.ui.chat_view import MessageBubble
from engram.ui.main_window import MainWindow
from engram.ui.waiting import WaitingLine
from test_crash_recovery import _open

ANSWER_TIMEOUT_MS = 60_000


class HeldModel:
    """Answers ``reply`` once ``go`` is set (as a model still reading a long prompt would)."""

    n_ctx = 4096
    capabilities = Capabilities()  # ``reading`` is the test's own event, not reading progress

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.go = threading.Event()
        self.reading = threading.Event()

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def stream_chat(self, messages: list[Any], *_args: Any, **_kwargs: Any) -> Iterator[str]:
        self.reading.set()
        assert self.go.wait(30)
        yield from self.reply.partition(" ")

    def prefill(self, messages: list[Any], *_args: Any, **_kwargs: Any) -> int:
        return 0


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    opened = _open(qtbot, loaded_models)
    yield opened
    opened.close()


def _waiting(window: MainWindow) -> WaitingLine | None:
    bubbles = window.chat.bubbles()
    answer: MessageBubble | None = bubbles[-1] if bubbles else None
    return answer.waiting if answer is not None and answer.role == "assistant" else None


@pytest.mark.slow
def test_the_answer_says_what_it_waits_for_until_its_first_word(
    qtbot: QtBot, window: MainWindow
) -> None:
    session = window.worker.app.session
    assert session is not None
    model = HeldModel("Paris is the capital.")
    session.assistant.model = model  # type: ignore[assignment]
    session.assistant.tools = None
    recalling = threading.Event()
    real_prepare = session.assistant.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        assert recalling.wait(30)  # memories are being read until the test lets it go on
        return real_prepare(*args, **kwargs)

    session.assistant.prepare = prepare  # type: ignore[method-assign]
    try:
        window.submit("What is the capital of France?")
        line = _waiting(window)  # at once, before the worker has even started
        assert line is not None
        assert line.stage.text() == "Reading your memories…"
        assert line.bar.maximum() == 0  # a moving bar: no share is claimed
        qtbot.waitUntil(line.isVisible)

        recalling.set()
        assert model.reading.wait(30)
        qtbot.waitUntil(lambda: "Thinking: reading the conversation" in line.stage.text())
        assert "tokens)…" in line.stage.text()
        qtbot.waitUntil(lambda: " · " in line.stage.text(), timeout=5_000)  # and for how long
        assert line.stage.text().endswith(" s")
    finally:
        recalling.set()
        model.go.set()
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = window.chat.bubbles()[-1]
    assert answer.waiting is None and answer.text == "Paris is the capital."


def test_a_failure_while_waiting_leaves_no_waiting_bubble(qtbot: QtBot, window: MainWindow) -> None:
    session = window.worker.app.session
    assert session is not None

    def prepare(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError

    session.assistant.prepare = prepare  # type: ignore[assignment,method-assign]
    window.submit("Hello there")
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    assert window.chat.bubbles() == [] and window.chat.answering() is None


def test_the_status_bar_shows_a_moving_bar_while_the_model_loads(window: MainWindow) -> None:
    assert not window.status.loading_bar.isVisible()
    window.status.model_loading()
    assert window.status.loading_bar.isVisible() and window.status.loading_bar.maximum() == 0
    assert window.model_state.full_text() == "Loading model…"
    window.status.model_loaded("model.gguf")
    assert not window.status.loading_bar.isVisible()
