"""Windows sized to the screen: on a screen smaller than a window would like, it opens at most
90 % of the available area, centred, never past an edge (the memory browser asked for 1100×700
and the model manager for 1200×640, past the bottom of an 800-px screen)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import PromptParts
from engram.ui.main_window import MainWindow
from engram.ui.prompt_dialog import PromptDialog
from engram.ui.screen_fit import fitted

LAPTOP = QRect(0, 0, 1280, 770)  # 1280×800 with a 30-px task bar
SMALL = QRect(0, 0, 1024, 738)  # 1024×768 with a task bar


def test_a_window_larger_than_the_screen_opens_smaller_and_centred() -> None:
    memories = fitted(QSize(1100, 700), LAPTOP)
    assert memories == QRect(90, 38, 1100, 693)  # as wide as it asked; 90 % of the height
    models = fitted(QSize(1200, 640), SMALL)
    assert models.size() == QSize(921, 640)
    assert models.center().x() in (SMALL.center().x(), SMALL.center().x() + 1)
    for wanted in (QSize(1100, 700), QSize(1200, 640), QSize(900, 700)):
        for screen in (LAPTOP, SMALL, QRect(0, 0, 800, 570)):
            place = fitted(wanted, screen)
            assert screen.contains(place)
            assert place.width() <= wanted.width() and place.height() <= wanted.height()


def test_a_window_that_fits_keeps_its_size_and_opens_on_its_own_screen() -> None:
    second = QRect(1920, 0, 1280, 800).adjusted(0, 24, 0, 0)  # to the right, a menu bar on top
    place = fitted(QSize(460, 300), second)
    assert place.size() == QSize(460, 300)
    assert second.contains(place) and place.center() == second.center()


def test_the_real_windows_open_within_the_screen(qtbot: QtBot, loaded_models: LoadedModels) -> None:
    window = MainWindow(tiny.settings(), loaded_models)
    qtbot.addWidget(window)
    window.show()
    screen = window.screen().availableGeometry()
    assert screen.width() < 1100  # the offscreen screen: smaller than the windows would like
    assert screen.contains(window.frameGeometry())
    others = [window.show_memories(), window.show_models()]
    for other in others:
        qtbot.addWidget(other)
        assert screen.contains(other.frameGeometry()), other.windowTitle()
        assert other.width() >= screen.width() * 0.85  # as large as the screen allows
    prompt = PromptDialog(PromptParts("system", [], "", "Hi"), window)
    qtbot.addWidget(prompt)
    assert prompt.width() <= screen.width() and prompt.height() <= screen.height()
    for other in others:
        other.close()
    window.close()
