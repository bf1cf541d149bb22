"""Both UI languages: every string is translated, the shipped .qm is current, and it loads.

Known errors count as UI strings: their English templates are marked with ``tr()`` anywhere in
the package (context ""), and the windows show them translated.
"""

from __future__ import annotations

import logging
import string
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTranslator
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import Failed
from engram.core import settings
from engram.core.errors import ModelFileError, Problem, tr
from engram.models import catalogue
from engram.ui import errors, i18n
from engram.ui.main_window import MainWindow

REPO = Path(__file__).resolve().parents[1]
TS = REPO / "resources" / "translations" / "engram_zh_CN.ts"
BIN = REPO / ".venv" / "bin"
# The UI's own strings and the known errors' templates, wherever in the package they are raised.
SOURCES = sorted(str(p) for p in (REPO / "desktop" / "engram").rglob("*.py"))


def _messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    tree = ET.parse(ts)
    return {
        (context.findtext("name") or "", message.findtext("source") or ""): message
        for context in tree.iter("context")
        for message in context.iter("message")
    }


def _translation(message: ET.Element) -> str:
    """The finished translation of a message ('' when missing or unfinished)."""
    translation = message.find("translation")
    if translation is None or translation.get("type") == "unfinished":
        return ""
    return "".join(translation.itertext()).strip()


def _tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else name


def test_every_ui_string_has_a_chinese_translation(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.ts"
    subprocess.run(
        [_tool("pyside6-lupdate"), *SOURCES, "-ts", str(fresh)], check=True, capture_output=True
    )
    in_code = set(_messages(fresh))
    shipped = _messages(TS)
    assert len(in_code) > 30
    errors_in_code = {source for context, source in in_code if context == ""}
    assert len(errors_in_code) > 100  # the known errors' templates, from every layer
    assert "Model {name}: {problem}." in errors_in_code  # engram.models, far from the UI
    missing = sorted(in_code - set(shipped))
    assert not missing, f"run installer/update_translations.sh and translate: {missing}"
    untranslated = sorted(key for key in in_code if not _translation(shipped[key]))
    assert not untranslated, f"untranslated strings: {untranslated}"


def test_the_shipped_qm_is_compiled_from_the_shipped_ts(tmp_path: Path) -> None:
    compiled = tmp_path / "engram_zh_CN.qm"
    subprocess.run(
        [_tool("pyside6-lrelease"), "-silent", str(TS), "-qm", str(compiled)],
        check=True,
        capture_output=True,
    )
    assert compiled.read_bytes() == TS.with_suffix(".qm").read_bytes()


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translators = i18n.install(qapp, "zh_CN")
    assert translators
    yield
    i18n.uninstall(qapp, translators)


def test_the_window_speaks_chinese_when_chosen(
    qtbot: QtBot, chinese: None, loaded_models: LoadedModels
) -> None:
    window = MainWindow(tiny.settings(language="zh_CN"), loaded_models)
    qtbot.addWidget(window)
    assert window.send_button.text() == "发送"
    assert window.stop_button.text() == "停止"
    assert window.sidebar.new_button.text() == "新对话"
    assert window.composer.placeholderText().startswith("给 Engram 发消息")
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    window.close()


def _placeholders(text: str) -> list[tuple[str, str, str]]:
    """The {fields} of a template with their conversion and format: ``{size:.2f}``, ``{id!r}``."""
    return sorted(
        (name, conversion or "", spec or "")
        for _, name, spec, conversion in string.Formatter().parse(text)
        if name is not None
    )


def test_every_translation_keeps_the_placeholders_of_its_source() -> None:
    wrong = []
    for (context, source), message in _messages(TS).items():
        translation = _translation(message)
        try:
            same = _placeholders(translation) == _placeholders(source)
        except ValueError:  # an unbalanced brace in the translation
            same = False
        if translation and not same:
            wrong.append(f"{context or '(errors)'}: {source!r} -> {translation!r}")
    assert not wrong, "\n".join(wrong)


def _zh(source: str, context: str = "") -> str:
    """The shipped Chinese translation of one source string (context "": a known error)."""
    translation = _translation(_messages(TS)[(context, source)])
    assert translation, source
    return translation


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_a_broken_small_model_is_reported_in_chinese_with_its_file_name(
    qtbot: QtBot,
    chinese: None,
    damage: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    entry = catalogue.load().get("smollm2-135m-instruct")
    path = entry.main_file()
    if damage == "missing":
        problem = _zh("{path} is missing").format(path=path)
    else:
        path.parent.mkdir(parents=True)
        path.write_bytes(b"GGUF" + b"\x07" * 4096)
        problem = _zh(
            "{path} has {size} bytes, expected {expected} (truncated or replaced)"
        ).format(path=path, size=4100, expected=entry.files[0].size)
    window = MainWindow(tiny.settings(language="zh_CN"))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(window.notice.isVisible, timeout=30_000)
    message = _zh("Model {name}: {problem}.").format(name=entry.name, problem=problem)
    hint = _zh("Run `engram models download {id}` to fetch it again.").format(id=tiny.MODEL)
    assert window.notice.text() == f"{message}\n{hint}"
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in window.notice.text()
    assert window.model_state.full_text() == _zh("No model loaded", "StatusLine")
    window.close()


def test_a_failed_turn_and_a_failed_learning_job_are_shown_in_chinese(
    qtbot: QtBot, chinese: None, starter_models: Path
) -> None:
    # A 32-token context cannot hold the system part and a message: the turn fails with a known
    # error.
    # Without a large model, the consolidation job the Remember button queues fails as well.
    prefs = tiny.settings(language="zh_CN", context_size=32, max_answer_tokens=16, large_model="")
    window = MainWindow(prefs)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    failed: list[Failed] = []
    window.worker.turn_event.connect(lambda e: failed.append(e) if isinstance(e, Failed) else None)
    window.composer.setPlainText("Hello there")
    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(failed) and not window.turns.busy, timeout=60_000)
    tokens = failed[0].problem.params["tokens"]
    message = _zh(
        "The conversation ({tokens} tokens) does not fit the model's context window of "
        "{context} tokens."
    ).format(tokens=tokens, context=32)
    hint = _zh("Shorten the message or start a new conversation.")
    assert window.notice.text() == f"{message}\n{hint}"

    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)
    paused = _zh("Learning paused: {error}", "StatusLine").format(
        error=_zh("No large model is configured for memory consolidation.")
    )
    qtbot.waitUntil(lambda: window.learning_state.text() == paused, timeout=30_000)
    assert window.retry_button.isVisible()
    window.close()


