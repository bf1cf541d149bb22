"""``engram screenshots DIR``: render Engram's windows offscreen to PNG, in English and Chinese.

The windows run against a throw-away ENGRAM_HOME with a sample conversation, so the user's own
data is never shown or touched. Used for the README and to look at the app without a display.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget

from engram.assistant.prompt import Recalled
from engram.core import settings
from engram.ui import i18n, theme
from engram.ui.main_window import MainWindow

SAMPLE = {
    "en": (
        "Plan my week: I want to keep learning machine learning.",
        "Here is a plan that builds on where you left off:\n\n"
        "1. **Monday** – finish the chapter on *gradient descent*\n"
        "2. **Wednesday** – train a small model on your own data\n"
        "3. **Friday** – review what worked, as you prefer, in short notes",
        [
            ("plan", "Learning ML step by step: now at gradient descent."),
            ("preference", "The user prefers short notes over long explanations."),
        ],
    ),
    "zh_CN": (
        "帮我安排这周的学习，我想继续学机器学习。",
        "按照你上次的进度，这周可以这样安排：\n\n"
        "1. **周一**：读完*梯度下降*这一章\n"
        "2. **周三**：用自己的数据训练一个小模型\n"
        "3. **周五**：按你喜欢的方式，用简短笔记复习",
        [
            ("plan", "循序渐进学习机器学习：目前在梯度下降。"),
            ("preference", "用户喜欢简短的笔记，不喜欢长篇解释。"),
        ],
    ),
}


def _spin(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _wait(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        _spin(50)


def _save(widget: QWidget, path: Path) -> Path:
    _spin(150)
    widget.grab().save(str(path))
    return path


def main_window(language: str, out: Path) -> Path:
    """The chat window with a sample answer and the memories it used."""
    window = MainWindow(settings.Settings(language=language))
    window.resize(1000, 680)
    window.show()
    _wait(lambda: window._ready or window.notice.isVisible())
    question, answer, memories = SAMPLE[language]
    now = time.time()
    recalled = [
        Recalled(kind, text, 1.0, now, memory_id=i) for i, (kind, text) in enumerate(memories, 1)
    ]
    window.chat.add("user", question)
    bubble = window.chat.add("assistant", answer)
    window.chat.attach_chips(bubble, recalled, recalled[:1])
    try:
        return _save(window, out / f"main-window-{language}.png")
    finally:
        window.close()


MEMORIES = [
    ("preference", "The user prefers short notes over long explanations.", 0.8),
    ("fact", "The user's dog is called Biscuit.", 0.6),
    ("plan", "Learning ML step by step: now at gradient descent.", 0.9),
    ("lesson", "Code examples in Python work better for the user than maths.", 0.7),
    ("fact", "用户上周去了杭州旅行。", 0.5),
    ("preference", "用户喜欢简短的笔记，不喜欢长篇解释。", 0.8),
    ("summary", "Planned the week around the ML course; chose Friday for review.", 0.5),
]


def _seed_memories() -> None:
    from engram.assistant.session import embedder_for
    from engram.core import paths
    from engram.memory import db
    from engram.memory.store import MemoryStore

    conn = db.connect(paths.database_path())
    try:
        store = MemoryStore(conn, embedder_for(settings.Settings()))
        if not store.memories(limit=1):
            for kind, content, importance in MEMORIES:
                store.add(content, kind, importance=importance, origin="local")
    finally:
        conn.close()


def memory_browser(language: str, out: Path) -> Path:
    """The memory browser with sample memories, the first one selected."""
    from engram.ui.memory_browser import MemoryBrowser

    _seed_memories()
    window = MemoryBrowser(settings.Settings(language=language))
    window.resize(1100, 640)
    window.show()
    window.table.selectRow(0)
    _wait(lambda: window.sources.count() > 0)
    try:
        return _save(window, out / f"memory-browser-{language}.png")
    finally:
        window.close()


def settings_dialog(language: str, out: Path) -> Path:
    """The settings dialog, on its cloud tab (where the privacy indicator lives)."""
    from engram.ui.settings_dialog import SettingsDialog

    prefs = settings.Settings(language=language)
    prefs.cloud.enabled = True
    prefs.cloud.base_url = "https://api.example.com/v1"
    prefs.cloud.model = "example-large"
    dialog = SettingsDialog(prefs)
    dialog.resize(720, 560)
    dialog.show()
    tabs = dialog.findChild(QTabWidget)
    if tabs is not None:
        tabs.setCurrentIndex(2)
    try:
        return _save(dialog, out / f"settings-{language}.png")
    finally:
        dialog.close()


def model_manager(language: str, out: Path) -> Path:
    """The model manager with the catalogue and this machine's recommended pair."""
    from engram.ui.model_manager import ModelManager

    window = ModelManager(settings.Settings(language=language))
    window.resize(1200, 640)
    window.show()
    try:
        return _save(window, out / f"model-manager-{language}.png")
    finally:
        window.close()


WINDOWS = (main_window, memory_browser, settings_dialog, model_manager)


def render(
    out: Path, languages: tuple[str, ...] = ("en", "zh_CN"), dark: bool = False
) -> list[Path]:
    """Render every window in every language; return the PNG files written."""
    out.mkdir(parents=True, exist_ok=True)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    previous_style = app.styleSheet()
    theme.apply(app, "dark" if dark else "light")
    written: list[Path] = []
    try:
        for language in languages:
            translators = i18n.install(app, language)
            try:
                written.extend(window(language, out) for window in WINDOWS)
            finally:
                i18n.uninstall(app, translators)
    finally:
        app.setStyleSheet(previous_style)
    return written


def run(argv: list[str]) -> int:
    """The ``engram screenshots`` command; renders against a temporary ENGRAM_HOME."""
    parser = argparse.ArgumentParser(prog="engram screenshots", description=__doc__)
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--dark", action="store_true", help="use the dark theme")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    previous = os.environ.get("ENGRAM_HOME")
    with tempfile.TemporaryDirectory(prefix="engram-screenshots-") as home:
        os.environ["ENGRAM_HOME"] = home
        try:
            for path in render(args.out, dark=args.dark):
                print(path)
        finally:
            if previous is None:
                os.environ.pop("ENGRAM_HOME", None)
            else:
                os.environ["ENGRAM_HOME"] = previous
    return 0
