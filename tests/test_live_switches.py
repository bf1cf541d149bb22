"""Settings → Language and Theme apply at once to everything the main window shows: every visible
text retranslates on Qt's LanguageChange event, and answers render again in the new theme's
colours (code blocks included)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import Finished, Recalled, Status
from engram.assistant.learning.plans import Plan
from engram.assistant.tools.permissions import BUILT_IN, Question
from engram.core import paths, settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models.local import CallStats
from engram.ui import markdown, theme
from engram.ui.appearance import Appearance
from engram.ui.main_window import MainWindow
from engram.ui.settings_dialog import SettingsDialog
from engram.ui.tool_block import PermissionPrompt, ToolBlock

TS = Path(__file__).resolve().parents[1] / "resources" / "translations" / "engram_zh_CN.ts"
CODE_ANSWER = "Here it is:\n\n```python\nprint('hi')\n```\n"


def _zh(context: str, source: str) -> str:
    """The shipped Chinese of one UI string."""
    for found in ET.parse(TS).iter("context"):
        if found.findtext("name") == context:
            for message in found.iter("message"):
                if message.findtext("source") == source:
                    return "".join(message.find("translation").itertext())  # type: ignore[union-attr]
    raise AssertionError(f"{context}: {source!r} is not in {TS.name}")


def _seed_chat() -> None:
    """Yesterday's chat with an answer, so the sidebar has a heading and the chat a bubble."""
    conn = db.connect(paths.database_path())
    try:
        log = EpisodeLog(conn)
        conversation = log.new_conversation("").id  # untitled
        log.append(conversation, "user", "Show me some code")
        log.append(conversation, "assistant", CODE_ANSWER)
    finally:
        conn.close()


@pytest.fixture
def store(qapp: QApplication) -> Iterator[settings.SettingsStore]:
    """The app's settings store, followed by the language and font as in the app."""
    prefs = settings.SettingsStore(tiny.settings(language="en"))
    appearance = Appearance(qapp, prefs)
    yield prefs
    appearance.close()


@pytest.fixture
def restore_theme(qapp: QApplication) -> Iterator[None]:
    style, palette, current = qapp.styleSheet(), qapp.palette(), theme.current()
    theme.apply(qapp, "light")
    yield
    qapp.setStyleSheet(style)
    qapp.setPalette(palette)
    theme._current["theme"] = current


