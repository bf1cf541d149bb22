"""Regenerate keeps the answer it replaces within reach: ``‹ 2/2 ›`` under the new answer reads
the earlier one again (live and in a chat opened again); only the latest is part of the chat,
and an edited message starts over."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.chats import EarlierAnswer
from engram.assistant.events import Recalled
from engram.core import paths
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.ui.chat_view import ChatView
from engram.ui.main_window import MainWindow
from engram.ui.tool_block import ToolBlock

ANSWER_TIMEOUT_MS = 60_000


def test_the_log_keeps_a_regenerated_answer_and_drops_it_with_an_edit_or_the_chat() -> None:
    log = EpisodeLog(db.connect(paths.database_path()))
    chat = log.new_conversation().id
    log.append(chat, "user", "Name a colour.")
    first = log.append(chat, "assistant", "Blue.")
    log.delete_from(chat, 0, keep=first)  # Regenerate: the same message again
    log.append(chat, "user", "Name a colour.")
    second = log.append(chat, "assistant", "Green.")
    log.delete_from(chat, 0, keep=second)
    log.append(chat, "user", "Name a colour.")
    log.append(chat, "assistant", "Red.")
    assert [a.content for a in log.earlier_answers(chat)[0]] == ["Blue.", "Green."]
    assert [e.content for e in log.episodes(chat)] == ["Name a colour.", "Red."]

    log.delete_from(chat, 0)  # edited: the answers were to another message
    assert log.earlier_answers(chat) == {}
    log.append(chat, "user", "Name a fruit.")
    answer = log.append(chat, "assistant", "A pear.")
    log.delete_from(chat, 0, keep=answer)
    log.delete_conversation(chat)
    left = db.scalar(log.conn, "SELECT count(*) FROM earlier_answers")
    assert left == 0  # they go with their chat
    log.conn.close()


def _window(qtbot: QtBot, models: LoadedModels) -> MainWindow:
    window = MainWindow(tiny.settings(max_answer_tokens=6), models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    return window


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)


@pytest.mark.slow
def test_regenerate_keeps_the_old_answers_live_and_in_the_reopened_chat(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = _window(qtbot, loaded_models)
    window.composer.setPlainText("Name a colour.")
    window.submit("Name a colour.")
    _settle(qtbot, window)
    first = window.chat.bubbles()[-1]
    said = [first.text]
    assert not first.versions.isVisibleTo(first.actions_row)  # one answer: no switch
    for _ in range(2):
        window.chat.bubbles()[-1].buttons["regenerate"].click()
        _settle(qtbot, window)
        said.append(window.chat.bubbles()[-1].text)
    latest = window.chat.bubbles()[-1]
    assert len(window.chat.bubbles()) == 2  # one message, one answer: the chat did not grow
    assert [a.content for a in latest.earlier] == said[:2]
    assert latest.versions.position.text() == "3/3" and latest.latest_shown()

    latest.versions.back.click()  # the second answer
    assert latest.versions.position.text() == "2/3" and not latest.latest_shown()
    assert latest.shown_text() == said[1] and latest.text == said[2]
    assert "An earlier answer" in latest.marker.text() and latest.marker.isVisibleTo(latest)
    assert not latest.buttons["thumbs_up"].isEnabled()  # a thumb judges the latest only
    latest.buttons["copy"].click()
    assert QGuiApplication.clipboard().text() == said[1]
    latest.versions.back.click()
    assert latest.shown_text() == said[0] and not latest.versions.back.isEnabled()
    latest.versions.forward.click()
    latest.versions.forward.click()
    assert latest.latest_shown() and latest.buttons["thumbs_up"].isEnabled()
    assert "An earlier answer" not in latest.marker.text()

    chat = window.conversation_id
    window.new_conversation()
    window.open_conversation(chat)
    reopened = window.chat.bubbles()[-1]
    assert [a.content for a in reopened.earlier] == said[:2]
    assert reopened.versions.position.text() == "3/3" and reopened.text == said[2]

    # Edit and resend: another message, so its answers start over.
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *_a, **_k: ("Name a fruit.", True))
    window.chat.bubbles()[0].buttons["edit"].click()
    _settle(qtbot, window)
    edited = window.chat.bubbles()[-1]
    assert edited.earlier == [] and not edited.versions.isVisibleTo(edited.actions_row)
    window.new_conversation()
    window.open_conversation(chat)
    assert window.chat.bubbles()[-1].earlier == []
    window.close()


def test_chips_that_arrive_while_an_earlier_answer_is_read_wait_for_the_latest(
    qtbot: QtBot,
) -> None:
    """The user stepped back to the earlier answer while the new one was written: its chips
    and tool steps, arriving then, are the latest answer's, so they show with it only."""
    view = ChatView()
    qtbot.addWidget(view)
    view.add("user", "Name a colour.")
    answer = view.begin_answer()
    answer.set_earlier([EarlierAnswer("Blue.", time.time())])
    view.show()
    answer.show_version(0)  # back to "Blue." while the new answer streams
    block = ToolBlock("recall", {"query": "colour"})
    answer.add_block(block)
    view.end_answer("Green.", [Recalled("fact", "Likes green", 1.0, time.time(), memory_id=1)])
    QCoreApplication.processEvents()  # a widget added to a shown layout is shown by a queued call
    assert answer.shown_text() == "Blue." and answer.text == "Green."
    assert answer.chips is not None and not answer.chips.isVisibleTo(answer)
    assert not block.isVisibleTo(answer)
    answer.show_version(1)
    assert answer.chips.isVisibleTo(answer) and block.isVisibleTo(answer)