def _translator(tmp_path: Path, source: str, translation: str) -> QTranslator:
    """A real compiled translation holding one known-error template (context "")."""
    ts, qm = tmp_path / "broken.ts", tmp_path / "broken.qm"
    ts.write_text(
        '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE TS><TS version="2.1" language="zh_CN">'
        f"<context><name></name><message><source>{source}</source>"
        f"<translation>{translation}</translation></message></context></TS>",
        encoding="utf-8",
    )
    subprocess.run([_tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True)
    translator = QTranslator()
    assert translator.load(str(qm))
    return translator


@pytest.mark.parametrize(
    ("translation", "shown"),
    [
        ("文件 {path} 缺少 {count} 个块。", "文件 model.gguf 缺少 3 个块。"),
        ("文件 {pth} 缺少 {count} 个块。", "model.gguf lacks 3 blocks."),  # a misspelt name
        ("文件 {path 缺少 {count} 个块。", "model.gguf lacks 3 blocks."),  # an unclosed brace
        ("文件 {path} 缺少 {count:q} 个块。", "model.gguf lacks 3 blocks."),  # a bad format
    ],
)
@pytest.mark.slow
def test_a_broken_translation_shows_the_english_error_and_is_logged(
    qapp: QApplication,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    translation: str,
    shown: str,
) -> None:
    translator = _translator(tmp_path, "{path} lacks {count} blocks.", translation)
    QCoreApplication.installTranslator(translator)
    try:
        error = ModelFileError(tr("{path} lacks {count} blocks."), path="model.gguf", count=3)
        with caplog.at_level(logging.ERROR, logger="engram.ui.errors"):
            assert errors.translate(error) == (shown, "")
    finally:
        QCoreApplication.removeTranslator(translator)
    assert bool(caplog.records) == (shown == error.message)


def test_nested_problems_are_translated_too(chinese: None) -> None:
    line = Problem(tr("role must be system, user, assistant or tool"))
    error = ModelFileError(
        tr("Line {number} of the import file is invalid: {problem}. Nothing was imported."),
        tr("Fix or remove that line (the file must be an Engram JSON Lines export) and retry."),
        number=4,
        problem=line,
    )
    message, hint = errors.translate(error)
    assert message == _zh(error.template).format(
        number=4, problem=_zh("role must be system, user, assistant or tool")
    )
    assert hint == _zh(error.hint_template)
    assert errors.text(error) == f"{message}\n{hint}"


def test_the_model_manager_describes_the_machine_and_roles_in_chinese(
    qtbot: QtBot, chinese: None, starter_models: Path
) -> None:
    from engram.ui.model_manager import ModelManager

    manager = ModelManager(tiny.settings(language="zh_CN"))
    qtbot.addWidget(manager)
    machine = manager.machine_label.text()
    assert "内存" in machine and "GB free" not in machine
    roles = {manager.table.item(row, 1).text() for row in range(manager.table.rowCount())}
    assert "小模型, 大模型" in roles and "嵌入模型" in roles
    pair = manager._pair
    assert pair is not None and pair.reason_zh in manager.pair_label.text()
    assert pair.reason not in manager.pair_label.text()
    fit = manager.table.item(0, 5).toolTip()
    assert fit.startswith("需要") and "内存" in fit
    # Each row's buttons are looked up under the window's own context, where lupdate filed them.
    for row in manager.rows.values():
        buttons = [
            row.download_button,
            row.cancel_button,
            row.delete_button,
            row.use_small,
            row.use_large,
        ]
        english = [b.text() for b in buttons if b.text().isascii()]
        assert not english, f"untranslated row buttons: {english}"
        assert row.progress.accessibleName().endswith("的下载进度")
    manager.close()


def test_switching_the_language_retranslates_the_open_windows_at_once(
    qtbot: QtBot, qapp: QApplication, loaded_models: LoadedModels
) -> None:
    from engram.ui.appearance import Appearance

    store = settings.SettingsStore(tiny.settings(language="en"))
    appearance = Appearance(qapp, store)
    window = MainWindow(store, loaded_models)
    qtbot.addWidget(window)
    manager = window.show_models()
    assert window.send_button.text() == "Send" and manager.import_button.text() == "Import GGUF…"
    store.update(language="zh_CN")
    qtbot.waitUntil(lambda: window.send_button.text() == "发送")
    assert window.welcome.title.text() == "欢迎使用 Engram"
    assert manager.windowTitle() == "Engram — 模型"
    assert manager.import_button.text() != "Import GGUF…"
    assert manager.table.horizontalHeaderItem(0).text() == "模型"
    store.update(language="en")
    qtbot.waitUntil(lambda: window.send_button.text() == "Send")
    assert manager.import_button.text() == "Import GGUF…"
    appearance.close()
    manager.close()
    window.close()


def test_the_memory_browser_follows_a_language_change(
    qtbot: QtBot, qapp: QApplication, starter_models: Path
) -> None:
    from engram.ui.appearance import Appearance
    from engram.ui.memory_browser import MemoryBrowser

    store = settings.SettingsStore(tiny.settings(language="en"))
    appearance = Appearance(qapp, store)
    browser = MemoryBrowser(store)
    qtbot.addWidget(browser)
    assert browser.save_button.text() == "Save" and browser.kind.itemText(0) == "All kinds"
    store.update(language="zh_CN")
    qtbot.waitUntil(lambda: browser.save_button.text() != "Save")
    assert browser.kind.itemText(0) != "All kinds" and "Engram" in browser.windowTitle()
    assert browser.model.headerData(0, Qt.Orientation.Horizontal) != "Kind"
    assert browser.empty_state.text().startswith("还没有记忆")
    appearance.close()
    qtbot.waitUntil(lambda: browser.save_button.text() == "Save")
    browser.close()
