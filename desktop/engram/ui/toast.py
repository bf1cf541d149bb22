"""A notice above the chat: a toast or a problem (stays until closed).

A toast passes after a few seconds unless it offers something to do: what learning just wrote
(Manage) stays until the user closes it or manages it, whatever chat is shown; "Forgot: …" with
its Undo stays while its chat is shown. A passing toast or a problem shown over a toast that
stays hides it only until it goes itself."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Literal

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton

from engram.ui.i18n import Retranslating, Text, said

TOAST_MS = 6_000

# How long a toast is shown: "passes" after TOAST_MS (and when the chat changes); "chat" until
# it is closed, a link of its is followed or the chat changes; "closed" until it is closed or a
# link of its is followed.
Until = Literal["passes", "chat", "closed"]


@dataclass
class _Message:
    kind: str  # "toast" or "problem"
    text: Text
    links: dict[str, Text] = field(default_factory=dict)
    until: Until = "passes"
    key: str = ""  # what the message is about, said by ``hidden`` when it is gone for good
    tip: Text = ""

    @property
    def stays(self) -> bool:
        return self.kind == "toast" and self.until != "passes"


class Notice(Retranslating, QFrame):
    """Text, wrapped, with a close button; ``kind`` "toast" or "problem". An optional link
    (e.g. "Manage") emits ``link`` with its key. Texts given as callables are asked again on a
    language change."""

    link = Signal(str)
    hidden = Signal(str)  # a message's key: closed, timed out or replaced, gone for good

    def __init__(self) -> None:
        super().__init__()
        self.kind = "problem"
        self._plain = ""
        self._shown: _Message | None = None
        self._beneath: list[_Message] = []  # toasts that stay, under a newer message
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

    def key(self) -> str:
        """The key of the message shown ("" for none, or one without a key)."""
        return self._shown.key if self._shown is not None and self.isVisible() else ""

    def show_problem(self, text: Text) -> None:
        """Something went wrong: stays until the user closes it or it is solved."""
        self._show(_Message("problem", text))

    def show_toast(
        self,
        text: Text,
        links: dict[str, Text] | None = None,
        until: Until = "passes",
        key: str = "",
        tip: Text = "",
    ) -> None:
        """Something happened (remembered, learned). ``links`` maps a key to a link text
        shown after the message; ``until`` says how long it stays; ``tip`` is its tooltip
        (e.g. the whole of a text shown shortened)."""
        self._show(_Message("toast", text, links or {}, until, key, tip))

    def dismiss(self) -> None:
        """The message shown is gone for good (closed, timed out, done); a toast that stays
        and that it covered shows again."""
        self._timer.stop()
        gone, self._shown = self._shown, None
        self.hide()
        if gone is not None:
            self.hidden.emit(gone.key)
        if self._beneath:
            self._display(self._beneath.pop())

    def dismiss_toast(self) -> None:
        """The chat changes: its toasts go (a problem, and what learning wrote, stay)."""
        for message in [m for m in self._beneath if m.until != "closed"]:
            self._beneath.remove(message)
            self.hidden.emit(message.key)
        shown = self._shown if self.isVisible() else None
        if shown is not None and shown.kind == "toast" and shown.until != "closed":
            self.dismiss()

    def _show(self, message: _Message) -> None:
        self._timer.stop()
        shown = self._shown if self.isVisible() else None
        if shown is not None and shown.stays and not (message.stays and message.key == shown.key):
            self._beneath.append(shown)  # back when the new message goes
        elif shown is not None:
            self.hidden.emit(shown.key)  # the message shown before is gone
        for older in [m for m in self._beneath if message.key and m.key == message.key]:
            self._beneath.remove(older)  # a newer one of the same says it now
            self.hidden.emit(older.key)
        self._display(message)

    def _display(self, message: _Message) -> None:
        self._shown = message
        self.kind = message.kind
        self._render()
        self.setProperty("kind", message.kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()
        if message.kind == "toast" and message.until == "passes":
            self._timer.start(TOAST_MS)

    def _render(self) -> None:
        """The text and its links, in the current language."""
        message = self._shown
        if message is None:
            self._plain = ""
            self.label.setText("")
            self.label.setToolTip("")
            return
        self._plain = said(message.text)
        anchors = "".join(
            f' &nbsp;<a href="{key}">{html.escape(said(label))}</a>'
            for key, label in message.links.items()
        )
        self.label.setText(html.escape(self._plain).replace("\n", "<br>") + anchors)
        self.label.setToolTip(said(message.tip))
