"""The foreground model thread: the window's adapter over :class:`~engram.assistant.app.Engram`.

Each slot makes one call of the application on this thread and reports what it gave by one
signal; the application decides what a message, a click or a setting means.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Signal, Slot

from engram.assistant import model_admin
from engram.assistant.app import Engram, LoadedModels
from engram.assistant.events import Event, Forgotten, Plan, SignalKind
from engram.assistant.tools.permissions import Question
from engram.core.cancel import CancelToken
from engram.core.settings import Settings
from engram.ui.threads import Worker, reporting, worker_slot
from engram.ui.tool_block import PermissionRequest


class ModelWorker(Worker):
    """Lives on its own QThread; every slot runs there, one at a time."""

    loading = Signal()
    loaded = Signal(str, object)  # model file name, MemoryState
    load_failed = Signal(object)  # Problem
    memory_changed = Signal(object)  # MemoryState, after a setting changed it (the pause)
    turn_event = Signal(object)  # engram.assistant.events.Event
    busy_changed = Signal(bool)
    history_recalled = Signal(object)  # {answer episode id: ([Recalled given], [Recalled used])}
    conversations_changed = Signal()
    learning_status = Signal(object)  # engram.assistant.events.Status
    models_listed = Signal(object)  # [(model id, name, roles)] of the installed chat models
    permission_asked = Signal(object)  # PermissionRequest: the window asks in the chat
    permissions_changed = Signal(object)  # {tool name: "always" | "deny"}, for the settings
    judged = Signal(object)  # None: the verdict was noted; a Problem: why it was not
    temporary_started = Signal(int)  # the new temporary conversation's id
    plan_loaded = Signal(object)  # Plan, or None: no current plan
    # After Remember: None when a learning job was queued, else a Problem saying why not
    learning_queued = Signal(object)

    def __init__(self, settings: Settings, models: LoadedModels | None = None) -> None:
        super().__init__()
        self.app = Engram(
            settings,
            models=models,
            on_status=self.learning_status.emit,
            ask=self._ask,
            on_permissions=self.permissions_changed.emit,
        )

    def _ask(self, question: Question, cancel: CancelToken) -> str:
        """Ask the window whether a tool may run; waits for the click (or the answer's Stop)."""
        request = PermissionRequest(question)
        self.permission_asked.emit(request)
        return request.wait(cancel)

    @Slot()
    def load(self) -> None:
        self.loading.emit()
        with reporting("load", self.load_failed.emit):
            opened = self.app.open()
            self.loaded.emit(opened.model, opened.memory)

    @Slot(int, str, bool, object)
    def send(self, conversation_id: int, text: str, large: bool, cancel: CancelToken) -> None:
        self._run(self.app.send(conversation_id, text, cancel, large=large))

    @Slot(int, int, str, object)
    def resend(self, conversation_id: int, episode_id: int, text: str, cancel: CancelToken) -> None:
        self._run(self.app.resend(conversation_id, episode_id, text, cancel))

    def _run(self, events: Iterator[Event]) -> None:
        """A turn's events, busy while they come (the application ends every turn)."""
        self.busy_changed.emit(True)
        for event in events:
            self.turn_event.emit(event)
        self.busy_changed.emit(False)

    @worker_slot(int, str, object)
    def prefetch(self, conversation_id: int, draft: str, cancel: CancelToken) -> None:
        self.app.prefetch(conversation_id, draft, cancel)

    @worker_slot(object)
    def recall_history(self, answer_episode_ids: list[int]) -> None:
        self.history_recalled.emit(self.app.memories.recalled(answer_episode_ids))

    @worker_slot(int, str, object)
    def judge(self, answer_episode_id: int, kind: SignalKind, text: str | None) -> None:
        self.judged.emit(self.app.learning.judge(answer_episode_id, kind, text))

    @worker_slot(int, int)
    def memory_wrong(self, answer_episode_id: int, memory_id: int) -> None:
        self.judged.emit(
            self.app.learning.judge(answer_episode_id, "memory_wrong", memory_id=memory_id)
        )

    @worker_slot(object)
    def undo_forget(self, forgotten: Forgotten) -> None:
        self.app.memories.undo_forget(forgotten)

    @worker_slot()
    def purge_forgotten(self) -> None:
        self.app.memories.purge_forgotten()

    @worker_slot()
    def list_models(self) -> None:
        self.models_listed.emit(model_admin.installed_chat_models())

    @worker_slot(int)
    def idle(self, conversation_id: int) -> None:
        self.app.learning.idle(conversation_id)

    @worker_slot(int)
    def remember(self, conversation_id: int) -> None:
        self.learning_queued.emit(self.app.learning.learn_now(conversation_id))

    @worker_slot()
    def retry_learning(self) -> None:
        self.app.learning.retry()

    @worker_slot(int, str)
    def rename_conversation(self, conversation_id: int, title: str) -> None:
        self.app.chats.rename(conversation_id, title)
        self.conversations_changed.emit()

    @worker_slot(str)
    def start_temporary(self, title: str) -> None:
        self.temporary_started.emit(self.app.chats.new(title, temporary=True))

    @worker_slot(int)
    def leave_conversation(self, conversation_id: int) -> None:
        self.app.chats.leave(conversation_id)
        self.conversations_changed.emit()

    @worker_slot(int)
    def delete_conversation(self, conversation_id: int) -> None:
        self.app.chats.delete(conversation_id)
        self.conversations_changed.emit()

    @worker_slot()
    def load_plan(self) -> None:
        self.plan_loaded.emit(self.app.plans.current())

    @worker_slot(object)
    def save_plan(self, plan: Plan) -> None:
        self.plan_loaded.emit(self.app.plans.save(plan))

    @worker_slot()
    def check_memory(self) -> None:
        """The pause as the file says now (another window or ``engram memory pause`` may have
        changed it)."""
        self.memory_changed.emit(self.app.memory)

    @worker_slot(object, object)
    def apply_settings(self, _old: Settings, new: Settings) -> None:
        """Follow the settings store: the models reload only when they must."""
        if self.app.apply_settings(new):
            self.load()
        else:
            self.memory_changed.emit(self.app.memory)

    def close(self) -> None:
        """Free the model and the connection on the thread that owns them."""
        self.app.close()
