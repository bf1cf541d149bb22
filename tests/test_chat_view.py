"""The chat widgets on their own: layout checked by geometry, actions by their signals."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from engram.assistant.events import Recalled
from engram.memory.episodes import Conversation
from engram.ui import toast
from engram.ui.chat_view import ChatView, MessageBubble
from engram.ui.sidebar import DATE_ROLE, Sidebar

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


def test_the_sidebar_groups_chats_by_date_elides_long_titles_and_shows_times(
    qtbot: QtBot,
) -> None:
    now = dt.datetime(2026, 3, 15, 12, 0)
    ages = [0, 1, 3, 20, 45, 80]  # days
    chats = [
        Conversation(i + 1, title, (now - dt.timedelta(days=age)).timestamp(), 0.0)
        for i, (age, title) in enumerate(
            zip(ages, ["Fresh", "Long " * 40, "Week", "Month", "January", "December"], strict=True)
        )
    ]
    chats = [Conversation(c.id, c.title, c.created_at, c.created_at) for c in chats]
    sidebar = Sidebar()
    qtbot.addWidget(sidebar)
    sidebar.resize(240, 500)
    sidebar.show()
    sidebar.show_conversations(chats, current=2, now=now)
    shown = [sidebar.list.item(row).text() for row in range(sidebar.list.count())]
    assert shown == [
        "Today", "Fresh", "Yesterday", "Long " * 40, "Previous 7 days", "Week",
        "Previous 30 days", "Month", "2026-01", "January", "2025-12", "December",
    ]  # fmt: skip
    assert sidebar.titles() == [c.title for c in chats]
    assert sidebar.list.currentItem().text() == "Long " * 40
    assert not sidebar.list.item(0).flags() & Qt.ItemFlag.ItemIsSelectable  # a heading
    dates = [item.data(DATE_ROLE) for item in sidebar.chat_items()]
    assert dates == ["12:00", "12:00", "03-12", "02-23", "01-29", "12-25"]
    qtbot.wait(20)
    assert sidebar.list.horizontalScrollBar().maximum() == 0  # the long title elides
    clicked: list[int] = []
    sidebar.selected.connect(clicked.append)
    for item in (sidebar.list.item(0), sidebar.chat_items()[2]):
        rect = sidebar.list.visualItemRect(item)
        assert rect.right() <= sidebar.list.viewport().width()
        qtbot.mouseClick(sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert clicked == [3]  # a heading is not a chat
    sidebar.show_conversations([], current=0, now=now)
    assert sidebar.chat_items() == [] and sidebar.list.count() == 1
    assert sidebar.list.item(0).text() == "Your chats will appear here."
    assert not sidebar.list.item(0).flags() & Qt.ItemFlag.ItemIsSelectable
    sidebar.search.setText("tides")
    sidebar.show_conversations([], current=0, now=now)
    assert sidebar.list.item(0).text() == "No chat matches “tides”."


def test_a_label_short_of_room_ends_in_an_ellipsis_and_keeps_its_text(qtbot: QtBot) -> None:
    from engram.ui.elided import ElidedLabel

    text = "48.4 tokens/s · context 1,310 of 4,096"
    label = ElidedLabel(text, min_width=40)
    qtbot.addWidget(label)
    label.resize(80, 20)
    label.show()
    qtbot.waitExposed(label)
    assert label.text().endswith("…") and len(label.text()) < len(text)
    assert label.full_text() == text
    label.resize(label.fontMetrics().horizontalAdvance(text) + 20, 20)
    qtbot.waitUntil(lambda: label.text() == text)


def _content_height(bubble: MessageBubble) -> int:
    """The frame's height left to its text: the frame minus its margins and the layout's."""
    frame, layout = bubble.frame.contentsMargins(), bubble.frame.layout().contentsMargins()
    spare = frame.top() + frame.bottom() + layout.top() + layout.bottom()
    return bubble.frame.height() - spare


def test_a_user_bubble_is_as_tall_as_its_text_and_the_hover_row_sits_below_it(
    qtbot: QtBot,
) -> None:
    _window, view = _host(qtbot)
    one = view.add("user", "How long until my Friday review?")
    five = view.add("user", "\n".join(f"Line {i}" for i in range(5)))
    answer = view.add("assistant", "Three days.")
    qtbot.wait(50)  # one layout pass
    line = one.label.fontMetrics().lineSpacing()
    assert line <= _content_height(one) <= line + 2
    assert 5 * line <= _content_height(five) <= 5 * line + 2
    for bubble in (one, five, answer):
        assert bubble.actions_row.y() >= bubble.frame.geometry().bottom()  # outside the colour
    height = answer.height()
    answer.actions_row.show()  # as when the pointer is over the answer
    qtbot.wait(20)
    assert answer.height() == height  # the chat does not jump
