"""The foreground model thread: owns the small model and runs turns, reporting by signals."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import Signal, Slot

from engram.assistant import forget, plans
from engram.assistant.events import Failed
from engram.assistant.session import LoadedModels, Session, needs_reopen, open_session
from engram.assistant.signals import SignalKind
from engram.assistant.tools.base import Tool
from engram.assistant.tools.permissions import DENY
from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError
from engram.core.settings import Settings
from engram.ui.threads import Worker, reporting, worker_slot

_log = log.get("ui.worker")
ANSWER_POLL_S = 0.05  # how often a tool waiting for permission checks for Stop


class PermissionRequest:
    """A tool waiting for the user's choice: the model thread waits, the window answers."""

    def __init__(self, tool: Tool, arguments: dict[str, Any]) -> None:
        self.name = tool.name
        self.source = tool.source
        self.arguments = arguments
        self.choice = DENY
        self._answered = threading.Event()

    def answer(self, choice: str) -> None:
        """From the UI thread: "once", "always" or "deny"."""
        self.choice = choice
        self._answered.set()

    def wait(self, cancel: CancelToken) -> str:
        """The user's choice; "deny" when the answer is stopped first."""
        while not self._answered.wait(ANSWER_POLL_S):
            if cancel.cancelled:
                return DENY
        return self.choice


