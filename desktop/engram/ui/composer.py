"""The message input: Enter sends, Ctrl+Enter asks the large model, Shift+Enter is a newline."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QPlainTextEdit

from engram.ui.i18n import Retranslating

MAX_LINES = 8
PADDING = 16  # the stylesheet's padding and border around the text


class Composer(Retranslating, QPlainTextEdit):
    """A growing plain-text box that submits on Enter."""

    submitted = Signal(str)
    submitted_large = Signal(str)  # Ctrl+Enter: ask the large model

    def __init__(self) -> None:
        super().__init__()
        self.setTabChangesFocus(True)
        self.retranslate()
        self.document().contentsChanged.connect(self._fit_height)

    def retranslate(self) -> None:
        self.setPlaceholderText(
            self.tr("Message Engram… (Enter to send, Shift+Enter for a new line)")
        )
        self.setAccessibleName(self.tr("Message"))
        self._fit_height()

    def _fit_height(self) -> None:
        """Grow with the text from one line up to eight, then scroll; empty, as tall as its
        placeholder wrapped to the box's width (it is never cut off)."""
        lines = int(self.document().size().height())
        if self.document().isEmpty():
            margin = int(self.document().documentMargin() * 2)
            area = QRect(0, 0, max(1, self.viewport().width() - margin), 10_000)
            flags = int(Qt.TextFlag.TextWordWrap.value)
            metrics = self.fontMetrics()
            wrapped = metrics.boundingRect(area, flags, self.placeholderText())
            lines = 1 + round((wrapped.height() - metrics.height()) / metrics.lineSpacing())
        lines = max(1, min(MAX_LINES, lines))
        chrome = int(self.document().documentMargin() * 2) + self.frameWidth() * 2 + PADDING
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + chrome)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        if self.document().isEmpty():  # the placeholder may wrap differently now
            self._fit_height()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            text = self.toPlainText()
            if text.strip():
                large = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
                (self.submitted_large if large else self.submitted).emit(text)
            event.accept()
            return
        super().keyPressEvent(event)
