"""Light and dark themes: one stylesheet with palette placeholders filled from a JSON palette."""

from __future__ import annotations

import json
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from engram.core import resources

_PLACEHOLDER = re.compile(r"@([a-z_]+)")


def resolve(theme: str) -> str:
    """ "light" or "dark"; "system" follows the desktop's colour scheme."""
    if theme in ("light", "dark"):
        return theme
    hints = QGuiApplication.styleHints()
    return "dark" if hints.colorScheme() == Qt.ColorScheme.Dark else "light"


def _colours(theme: str) -> dict[str, str]:
    return dict(json.loads(resources.read_text("styles", f"{resolve(theme)}.json")))


def stylesheet(theme: str) -> str:
    colours = _colours(theme)
    base = resources.read_text("styles", "base.qss")
    return _PLACEHOLDER.sub(lambda m: colours[m.group(1)], base)


_ROLES = {  # Qt's palette from the theme's colours: tables, lists, fields and menus follow it
    QPalette.ColorRole.Window: "window",
    QPalette.ColorRole.WindowText: "text",
    QPalette.ColorRole.Base: "input",
    QPalette.ColorRole.AlternateBase: "window",
    QPalette.ColorRole.Text: "text",
    QPalette.ColorRole.Button: "button",
    QPalette.ColorRole.ButtonText: "text",
    QPalette.ColorRole.Highlight: "selection",
    QPalette.ColorRole.HighlightedText: "text",
    QPalette.ColorRole.ToolTipBase: "input",
    QPalette.ColorRole.ToolTipText: "text",
    QPalette.ColorRole.PlaceholderText: "muted",
    QPalette.ColorRole.Mid: "border",
    QPalette.ColorRole.Link: "accent",
}


def palette(theme: str) -> QPalette:
    """The theme's colours as Qt's palette (disabled text in the muted colour)."""
    colours = _colours(theme)
    result = QPalette()
    for role, name in _ROLES.items():
        result.setColor(role, QColor(colours[name]))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        result.setColor(QPalette.ColorGroup.Disabled, role, QColor(colours["muted"]))
    return result


_current = {"theme": "light"}


def current() -> str:
    """The theme in use ("light" or "dark"), e.g. for colouring code in answers."""
    return _current["theme"]


def apply(app: QApplication, theme: str) -> None:
    """Switch the whole app to ``theme`` now. Widgets hear of it by the palette and style
    change events it sends; :func:`current` already names the new theme when they do (answers
    render their code blocks again in its colours)."""
    _current["theme"] = resolve(theme)
    app.setStyle("Fusion")
    app.setPalette(palette(theme))
    app.setStyleSheet(stylesheet(theme))


_default_font: list[QFont] = []


def apply_font(app: QApplication, points: int) -> None:
    """The app's font at ``points`` (0: the desktop's own size)."""
    if not _default_font:
        _default_font.append(QFont(app.font()))
    font = QFont(_default_font[0])
    if points > 0:
        font.setPointSize(points)
    app.setFont(font)
