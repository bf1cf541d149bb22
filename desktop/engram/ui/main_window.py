"""The main window: conversation, message box, Send/Stop, and the model's state."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engram.assistant import utilization
from engram.assistant.consolidation import Learned, Status
from engram.assistant.events import (
    Cancelled,
    Failed,
    Finished,
    NotRemembered,
    Recalling,
    Remembered,
    Token,
    ToolCalled,
    ToolResult,
    Truncated,
    TurnEvent,
    TurnStarted,
)
from engram.assistant.forget import Forgotten
from engram.assistant.prompt import PromptParts, Recalled
from engram.assistant.session import LoadedModels
from engram.assistant.tools import setup as tool_setup
from engram.core import log, paths
from engram.core.atomic import atomic_write
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem
from engram.core.settings import Settings, SettingsStore, store_of
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models import secrets
from engram.ui import errors, labels, markdown
from engram.ui.chat_header import ChatHeader
from engram.ui.chat_view import ChatView, MessageBubble
from engram.ui.composer import Composer
from engram.ui.elided import ElidedLabel
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.model_manager import ModelManager
from engram.ui.plan_panel import PLAN_WIDTH, PlanPanel
from engram.ui.prompt_dialog import PromptDialog
from engram.ui.settings_dialog import SettingsDialog
from engram.ui.settings_signals import SettingsSignals
from engram.ui.sidebar import Sidebar
from engram.ui.threads import stop_thread, worker_thread
from engram.ui.toast import Notice
from engram.ui.tool_block import PermissionPrompt, ToolBlock
from engram.ui.welcome import WelcomePanel
from engram.ui.worker import ModelWorker, PermissionRequest

_log = log.get("ui.main")
# A pause in typing this long starts evaluating the prompt ahead of Enter.
PREFETCH_DEBOUNCE_MS = 400
MODEL_STATE_MAX_WIDTH = 320
LEARNED_SHOWN = 3  # memories named in the "Memory updated" toast


class MainWindow(QMainWindow):
    """Chat with the small model; the model runs on its own thread."""

    send_requested = Signal(int, str, object)
    ask_large_requested = Signal(int, str, object)
    prefetch_requested = Signal(int, str, object)
    load_requested = Signal()
    shutdown_requested = Signal()
    history_requested = Signal(object)
    feedback_requested = Signal(int, int)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    resend_requested = Signal(int, int, str, object)
    idle_reached = Signal(int)
    remember_requested = Signal(int)
    retry_learning_requested = Signal()
    judge_requested = Signal(int, str, object)  # answer episode id, signal kind, text or None
    models_requested = Signal()
    undo_forget_requested = Signal(object)
    temporary_requested = Signal(str)  # its title
    leave_requested = Signal(int)
    plan_requested = Signal()
    purge_forgotten_requested = Signal()

    def __init__(
        self, settings: Settings | SettingsStore, models: LoadedModels | None = None
    ) -> None:
        """``settings``: the app's store (plain settings get one of their own). ``models``,
        when given, are used instead of loading them (their owner closes them). A database
        that cannot be opened is shown as a notice, not raised."""
        super().__init__()
        self.setWindowTitle("Engram")
        self.resize(900, 700)
        self.settings = store_of(settings)
        prefs = self.settings.current
        self._episodes: EpisodeLog | None = None
        problem: Problem | None = None
        latest = None
        try:
            with contextlib.ExitStack() as on_error:
                conn = db.connect(paths.database_path())
                on_error.callback(conn.close)
                episodes = EpisodeLog(conn)
                latest = episodes.latest_conversation()
                on_error.pop_all()
                self._episodes = episodes
        except EngramError as exc:  # damaged, locked, newer: say so; the window still opens
            _log.warning("conversations unavailable: %s", type(exc).__name__)
            problem = exc.problem
        self.conversation_id = latest.id if latest else 0
        self._busy = False
        self._ready = False
        self._cancel = CancelToken()
        self._closed = False
        self._recalled: tuple[Recalled, ...] = ()
        self._prompt: PromptParts | None = None
        self._answers: dict[int, MessageBubble] = {}
        self._tool_blocks: dict[int, ToolBlock] = {}  # this answer's, by step
        self._pending_prompts: list[PermissionPrompt] = []

        self.chat = ChatView()
        self.composer = Composer()
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("send_button")
        self.send_button.setAccessibleName(self.tr("Send message"))
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setAccessibleName(self.tr("Stop the answer"))
        self.stop_button.setToolTip(self.tr("Stop the answer (Esc)"))
        self.notice = Notice()  # problems stay until closed; toasts pass
        self.notice.link.connect(self._on_notice_link)
        self._learning = Status("idle")
        self._learned: tuple[Learned, ...] = ()
        self._forgotten: Forgotten | None = None  # while its undo is offered

        self.large_button = QPushButton(self.tr("Ask large model"))
        self.large_button.setAccessibleName(self.tr("Ask the large model"))
        self.large_button.setToolTip(
            self.tr("Answer this message with the large model, slower but stronger (Ctrl+Enter)")
        )
        self.remember_button = QPushButton(self.tr("Remember"))
        self.remember_button.setAccessibleName(self.tr("Learn from this chat now"))
        self.remember_button.setToolTip(
            self.tr("Learn from this chat now (or start a message with “remember this:”)")
        )
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.large_button)
        buttons.addWidget(self.remember_button)
        row = QHBoxLayout()
        row.addWidget(self.composer, 1)
        row.addLayout(buttons)
        self.header = ChatHeader()
        self.answer_stats = self.header.stats
        self.export_button = self.header.add_button(
            self.tr("Export"), self.tr("Save this chat as a Markdown file")
        )
        self.export_button.clicked.connect(lambda _checked: self.export_chat())
        self.temporary_button = self.header.add_button(
            self.tr("Temporary"),
            self.tr("A chat that is not remembered and is deleted when you leave it"),
            checkable=True,
        )
        self.temporary_button.toggled.connect(self._toggle_temporary)
        self.plan_button = self.header.add_button(
            self.tr("Plan"), self.tr("Show your plan: goal, steps and where you are"), True
        )
        self.plan_panel = PlanPanel()
        self.plan_panel.hide()
        self.plan_button.toggled.connect(self._toggle_plan)
        self.temporary_marker = QLabel(
            self.tr("Temporary chat: nothing here is remembered; it is deleted when you leave it.")
        )
        self.temporary_marker.setObjectName("temporary_marker")
        self.temporary_marker.setWordWrap(True)
        self.temporary_marker.hide()
        self._temporary_id = 0  # the temporary chat shown, deleted when left
        column = QVBoxLayout()
        column.addWidget(self.header)
        column.addWidget(self.temporary_marker)
        column.addWidget(self.notice)
        self.welcome = WelcomePanel(self.settings, self.chat, self.show_models)
        column.addWidget(self.welcome)
        column.addWidget(self.chat, 1)
        column.addLayout(row)
        chat_column = QWidget()
        chat_column.setLayout(column)
        self.sidebar = Sidebar()
        splitter = QSplitter()
        splitter.addWidget(self.sidebar)
        splitter.addWidget(chat_column)
        splitter.addWidget(self.plan_panel)
        self._splitter = splitter
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 760])
        self.setCentralWidget(splitter)
        self.model_state = ElidedLabel(self.tr("Starting…"), min_width=120)
        # Its whole name when there is room; "…" rather than running off the window's edge.
        self.model_state.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.model_state.setMaximumWidth(MODEL_STATE_MAX_WIDTH)
        self.learning_state = QLabel()
        self.learning_state.setObjectName("learning_state")
        self.retry_button = QPushButton(self.tr("Retry"))
        self.retry_button.setAccessibleName(self.tr("Retry learning"))
        self.retry_button.hide()
        self.large_state = QLabel()
        self.large_state.setObjectName("large_state")
        self.statusBar().addPermanentWidget(self.welcome.learning_note)
        self.statusBar().addPermanentWidget(self.learning_state)
        self.statusBar().addPermanentWidget(self.retry_button)
        self.statusBar().addPermanentWidget(self.large_state)
        self.statusBar().addPermanentWidget(self.model_state)
        self._prefetch_cancel = CancelToken()
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(PREFETCH_DEBOUNCE_MS)
        self._typing.timeout.connect(self._prefetch)
        self.composer.textChanged.connect(self._typing.start)
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(max(1, prefs.consolidate_idle_seconds) * 1000)
        self._idle.timeout.connect(lambda: self.idle_reached.emit(self.conversation_id))

        self.composer.submitted.connect(self.submit)
        self.composer.submitted_large.connect(self.ask_large)
        self.large_button.clicked.connect(lambda: self.ask_large(self.composer.toPlainText()))
        self.send_button.clicked.connect(lambda: self.submit(self.composer.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        QShortcut(QKeySequence.StandardKey.New, self, self.new_conversation)
        QShortcut(QKeySequence("Ctrl+K"), self, self.sidebar.search.setFocus)
        QShortcut(QKeySequence("Ctrl+M"), self, self.show_memories)
        QShortcut(QKeySequence("Ctrl+,"), self, self.show_settings)
        self.settings_button = QPushButton(self.tr("Settings"))
        self.settings_button.setAccessibleName(self.tr("Open the settings"))
        self.settings_button.setToolTip(self.tr("Models, memory, cloud, appearance (Ctrl+,)"))
        self.settings_button.clicked.connect(self.show_settings)
        self.statusBar().addWidget(self.settings_button)
        self.models_button = QPushButton(self.tr("Models"))
        self.models_button.setAccessibleName(self.tr("Open the model manager"))
        self.models_button.setToolTip(self.tr("Download, import and choose models"))
        self.models_button.clicked.connect(self.show_models)
        self.statusBar().addWidget(self.models_button)
        self.model_manager: ModelManager | None = None
        self.chat.open_memory.connect(self.show_memories)
        self.memories_button = QPushButton(self.tr("Memories"))
        self.memories_button.setAccessibleName(self.tr("Open the memory browser"))
        self.memories_button.setToolTip(self.tr("See and edit what Engram remembers (Ctrl+M)"))
        self.memories_button.clicked.connect(self._open_memories)
        self.statusBar().addWidget(self.memories_button)
        self.memory_browser: MemoryBrowser | None = None
        self.sidebar.new_requested.connect(self.new_conversation)
        self.sidebar.selected.connect(self.open_conversation)
        self.sidebar.search_changed.connect(self._refresh_sidebar)
        self.sidebar.rename_requested.connect(self.rename_requested)
        self.sidebar.delete_requested.connect(self._delete_conversation)

        self.worker = ModelWorker(prefs, models)
        self._thread = worker_thread(self, self.worker, "engram-foreground-model")
        self.send_requested.connect(self.worker.send)
        self.ask_large_requested.connect(self.worker.ask_large)
        self.prefetch_requested.connect(self.worker.prefetch)
        self.load_requested.connect(self.worker.load)
        self.shutdown_requested.connect(self.worker.shutdown)
        self.worker.loading.connect(self._on_loading)
        self.worker.loaded.connect(self._on_loaded)
        self.worker.load_failed.connect(self._on_load_failed)
        self.worker.load_failed.connect(self.welcome.on_load_failed)
        self.welcome.starter_installed.connect(self.load_requested)
        self.worker.failed.connect(self._on_failed)
        self.worker.turn_event.connect(self._on_event)
        self.worker.busy_changed.connect(self._set_busy)
        self.worker.history_recalled.connect(self._on_history_recalled)
        self.history_requested.connect(self.worker.recall_history)
        self.feedback_requested.connect(self.worker.feedback)
        self.rename_requested.connect(self.worker.rename_conversation)
        self.delete_requested.connect(self.worker.delete_conversation)
        self.worker.conversations_changed.connect(self._refresh_sidebar)
        self.worker.learning_status.connect(self._on_learning)
        self.idle_reached.connect(self.worker.idle)
        self.remember_requested.connect(self.worker.remember)
        self.retry_learning_requested.connect(self.worker.retry_learning)
        self.settings_signals = SettingsSignals(self.settings, self)
        self.settings_signals.changed.connect(self._on_settings_changed)
        self.settings_signals.changed.connect(self.worker.apply_settings)
        self.remember_button.clicked.connect(self._remember)
        self.retry_button.clicked.connect(self.retry_learning_requested)
        self.chat.memory_wrong.connect(self._mark_wrong)
        self.chat.bubble_action.connect(self._on_bubble_action)
        self.resend_requested.connect(self.worker.resend)
        self.judge_requested.connect(self.worker.judge)
        self.models_requested.connect(self.worker.list_models)
        self.worker.models_listed.connect(self._on_models_listed)
        self.worker.permission_asked.connect(self._ask_permission)
        self.worker.forgotten.connect(self._on_forgotten)
        self.undo_forget_requested.connect(self.worker.undo_forget)
        self.temporary_requested.connect(self.worker.start_temporary)
        self.leave_requested.connect(self.worker.leave_conversation)
        self.worker.temporary_started.connect(self._on_temporary_started)
        self.plan_requested.connect(self.worker.load_plan)
        self.plan_panel.save_requested.connect(self.worker.save_plan)
        self.worker.plan_loaded.connect(self.plan_panel.show_plan)
        self.purge_forgotten_requested.connect(self.worker.purge_forgotten)
        self.notice.hidden.connect(self._on_notice_hidden)
        self._save_permissions = tool_setup.saving_to(self.settings)
        self.worker.permissions_changed.connect(self._on_permissions_changed)
        self.header.model_chosen.connect(self._choose_model)
        self._thread.start()
        self._show_conversation()
        self._refresh_sidebar()
        self._update_buttons()
        if problem is not None:
            self._show_notice(errors.text(problem))
        self.load_requested.emit()

    # -- actions ---------------------------------------------------------------------------

    def submit(self, text: str) -> None:
        """Send the composer's text, unless it is blank or an answer is running."""
        self._send(text, self.send_requested)

    def ask_large(self, text: str) -> None:
        """Send the composer's text to the large model instead (one answer)."""
        self._send(text, self.ask_large_requested)

    def _prefetch(self) -> None:
        """While the user pauses typing, let the model read the prompt it will get."""
        self._prefetch_cancel.cancel()
        draft = self.composer.toPlainText()
        if self._busy or not self._ready or not draft.strip():
            return
        self._prefetch_cancel = CancelToken()
        self.prefetch_requested.emit(self.conversation_id, draft, self._prefetch_cancel)

    def _send(self, text: str, request: SignalInstance) -> None:
        if not text.strip() or self._busy or not self._ready:
            return
        self._typing.stop()
        self._prefetch_cancel.cancel()
        self.composer.clear()
        self.chat.add("user", text)
        self._busy = True
        self._update_buttons()
        self._cancel = CancelToken()
        request.emit(self.conversation_id, text, self._cancel)

    def stop(self) -> None:
        """Stop the running answer at the next token (its text so far is kept)."""
        self._cancel.cancel()

    def new_conversation(self) -> None:
        if self._busy:
            return
        self._leave()
        self.conversation_id = 0
        self.chat.clear()
        self.notice.dismiss_toast()
        self._answers = {}
        self.sidebar.list.clearSelection()
        self.composer.setFocus()

    def open_conversation(self, conversation_id: int) -> None:
        """Show another conversation (not while an answer is running)."""
        if self._busy or conversation_id == self.conversation_id:
            return
        self._leave()
        self.conversation_id = conversation_id
        self._show_conversation()
        self.history_requested.emit(list(self._answers))

    def _toggle_plan(self, on: bool) -> None:
        self.plan_panel.setVisible(on)
        if on:
            sidebar, chat, _plan = self._splitter.sizes()
            self._splitter.setSizes([sidebar, max(0, chat - PLAN_WIDTH), PLAN_WIDTH])
            self.plan_requested.emit()

    def _toggle_temporary(self, on: bool) -> None:
        """On: a new temporary chat (the worker creates it); off: back to a normal new chat."""
        if self._busy:
            self.temporary_button.blockSignals(True)
            self.temporary_button.setChecked(not on)
            self.temporary_button.blockSignals(False)
            return
        self.new_conversation()
        if on:
            self.temporary_requested.emit(self.tr("Temporary chat"))

    def _on_temporary_started(self, conversation_id: int) -> None:
        self.conversation_id = self._temporary_id = conversation_id
        self._show_temporary(True)
        self._update_buttons()

    def _leave(self) -> None:
        """Leaving a temporary chat deletes it (on the worker)."""
        if self._temporary_id:
            self.leave_requested.emit(self._temporary_id)
            self._temporary_id = 0
            self._show_temporary(False)

    def _show_temporary(self, on: bool) -> None:
        self.temporary_marker.setVisible(on)
        self.temporary_button.blockSignals(True)
        self.temporary_button.setChecked(on)
        self.temporary_button.blockSignals(False)

    def _remember(self) -> None:
        if not self.conversation_id:
            return
        self.remember_requested.emit(self.conversation_id)
        if self._learning.state in ("distilling", "waiting"):
            self.notice.show_toast(
                self.tr("Engram will learn from this chat when the current lesson is done.")
            )
        else:
            self.notice.show_toast(self.tr("Learning from this chat…"))

    def _show_learned(self, learned: tuple[Learned, ...]) -> None:
        """A toast saying what learning just added or changed, with a way to review it."""
        self._learned = learned
        added = sum(1 for item in learned if item.action == "add")
        lines = [
            ("+ " if item.action == "add" else "~ ") + " ".join(item.content.split())[:120]
            for item in learned[:LEARNED_SHOWN]
        ]
        if len(learned) > LEARNED_SHOWN:
            lines.append(self.tr("… and %n more", "", len(learned) - LEARNED_SHOWN))
        head = self.tr("Memory updated: {added} new, {changed} changed").format(
            added=added, changed=len(learned) - added
        )
        self.notice.show_toast("\n".join([head, *lines]), {"manage": self.tr("Manage")})

    def _on_notice_link(self, key: str) -> None:
        if key == "manage" and self._learned:
            self.show_memories().show_only([item.memory_id for item in self._learned])
        elif key == "undo" and self._forgotten is not None:
            self.undo_forget_requested.emit(self._forgotten)
            self._forgotten = None
            self.notice.show_toast(self.tr("Brought back."))

    def _on_forgotten(self, forgotten: Forgotten | None) -> None:
        """After "forget that": the message is no turn; a toast says what went, with an undo."""
        self.chat.drop_latest_turn()
        if forgotten is None:
            self.notice.show_toast(
                self.tr("There is nothing to forget here: the last answer used no memory.")
            )
            return
        self.notice.show_toast(
            self.tr("Forgot: {text}").format(text=forgotten.content), {"undo": self.tr("Undo")}
        )
        self._forgotten = forgotten  # after showing: the toast it replaced took its own along

    def _on_notice_hidden(self) -> None:
        """The undo is gone with its toast: what was forgotten is deleted for good."""
        if self._forgotten is not None:
            self._forgotten = None
            self.purge_forgotten_requested.emit()

    def _on_learning(self, status: Status) -> None:
        """Show what consolidation is doing; a failure offers a retry, new memories a toast."""
        self._learning = status
        if status.learned:
            self._show_learned(status.learned)
            if self.plan_panel.isVisible():  # learning may have moved the plan on
                self.plan_requested.emit()
        # A large model too small to learn from is said once, by the welcome panel's note in the
        # status bar (its tooltip has the way out); a retry cannot help it.
        too_small = status.model == "too small"
        self.welcome.learning_waits(status.error if too_small else None)
        if status.state == "distilling":
            text = self.tr("Learning… {percent}%").format(percent=int(status.progress * 100))
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
        self.learning_state.setText(text)
        self.large_state.setText(
            self.tr("Large model: {state}").format(state=labels.label(status.model))
            if status.model and not too_small
            else ""
        )
        self.retry_button.setVisible(
            not too_small and (status.state == "failed" or status.parked > 0)
        )

    def show_settings(self) -> SettingsDialog:
        """Open the settings; what is saved there reaches the assistant through the store."""
        dialog = SettingsDialog(self.settings, self, keys=secrets.shared())
        dialog.models_requested.connect(self.show_models)
        dialog.open()
        return dialog

    def show_models(self) -> ModelManager:
        """Open (or raise) the model manager; models it assigns take effect at once."""
        if self.model_manager is None or not self.model_manager.isVisible():
            self.model_manager = ModelManager(self.settings)
        self.model_manager.show()
        self.model_manager.raise_()
        return self.model_manager

    def _on_settings_changed(self, _old: Settings, new: Settings) -> None:
        """The worker follows the store by itself (reloading only when it must); the window
        keeps its idle timer in step."""
        self._idle.setInterval(max(1, new.consolidate_idle_seconds) * 1000)

    def _open_memories(self) -> None:
        self.show_memories()

    def show_memories(self, memory_id: int = 0) -> MemoryBrowser:
        """Open (or raise) the memory browser, showing one memory when given."""
        if self.memory_browser is None or not self.memory_browser.isVisible():
            self.memory_browser = MemoryBrowser(self.settings)
            self.memory_browser.open_conversation.connect(self.open_conversation)
        self.memory_browser.show()
        self.memory_browser.raise_()
        if memory_id:
            self.memory_browser.select_memory(memory_id)
        return self.memory_browser

    def _delete_conversation(self, conversation_id: int) -> None:
        if self._busy and conversation_id == self.conversation_id:
            return
        if conversation_id == self.conversation_id:
            self.new_conversation()
        self.delete_requested.emit(conversation_id)

    def _refresh_sidebar(self) -> None:
        if self._closed or self._episodes is None:
            return
        query = self.sidebar.search.text()
        found = self._episodes.search_conversations(query)
        self.sidebar.show_conversations(found, self.conversation_id)

    # -- worker reports -------------------------------------------------------------------

    def _on_loading(self) -> None:
        self._ready = False
        self._update_buttons()
        self.model_state.setText(self.tr("Loading model…"))

    def _on_loaded(self, name: str, memory_problem: Problem | None) -> None:
        self._ready = True
        if memory_problem is not None:
            why = errors.text(memory_problem)
            self._show_notice(self.tr("Answering without memory: {why}").format(why=why))
        elif self.notice.kind == "problem":  # what kept the model from loading is solved
            self.notice.dismiss()
        self.history_requested.emit(list(self._answers))
        self.models_requested.emit()
        self.model_state.setText(self.tr("Model: {name}").format(name=name))
        self._update_buttons()
        self.composer.setFocus()

    def _on_load_failed(self, problem: Problem) -> None:
        self._ready = False
        self._show_notice(errors.text(problem))
        self.model_state.setText(self.tr("No model loaded"))
        self._update_buttons()

    def _on_event(self, event: TurnEvent) -> None:
        if isinstance(event, TurnStarted):
            if event.conversation_id != self.conversation_id:
                self.conversation_id = event.conversation_id
                self._refresh_sidebar()
            self._recalled = ()
            self._tool_blocks = {}
            user = self.chat.latest("user")
            if user is not None:
                user.episode_id = event.user_episode_id
            self._prompt = None
            answer = self.chat.begin_answer()
            if event.escalated and self._large_is_other():
                answer.set_caption(self.tr("Answered by the large model"))
        elif isinstance(event, Remembered):
            self.notice.show_toast(self.tr("Remembered: {text}").format(text=event.content))
        elif isinstance(event, NotRemembered):
            self.notice.show_toast(errors.text(event.problem))
        elif isinstance(event, Recalling):
            self._recalled = event.items
            self._prompt = event.prompt
        elif isinstance(event, Token):
            self.chat.append_token(event.text)
        elif isinstance(event, ToolCalled):
            block = ToolBlock(event.name, event.arguments, event.error)
            self._tool_blocks[event.step] = block
            self._add_to_answer(block)
        elif isinstance(event, ToolResult) and event.step in self._tool_blocks:
            self._tool_blocks[event.step].set_result(event.text, event.is_error, event.duration_s)
        elif isinstance(event, Truncated):
            self._show_notice(
                self.tr(
                    "The message is too long for the model's context; the last {count} "
                    "characters were left out of this answer (the whole message is saved)."
                ).format(count=f"{event.chars:,}")
            )
        elif isinstance(event, Finished):
            self._end_answer(event.text, event.recalled, event.used, event.episode_id)
            self._show_stats(event)
            self._idle.start()
        elif isinstance(event, Cancelled):
            self._end_answer(event.text, self._recalled, (), event.episode_id)
            self._mark_latest(self.tr("Stopped"))
        elif isinstance(event, Failed):
            self.chat.end_answer(event.text)  # what was said stays on screen
            self._show_notice(errors.text(event.problem))

    def _end_answer(
        self,
        text: str,
        recalled: tuple[Recalled, ...],
        used: tuple[Recalled, ...],
        episode_id: int,
    ) -> None:
        answer = self.chat.latest("assistant")
        self.chat.end_answer(text, recalled, used, episode_id)
        if answer is not None:
            answer.prompt = self._prompt

    def _add_to_answer(self, block: QWidget) -> None:
        answer = self.chat.latest("assistant")
        if answer is not None:
            answer.add_block(block)

    def _on_permissions_changed(self, choices: dict[str, str]) -> None:
        """ "Always allow" or a stored deny: kept in the settings (on the UI thread)."""
        try:
            self._save_permissions(choices)
        except EngramError as exc:
            self._show_notice(errors.text(exc.problem))

    def _ask_permission(self, request: PermissionRequest) -> None:
        """A tool wants to run: ask inside the answer, no dialog; Stop counts as deny."""
        prompt = PermissionPrompt(request.name, request.source, request.arguments)
        prompt.answered.connect(request.answer)
        self._add_to_answer(prompt)
        self._pending_prompts.append(prompt)

    def _on_models_listed(self, models: list[tuple[str, str, tuple[str, ...]]]) -> None:
        prefs = self.settings.current
        self.header.show_models(models, {"small": prefs.small_model, "large": prefs.large_model})

    def _choose_model(self, role: str, model_id: str) -> None:
        """The header's switcher: the worker follows the store and loads the model."""
        try:
            self.settings.update(**{f"{role}_model": model_id})
        except EngramError as exc:
            self._show_notice(errors.text(exc.problem))

    def export_chat(self, path: str = "") -> Path | None:
        """Save the chat shown as Markdown (asks where when no ``path``); returns the file."""
        shown = self.chat.bubbles()
        messages = [(b.role, b.text) for b in shown if b.role in ("user", "assistant")]
        if not messages:
            self.statusBar().showMessage(self.tr("There is nothing to export in this chat."), 4000)
            return None
        title = self._title()
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self,
                self.tr("Export chat"),
                str(Path.home() / f"{_file_name(title)}.md"),
                self.tr("Markdown (*.md)"),
            )
            if not path:
                return None
        names = {"user": self.tr("You"), "assistant": "Engram"}
        target = Path(path)
        try:
            with atomic_write(target) as out:
                out.write(markdown.chat_document(title, messages, names))
        except OSError as exc:
            self._show_notice(
                self.tr("Could not save {path}: {error}").format(path=target, error=exc.strerror)
            )
            return None
        self.statusBar().showMessage(self.tr("Saved {path}").format(path=target), 6000)
        return target

    def _title(self) -> str:
        conversation = (
            self._episodes.conversation(self.conversation_id)
            if self._episodes is not None and self.conversation_id
            else None
        )
        return (conversation.title if conversation else "") or self.tr("Untitled chat")

    def _large_is_other(self) -> bool:
        """The large model is another file than the small one (else a caption says nothing)."""
        prefs = self.settings.current
        return prefs.large_model != prefs.small_model

    def _mark_latest(self, text: str) -> None:
        answer = self.chat.latest("assistant")
        if answer is not None:
            answer.set_marker(text)

    def _show_stats(self, event: Finished) -> None:
        """Under the answer when it was cut; in the header, its speed and context use."""
        stats = event.stats
        if event.cut and stats is not None:
            self._mark_latest(
                self.tr("Cut at the answer length limit ({tokens} tokens)").format(
                    tokens=stats.max_tokens
                )
            )
        if stats is None or not event.context:
            self.answer_stats.setText("")
            return
        used = stats.prompt_tokens + stats.generated_tokens
        numbers = self.tr("{speed:.1f} tokens/s · context {used:,} of {size:,}").format(
            speed=stats.decode_tokens_per_s, used=used, size=event.context
        )
        self.answer_stats.setText(numbers)
        detail = self.tr("Last answer: {tokens} tokens, first token after {first:.2f} s").format(
            tokens=stats.generated_tokens, first=stats.first_token_s or 0.0
        )
        self.answer_stats.setToolTip(f"{numbers}\n{detail}")

    def _judge(self, bubble: MessageBubble, kind: str) -> None:
        """A thumb on an answer; a thumb down may say what was wrong (optional)."""
        if not bubble.episode_id:
            return
        text: str | None = None
        if kind == "thumbs_down":
            said, ok = QInputDialog.getText(
                self,
                self.tr("What was wrong?"),
                self.tr("What was wrong with this answer? (optional; Engram learns from it)"),
            )
            text = said.strip() or None if ok else None
        self.judge_requested.emit(bubble.episode_id, kind, text)
        self.statusBar().showMessage(self.tr("Thanks: Engram will learn from this."), 4000)

    def _on_bubble_action(self, action: str, bubble: MessageBubble) -> None:
        if action == "prompt" and bubble.prompt is not None:
            steps = [(b.name, b.arguments, b.result) for b in bubble.tool_blocks]
            PromptDialog(bubble.prompt, self, steps).exec()
            return
        if action in ("thumbs_up", "thumbs_down"):
            self._judge(bubble, action)
            return
        user = self.chat.latest("user")
        if self._busy or user is None or bubble not in (user, self.chat.latest("assistant")):
            self.statusBar().showMessage(self.tr("Only the latest message can be changed."), 5000)
            return
        text = user.text
        if action == "edit":
            text, ok = QInputDialog.getMultiLineText(
                self, self.tr("Edit and resend"), self.tr("Message:"), user.text
            )
            if not ok or not text.strip():
                return
        self.resend(user.episode_id, text)

    def resend(self, from_episode_id: int, text: str) -> None:
        """Replace the latest turn: drop it and send ``text`` (the same, or edited) again."""
        if self._busy or not self._ready:
            return
        self.chat.drop_latest_turn()
        self.chat.add("user", text)
        self._busy = True
        self._update_buttons()
        self._cancel = CancelToken()
        self.resend_requested.emit(self.conversation_id, from_episode_id, text, self._cancel)

    def _on_failed(self, problem: Problem) -> None:
        """Something the worker was asked to do failed (a turn reports its own ``Failed``)."""
        self._show_notice(errors.text(problem))

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        if not busy:  # an unanswered question ended with the answer (stopped: denied)
            for prompt in self._pending_prompts:
                prompt.answer("deny")
            self._pending_prompts = []
        self._update_buttons()

    # -- helpers ---------------------------------------------------------------------------

    def _show_notice(self, text: str) -> None:
        self.notice.show_problem(text)

    def _update_buttons(self) -> None:
        self.send_button.setEnabled(self._ready and not self._busy)
        self.large_button.setEnabled(self._ready and not self._busy)
        self.stop_button.setEnabled(self._busy)
        self.remember_button.setEnabled(self._ready and bool(self.conversation_id))

    def _mark_wrong(self, memory_id: int) -> None:
        self.feedback_requested.emit(memory_id, -1)

    def _on_history_recalled(self, recalled: dict[int, list[Recalled]]) -> None:
        for answer_id, items in recalled.items():
            bubble = self._answers.get(answer_id)
            if bubble is not None and bubble.chips is None:  # the same check as a live answer
                self.chat.attach_chips(bubble, items, utilization.used(bubble.text, items))

    def _show_conversation(self) -> None:
        self.chat.clear()
        self.notice.dismiss_toast()
        self._answers = {}
        if self.conversation_id and self._episodes is not None:
            tools: list[ToolBlock] = []  # a tool step is shown inside the answer after it
            for episode in self._episodes.episodes(self.conversation_id):
                if episode.role == "tool":
                    tools.append(ToolBlock.from_stored(episode.content))
                    continue
                bubble = self.chat.add(episode.role, episode.content, episode.id)
                if episode.role == "assistant":
                    for block in tools:
                        bubble.add_block(block)
                    tools = []
                if episode.model == "large" and self._large_is_other():
                    bubble.set_caption(self.tr("Answered by the large model"))
                if episode.role == "assistant" and episode.status == "cancelled":
                    bubble.set_marker(self.tr("Stopped"))
                elif episode.role == "assistant" and episode.status == "error":
                    bubble.set_marker(self.tr("Interrupted by an error"))
                if episode.role == "assistant":
                    self._answers[episode.id] = bubble

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.LanguageChange:  # Settings → Language applies live
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """The window's own buttons in the current language (its parts follow by themselves)."""
        for button, text, tip in (
            (self.send_button, self.tr("Send"), ""),
            (self.stop_button, self.tr("Stop"), self.tr("Stop the answer (Esc)")),
            (self.large_button, self.tr("Ask large model"), self.tr(
                "Answer this message with the large model, slower but stronger (Ctrl+Enter)")),
            (self.remember_button, self.tr("Remember"), self.tr(
                "Learn from this chat now (or start a message with “remember this:”)")),
            (self.settings_button, self.tr("Settings"), self.tr(
                "Models, memory, cloud, appearance (Ctrl+,)")),
            (self.models_button, self.tr("Models"), self.tr("Download, import and choose models")),
            (self.memories_button, self.tr("Memories"), self.tr(
                "See and edit what Engram remembers (Ctrl+M)")),
        ):  # fmt: skip
            button.setText(text)
            button.setToolTip(tip)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        """Stop a running answer (its text so far is stored), free the model, end the thread."""
        self._closed = True
        self._idle.stop()
        self._typing.stop()
        self._prefetch_cancel.cancel()
        self._cancel.cancel()
        self.settings_signals.close()
        self.welcome.stop()
        self._leave()  # queued before the shutdown: a temporary chat is deleted first
        for window in (self.memory_browser, self.model_manager):
            if window is not None:
                window.close()
        stop_thread(self._thread, self.shutdown_requested)
        if self._episodes is not None:
            self._episodes.conn.close()
        super().closeEvent(event)


def _file_name(title: str) -> str:
    """A file name made from a chat title (letters of any script kept)."""
    return re.sub(r"[^\w\- ]+", "", title).strip()[:60] or "chat"
