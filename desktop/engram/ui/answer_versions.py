"""The answers a message had before Regenerate replaced them: ``‹ 2/3 ›`` under its answer reads
them again. Only the latest answer is part of the chat (the prompt, learning, the thumbs); an
earlier one is shown in its place until the user steps back to the latest."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from engram.ui.i18n import Retranslating


class VersionSwitch(Retranslating, QWidget):
    """``‹ n/m ›``: which of a message's answers is shown (hidden while it has only one)."""

    chosen = Signal(int)  # the index of the answer to show, oldest first (the last: the latest)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("answer_versions")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.setSpacing(0)
        self.back = QToolButton()
        self.back.setObjectName("bubble_action")
        self.back.setText("‹")
        self.back.clicked.connect(lambda: self._step(-1))
        self.position = QLabel()
        self.position.setObjectName("answer_version")
        self.forward = QToolButton()
        self.forward.setObjectName("bubble_action")
        self.forward.setText("›")
        self.forward.clicked.connect(lambda: self._step(1))
        for widget in (self.back, self.position, self.forward):
            layout.addWidget(widget)
        self.count, self.index = 1, 0
        self.retranslate()
        self.hide()

    def retranslate(self) -> None:
        self.back.setToolTip(self.tr("The earlier answer"))
        self.back.setAccessibleName(self.tr("The earlier answer"))
        self.forward.setToolTip(self.tr("The later answer"))
        self.forward.setAccessibleName(self.tr("The later answer"))
        self._show()

    def set_position(self, index: int, count: int) -> None:
        """Answer ``index`` (from 0, oldest first) of ``count`` is shown."""
        self.count, self.index = max(1, count), max(0, min(index, count - 1))
        self._show()

    def _step(self, step: int) -> None:
        index = self.index + step
        if 0 <= index < self.count:
            self.set_position(index, self.count)
            self.chosen.emit(index)

    def _show(self) -> None:
        self.position.setText(f"{self.index + 1}/{self.count}")
        self.position.setToolTip(
            self.tr("Answer {n} of {count} to this message").format(
                n=self.index + 1, count=self.count
            )
        )
        self.back.setEnabled(self.index > 0)
        self.forward.setEnabled(self.index < self.count - 1)
        self.setVisible(self.count > 1)
