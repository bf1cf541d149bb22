"""Buttons given their text, accessible name and tooltip in one go (again on a language change)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QAbstractButton


def name_buttons(rows: Iterable[tuple[QAbstractButton, str, str, str]]) -> None:
    """Each row: a button, its text, its accessible name and its tooltip (already translated)."""
    for button, text, name, tip in rows:
        button.setText(text)
        button.setAccessibleName(name)
        button.setToolTip(tip)
