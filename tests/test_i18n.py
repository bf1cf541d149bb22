"""Both UI languages: every string is translated, the shipped .qm is current, and it loads."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engram.core import settings
from engram.ui import i18n
from engram.ui.main_window import MainWindow

REPO = Path(__file__).resolve().parents[1]
TS = REPO / "resources" / "translations" / "engram_zh_CN.ts"
BIN = REPO / ".venv" / "bin"
UI_SOURCES = sorted(str(p) for p in (REPO / "desktop" / "engram" / "ui").glob("*.py"))


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
        [_tool("pyside6-lupdate"), *UI_SOURCES, "-ts", str(fresh)], check=True, capture_output=True
    )
    in_code = set(_messages(fresh))
    shipped = _messages(TS)
    assert len(in_code) > 30
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
    qtbot: QtBot, chinese: None, starter_models: Path
) -> None:
    window = MainWindow(settings.Settings(language="zh_CN"))
    qtbot.addWidget(window)
    assert window.send_button.text() == "发送"
    assert window.stop_button.text() == "停止"
    assert window.sidebar.new_button.text() == "新对话"
    assert window.composer.placeholderText().startswith("给 Engram 发消息")
    qtbot.waitUntil(lambda: window._ready, timeout=30_000)
    window.close()
