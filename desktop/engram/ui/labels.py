"""Translated names of the codes the core uses: kinds, statuses, origins, roles, model states."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_NAMES = {
    "fact": QT_TRANSLATE_NOOP("Labels", "Fact"),
    "preference": QT_TRANSLATE_NOOP("Labels", "Preference"),
    "profile": QT_TRANSLATE_NOOP("Labels", "Profile"),
    "lesson": QT_TRANSLATE_NOOP("Labels", "Lesson"),
    "summary": QT_TRANSLATE_NOOP("Labels", "Summary"),
    "plan": QT_TRANSLATE_NOOP("Labels", "Plan"),
    "active": QT_TRANSLATE_NOOP("Labels", "Active"),
    "superseded": QT_TRANSLATE_NOOP("Labels", "Superseded"),
    "archived": QT_TRANSLATE_NOOP("Labels", "Archived"),
    "local": QT_TRANSLATE_NOOP("Labels", "Local model"),
    "cloud": QT_TRANSLATE_NOOP("Labels", "Cloud model"),
    "user": QT_TRANSLATE_NOOP("Labels", "You"),
    "small": QT_TRANSLATE_NOOP("Labels", "small"),
    "large": QT_TRANSLATE_NOOP("Labels", "large"),
    "embedding": QT_TRANSLATE_NOOP("Labels", "embedding"),
    "assistant": QT_TRANSLATE_NOOP("Labels", "Engram"),
    "not configured": QT_TRANSLATE_NOOP("Labels", "not configured"),
    "not loaded": QT_TRANSLATE_NOOP("Labels", "not loaded"),
    "loading": QT_TRANSLATE_NOOP("Labels", "loading"),
    "loaded": QT_TRANSLATE_NOOP("Labels", "loaded"),
}


def label(code: str) -> str:
    """The user's-language name of a kind, status or origin code."""
    name = _NAMES.get(code)
    return QCoreApplication.translate("Labels", str(name)) if name else code
