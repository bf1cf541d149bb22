"""What the model was given is all shown: the current plan it follows is a chip under the answer,
and the prompt viewer shows the tool list even when the chat template renders it apart from the
system part."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import PromptParts
from engram.assistant.memories import open_store
from engram.assistant.tools import builtins, loop
from engram.assistant.turn.pipeline import Assistant
from engram.core import paths
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.ui.main_window import MainWindow
from engram.ui.prompt_dialog import PromptDialog
from test_tools import ScriptedModel

TEMPLATES = Path(__file__).parent / "data" / "templates"


def _seed_plan() -> int:
    store = open_store(tiny.settings())
    try:
        steps = ["Read the chapter on tides", "Watch the tide tables", "Write a summary"]
        plan = {"plan": {"goal": "Learn how tides work", "steps": steps, "current_step": 1}}
        return store.add("Learn how tides work", "plan", origin="local", meta=plan).id
    finally:
        store.conn.close()


@pytest.mark.slow
def test_the_plan_an_answer_followed_is_a_chip_under_it(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    plan = _seed_plan()
    window = MainWindow(tiny.settings(max_answer_tokens=12), loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    window.submit("What should I do today?")
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=60_000)
    answer = window.chat.bubbles()[-1]
    assert answer.chips is not None
    first = answer.chips.items[0]
    assert (first.label, first.memory_id) == ("plan", plan)
    chip = answer.chips.buttons[0]
    assert chip.objectName() == "chip_plan"
    assert chip.text().startswith("Plan: Learn how tides work")
    assert "Your current plan" in chip.toolTip()
    assert "should do next: Watch the tide tables" in chip.toolTip()
    assert "This is wrong" in [a.text() for a in chip.menu().actions()]
    window.close()


def _prepared(chat_template: str) -> Assistant:
    conn = db.connect(paths.database_path())
    model = ScriptedModel([], chat_template=chat_template)
    toolbox = loop.Toolbox(builtins.registry(disabled={"files_list", "files_search", "files_read"}))
    return Assistant(EpisodeLog(conn), model, tools=toolbox)  # type: ignore[arg-type]


def test_the_prompt_viewer_shows_the_tool_list_a_template_renders(qtbot: QtBot) -> None:
    assistant = _prepared((TEMPLATES / "tools-qwen2.5.jinja").read_text())
    try:
        parts = assistant.prepare("What is 6 times 7?", []).parts
    finally:
        assistant.log.conn.close()
    assert '"calculator"' in parts.tools and parts.tokens["tools"] > 0
    assert '"calculator"' not in parts.system  # the template lists them, not the system part
    dialog = PromptDialog(parts)
    qtbot.addWidget(dialog)
    shown = dialog.view.toPlainText()
    assert "=== Tools (the chat template lists them) (" in shown and '"calculator"' in shown


def test_without_a_template_the_tool_list_is_in_the_system_part(qtbot: QtBot) -> None:
    assistant = _prepared("")
    try:
        parts = assistant.prepare("What is 6 times 7?", []).parts
    finally:
        assistant.log.conn.close()
    assert parts.tools == "" and "calculator" in parts.system
    dialog = PromptDialog(parts)
    qtbot.addWidget(dialog)
    shown = dialog.view.toPlainText()
    assert "Tools (the chat template" not in shown and "calculator" in shown


def test_the_prompt_viewer_shows_a_lessons_example_with_the_memory_block(qtbot: QtBot) -> None:
    asked = "Write a short message to my landlord saying the heating is broken."
    signed = "Dear Mr Weber,\nThe heating is broken.\nBest regards, Mia"
    example = ({"role": "user", "content": asked}, {"role": "assistant", "content": signed})
    block = "<memory>\n- Sign messages you write for me with 'Best regards, Mia'.\n</memory>"
    parts = PromptParts("You are Engram.", [], block, "Write to my dentist.", examples=example)
    dialog = PromptDialog(parts.counted(lambda text: len(text.split())))
    qtbot.addWidget(dialog)
    shown = dialog.view.toPlainText()
    memory = shown.split("=== Memory block")[1].split("=== Message")[0]
    assert block in memory and f"[user] {asked}" in memory
    assert f"[assistant] {signed}" in memory
