"""The foreground model thread: owns the small model and runs turns, reporting by signals."""

from __future__ import annotations

import threading

import apsw
from PySide6.QtCore import QObject, QThread, Signal, Slot

from engram.assistant.turn import Assistant
from engram.core import log, paths
from engram.core.errors import EngramError
from engram.core.settings import Settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models import roles
from engram.models.local import LocalModel

_log = log.get("ui.worker")


class ModelWorker(QObject):
    """Lives on its own QThread; every slot runs there, one at a time."""

    loading = Signal()
    loaded = Signal(str)
    load_failed = Signal(str, str)
    turn_event = Signal(object)
    busy_changed = Signal(bool)

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self._settings = settings
        self._model: LocalModel | None = None
        self._assistant: Assistant | None = None
        self._conn: apsw.Connection | None = None

    @Slot()
    def load(self) -> None:
        self.loading.emit()
        try:
            conn = self._conn = db.connect(paths.database_path())
            self._model = roles.load_local(self._settings, "small")
        except EngramError as exc:
            _log.warning("small model unavailable: %s", exc)
            self.load_failed.emit(exc.message, exc.hint)
            return
        self._assistant = Assistant(
            EpisodeLog(conn), self._model, max_answer_tokens=self._settings.max_answer_tokens
        )
        self.loaded.emit(self._model.path.name)

    @Slot(int, str, object)
    def send(self, conversation_id: int, text: str, cancel: threading.Event) -> None:
        """Run one turn; ``cancel`` is set by the UI thread to stop it between tokens."""
        if self._assistant is None:
            return
        self.busy_changed.emit(True)
        try:
            for event in self._assistant.turn(conversation_id, text, cancel.is_set):
                self.turn_event.emit(event)
        finally:
            self.busy_changed.emit(False)

    @Slot()
    def shutdown(self) -> None:
        """Free the model and the connection on the thread that owns them."""
        if self._model is not None:
            self._model.close()
            self._model = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        thread = QThread.currentThread()
        thread.quit()