class ModelWorker(Worker):
    """Lives on its own QThread; every slot runs there, one at a time."""

    loading = Signal()
    loaded = Signal(str, object)  # model file name, why memory is off (a Problem, or None)
    load_failed = Signal(object)  # Problem
    turn_event = Signal(object)
    busy_changed = Signal(bool)
    history_recalled = Signal(object)  # {answer episode id: [Recalled, ...]}
    conversations_changed = Signal()
    learning_status = Signal(object)  # engram.assistant.consolidation.Status
    models_listed = Signal(object)  # [(model id, name, roles)] of the installed chat models
    permission_asked = Signal(object)  # PermissionRequest: the window asks in the chat
    permissions_changed = Signal(object)  # {tool name: "always" | "deny"}, for the settings
    forgotten = Signal(object)  # forget.Forgotten after "forget that", or None: nothing meant
    temporary_started = Signal(int)  # the new temporary conversation's id
    plan_loaded = Signal(object)  # plans.Plan, or None: no current plan

    def __init__(self, settings: Settings, models: LoadedModels | None = None) -> None:
        super().__init__()
        self._settings = settings
        self._models = models  # lent by the caller, who closes them
        self._session: Session | None = None
        self._turn_cancel = CancelToken()  # the running answer's, for a permission wait
        self._mentioned = forget.LastMentioned()  # what "forget that" means in each chat
        self._forgotten: list[forget.Forgotten] = []  # archived, deleted unless undone

    @Slot()
    def load(self) -> None:
        self.loading.emit()
        with reporting("load", self.load_failed.emit):
            self._session = open_session(
                self._settings, on_status=self.learning_status.emit, models=self._models
            )
            tools = self._session.assistant.tools
            if tools is not None:
                tools.permissions.ask = self._ask
                tools.permissions.on_change = self.permissions_changed.emit
            self.loaded.emit(self._session.model_name, self._session.memory_problem)

    @Slot(int, str, object)
    def send(self, conversation_id: int, text: str, cancel: CancelToken) -> None:
        """Run one turn; ``cancel`` is set by the UI thread to stop it between tokens."""
        self._run(conversation_id, text, cancel, escalate=False)

    @Slot(int, str, object)
    def ask_large(self, conversation_id: int, text: str, cancel: CancelToken) -> None:
        """Run one turn on the large model (loaded on first use), with the same memory."""
        self._run(conversation_id, text, cancel, escalate=True)

    def _ask(self, tool: Tool, arguments: dict[str, Any]) -> str:
        """Ask the window whether a tool may run; waits for the click (or Stop)."""
        request = PermissionRequest(tool, arguments)
        self.permission_asked.emit(request)
        return request.wait(self._turn_cancel)

    def _run(self, conversation_id: int, text: str, cancel: CancelToken, escalate: bool) -> None:
        """A turn always ends: its events, then ``Failed`` on any error, then not busy.
        "forget that" is no turn: the memory it means is archived (see :mod:`forget`)."""
        if self._session is None:
            return
        self._turn_cancel = cancel
        self.busy_changed.emit(True)
        try:
            with reporting("turn", lambda problem: self.turn_event.emit(Failed(problem))):
                assistant = self._session.assistant
                if forget.is_request(text) and assistant.recall is not None:
                    found = self._mentioned.forget(conversation_id, assistant.log, assistant.recall)
                    if found is not None:
                        self._forgotten.append(found)
                    self.forgotten.emit(found)
                    return
                large = self._session.large_model() if escalate else None
                for event in assistant.turn(conversation_id, text, cancel, large):
                    self._mentioned.see(event)
                    self.turn_event.emit(event)
        finally:
            self.busy_changed.emit(False)

    @worker_slot(object)
    def undo_forget(self, forgotten: forget.Forgotten) -> None:
        """Bring back what "forget that" archived."""
        if self._session is not None and self._session.store is not None:
            forget.undo(self._session.store, forgotten)
            self._forgotten = [f for f in self._forgotten if f != forgotten]

    @worker_slot()
    def purge_forgotten(self) -> None:
        """The undo is no longer offered: delete what was forgotten, text and all."""
        if self._session is not None and self._session.store is not None and self._forgotten:
            forget.purge(self._session.store, self._forgotten)
        self._forgotten = []

    @worker_slot(object)
    def recall_history(self, answer_episode_ids: list[int]) -> None:
        """Look up which memories earlier answers were given, for their chips."""
        recall = self._session.assistant.recall if self._session else None
        if recall is not None and answer_episode_ids:
            self.history_recalled.emit(recall.injected(answer_episode_ids))

    @worker_slot(int, int)
    def feedback(self, memory_id: int, vote: int) -> None:
        """Record the user's verdict on a memory (-1: it was wrong)."""
        if self._session is not None and self._session.store is not None:
            self._session.store.feedback(memory_id, vote)

    @worker_slot()
    def list_models(self) -> None:
        """The installed chat models, for the window's model switcher (reads the catalogue and
        checks file sizes: kept off the UI thread)."""
        from engram.models import catalogue, hardware

        self.models_listed.emit(
            [
                (entry.id, entry.name, entry.roles)
                for entry in catalogue.load().models
                if {"small", "large"} & set(entry.roles) and hardware.installed(entry)
            ]
        )

    @worker_slot(int, str, object)
    def judge(self, answer_episode_id: int, kind: SignalKind, text: str | None) -> None:
        """The user's thumb on an answer (with what was wrong, when said): Engram learns."""
        if self._session is not None:
            self._session.assistant.signal(answer_episode_id, kind, text)

    @worker_slot(int, str, object)
    def prefetch(self, conversation_id: int, draft: str, cancel: CancelToken) -> None:
        """Evaluate the prompt of a message being typed, so the answer starts sooner."""
        if self._session is None or cancel.cancelled:
            return
        try:
            self._session.assistant.prefetch(conversation_id, draft, cancel)
        except EngramError as exc:  # a draft that cannot be prepared is no reason to bother
            _log.debug("prefetch skipped: %s", type(exc).__name__)

    @Slot(int, int, str, object)
    def resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: CancelToken
    ) -> None:
        """Forget a user message and what followed, then send ``text`` in its place."""
        if self._session is None:
            return
        session = self._session
        with reporting("rewind", lambda problem: self.turn_event.emit(Failed(problem))):
            session.assistant.rewind(conversation_id, from_episode_id, text)
            self.send(conversation_id, text, cancel)

    @worker_slot(int)
    def idle(self, conversation_id: int) -> None:
        """The conversation has gone quiet: a good moment to learn from it."""
        learning = self._session.learning if self._session else None
        if learning is not None and conversation_id:
            learning.scheduler.on_idle(conversation_id)

    @worker_slot(int)
    def remember(self, conversation_id: int) -> None:
        """The user asked Engram to learn from this conversation now."""
        learning = self._session.learning if self._session else None
        if learning is not None and conversation_id:
            learning.scheduler.remember(conversation_id)

    @worker_slot()
    def retry_learning(self) -> None:
        """Give parked consolidation jobs another chance."""
        learning = self._session.learning if self._session else None
        if learning is not None:
            learning.scheduler.queue.retry_parked()
            learning.worker.wake()

    @worker_slot(int, str)
    def rename_conversation(self, conversation_id: int, title: str) -> None:
        if self._session is not None:
            self._session.assistant.log.rename(conversation_id, title)
            self.conversations_changed.emit()

    @worker_slot()
    def load_plan(self) -> None:
        """The user's current plan, for the plan panel."""
        if self._session is not None and self._session.store is not None:
            self.plan_loaded.emit(plans.current(self._session.store))

    @worker_slot(object)
    def save_plan(self, plan: plans.Plan) -> None:
        """Write the panel's edit (a plan ticked to its end is done), then show the plan."""
        if self._session is not None and self._session.store is not None:
            plans.save(self._session.store, plan)
            self.plan_loaded.emit(plans.current(self._session.store))

    @worker_slot(str)
    def start_temporary(self, title: str) -> None:
        """A temporary chat: nothing in it is learned or recalled elsewhere."""
        if self._session is not None:
            self.temporary_started.emit(self._session.assistant.new_conversation(title, True))

    @worker_slot(int)
    def leave_conversation(self, conversation_id: int) -> None:
        """The window left a chat: a temporary one is deleted with its words."""
        if self._session is not None:
            self._session.assistant.close_conversation(conversation_id)
            self.conversations_changed.emit()

    @worker_slot(int)
    def delete_conversation(self, conversation_id: int) -> None:
        if self._session is None:
            return
        self._session.assistant.delete_conversation(conversation_id)
        self.conversations_changed.emit()

    @worker_slot(object, object)
    def apply_settings(self, _old: Settings, new: Settings) -> None:
        """Follow the settings store: reopen the session (models reload) only when a field it
        reads at opening changed (:func:`~engram.assistant.session.needs_reopen`)."""
        old, self._settings = self._settings, new
        if not needs_reopen(old, new):
            if self._session is not None:
                self._session.apply(new)
            return
        if self._models is not None and not self._models.suit(old, new):
            self._models = None  # lent for other settings: load the session's own
        self.close()
        self.load()

    def close(self) -> None:
        """Free the model and the connection on the thread that owns them."""
        if self._session is not None:
            session, self._session = self._session, None
            if session.store is not None and self._forgotten:
                forget.purge(session.store, self._forgotten)
            self._forgotten = []
            session.close()
