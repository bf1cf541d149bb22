"""The layout at the default 900×700 window: the status bar keeps its buttons while it says
something, the empty plan panel has its title at the top, the message box shows its whole
placeholder, and Settings opens with every tab in view and no page scrolling sideways."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.ui import i18n
from engram.ui.main_window import MainWindow
from engram.ui.settings_dialog import SettingsDialog


def _settle() -> None:
    """Run the posted layout requests (no waiting on a clock)."""
    for _ in range(3):
        QApplication.processEvents()


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    win = MainWindow(tiny.settings(), loaded_models)
    qtbot.addWidget(win)
    win.resize(900, 700)  # the default size, on a screen wider than the test's 800 px
    win.show()
    qtbot.waitUntil(lambda: win.turns.ready, timeout=30_000)
    assert (win.width(), win.height()) == (900, 700)
    yield win
    win.close()


def test_the_status_bar_buttons_stay_visible_while_a_message_shows(window: MainWindow) -> None:
    status = window.status
    buttons = (status.settings_button, status.models_button, status.memories_button)
    assert all(button.isVisible() for button in buttons)
    status.model_state.setText("Model: qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")  # a real one
    narrowest = window.minimumSizeHint().width()
    window.export_chat()  # an empty chat: "There is nothing to export in this chat."
    _settle()
    assert status.currentMessage() == "There is nothing to export in this chat."
    assert status.message.text() == status.currentMessage()  # whole: the model's name gave way
    assert window.minimumSizeHint().width() <= max(narrowest, 900)
    assert status.message.isVisible() and status.message.full_text() == status.currentMessage()
    assert all(button.isVisible() for button in buttons)
    right = max(button.geometry().right() for button in buttons)
    assert status.message.x() > right - status.buttons.x()  # beside them, not over them
    status.clearMessage()
    assert status.currentMessage() == "" and all(button.isVisible() for button in buttons)


def test_the_empty_plan_panel_has_its_title_at_the_top(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.mouseClick(window.plan_button, Qt.MouseButton.LeftButton)
    panel = window.plan_panel
    qtbot.waitUntil(panel.empty.isVisible, timeout=5_000)
    _settle()
    assert panel.title.y() <= 16  # its words on the first line, not floating in a tall box
    assert panel.title.height() < 2 * panel.title.fontMetrics().lineSpacing()
    assert panel.empty.y() <= panel.title.geometry().bottom() + 12  # right under the title
    assert panel.empty.alignment() & Qt.AlignmentFlag.AlignTop  # its words at its top


def test_the_sidebar_gets_its_width_back_when_the_plan_closes(
    qtbot: QtBot, window: MainWindow
) -> None:
    _settle()
    sidebar, chat = window.sidebar.width(), window.chat.width()
    qtbot.mouseClick(window.plan_button, Qt.MouseButton.LeftButton)
    _settle()
    assert window.plan_panel.isVisible()
    assert window.sidebar.width() < sidebar  # at 900 px the sidebar lends the plan some room
    qtbot.mouseClick(window.plan_button, Qt.MouseButton.LeftButton)
    _settle()
    assert not window.plan_panel.isVisible()
    assert (window.sidebar.width(), window.chat.width()) == (sidebar, chat)
    for _ in range(2):  # and again: it never creeps narrower
        window.plan_button.toggle()
        _settle()
    assert window.sidebar.width() == sidebar


def test_the_message_box_shows_its_whole_placeholder_when_narrow(
    qtbot: QtBot, window: MainWindow
) -> None:
    composer = window.composer
    one_line = composer.height()
    qtbot.mouseClick(window.plan_button, Qt.MouseButton.LeftButton)  # the chat gets narrower
    _settle()
    metrics = composer.fontMetrics()
    wrapped = metrics.boundingRect(
        QRect(0, 0, composer.viewport().width() - 8, 10_000),
        Qt.TextFlag.TextWordWrap,
        composer.placeholderText(),
    )
    assert wrapped.height() > metrics.lineSpacing()  # two lines at this width
    assert composer.height() > one_line
    assert composer.viewport().height() >= wrapped.height()
    composer.setPlainText("Hi")  # typing: one line again
    assert composer.height() == one_line


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_settings_open_with_every_tab_in_view_and_no_page_scrolling_sideways(
    qtbot: QtBot, qapp: QApplication, language: str
) -> None:
    translators = i18n.install(qapp, language)
    try:
        dialog = SettingsDialog(tiny.settings(language=language))
        qtbot.addWidget(dialog)
        dialog.show()
        _settle()
        bar = dialog.tabs.tabBar()
        arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
        assert arrows == []  # no scroll arrows: every tab's title is shown
        assert all(bar.tabRect(i).right() < bar.width() for i in range(bar.count()))
        assert dialog.height() >= 560
        for index in range(dialog.tabs.count()):
            dialog.tabs.setCurrentIndex(index)
            _settle()
            page = dialog.tabs.currentWidget()
            assert page.mapTo(dialog, QPoint(page.width(), 0)).x() <= dialog.width()
        tools = dialog.tools_page
        assert not tools.horizontalScrollBar().isVisible()
        body = tools.widget()
        assert body is not None and body.width() <= tools.viewport().width()
        dialog.reject()
    finally:
        i18n.uninstall(qapp, translators)
