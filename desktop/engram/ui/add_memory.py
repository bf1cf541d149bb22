"""The memory browser's "Add memory": the user writes a memory in their own words and says
whether it is a fact or a preference; it is kept as ``/remember`` keeps it."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.memories import OWN_KINDS
from engram.ui import labels


class AddMemoryDialog(QDialog):
    """The text and its kind; Add is offered once there is text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add memory"))
        intro = QLabel(
            self.tr(
                "Write it in your own words, as Engram should remember it. Engram recalls it "
                "when a chat needs it."
            )
        )
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setAccessibleName(self.tr("Memory text"))
        self.editor.setPlaceholderText(self.tr("e.g. My daughter Lily is 7 and loves dinosaurs."))
        self.editor.setTabChangesFocus(True)
        said = {
            "fact": self.tr("Something true about you or your world"),
            "preference": self.tr("How you like things done or answered"),
        }
        self.kinds = QButtonGroup(self)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.editor, 1)
        for code in OWN_KINDS:
            choice = QRadioButton(
                self.tr("{kind}: {what}").format(kind=labels.label(code), what=said[code])
            )
            choice.setProperty("kind", code)
            choice.setChecked(code == OWN_KINDS[0])
            self.kinds.addButton(choice)
            layout.addWidget(choice)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.add_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.add_button.setText(self.tr("Add"))
        self.add_button.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.editor.textChanged.connect(lambda: self.add_button.setEnabled(bool(self.text())))
        self.resize(480, 300)

    def text(self) -> str:
        """What the user wrote, without blank space around it."""
        return self.editor.toPlainText().strip()

    def kind(self) -> str:
        """The kind chosen: "fact" or "preference"."""
        chosen = self.kinds.checkedButton()
        return str(chosen.property("kind")) if chosen is not None else OWN_KINDS[0]

    def choose(self, kind: str) -> None:
        """Check the choice of ``kind``."""
        for choice in self.kinds.buttons():
            choice.setChecked(choice.property("kind") == kind)
