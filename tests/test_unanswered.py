"""A message whose answer never came (Engram killed or crashed mid-answer) says so where the chat
is shown again, with a way to answer it: Retry in the window, ``/retry`` in ``engram chat``
(which says so when it resumes the chat)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.core import paths
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from test_crash_recovery import _episodes, _open

ANSWER_TIMEOUT_MS = 60_000
QUESTION = "Tell me a long story about a lighthouse keeper."


def _cut_off_chat() -> int:
    """A chat whose last message was stored and never answered, as a kill leaves it."""
    paths.database_path().parent.mkdir(parents=True, exist_ok=True)
    conn = db.connect(paths.database_path())
    try:
        log = EpisodeLog(conn)
        chat = log.new_conversation("Lighthouse").id
        log.append(chat, "user", "Hello!")
        log.append(chat, "assistant", "Hello! How can I help?")
        log.append(chat, "user", QUESTION)
        return chat
    finally:
        conn.close()


@pytest.fixture
def cut_off(loaded_models: LoadedModels) -> Iterator[int]:
    yield _cut_off_chat()


@pytest.mark.slow
def test_the_window_offers_retry_under_a_message_left_without_an_answer(
    qtbot: QtBot, loaded_models: LoadedModels, cut_off: int
) -> None:
    window = _open(qtbot, loaded_models)
    try:
        *_, user, placeholder = window.chat.bubbles()
        assert user.text == QUESTION and placeholder.marker.text().startswith("Not answered")
        retry = placeholder.findChild(QPushButton, "retry_button")
        assert retry is not None and retry.isVisible() and retry.text() == "Retry"
        qtbot.mouseClick(retry, Qt.MouseButton.LeftButton)

        def answered() -> bool:
            stored = [e.role for e in _episodes(cut_off)]
            return not window.turns.busy and stored == ["user", "assistant", "user", "assistant"]

        qtbot.waitUntil(answered, timeout=ANSWER_TIMEOUT_MS)
        last = window.chat.bubbles()[-1]
        assert last.text and not last.marker.text().startswith("Not answered")
        assert last.findChild(QPushButton, "retry_button") is None
    finally:
        window.close()


@pytest.mark.slow
def test_engram_chat_says_a_resumed_chat_was_cut_off_and_retry_answers_it(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    chat = _cut_off_chat()
    result = subprocess.run(
        [sys.executable, "-m", "engram", "chat", "--resume", str(chat)],
        input="/retry\n",
        capture_output=True,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(engram_home)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "[not answered: Engram stopped before this answer was saved" in result.stderr
    assert result.stdout.strip()  # the answer
    assert [e.role for e in _episodes(chat)] == ["user", "assistant", "user", "assistant"]
    assert _episodes(chat)[2].content == QUESTION  # answered, not asked twice
