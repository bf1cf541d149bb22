"""The chat header in the main window: the model switchers and the last answer's numbers whole
whenever the window has room for them, wrapping onto more lines (the buttons at the right end of
theirs) rather than shortening; shortened in the middle (whole in the tooltip) only when a line is
too narrow for a name, and never over the buttons."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.ui.chat_actions import CHAT_MIN_WIDTH
from engram.ui.chat_header import ROLES, ChatHeader
from engram.ui.main_window import MainWindow
from engram.ui.sidebar import SIDEBAR_MIN_WIDTH

TINY = "smollm2-135m-instruct"
STARTER_NAME = "SmolLM2 135M Instruct (Q4_1)"
LONG = {"small": "Qwen2.5 Coder 1.5B Instruct (Q4_K_M) (imported)", "large": STARTER_NAME}
PAIR = {
    "small": "Qwen2.5 Coder 0.5B Instruct (Q4_K_M)",
    "large": "Qwen2.5 Coder 1.5B Instruct (Q4_K_M)",
}
NUMBERS = "2.6 tokens/s · context 1,268 of 4,096"


def _settle() -> None:
    """Run the posted layout requests (no waiting on a clock)."""
    for _ in range(3):
        QApplication.processEvents()


def _window(qtbot: QtBot, loaded_models: LoadedModels, width: int, height: int = 700) -> MainWindow:
    prefs = tiny.settings(language="en", small_model=TINY, large_model=TINY)
    window = MainWindow(prefs, loaded_models)
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    qtbot.waitUntil(lambda: window.header.combos["small"].count() > 0, timeout=5_000)
    window.header.stats.setText(NUMBERS)  # after an answer
    _settle()
    return window


def _long_names(window: MainWindow) -> None:
    """An imported model with a long name answers; the starter learns."""
    models = [("imported", LONG["small"], ("small",)), (TINY, STARTER_NAME, ("small", "large"))]
    window.header.show_models(models, {"small": "imported", "large": TINY})
    _settle()


def _parts(header: ChatHeader) -> list[QWidget]:
    """The header's visible leaves: captions, switchers, the answer's numbers and buttons."""
    widgets = header.findChildren(QWidget)
    return [w for w in widgets if w.isVisible() and not w.findChildren(QWidget)]


def _box(widget: QWidget, header: ChatHeader) -> QRect:
    """Where ``widget`` is in the header."""
    return QRect(widget.mapTo(header, QPoint(0, 0)), widget.size())


def _no_overlap(header: ChatHeader) -> None:
    boxes = [(w, _box(w, header)) for w in _parts(header)]
    for i, (one, box) in enumerate(boxes):
        assert box.right() < header.width(), one.objectName()
        for other, other_box in boxes[i + 1 :]:
            assert not box.intersects(other_box), (one.objectName(), other.objectName())


def test_at_1440_px_long_names_and_the_numbers_are_whole_even_with_the_plan_open(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 1440, 900)
    _long_names(window)
    header = window.header
    for open_plan in (False, True):
        window.plan_button.setChecked(open_plan)
        _settle()
        for role, combo in header.combos.items():
            assert combo.shown_text() == LONG[role], (open_plan, role)
        assert header.stats.text() == NUMBERS
        _no_overlap(header)
    window.close()


def test_at_900_px_the_header_wraps_instead_of_shortening_even_with_the_plan_open(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 900)
    header = window.header
    for combo in header.combos.values():
        assert combo.shown_text() == STARTER_NAME
    assert header.stats.text() == NUMBERS  # the numbers wrapped onto a line of their own
    assert _box(window.export_button, header).top() > _box(header.combos["small"], header).bottom()
    assert _box(window.plan_button, header).right() > header.width() - 20  # at the right end
    _no_overlap(header)

    window.plan_button.setChecked(True)  # the plan opens beside a chat still wide enough
    _settle()
    sidebar, chat, plan = window._splitter.sizes()
    assert sidebar >= SIDEBAR_MIN_WIDTH and chat >= CHAT_MIN_WIDTH
    assert plan >= window.plan_panel.minimumWidth()
    assert header.stats.text() == NUMBERS
    # The starter pair's names differ only in the middle: each switcher takes a line of its own
    # rather than both being cut to "Qwen2.5 Co…t (Q4_K_M)".
    window.header.show_models(
        [("a", PAIR["small"], ("small",)), ("b", PAIR["large"], ("small", "large"))],
        {"small": "a", "large": "b"},
    )
    _settle()
    for role, combo in header.combos.items():
        assert combo.shown_text() == PAIR[role]
    assert (
        _box(header.combos["large"], header).top() > _box(header.combos["small"], header).bottom()
    )
    assert header.stats.text() == NUMBERS
    assert not window.chat.horizontalScrollBar().isVisible()
    _no_overlap(header)
    window.close()


def test_a_header_narrower_than_a_name_shortens_it_in_the_middle(qtbot: QtBot) -> None:
    header = ChatHeader()
    qtbot.addWidget(header)
    models = [(TINY, STARTER_NAME, ("small", "large"))]
    header.show_models(models, {"small": TINY, "large": TINY})
    header.stats.setText(NUMBERS)
    header.resize(220, 200)  # narrower than a switcher with its caption
    header.show()
    _settle()
    for combo in header.combos.values():
        shown = combo.shown_text()
        assert shown != STARTER_NAME and "…" in shown
        assert shown.startswith(STARTER_NAME[:2]) and shown.endswith(STARTER_NAME[-2:])
        assert STARTER_NAME in combo.toolTip()  # the whole name
    _no_overlap(header)


def test_switchers_on_lines_of_their_own_line_up_whatever_their_captions(
    qtbot: QtBot, ui_language: str
) -> None:
    header = ChatHeader()
    qtbot.addWidget(header)
    header.show_models(
        [("a", PAIR["small"], ("small",)), ("b", PAIR["large"], ("small", "large"))],
        {"small": "a", "large": "b"},
    )
    header.resize(420, 200)  # room for one switcher a line, as at 900 px with the plan open
    header.show()
    _settle()
    small, large = (_box(header.combos[role], header) for role in ROLES)
    assert large.top() > small.bottom()  # on lines of their own
    captions = [header.captions[role] for role in ROLES]
    assert captions[0].text() != captions[1].text()  # "Model:" and "Large:" differ in width
    assert large.left() == small.left()  # yet the boxes start at the same place
    for caption, box in zip(captions, (small, large), strict=True):  # right next to its box
        assert 0 <= box.left() - _box(caption, header).right() <= 8
        assert caption.fontMetrics().horizontalAdvance(caption.text()) <= caption.width()
    header.resize(900, 200)  # side by side: no caption is pushed away from its box
    _settle()
    assert _box(header.combos["large"], header).top() == _box(header.combos["small"], header).top()
    _no_overlap(header)


def test_before_any_answer_the_numbers_take_no_room(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _window(qtbot, loaded_models, 1000)
    header = window.header
    header.stats.setText("")
    _settle()
    assert not header.stats.isVisible()
    assert _box(window.plan_button, header).right() > header.width() - 20  # at the end still
    widths = {role: combo.width() for role, combo in header.combos.items()}
    header.stats.setText(NUMBERS)
    _settle()
    assert header.stats.isVisible()
    assert all(header.combos[role].width() <= width for role, width in widths.items())
    window.close()


def test_a_new_chat_shows_no_numbers_of_the_last_answer(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    prefs = tiny.settings(language="en", max_answer_tokens=8)
    window = MainWindow(prefs, loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    header = window.header
    window.submit("Name a colour.")
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=60_000)
    assert "tokens/s" in header.stats.text()  # the answer's speed and context use
    answered = window.conversation_id

    qtbot.mouseClick(window.sidebar.new_button, Qt.MouseButton.LeftButton)
    _settle()
    assert window.chat.bubbles() == []
    assert header.stats.text() == "" and not header.stats.isVisible()
    assert header.stats.toolTip() == ""

    window.submit("Name a fruit.")  # a second chat answered, then the first one opened again
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=60_000)
    assert "tokens/s" in header.stats.text()
    window.open_conversation(answered)
    _settle()
    assert header.stats.text() == "" and not header.stats.isVisible()
    window.close()
