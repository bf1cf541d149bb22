"""Translated names of the codes the core uses (kinds, statuses, origins, who wrote a memory,
roles, model states), and sizes and download times as people read them."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from engram.assistant.model_admin import Offer

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
    "tool": QT_TRANSLATE_NOOP("Labels", "A tool call you allowed"),
    "import": QT_TRANSLATE_NOOP("Labels", "An import"),
    "distiller": QT_TRANSLATE_NOOP("Labels", "Engram's learning"),
    "hygiene": QT_TRANSLATE_NOOP("Labels", "Memory upkeep"),
    "earlier": QT_TRANSLATE_NOOP("Labels", "An earlier Engram"),
    "unknown": QT_TRANSLATE_NOOP("Labels", "Unknown"),
    "small": QT_TRANSLATE_NOOP("Labels", "small"),
    "large": QT_TRANSLATE_NOOP("Labels", "large"),
    "embedding": QT_TRANSLATE_NOOP("Labels", "embedding"),
    "assistant": QT_TRANSLATE_NOOP("Labels", "Engram"),
    "not configured": QT_TRANSLATE_NOOP("Labels", "not configured"),
    "too small": QT_TRANSLATE_NOOP("Labels", "too small to learn"),
    "not loaded": QT_TRANSLATE_NOOP("Labels", "not loaded"),
    "loading": QT_TRANSLATE_NOOP("Labels", "loading"),
    "loaded": QT_TRANSLATE_NOOP("Labels", "loaded"),
}


def label(code: str) -> str:
    """The user's-language name of a kind, status or origin code."""
    name = _NAMES.get(code)
    return QCoreApplication.translate("Labels", str(name)) if name else code


def human_bytes(count: float) -> str:
    """A byte count for people, the one formatter of sizes in the window: 850 KB, 23.6 MB,
    400 MB, 2 GB, 4.7 GB (a tenth below 100 units when it is not zero)."""
    units = (("GB", 1e9), ("MB", 1e6))
    unit, size = next(((u, s) for u, s in units if count >= s), ("KB", 1e3))
    value = count / size
    text = f"{value:.0f}" if value >= 100 else f"{value:.1f}".removesuffix(".0")
    return f"{text} {unit}"


def duration(seconds: float) -> str:
    """A rough duration: "about 40 s", "about 12 min", "about 2.5 h"."""
    if seconds < 60:
        text = QCoreApplication.translate("Labels", "about {n} s").format(n=max(1, round(seconds)))
    elif seconds < 90 * 60:
        text = QCoreApplication.translate("Labels", "about {n} min").format(n=round(seconds / 60))
    else:
        text = QCoreApplication.translate("Labels", "about {n} h").format(n=f"{seconds / 3600:.1f}")
    return text


def offer_cost(offer: Offer) -> str:
    """What fetching the offered pair costs: "3.7 GB, about 12 min" (at the assumed speed)."""
    return QCoreApplication.translate("Labels", "{size}, {time}").format(
        size=human_bytes(offer.download_bytes), time=duration(offer.download_seconds())
    )
