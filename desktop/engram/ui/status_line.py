"""The main window's status bar: Settings, Models and Memories on the left, then a passing message;
on the right what learning does (with a retry for parked jobs), the large model's state and the
small model. Every part is a permanent widget, so a message never hides the buttons."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStatusBar,
    QWidget,
)

from engram.assistant.events import Status
from engram.ui import errors, labels
from engram.ui.buttons import name_buttons
from engram.ui.elided import ElidedLabel
from engram.ui.i18n import Retranslating

MODEL_STATE_MAX_WIDTH = 320
MODEL_STATE_WHILE_LEARNING = 160  # the small model's name gives way to learning's step
MESSAGE_MIN_WIDTH = 260  # a passing message shown whole up to this width, even at 900 px


class StatusLine(Retranslating, QStatusBar):
    """A status bar whose parts say what the models and learning are doing; ``learning_note``
    (the welcome panel's line while learning waits for a larger model) comes first."""

    def __init__(self, learning_note: QLabel) -> None:
        super().__init__()
        self._model = ("starting", "")  # the small model's state, and its name once loaded
        self._status: Status | None = None  # what learning reported last
        self.model_state = ElidedLabel(min_width=120)
        # Its whole name when there is room; "…" rather than running off the window's edge.
        self.model_state.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.model_state.setMaximumWidth(MODEL_STATE_MAX_WIDTH)
        self.loading_bar = QProgressBar()  # moves while a model loads (no share is known)
        self.loading_bar.setObjectName("waiting_bar")
        self.loading_bar.setRange(0, 0)
        self.loading_bar.setTextVisible(False)
        self.loading_bar.setFixedSize(48, 6)
        self.loading_bar.hide()
        # What learning does, its step included: never narrower than its first part (the
        # share), the rest shortened with "…" rather than a window widened past its screen;
        # the whole of it in the tooltip.
        self.learning_state = ElidedLabel()
        self.learning_state.setSizePolicy(
            QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred
        )
        self.learning_state.setObjectName("learning_state")
        self.retry_button = QPushButton()
        self.retry_button.hide()
        self.large_state = QLabel()
        self.large_state.setObjectName("large_state")
        self.settings_button = QPushButton()
        self.models_button = QPushButton()
        self.memories_button = QPushButton()
        self.buttons = QWidget()
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 0, 0, 0)
        for button in (self.settings_button, self.models_button, self.memories_button):
            row.addWidget(button)
        self.message = ElidedLabel(min_width=0)  # a passing message, beside the buttons
        self.message.setObjectName("status_message")
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(self.clearMessage)
        self.addPermanentWidget(self.buttons)
        self.addPermanentWidget(self.message, 1)
        for part in (
            learning_note,
            self.learning_state,
            self.retry_button,
            self.large_state,
            self.loading_bar,
            self.model_state,
        ):
            self.addPermanentWidget(part)
        self.retranslate()

    def retranslate(self) -> None:
        """Every text in the current language: the buttons and the states."""
        name_buttons((
            (self.settings_button, self.tr("Settings"), self.tr("Open the settings"),
             self.tr("Models, memory, cloud, appearance (Ctrl+,)")),
            (self.models_button, self.tr("Models"), self.tr("Open the model manager"),
             self.tr("Download, import and choose models")),
            (self.memories_button, self.tr("Memories"), self.tr("Open the memory browser"),
             self.tr("See and edit what Engram remembers (Ctrl+M)")),
            (self.retry_button, self.tr("Retry"), self.tr("Retry learning"),
             self.tr("Try the lessons that failed again")),
        ))  # fmt: skip
        self._show_model()
        if self._status is not None:
            self.show_learning(self._status)

    # -- a passing message ----------------------------------------------------------------

    def showMessage(self, text: str, timeout: int | None = 0) -> None:  # noqa: N802 (Qt API)
        """Say ``text`` beside the buttons for ``timeout`` ms (0: until the next message);
        QStatusBar's own message would hide the buttons meanwhile."""
        self.message.setText(text)
        self.message.setToolTip(text)
        # Room for it (up to MESSAGE_MIN_WIDTH) taken from the small model's name, which
        # shortens, rather than a message cut to "S…".
        width = self.message.fontMetrics().horizontalAdvance(text) + 2
        self.message.setMinimumWidth(min(width, MESSAGE_MIN_WIDTH))
        if timeout:
            self._message_timer.start(timeout)
        else:
            self._message_timer.stop()

    def clearMessage(self) -> None:  # noqa: N802 (Qt API)
        self._message_timer.stop()
        self.message.setText("")
        self.message.setToolTip("")
        self.message.setMinimumWidth(0)

    def currentMessage(self) -> str:  # noqa: N802 (Qt API)
        return self.message.full_text()

    # -- the small model ------------------------------------------------------------------

    def model_loading(self) -> None:
        self._model = ("loading", "")
        self._show_model()

    def model_loaded(self, name: str) -> None:
        self._model = ("loaded", name)
        self._show_model()

    def model_failed(self) -> None:
        self._model = ("failed", "")
        self._show_model()

    def _show_model(self) -> None:
        state, name = self._model
        texts = {
            "starting": self.tr("Starting…"),
            "loading": self.tr("Loading model…"),
            "loaded": self.tr("Model: {name}").format(name=name),
            "failed": self.tr("No model loaded"),
        }
        self.model_state.setText(texts[state])
        self.loading_bar.setVisible(state in ("starting", "loading"))

    # -- learning -------------------------------------------------------------------------

    def show_learning(self, status: Status) -> None:
        """What consolidation is doing; a failure or parked jobs offer a retry. A large model
        too small to learn from is said by the welcome panel's note instead (a retry cannot
        help it)."""
        self._status = status
        too_small = status.model == "too small"
        if status.state == "distilling":
            text = self._learning(status)
        elif status.state == "waiting":
            text = self.tr("Learning waits for the answer")
        elif too_small:
            text = ""
        elif status.state == "failed":
            error = errors.translate(status.error)[0] if status.error else ""
            text = self.tr("Learning paused: {error}").format(error=error)
        elif status.queued:
            text = self.tr("{count} to learn").format(count=status.queued)
        else:
            text = self.tr("Memory up to date")
        learning = status.state == "distilling"
        self.model_state.setMaximumWidth(
            MODEL_STATE_WHILE_LEARNING if learning else MODEL_STATE_MAX_WIDTH
        )
        first = text.split(" · ", 1)[0]  # all of it but a step (and its chat)
        self.learning_state.setMinimumWidth(
            self.learning_state.fontMetrics().horizontalAdvance(first) + 4
        )
        self.learning_state.setText(text)
        self.learning_state.setToolTip(text)
        self.large_state.setText(
            self.tr("Large model: {state}").format(state=labels.label(status.model))
            if status.model and not too_small
            else ""
        )
        self.retry_button.setVisible(
            not too_small and (status.state == "failed" or status.parked > 0)
        )

    def _learning(self, status: Status) -> str:
        """Learning's share, its step and which of the waiting chats it learns from ("Learning…
        61% · checking memory 3 of 7 · chat 2 of 5"): the step before the chat, which a
        narrow window leaves out first."""
        said = self.tr("Learning… {percent}%").format(percent=int(status.progress * 100))
        step = status.step
        if step is None:
            return said
        done, total = f"{step.done:,}", f"{step.total:,}"
        if step.name == "loading":
            doing = self.tr("loading the model")
        elif step.name == "reading" and step.total:
            doing = self.tr("reading the chat ({done} of {total} tokens)").format(
                done=done, total=total
            )
        elif step.name == "reading":
            doing = self.tr("reading the chat")
        elif step.name == "proposing" and step.done:
            doing = self.tr("proposing memories ({count} tokens)").format(count=done)
        elif step.name == "proposing":
            doing = self.tr("proposing memories")
        elif step.name == "checking":
            doing = self.tr("checking memory {index} of {count}").format(
                index=step.done, count=step.total
            )
        else:
            doing = self.tr("saving")
        parts = [said, doing]
        if step.chats > 1:
            parts.append(self.tr("chat {chat} of {chats}").format(chat=step.chat, chats=step.chats))
        return " · ".join(parts)
