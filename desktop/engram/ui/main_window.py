"""The main window: conversation, message box, Send/Stop, and the model's state.

It composes its parts and wires them to the model worker: :class:`TurnControls` (the message
box, its buttons, busy and ready), :class:`AnswerView` (turns on screen), :class:`Notices`
(problems and toasts), :class:`ChatActions` (the header's actions), :class:`StatusLine` and
:class:`OtherWindows` (settings, model manager, memory browser).
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from engram.assistant.app import LoadedModels, MemoryState
from engram.assistant.chats import Chats, Episode, open_chats
from engram.assistant.events import Status
from engram.assistant.tools import permissions
from engram.core import log, paths
from engram.core.errors import EngramError, Problem
from engram.core.settings import Settings, SettingsStore, store_of
from engram.ui import errors, screen_fit
from engram.ui.answer_view import AnswerView
from engram.ui.chat_actions import ChatActions
from engram.ui.chat_header import ChatHeader
from engram.ui.chat_view import ChatView
from engram.ui.i18n import Retranslating
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.notices import Notices
from engram.ui.other_windows import OtherWindows
from engram.ui.plan_panel import PlanPanel
from engram.ui.settings_signals import SettingsSignals
from engram.ui.sidebar import Sidebar
from engram.ui.status_line import StatusLine
from engram.ui.threads import stop_thread, worker_thread
from engram.ui.toast import Notice
from engram.ui.turn_controls import TurnControls
from engram.ui.welcome import WelcomePanel
from engram.ui.worker import ModelWorker

_log = log.get("ui.main")


class MainWindow(Retranslating, QMainWindow):
    """Chat with the small model; the model runs on its own thread."""

    load_requested = Signal()
    shutdown_requested = Signal()
    history_requested = Signal(object)
    memory_wrong_requested = Signal(int, int)  # answer episode id, memory id
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    idle_reached = Signal(int)
    remember_requested = Signal(int)
    retry_learning_requested = Signal()
    models_requested = Signal()
    memory_check_requested = Signal()  # on coming back to the window: paused elsewhere?
    temporary_requested = Signal(str)  # its title
    leave_requested = Signal(int)

    def __init__(
        self, settings: Settings | SettingsStore, models: LoadedModels | None = None
    ) -> None:
        """``settings``: the app's store (plain settings get one of their own). ``models``,
        when given, are used instead of loading them (their owner closes them). A database
        that cannot be opened is shown as a notice, not raised."""
        super().__init__()
        self.setWindowTitle("Engram")
        self.resize(900, 700)
        screen_fit.fit(self)  # smaller on a small screen, never past its edge
        self.settings = store_of(settings)
        self._chats: Chats | None = None
        problem: Problem | None = None
        latest = None
        try:
            with contextlib.ExitStack() as on_error:
                chats = open_chats()
                on_error.callback(chats.close)
                latest = chats.latest()
                on_error.pop_all()
                self._chats = chats
        except EngramError as exc:  # damaged, locked, newer: say so; the window still opens
            _log.warning("conversations unavailable: %s", type(exc).__name__)
            problem = exc.problem
        self.conversation_id = latest.id if latest else 0
        self._closed = False
        self._learning = Status("idle")
        self._memory = MemoryState("on")  # as the worker reports it once loaded
        self._temporary_id = 0  # the temporary chat shown, deleted when left
        self._build()
        self._wire(models)
        self._thread.start()
        self._show_conversation()
        self._interrupted = self.answers.unanswered  # said once the model is ready
        self._refresh_sidebar()
        self.turns.update_buttons()
        if problem is not None:
            self.notices.problem(problem)
        self.load_requested.emit()

    def _build(self) -> None:
        """The parts, laid out: sidebar | header, notices, welcome, chat, message box | plan."""
        self.windows = OtherWindows(self, self.settings, self.open_conversation)
        self.show_settings, self.show_models = self.windows.settings, self.windows.models
        self.show_memories = self.windows.memories
        self.chat = ChatView()
        self.turns = TurnControls(self.chat, lambda: self.conversation_id)
        self.composer, self.send_button = self.turns.composer, self.turns.send_button
        self.stop_button, self.remember_button = self.turns.stop_button, self.turns.remember_button
        self.submit, self.ask_large = self.turns.submit, self.turns.ask_large
        self.notice = Notice()  # problems stay until closed; toasts pass
        self.notices = Notices(self.notice, self.show_memories)
        self._show_learned = self.notices.learned
        self.header = ChatHeader()
        self.answer_stats = self.header.stats
        self.plan_panel = PlanPanel()
        self.plan_panel.hide()
        self.welcome = WelcomePanel(self.settings, self.chat, self.show_models)
        self._splitter = QSplitter()
        self.chat_actions = actions = ChatActions(
            self, self.header, self.settings, self.notices, self.chat, self._title,
            self.plan_panel, self._splitter,
        )  # fmt: skip
        self.export_chat, self.export_button = actions.export_chat, actions.export_button
        self.temporary_button, self.plan_button = actions.temporary_button, actions.plan_button
        self.temporary_marker = actions.temporary_marker
        column = QVBoxLayout()
        for widget in (self.header, self.temporary_marker, self.notice, self.welcome):
            column.addWidget(widget)
        column.addWidget(self.chat, 1)
        column.addLayout(self.turns.row)
        chat_column = QWidget()
        chat_column.setLayout(column)
        self.sidebar = Sidebar()
        for part in (self.sidebar, chat_column, self.plan_panel):
            self._splitter.addWidget(part)
        self._splitter.setChildrenCollapsible(False)  # no part vanishes while dragging
        self._splitter.setStretchFactor(1, 1)
        self._splitter.setSizes([240, 760])
        self.setCentralWidget(self._splitter)
        self.answers = AnswerView(
            self, self.chat, self.notices, self.answer_stats, self._large_is_other,
            lambda: self.turns.busy,
        )  # fmt: skip
        self._show_stats = self.answers.show_stats
        self._pending_prompts = self.answers.pending_prompts  # the same list, cleared in place
        self.status = StatusLine(self.welcome.learning_note)
        self.setStatusBar(self.status)
        self.learning_state, self.large_state = self.status.learning_state, self.status.large_state
        self.model_state, self.retry_button = self.status.model_state, self.status.retry_button
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(max(1, self.settings.current.consolidate_idle_seconds) * 1000)
        self._idle.timeout.connect(lambda: self.idle_reached.emit(self.conversation_id))
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)
        QShortcut(QKeySequence("Ctrl+K"), self, self.sidebar.search.setFocus)
        QShortcut(QKeySequence("Ctrl+M"), self, self.show_memories)
        QShortcut(QKeySequence("Ctrl+,"), self, self.show_settings)

    def _wire(self, models: LoadedModels | None) -> None:
        """The parts to each other and to the model worker (on its own thread, not started)."""
        status, sidebar, turns, answers = self.status, self.sidebar, self.turns, self.answers
        notices, actions = self.notices, self.chat_actions
        self.worker = worker = ModelWorker(self.settings.current, models)
        self.answers.reading = worker.app.reading  # read from this thread while it answers
        self._thread = worker_thread(self, worker, "engram-foreground-model")
        status.memories_button.clicked.connect(lambda: self.show_memories())  # noqa: PLW0108
        for signal, slot in (
            (status.settings_button.clicked, self.show_settings),
            (status.models_button.clicked, self.show_models),
            (status.retry_button.clicked, self.retry_learning_requested),
            (self.chat.open_memory, self.show_memories),
            (self.chat.memory_wrong, self._memory_wrong),
            (sidebar.new_requested, self.new_conversation),
            (sidebar.selected, self.open_conversation),
            (sidebar.search_changed, self._refresh_sidebar),
            (sidebar.rename_requested, self.rename_requested),
            (sidebar.delete_requested, self._delete_conversation),
            (turns.remember_button.clicked, self._remember),
            (actions.temporary_button.toggled, self._toggle_temporary),
            (answers.turn_started, self._on_turn_started), (answers.answered, self._idle.start),
            (answers.resend_requested, turns.resend), (answers.unsent, self._restore_unsent),
            (self.welcome.starter_installed, self.load_requested),
            (turns.send_requested, lambda _chat, _text, large, _cancel: self._expect(large)),
            (turns.resend_requested, lambda *_: self._expect(large=False)),
            (turns.send_requested, worker.send),
            (turns.prefetch_requested, worker.prefetch), (turns.resend_requested, worker.resend),
            (self.load_requested, worker.load), (self.shutdown_requested, worker.shutdown),
            (self.history_requested, worker.recall_history),
            (self.memory_wrong_requested, worker.memory_wrong),
            (self.rename_requested, worker.rename_conversation),
            (self.delete_requested, worker.delete_conversation), (self.idle_reached, worker.idle),
            (self.remember_requested, worker.remember),
            (self.retry_learning_requested, worker.retry_learning),
            (answers.judge_requested, worker.judge), (self.models_requested, worker.list_models),
            (notices.undo_forget_requested, worker.undo_forget),
            (notices.purge_forgotten_requested, worker.purge_forgotten),
            (self.temporary_requested, worker.start_temporary),
            (self.leave_requested, worker.leave_conversation),
            (actions.plan_requested, worker.load_plan),
            (self.plan_panel.save_requested, worker.save_plan),
            (worker.loading, self._on_loading), (worker.loaded, self._on_loaded),
            (worker.load_failed, self._on_load_failed),
            (worker.load_failed, self.welcome.on_load_failed),
            (worker.loaded, self.welcome.model_settled),
            (worker.load_failed, self.welcome.model_settled),
            (worker.failed, notices.problem), (worker.turn_event, answers.on_event),
            (worker.busy_changed, self._set_busy),
            (worker.history_recalled, answers.history_recalled),
            (worker.conversations_changed, self._refresh_sidebar),
            (worker.learning_status, self.show_learning),
            (worker.models_listed, actions.show_models),
            (worker.permission_asked, answers.ask_permission),
            (worker.judged, answers.judged),
            (worker.learning_queued, self._on_learning_queued),
            (worker.memory_changed, self._on_memory_changed),
            (self.memory_check_requested, worker.check_memory),
            (worker.temporary_started, self._on_temporary_started),
            (worker.plan_loaded, self.plan_panel.show_plan),
            (worker.permissions_changed, self._on_permissions_changed),
        ):  # fmt: skip
            signal.connect(slot)
        self.settings_signals = SettingsSignals(self.settings, self)
        self.settings_signals.changed.connect(self._on_settings_changed)
        self.settings_signals.changed.connect(worker.apply_settings)
        self._save_permissions = permissions.saving_to(self.settings)

    @property
    def _busy(self) -> bool:
        """An answer is running (tests and benchmarks wait on it)."""
        return self.turns.busy

    @property
    def _ready(self) -> bool:
        """A model is loaded."""
        return self.turns.ready

    @property
    def memory_browser(self) -> MemoryBrowser | None:
        return self.windows.memory_browser

    def stop(self) -> None:
        """Stop the running answer at the next token (its text so far is kept)."""
        self.turns.stop()

    # -- conversations ---------------------------------------------------------------------

    def new_conversation(self) -> None:
        if self.turns.busy:
            return
        self._leave()
        self.conversation_id = 0
        self.answers.clear()
        self.notice.dismiss_toast()
        self.sidebar.list.clearSelection()
        self.composer.setFocus()

    def open_conversation(self, conversation_id: int) -> None:
        """Show another conversation (not while an answer is running)."""
        if self.turns.busy or conversation_id == self.conversation_id:
            return
        self._leave()
        self.conversation_id = conversation_id
        self._show_conversation()
        self.history_requested.emit(list(self.answers.answers))

    def _show_conversation(self) -> None:
        self.notice.dismiss_toast()
        chats, shown = self._chats, self.conversation_id
        if chats is not None and shown:
            self.answers.show_stored(chats.episodes(shown), chats.earlier_answers(shown))
        else:
            self.answers.show_stored([], {})

    def _on_turn_started(self, conversation_id: int) -> None:
        if conversation_id != self.conversation_id:  # a first message created it
            self.conversation_id = conversation_id
            self._refresh_sidebar()

    def _delete_conversation(self, conversation_id: int) -> None:
        if self.turns.busy and conversation_id == self.conversation_id:
            return
        if conversation_id == self.conversation_id:
            self.new_conversation()
        self.delete_requested.emit(conversation_id)

    def _refresh_sidebar(self) -> None:
        if self._closed or self._chats is None:
            return
        found = self._chats.search(self.sidebar.search.text())
        self.sidebar.show_conversations(found, self.conversation_id)

    def _title(self) -> str:
        chats, shown = self._chats, self.conversation_id
        conversation = chats.conversation(shown) if chats is not None and shown else None
        return (conversation.title if conversation else "") or self.tr("Untitled chat")

    def _large_is_other(self) -> bool:
        """The large model is another file than the small one (else a caption says nothing)."""
        prefs = self.settings.current
        return prefs.large_model != prefs.small_model

    def _toggle_temporary(self, on: bool) -> None:
        """On: a new temporary chat (the worker creates it); off: back to a normal new chat."""
        if self.turns.busy:
            self.chat_actions.show_temporary(not on, marker=False)
            return
        self.new_conversation()
        if on:
            self.temporary_requested.emit(self.tr("Temporary chat"))

    def _on_temporary_started(self, conversation_id: int) -> None:
        self.conversation_id = self._temporary_id = conversation_id
        self.chat_actions.show_temporary(True)
        self.turns.temporary = True  # Remember is off: nothing here is learned
        self.turns.update_buttons()

    def _leave(self) -> None:
        """Leaving a temporary chat deletes it (on the worker)."""
        if self._temporary_id:
            self.leave_requested.emit(self._temporary_id)
            self._temporary_id = 0
            self.chat_actions.show_temporary(False)
            self.turns.temporary = False
            self.turns.update_buttons()

    def _remember(self) -> None:
        """Learn from the chat shown now: why not is said at once when the window knows it;
        else the worker says whether a learning job was queued (:meth:`_on_learning_queued`)."""
        if not self.conversation_id:
            return
        why_not = self._memory.quiet(temporary=self._temporary_id != 0)
        if why_not is None:
            self.remember_requested.emit(self.conversation_id)
        else:
            self.notices.remembering(self._learning, why_not)

    def _on_learning_queued(self, why_not: Problem | None) -> None:
        """ "Learning from this chat…" only once a job was queued; else why not (nothing new)."""
        self.notices.remembering(self._learning, why_not)

    def _memory_wrong(self, answer_episode_id: int, memory_id: int) -> None:
        """ "This is wrong" on a chip: a signal Engram learns from (or why not, said)."""
        why_not = self._memory.quiet(temporary=self._temporary_id != 0)
        if why_not is not None:
            self.notices.toast(why_not)
            return
        self.chat.show_wrong(answer_episode_id, memory_id)
        self.memory_wrong_requested.emit(answer_episode_id, memory_id)

    # -- worker reports -------------------------------------------------------------------

    def _on_loading(self) -> None:
        self.turns.set_ready(False)
        self.status.model_loading()

    def _on_loaded(self, name: str, memory: MemoryState) -> None:
        self.turns.ready = True
        self._memory = memory
        off = memory.problem
        if off is not None:
            self.notices.problem(
                lambda: self.tr("Answering without memory: {why}").format(why=errors.text(off))
            )
        elif self.notice.kind == "problem":  # what kept the model from loading is solved
            self.notice.dismiss()
        self._refresh_sidebar()  # without the temporary chats an earlier run left behind
        self.history_requested.emit(list(self.answers.answers))
        self.models_requested.emit()
        self.status.model_loaded(name)
        self.turns.update_buttons()
        self.composer.setFocus()
        if self._interrupted is not None:
            self._say_interrupted(self._interrupted)
            self._interrupted = None

    def _say_interrupted(self, message: Episode) -> None:
        """The last run ended while answering ``message`` (a kill, a crash of llama.cpp): say
        so, and whether a crash was recorded."""
        faults = paths.logs_dir() / "faults.log"
        try:
            crashed = faults.stat().st_size > 0 and faults.stat().st_mtime >= message.created_at
        except OSError:
            crashed = False
        path = str(faults)
        if crashed:
            self.notices.problem(
                lambda: self.tr(
                    "Engram stopped unexpectedly while answering your last message (the crash "
                    "is recorded in {path}). Nothing you wrote was lost: Retry answers it."
                ).format(path=path)
            )
        else:
            self.notices.problem(
                lambda: self.tr(
                    "The last answer was interrupted: Engram closed while writing it. Nothing "
                    "you wrote was lost: Retry answers your message."
                )
            )

    def _expect(self, large: bool) -> None:
        """A message went to the worker: its answer says what it waits for until it writes."""
        self.answers.expect(large, memory=self._memory.mode != "off")

    def _restore_unsent(self, text: str) -> None:
        """A message that failed before it was stored goes back to the message box."""
        if not self.composer.toPlainText().strip():
            self.composer.setPlainText(text)

    def _on_load_failed(self, problem: Problem) -> None:
        self.turns.ready = False
        self.notices.problem(problem)
        self.status.model_failed()
        self.turns.update_buttons()

    def _set_busy(self, busy: bool) -> None:
        if not busy:
            self.answers.answer_ended()
        self.turns.set_busy(busy)

    def show_learning(self, status: Status) -> None:
        """Show what consolidation is doing; new memories get a toast (and may move the plan)."""
        self._learning = status
        if status.learned:
            self.notices.learned(status.learned)
            if self.plan_panel.isVisible():  # learning may have moved the plan on
                self.chat_actions.plan_requested.emit()
        self.status.show_learning(status)
        self.notices.learning_reported(status)
        self.welcome.learning_waits(status.error if status.model == "too small" else None)

    def _on_memory_changed(self, memory: MemoryState) -> None:
        """The worker's memory state; a pause made or lifted elsewhere (another window,
        ``engram memory pause``) is said, and this window's settings follow it."""
        self._memory = memory
        if not memory.elsewhere or memory.mode == "off":
            return
        paused = memory.mode == "paused"
        self.notices.toast(
            self.tr("Memory was paused elsewhere: Engram learns nothing new until you resume it.")
            if paused
            else self.tr("Memory was resumed elsewhere: Engram learns from your chats again.")
        )
        self.settings.update(memory_paused=paused)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        """Coming back to the window (from a terminal, another window), the pause is read
        again: one made there shows here at once."""
        super().changeEvent(event)
        active = event.type() == QEvent.Type.ActivationChange and self.isActiveWindow()
        if active and self.turns.ready:
            self.memory_check_requested.emit()

    def _on_permissions_changed(self, choices: dict[str, str]) -> None:
        """ "Always allow" or a stored deny: kept in the settings (on the UI thread)."""
        try:
            self._save_permissions(choices)
        except EngramError as exc:
            self.notices.problem(exc.problem)

    def _on_settings_changed(self, _old: Settings, new: Settings) -> None:
        """The worker follows the store by itself (reloading only when it must); the window
        keeps its idle timer in step."""
        self._idle.setInterval(max(1, new.consolidate_idle_seconds) * 1000)

    def retranslate(self) -> None:
        """Settings → Language applies live: the parts that are no widgets (the message box's
        buttons, the header's actions, the answers' numbers) in the current language; every
        widget part retranslates itself on the same LanguageChange event."""
        self.turns.retranslate()
        self.chat_actions.retranslate()
        self.answers.retranslate()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        """Stop a running answer (its text so far is stored), free the model, end the thread."""
        self._closed = True
        self._idle.stop()
        self.turns.close()
        self.settings_signals.close()
        self.welcome.stop()
        self._leave()  # queued before the shutdown: a temporary chat is deleted first
        self.windows.close()
        stop_thread(self._thread, self.shutdown_requested)
        if self._chats is not None:
            self._chats.close()
        super().closeEvent(event)
