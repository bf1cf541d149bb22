"""After a thumb down on an answer, the answer itself offers the large model: one click asks the
same question again, of the large model, and the message box keeps what the user is typing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QPushButton
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.models import gguf_import
from engram.ui.main_window import MainWindow

ANSWER_TIMEOUT_MS = 60_000


def _offer(window: MainWindow) -> QPushButton | None:
    found = [
        b for b in window.chat.bubbles()[-1].findChildren(QPushButton)
        if b.objectName() == "ask_large_offer"
    ]  # fmt: skip
    return found[0] if found else None


def _answer(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.composer.setPlainText(text)
    window.submit(text)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)


@pytest.mark.slow
def test_a_bad_answer_offers_the_large_model_which_answers_the_same_question(
    qtbot: QtBot,
    loaded_models: LoadedModels,
    small_model_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    large = gguf_import.import_file(small_model_path, roles=("large",), model_id="large-copy")
    window = MainWindow(tiny.settings(max_answer_tokens=8, large_model=large.id), loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    _answer(qtbot, window, "Name a river in Europe.")
    answer = window.chat.bubbles()[-1]
    assert _offer(window) is None  # nothing to offer before a verdict

    qtbot.mouseMove(answer)
    qtbot.waitUntil(answer.actions_row.isVisible, timeout=2_000)
    qtbot.mouseClick(answer.buttons["thumbs_up"], Qt.MouseButton.LeftButton)
    assert _offer(window) is None  # a good answer needs no other model
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("", False))
    qtbot.mouseClick(answer.buttons["thumbs_down"], Qt.MouseButton.LeftButton)
    offer = _offer(window)
    assert offer is not None and offer.text() == "Ask large model"
    qtbot.waitUntil(offer.isVisible, timeout=2_000)  # shown in the answer, by the layout
    under = offer.mapTo(answer, offer.rect().topLeft()).y()
    assert under > answer.label.mapTo(answer, answer.label.rect().bottomLeft()).y()  # after it

    window.composer.setPlainText("a draft")
    with qtbot.waitSignal(window.turns.send_requested, timeout=5_000) as sent:
        qtbot.mouseClick(offer, Qt.MouseButton.LeftButton)
    _chat, text, by_large, _token = sent.args
    assert (text, by_large) == ("Name a river in Europe.", True)
    assert not offer.isVisible()  # offered once
    assert window.composer.toPlainText() == "a draft"
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    roles = [(b.role, b.text if b.role == "user" else "") for b in window.chat.bubbles()]
    assert roles == [
        ("user", "Name a river in Europe."), ("assistant", ""),
        ("user", "Name a river in Europe."), ("assistant", ""),
    ]  # fmt: skip
    latest = window.chat.bubbles()[-1]
    assert latest.caption is not None and latest.caption.text() == "Answered by the large model"
    assert latest.text.strip()
    window.close()


@pytest.mark.slow
def test_no_offer_when_the_large_model_is_the_one_that_answers(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = MainWindow(tiny.settings(max_answer_tokens=8), loaded_models)  # one model, both roles
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    _answer(qtbot, window, "Name a colour.")
    answer = window.chat.bubbles()[-1]
    qtbot.mouseMove(answer)
    qtbot.waitUntil(answer.actions_row.isVisible, timeout=2_000)
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("", False))
    qtbot.mouseClick(answer.buttons["thumbs_down"], Qt.MouseButton.LeftButton)
    assert _offer(window) is None
    window.close()
