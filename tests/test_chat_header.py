"""The chat header in the main window: model switchers as wide as their names when there is
room, shortened in the middle (whole in the tooltip) when not, and never over the buttons."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engram.assistant.session import LoadedModels
from engram.core import settings
from engram.ui.main_window import MainWindow

STARTER_NAME = "SmolLM2 135M Instruct (Q4_1)"


def _window(qtbot: QtBot, loaded_models: LoadedModels, width: int) -> MainWindow:
    window = MainWindow(settings.Settings(language="en"), loaded_models)
    qtbot.addWidget(window)
    window.resize(width, 700)
    window.show()
    qtbot.waitUntil(lambda: window._ready, timeout=30_000)
    qtbot.waitUntil(lambda: window.header.combos["small"].count() > 0, timeout=5_000)
    window.header.stats.setText("48.4 tokens/s · context 1,268 of 4,096")  # after an answer
    qtbot.wait(50)  # one layout pass
    return window


def _parts(window: MainWindow) -> list[QWidget]:
    """The header's visible widgets: captions, switchers, the answer's numbers and buttons."""
    header = window.header
    return [w for w in header.findChildren(QWidget) if w.isVisible() and w.parent() is header]


def test_at_1200_px_the_switchers_show_the_whole_starter_name(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 1200)
    for combo in window.header.combos.values():
        assert combo.currentText() == STARTER_NAME
        assert combo.shown_text() == STARTER_NAME
        assert STARTER_NAME in combo.toolTip()
    window.close()


def test_at_700_px_the_switchers_shorten_and_nothing_overlaps_the_buttons(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 700)
    header = window.header
    assert header.geometry().right() <= window.centralWidget().width()
    for combo in header.combos.values():
        shown = combo.shown_text()
        assert shown != STARTER_NAME and "…" in shown  # shortened in the middle
        assert shown.startswith(STARTER_NAME[:2]) and shown.endswith(STARTER_NAME[-2:])
        assert STARTER_NAME in combo.toolTip()  # the whole name
    parts = _parts(window)
    assert window.export_button in parts and len(parts) >= 8
    for i, one in enumerate(parts):
        assert one.geometry().right() < header.width(), one.objectName()
        for other in parts[i + 1 :]:
            assert not one.geometry().intersects(other.geometry()), (
                one.objectName(),
                other.objectName(),
            )
    window.close()


def test_before_any_answer_the_numbers_take_no_room(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 1000)
    header = window.header
    header.stats.setText("")
    qtbot.wait(50)
    assert not header.stats.isVisible()
    assert window.plan_button.geometry().right() > header.width() - 20  # at the end still
    widths = {role: combo.width() for role, combo in header.combos.items()}
    header.stats.setText("48.4 tokens/s · context 1,268 of 4,096")
    qtbot.wait(50)
    assert header.stats.isVisible()
    assert all(header.combos[role].width() <= width for role, width in widths.items())
    window.close()