def test_switching_to_chinese_retranslates_every_visible_text_of_the_main_window(
    qtbot: QtBot, store: settings.SettingsStore, loaded_models: LoadedModels
) -> None:
    _seed_chat()
    window = MainWindow(store, loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    # The status line shows the state set below, not a report the background learner sends
    # when it gets round to it (the tiny large model is "too small", which shows no text).
    window.worker.learning_status.disconnect(window.show_learning)
    answer = window.chat.bubbles()[-1]
    answer.set_marker(window.answers._stopped)
    block = ToolBlock("calculator", {"expression": "1+1"})
    answer.add_block(block)
    question = PermissionPrompt(Question("files_read", BUILT_IN, {"path": "a.md"}, ("web",)))
    answer.add_block(question)
    window.chat.attach_chips(answer, [Recalled("fact", "A memory", 1.0, 0.0, memory_id=1)])
    stats = CallStats(100, 0, 512, 50, first_token_s=0.1, total_s=1.1)
    window._show_stats(Finished(answer.episode_id, answer.text, stats=stats, context=4096))
    window.show_learning(Status("idle", model="loaded"))
    window.plan_panel.show_plan(Plan(1, "Run", ("Buy shoes", "Run 5 km"), 0))
    window.notices.problem(lambda: window.tr("Untitled chat"))
    assert window.composer.placeholderText().startswith("Message Engram")

    store.update(language="zh_CN")
    qtbot.waitUntil(lambda: window.send_button.text() == _zh("TurnControls", "Send"))

    assert window.composer.placeholderText() == _zh(
        "Composer", "Message Engram… (Enter to send, Shift+Enter for a new line)"
    )
    sidebar = window.sidebar
    assert sidebar.new_button.text() == _zh("Sidebar", "New chat")
    assert sidebar.search.placeholderText() == _zh("Sidebar", "Search chats")
    assert sidebar.list.item(0).text() == _zh("Sidebar", "Today")
    assert sidebar.titles() == [_zh("Sidebar", "Untitled chat")]
    header = window.header
    assert header.captions["small"].text() == _zh("ChatHeader", "Model:")
    assert header.captions["large"].text() == _zh("ChatHeader", "Large:")
    assert window.export_button.text() == _zh("ChatActions", "Export")
    assert window.temporary_button.text() == _zh("ChatActions", "Temporary")
    assert window.plan_button.text() == _zh("ChatActions", "Plan")
    numbers = _zh("AnswerView", "{speed:.1f} tokens/s · context {used:,} of {size:,}")
    speed = stats.decode_tokens_per_s
    assert header.stats.full_text() == numbers.format(speed=speed, used=150, size=4096)
    for name, source in (("copy", "Copy"), ("regenerate", "Regenerate"), ("thumbs_up", "Good"),
                         ("thumbs_down", "Bad"), ("prompt", "Prompt")):  # fmt: skip
        assert answer.buttons[name].text() == _zh("MessageBubble", source)
    assert window.chat.bubbles()[0].buttons["edit"].text() == _zh("MessageBubble", "Edit")
    assert answer.marker.text() == _zh("AnswerView", "Stopped")
    assert _zh("MessageBubble", "Copy code") in answer.label.text()
    assert block.header.text() == _zh("ToolBlock", "Tool: {name} · running…").format(
        name="calculator"
    )
    assert question.buttons["deny"].text() == _zh("PermissionPrompt", "Deny")
    assert question.question.text().endswith(
        _zh("PermissionPrompt", "It asks after reading {read}: that text, not you, may be asking "
            "for it.").format(read="web")
    )  # fmt: skip
    assert answer.chips is not None
    assert answer.chips.caption.text() == _zh("MemoryChips", "Recalled:")
    status = window.status
    assert status.settings_button.text() == _zh("StatusLine", "Settings")
    assert status.models_button.text() == _zh("StatusLine", "Models")
    assert status.memories_button.text() == _zh("StatusLine", "Memories")
    assert window.learning_state.text() == _zh("StatusLine", "Memory up to date")
    assert window.large_state.text() == _zh("StatusLine", "Large model: {state}").format(
        state=_zh("Labels", "loaded")
    )
    assert window.model_state.full_text().startswith(
        _zh("StatusLine", "Model: {name}").split("{")[0]
    )
    panel = window.plan_panel
    assert panel.title.text() == _zh("PlanPanel", "Plan")
    assert panel.tick_button.text() == _zh("PlanPanel", "Step done")
    assert window.temporary_marker.text() == _zh(
        "ChatActions",
        "Temporary chat: nothing here is remembered; it is deleted when you leave it.",
    )
    assert window.notice.text() == _zh("MainWindow", "Untitled chat")

    store.update(language="en")  # and back
    qtbot.waitUntil(lambda: window.send_button.text() == "Send")
    assert window.composer.placeholderText().startswith("Message Engram")
    assert sidebar.list.item(0).text() == "Today" and header.captions["small"].text() == "Model:"
    assert answer.buttons["regenerate"].text() == "Regenerate"
    assert "Copy code" in answer.label.text()
    assert window.learning_state.text() == "Memory up to date"
    window.close()


def _share(image: QImage, colour: str) -> float:
    """How much of ``image`` is exactly ``colour``."""
    wanted = QColor(colour).rgb()
    step = 2
    points = [(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(image.pixel(x, y) == wanted for x, y in points) / len(points)


@pytest.mark.usefixtures("restore_theme")
def test_switching_to_dark_renders_the_open_code_blocks_dark(
    qtbot: QtBot, store: settings.SettingsStore, loaded_models: LoadedModels
) -> None:
    window = MainWindow(store, loaded_models)
    qtbot.addWidget(window)
    window.show()
    answer = window.chat.add("assistant", CODE_ANSWER)
    qtbot.waitUntil(answer.label.isVisible)
    light, dark = markdown.CODE_BACKGROUND["light"], markdown.CODE_BACKGROUND["dark"]
    assert _share(answer.label.grab().toImage(), light) > 0.05

    dialog = SettingsDialog(store, window)  # Settings → Appearance → Theme: Dark
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    shot = answer.label.grab().toImage()
    assert _share(shot, dark) > 0.05 and _share(shot, light) == 0
    assert f"background:{dark}" in answer.label.text()
    dialog.reject()  # Cancel puts the theme back
    assert f"background:{light}" in answer.label.text()
    window.close()
