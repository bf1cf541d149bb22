"""The message box and its buttons (Send, Stop, Ask large model, Remember), and the state of the
answer they start: ready (a model is loaded), busy (an answer runs), its cancel token, and the
prompt read ahead while the user pauses typing. An answer's own Ask large model (offered after a
thumb down) asks its question again, of the large model, through the same send."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout

from engram.core.cancel import CancelToken
from engram.ui.answer_view import ASK_LARGE
from engram.ui.buttons import name_buttons
from engram.ui.chat_view import ChatView, MessageBubble
from engram.ui.composer import Composer

# A pause in typing this long starts evaluating the prompt ahead of Enter.
PREFETCH_DEBOUNCE_MS = 400


class TurnControls(QObject):
    """Sends what the user wrote (into ``chat`` and, by the ``*_requested`` signals, to the model
    worker) for the conversation ``conversation()`` returns; Stop cancels the running answer."""

    send_requested = Signal(int, str, bool, object)  # conversation, text, by the large model, token
    prefetch_requested = Signal(int, str, object)
    resend_requested = Signal(int, int, str, object)  # conversation, from episode, text, token

    def __init__(self, chat: ChatView, conversation: Callable[[], int]) -> None:
        super().__init__(chat)
        self.chat = chat
        self.conversation = conversation
        self.busy = False  # an answer is running
        self.ready = False  # a model is loaded
        self.temporary = False  # a temporary chat is shown: nothing in it is learned
        self._cancel = CancelToken()
        self._prefetch_cancel = CancelToken()
        self.composer = Composer()
        self.send_button = QPushButton()
        self.send_button.setObjectName("send_button")
        self.stop_button = QPushButton()
        self.large_button = QPushButton()
        self.remember_button = QPushButton()
        buttons = QVBoxLayout()
        for button in (self.send_button, self.stop_button, self.large_button, self.remember_button):
            buttons.addWidget(button)
        self.row = QHBoxLayout()
        self.row.addWidget(self.composer, 1)
        self.row.addLayout(buttons)
        self.retranslate()
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(PREFETCH_DEBOUNCE_MS)
        self._typing.timeout.connect(self._prefetch)
        self.composer.textChanged.connect(self._typing.start)
        self.composer.submitted.connect(self.submit)
        self.composer.submitted_large.connect(self.ask_large)
        self.large_button.clicked.connect(lambda: self.ask_large(self.composer.toPlainText()))
        self.send_button.clicked.connect(lambda: self.submit(self.composer.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        chat.bubble_action.connect(self._on_bubble_action)

    def retranslate(self) -> None:
        """The buttons in the current language."""
        name_buttons((
            (self.send_button, self.tr("Send"), self.tr("Send message"), ""),
            (self.stop_button, self.tr("Stop"), self.tr("Stop the answer"),
             self.tr("Stop the answer (Esc)")),
            (self.large_button, self.tr("Ask large model"), self.tr("Ask the large model"),
             self.tr("Answer this message with the large model, slower but stronger "
                     "(Ctrl+Enter)")),
            (self.remember_button, self.tr("Remember"), self.tr("Learn from this chat now"),
             self._remember_tip()),
        ))  # fmt: skip

    def _remember_tip(self) -> str:
        if self.temporary:
            return self.tr("Temporary chats are not learned from.")
        return self.tr("Learn from this chat now (or start a message with “remember this:”)")

    def submit(self, text: str) -> None:
        """Send the composer's text, unless it is blank or an answer is running."""
        self._send(text, large=False)

    def ask_large(self, text: str) -> None:
        """Send the composer's text to the large model instead (one answer)."""
        self._send(text, large=True)

    def _on_bubble_action(self, action: str, bubble: MessageBubble) -> None:
        """An answer's Ask large model: its question, sent again to the large model (the
        message box keeps what the user is typing)."""
        bubbles = self.chat.bubbles()
        if action != ASK_LARGE or bubble not in bubbles:
            return
        asked = [b for b in bubbles[: bubbles.index(bubble)] if b.role == "user"]
        if asked and asked[-1].text.strip() and self.ready and not self.busy:
            self.chat.add("user", asked[-1].text)
            self._start(self.send_requested, asked[-1].text, True)

    def _prefetch(self) -> None:
        """While the user pauses typing, let the model read the prompt it will get."""
        self._prefetch_cancel.cancel()
        draft = self.composer.toPlainText()
        if self.busy or not self.ready or not draft.strip():
            return
        self._prefetch_cancel = CancelToken()
        self.prefetch_requested.emit(self.conversation(), draft, self._prefetch_cancel)

    def _send(self, text: str, large: bool) -> None:
        if not text.strip() or self.busy or not self.ready:
            return
        self._typing.stop()
        self._prefetch_cancel.cancel()
        self.composer.clear()
        self.chat.add("user", text)
        self._start(self.send_requested, text, large)

    def resend(self, from_episode_id: int, text: str) -> None:
        """Replace the latest turn: drop it and send ``text`` (the same, or edited) again."""
        if self.busy or not self.ready:
            return
        asked = self.chat.latest("user")
        self.chat.drop_latest_turn(keep_answer=asked is not None and asked.text == text)
        self.chat.add("user", text)
        self._start(self.resend_requested, from_episode_id, text)

    def _start(self, request: SignalInstance, *what: object) -> None:
        self.busy = True
        self.update_buttons()
        self._cancel = CancelToken()
        request.emit(self.conversation(), *what, self._cancel)

    def stop(self) -> None:
        """Stop the running answer at the next token (its text so far is kept)."""
        self._cancel.cancel()

    def close(self) -> None:
        """The window closes: no read-ahead, and a running answer stops (its text is kept)."""
        self._typing.stop()
        self._prefetch_cancel.cancel()
        self._cancel.cancel()

    def set_ready(self, ready: bool) -> None:
        self.ready = ready
        self.update_buttons()

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.update_buttons()

    def update_buttons(self) -> None:
        self.send_button.setEnabled(self.ready and not self.busy)
        self.large_button.setEnabled(self.ready and not self.busy)
        self.stop_button.setEnabled(self.busy)
        self.remember_button.setEnabled(
            self.ready and bool(self.conversation()) and not self.temporary
        )
        self.remember_button.setToolTip(self._remember_tip())
        self.chat.allow_changes(self.ready and not self.busy)
