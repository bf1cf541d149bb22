"""A one-line label that ends in "…" when it has less room than its text, never clipped."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """Shows as much of its text as fits, then "…"; :meth:`full_text` is the whole of it."""

    def __init__(self, text: str = "", min_width: int = 40) -> None:
        super().__init__()
        self._full = ""
        # It gives way first when its row is short of room, and never widens the window.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(min_width)
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        """As wide as the whole text (up to the maximum width), whatever is shown now."""
        hint = super().sizeHint()
        margins = self.contentsMargins()
        wanted = self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right()
        hint.setWidth(min(wanted + 2, self.maximumWidth()))
        return hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        hint = super().minimumSizeHint()
        hint.setWidth(self.minimumWidth())
        return hint

    def setText(self, text: str) -> None:  # noqa: N802 (Qt API)
        self._full = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, self.width())
        super().setText(shown)
