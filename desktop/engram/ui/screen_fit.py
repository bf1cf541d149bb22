"""Windows sized to the screen they open on: at most SCREEN_SHARE of its available area (the
screen without the task bar or dock), centred on it. A window asks for the size it looks best
at (the memory browser 1100×700, the model manager 1200×640); on a smaller screen it opens
smaller rather than past the screen's edge, its title bar and buttons in reach."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

# Of the available area: room left for the title bar and the window frame the system adds.
SCREEN_SHARE = 0.9


def fitted(wanted: QSize, available: QRect, share: float = SCREEN_SHARE) -> QRect:
    """Where a window that would like to be ``wanted`` opens in ``available``: no wider or
    taller than ``share`` of it, centred in it."""
    width = min(wanted.width(), int(available.width() * share))
    height = min(wanted.height(), int(available.height() * share))
    left = available.x() + (available.width() - width) // 2
    top = available.y() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def fit(window: QWidget, screen: QScreen | None = None, centre: bool = True) -> None:
    """Size ``window`` (before it is shown) from the size it asks for to what fits ``screen``
    (its own screen when not given), and centre it there; a dialog over its parent keeps the
    place Qt gives it (``centre`` False)."""
    screen = screen or window.screen() or QGuiApplication.primaryScreen()
    if screen is None:  # no screen at all (nothing is shown anyway)
        return
    place = fitted(window.size(), screen.availableGeometry())
    window.resize(place.size())
    if centre:
        window.move(place.topLeft())
