"""A notice above the chat: a passing toast (hides itself) or a problem (stays until closed)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton

from engram.ui.i18n import Retranslating, Text, said

TOAST_MS = 6_000


class Notice(Retranslating, QFrame):
    """One line of text with a close button; ``kind`` "toast" hides itself after a few seconds,
    "problem" stays. An optional link (e.g. "Manage") emits ``link`` with its key. Texts given
    as callables are asked again on a language change."""

    link = Signal(str)
    hidden = Signal()  # closed, timed out or replaced by another message

    def __init__(self) -> None:
        super().__init__()
        self.kind = "problem"
        self._plain = ""
        self._text: Text = ""
        self._links: dict[str, Text] = {}
        self.setObjectName("notice")
        self.label = QLabel()
        self.label.setObjectName("notice_text")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.label.linkActivated.connect(self.link)
        self.close_button = QToolButton()
        self.close_button.setObjectName("notice_close")
        self.close_button.setText("×")
        self.close_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.retranslate()
        self.hide()

    def retranslate(self) -> None:
        self.close_button.setAccessibleName(self.tr("Close this notice"))
        self.close_button.setToolTip(self.tr("Close"))
        self._render()

    def text(self) -> str:
        """What the notice says, as plain text."""
        return self._plain

    def show_problem(self, text: Text) -> None:
        """Something went wrong: stays until the user closes it or it is solved."""
        self._show("problem", text, {})

    def show_toast(self, text: Text, links: dict[str, Text] | None = None) -> None:
        """Something happened (remembered, learned): hides itself after a few seconds.
        ``links`` maps a key to a link text shown after the message."""
        self._show("toast", text, links or {})
        self._timer.start(TOAST_MS)

    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()
        self.hidden.emit()

    def dismiss_toast(self) -> None:
        """Hide a toast (e.g. when the user switches chats); a problem stays."""
        if self.kind == "toast":
            self.dismiss()

    def _show(self, kind: str, text: Text, links: dict[str, Text]) -> None:
        self._timer.stop()
        if self.isVisible():
            self.hidden.emit()  # the message shown before is gone
        self.kind = kind
        self._text, self._links = text, links
        self._render()
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()

    def _render(self) -> None:
        """The text and its links, in the current language."""
        self._plain = said(self._text)
        anchors = "".join(
            f' &nbsp;<a href="{key}">{html.escape(said(label))}</a>'
            for key, label in self._links.items()
        )
        self.label.setText(html.escape(self._plain).replace("\n", "<br>") + anchors)
