"""The main window: conversation, message box, Send/Stop, and the model's state."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, QThread, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.events import (
    Cancelled,
    Failed,
    Finished,
    Notice,
    Token,
    TurnEvent,
    TurnStarted,
)
from engram.core import log, paths
from engram.core.settings import Settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.ui.chat_view import ChatView
from engram.ui.composer import Composer
from engram.ui.worker import ModelWorker

_log = log.get("ui.main")
SHUTDOWN_WAIT_MS = 10_000


class MainWindow(QMainWindow):
    """Chat with the small model; the model runs on its own thread."""

    send_requested = Signal(int, str, object)
    load_requested = Signal()
    shutdown_requested = Signal()

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.setWindowTitle("Engram")
        self.resize(900, 700)
        self._settings = settings
        self._conn = db.connect(paths.database_path())
        self._episodes = EpisodeLog(self._conn)
        latest = self._episodes.latest_conversation()
        self.conversation_id = latest.id if latest else 0
        self._busy = False
        self._ready = False
        self._cancel = threading.Event()

        self.chat = ChatView()
        self.composer = Composer()
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("send_button")
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setAccessibleName(self.tr("Stop the answer"))
        self.stop_button.setToolTip(self.tr("Stop the answer (Esc)"))
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.hide()

        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        row = QHBoxLayout()
        row.addWidget(self.composer, 1)
        row.addLayout(buttons)
        column = QVBoxLayout()
        column.addWidget(self.notice)
        column.addWidget(self.chat, 1)
        column.addLayout(row)
        central = QWidget()
        central.setLayout(column)
        self.setCentralWidget(central)
        self.model_state = QLabel(self.tr("Starting…"))
        self.statusBar().addPermanentWidget(self.model_state)

        self.composer.submitted.connect(self.submit)
        self.send_button.clicked.connect(lambda: self.submit(self.composer.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)

        self._thread = QThread(self)
        self._thread.setObjectName("engram-foreground-model")
        self.worker = ModelWorker(settings)
        self.worker.moveToThread(self._thread)
        self.send_requested.connect(self.worker.send)
        self.load_requested.connect(self.worker.load)
        self.shutdown_requested.connect(self.worker.shutdown)
        self.worker.loading.connect(self._on_loading)
        self.worker.loaded.connect(self._on_loaded)
        self.worker.load_failed.connect(self._on_load_failed)
        self.worker.turn_event.connect(self._on_event)
        self.worker.busy_changed.connect(self._set_busy)
        self._thread.finished.connect(self.worker.deleteLater)
        self._thread.start()
        self._show_conversation()
        self._update_buttons()
        self.load_requested.emit()

    # -- actions ---------------------------------------------------------------------------

    def submit(self, text: str) -> None:
        """Send the composer's text, unless it is blank or an answer is running."""
        if not text.strip() or self._busy or not self._ready:
            return
        self.composer.clear()
        self.chat.add("user", text)
        self._busy = True
        self._update_buttons()
        self._cancel = threading.Event()
        self.send_requested.emit(self.conversation_id, text, self._cancel)

    def stop(self) -> None:
        """Stop the running answer at the next token (its text so far is kept)."""
        self._cancel.set()

    def new_conversation(self) -> None:
        if self._busy:
            return
        self.conversation_id = 0
        self.chat.clear()
        self.composer.setFocus()

    # -- worker reports -------------------------------------------------------------------

    def _on_loading(self) -> None:
        self.model_state.setText(self.tr("Loading model…"))

    def _on_loaded(self, name: str) -> None:
        self._ready = True
        self.notice.hide()
        self.model_state.setText(self.tr("Model: {name}").format(name=name))
        self._update_buttons()
        self.composer.setFocus()

    def _on_load_failed(self, message: str, hint: str) -> None:
        self._ready = False
        self._show_notice(f"{message}\n{hint}".strip())
        self.model_state.setText(self.tr("No model loaded"))
        self._update_buttons()

    def _on_event(self, event: TurnEvent) -> None:
        if isinstance(event, TurnStarted):
            self.conversation_id = event.conversation_id
            self.chat.begin_answer()
        elif isinstance(event, Token):
            self.chat.append_token(event.text)
        elif isinstance(event, Notice):
            self._show_notice(event.text)
        elif isinstance(event, Finished | Cancelled):
            self.chat.end_answer(event.text)
        elif isinstance(event, Failed):
            self.chat.end_answer("")
            self._show_notice(f"{event.message}\n{event.hint}".strip())

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    # -- helpers ---------------------------------------------------------------------------

    def _show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.show()

    def _update_buttons(self) -> None:
        self.send_button.setEnabled(self._ready and not self._busy)
        self.stop_button.setEnabled(self._busy)

    def _show_conversation(self) -> None:
        self.chat.clear()
        if self.conversation_id:
            for episode in self._episodes.episodes(self.conversation_id):
                self.chat.add(episode.role, episode.content)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        """Stop a running answer (its text so far is stored), free the model, end the thread."""
        self._cancel.set()
        if self._thread.isRunning():
            self.shutdown_requested.emit()
            if not self._thread.wait(SHUTDOWN_WAIT_MS):
                _log.error("the model thread did not stop within %d ms", SHUTDOWN_WAIT_MS)
        self._conn.close()
        super().closeEvent(event)
