"""Light and dark themes: one stylesheet with palette placeholders filled from a JSON palette."""

from __future__ import annotations

import json
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QApplication

from engram.core import resources

_PLACEHOLDER = re.compile(r"@([a-z_]+)")


def resolve(theme: str) -> str:
    """ "light" or "dark"; "system" follows the desktop's colour scheme."""
    if theme in ("light", "dark"):
        return theme
    hints = QGuiApplication.styleHints()
    return "dark" if hints.colorScheme() == Qt.ColorScheme.Dark else "light"


def stylesheet(theme: str) -> str:
    palette = json.loads(resources.read_text("styles", f"{resolve(theme)}.json"))
    base = resources.read_text("styles", "base.qss")
    return _PLACEHOLDER.sub(lambda m: palette[m.group(1)], base)


_current = {"theme": "light"}


def current() -> str:
    """The theme in use ("light" or "dark"), e.g. for colouring code in answers."""
    return _current["theme"]


def apply(app: QApplication, theme: str) -> None:
    app.setStyle("Fusion")
    app.setStyleSheet(stylesheet(theme))
    _current["theme"] = resolve(theme)


_default_font: list[QFont] = []


def apply_font(app: QApplication, points: int) -> None:
    """The app's font at ``points`` (0: the desktop's own size)."""
    if not _default_font:
        _default_font.append(QFont(app.font()))
    font = QFont(_default_font[0])
    if points > 0:
        font.setPointSize(points)
    app.setFont(font)
