"""The chat widgets on their own: layout checked by geometry, actions by their signals."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from engram.assistant.prompt import Recalled
from engram.ui import toast
from engram.ui.chat_view import ChatView

WINDOW_WIDTH = 900


def _memories(count: int) -> list[Recalled]:
    return [
        Recalled("fact", f"Memory number {i} about a long and winding subject", 1.0, time.time(), i)
        for i in range(1, count + 1)
    ]


def _host(qtbot: QtBot, width: int = WINDOW_WIDTH) -> tuple[QMainWindow, ChatView]:
    window = QMainWindow()
    view = ChatView()
    window.setCentralWidget(view)
    qtbot.addWidget(window)
    window.resize(width, 600)
    window.show()
    qtbot.waitExposed(window)
    return window, view


def _within_width(view: ChatView, widget: QWidget) -> bool:
    """The widget's left and right edges lie inside the visible width of the chat."""
    left = widget.mapTo(view.viewport(), QPoint(0, 0)).x()
    return left >= 0 and left + widget.width() <= view.viewport().width()


def test_ten_chips_wrap_inside_the_window_without_a_horizontal_scrollbar(qtbot: QtBot) -> None:
    _window, view = _host(qtbot)
    user = view.add("user", "Tell me everything you remember about my projects, please.")
    answer = view.add("assistant", "Here is what I know.")
    view.attach_chips(answer, _memories(10))
    qtbot.waitUntil(lambda: answer.chips is not None and answer.chips.isVisible())
    qtbot.wait(50)  # one layout pass
    assert not view.horizontalScrollBar().isVisible()
    assert answer.chips is not None
    rows = {button.y() for button in answer.chips.buttons}
    assert len(rows) > 1  # wrapped onto several lines
    for button in answer.chips.buttons:
        assert button.isVisible()
        assert _within_width(view, button), button.text()
    assert _within_width(view, user)
    assert _within_width(view, answer)


def test_a_toast_hides_itself_a_problem_stays_and_both_close(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 50)
    notice = toast.Notice()
    qtbot.addWidget(notice)
    notice.show_toast("Remembered: the cat is Miso")
    assert notice.isVisible() and notice.kind == "toast"
    qtbot.waitUntil(lambda: not notice.isVisible(), timeout=2_000)

    notice.show_problem("The database is busy.\nTry again.")
    assert notice.text() == "The database is busy.\nTry again."
    qtbot.wait(150)  # three toast lifetimes: a problem stays
    assert notice.isVisible()
    notice.dismiss_toast()  # switching chats leaves a problem alone
    assert notice.isVisible()
    qtbot.mouseClick(notice.close_button, Qt.MouseButton.LeftButton)
    assert not notice.isVisible()

    links: list[str] = []
    notice.link.connect(links.append)
    notice.show_toast("Memory updated", {"manage": "Manage"})
    assert '<a href="manage">Manage</a>' in notice.label.text()
    notice.label.linkActivated.emit("manage")
    assert links == ["manage"]
    notice.dismiss_toast()
    assert not notice.isVisible()
