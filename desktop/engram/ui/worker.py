"""The foreground model thread: owns the small model and runs turns, reporting by signals."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QThread, Signal, Slot

from engram.assistant.events import Failed
from engram.assistant.session import LoadedModels, Session, open_session
from engram.core import log
from engram.core.errors import EngramError
from engram.core.settings import Settings
from engram.ui import errors

_log = log.get("ui.worker")


class ModelWorker(QObject):
    """Lives on its own QThread; every slot runs there, one at a time."""

    loading = Signal()
    loaded = Signal(str, str)  # model file name, why memory is off ('' when it is on)
    load_failed = Signal(str, str)
    turn_event = Signal(object)
    busy_changed = Signal(bool)
    history_recalled = Signal(object)  # {answer episode id: [Recalled, ...]}
    conversations_changed = Signal()
    learning_status = Signal(object)  # engram.assistant.consolidation.Status

    def __init__(self, settings: Settings, models: LoadedModels | None = None) -> None:
        super().__init__()
        self._settings = settings
        self._models = models  # lent by the caller, who closes them
        self._session: Session | None = None

    @Slot()
    def load(self) -> None:
        self.loading.emit()
        try:
            self._session = open_session(
                self._settings, on_status=self.learning_status.emit, models=self._models
            )
        except EngramError as exc:
            _log.warning("small model unavailable: %s", exc)
            self.load_failed.emit(*errors.translate(exc))
            return
        problem = self._session.memory_problem
        self.loaded.emit(self._session.model.path.name, errors.text(problem) if problem else "")

    @Slot(int, str, object)
    def send(self, conversation_id: int, text: str, cancel: threading.Event) -> None:
        """Run one turn; ``cancel`` is set by the UI thread to stop it between tokens."""
        self._run(conversation_id, text, cancel, escalate=False)

    @Slot(int, str, object)
    def ask_large(self, conversation_id: int, text: str, cancel: threading.Event) -> None:
        """Run one turn on the large model (loaded on first use), with the same memory."""
        self._run(conversation_id, text, cancel, escalate=True)

    def _run(
        self, conversation_id: int, text: str, cancel: threading.Event, escalate: bool
    ) -> None:
        if self._session is None:
            return
        self.busy_changed.emit(True)
        try:
            large = self._session.large_model() if escalate else None
            turn = self._session.assistant.turn(conversation_id, text, cancel.is_set, large)
            for event in turn:
                self.turn_event.emit(event)
        except EngramError as exc:
            self.turn_event.emit(Failed(exc.problem))
        finally:
            self.busy_changed.emit(False)

    @Slot(object)
    def recall_history(self, answer_episode_ids: list[int]) -> None:
        """Look up which memories earlier answers were given, for their chips."""
        recall = self._session.assistant.recall if self._session else None
        if recall is not None and answer_episode_ids:
            self.history_recalled.emit(recall.injected(answer_episode_ids))

    @Slot(int, int)
    def feedback(self, memory_id: int, vote: int) -> None:
        """Record the user's verdict on a memory (-1: it was wrong)."""
        if self._session is not None and self._session.store is not None:
            self._session.store.feedback(memory_id, vote)

    @Slot(int, str, object)
    def prefetch(self, conversation_id: int, draft: str, cancel: threading.Event) -> None:
        """Evaluate the prompt of a message being typed, so the answer starts sooner."""
        if self._session is None or cancel.is_set():
            return
        try:
            self._session.assistant.prefetch(conversation_id, draft, cancel.is_set)
        except EngramError as exc:  # a draft that cannot be prepared is no reason to bother
            _log.debug("prefetch skipped: %s", exc.message)

    @Slot(int, int, str, object)
    def resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: threading.Event
    ) -> None:
        """Forget a user message and what followed, then send ``text`` in its place."""
        if self._session is None:
            return
        self._session.assistant.rewind(conversation_id, from_episode_id)
        self.send(conversation_id, text, cancel)

    @Slot(int)
    def idle(self, conversation_id: int) -> None:
        """The conversation has gone quiet: a good moment to learn from it."""
        learning = self._session.learning if self._session else None
        if learning is not None and conversation_id:
            learning.scheduler.on_idle(conversation_id)

    @Slot(int)
    def remember(self, conversation_id: int) -> None:
        """The user asked Engram to learn from this conversation now."""
        learning = self._session.learning if self._session else None
        if learning is not None and conversation_id:
            learning.scheduler.remember(conversation_id)

    @Slot()
    def retry_learning(self) -> None:
        """Give parked consolidation jobs another chance."""
        learning = self._session.learning if self._session else None
        if learning is not None:
            learning.scheduler.queue.retry_parked()
            learning.worker.wake()

    @Slot(int, str)
    def rename_conversation(self, conversation_id: int, title: str) -> None:
        if self._session is not None:
            self._session.assistant.log.rename(conversation_id, title)
            self.conversations_changed.emit()

    @Slot(int)
    def delete_conversation(self, conversation_id: int) -> None:
        if self._session is None:
            return
        self._session.assistant.delete_conversation(conversation_id)
        self.conversations_changed.emit()

    @Slot(object)
    def reload(self, settings: Settings) -> None:
        """Start again with new settings (other models, budgets, learning)."""
        if self._session is not None:
            self._session.close()
            self._session = None
        self._settings = settings
        self.load()

    @Slot()
    def shutdown(self) -> None:
        """Free the model and the connection on the thread that owns them."""
        if self._session is not None:
            self._session.close()
            self._session = None
        QThread.currentThread().quit()
