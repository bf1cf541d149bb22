"""The message input: Enter sends, Ctrl+Enter asks the large model, Shift+Enter is a newline."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
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
        """Grow with the text from one line up to eight, then scroll."""
        lines = max(1, min(MAX_LINES, int(self.document().size().height())))
        chrome = int(self.document().documentMargin() * 2) + self.frameWidth() * 2 + PADDING
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + chrome)

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
