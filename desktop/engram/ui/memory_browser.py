"""The memory browser: see, search, edit, pin, delete, restore, export, import and forget.

Browsing reads pages on the UI thread (indexed, a page at a time); searching and every change
run on the :class:`~engram.ui.memory_worker.MemoryWorker` thread.
"""

from __future__ import annotations

import time

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QItemSelection, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.memories import KINDS, STATUSES, Memory, open_memories
from engram.core import log
from engram.core.errors import EngramError, Problem
from engram.core.settings import Settings, SettingsStore, store_of
from engram.ui import errors, labels, markdown, memory_history
from engram.ui.add_memory import AddMemoryDialog
from engram.ui.memory_history import MemoryHistory
from engram.ui.memory_model import MemoryTableModel
from engram.ui.memory_worker import MemoryWorker
from engram.ui.settings_signals import SettingsSignals
from engram.ui.threads import stop_thread, worker_thread

_log = log.get("ui.memory")
SEARCH_DEBOUNCE_MS = 150
SOURCE_LINES, SOURCE_CHARS = 6, 300  # how much of each source message the list shows


class MemoryBrowser(QMainWindow):
    """All memories, in the user's hands."""

    open_conversation = Signal(int)
    search_requested = Signal(int, str, object, object)
    add_requested = Signal(str, str)  # text, kind
    provenance_requested = Signal(int)
    save_requested = Signal(int, str, float)
    pin_requested = Signal(int, bool)
    delete_requested = Signal(int)
    restore_requested = Signal(int)
    undo_requested = Signal(int, int)  # memory id, write id
    export_requested = Signal(str, str)
    import_requested = Signal(str)
    forget_requested = Signal(bool)
    shutdown_requested = Signal()

    def __init__(self, settings: Settings | SettingsStore) -> None:
        """``settings``: the app's store (plain settings get one of their own). A store that
        cannot be opened (damaged, locked, newer; no embedding model) is shown in the window,
        not raised; :attr:`problem` says what it was."""
        super().__init__()
        self.setWindowTitle(self.tr("Engram — Memories"))  # before the store opens: it may fail
        self.resize(1100, 700)
        self.settings = store_of(settings)
        self.problem: Problem | None = None
        prefs = self.settings.current
        try:
            self.memories = open_memories(prefs)
        except EngramError as exc:
            _log.warning("memory browser unavailable: %s", type(exc).__name__)
            self._show_unavailable(exc.problem)
            return
        self.model = MemoryTableModel(self.memories)
        self._request = 0
        self._closed = False
        self._select_after: int | None = None  # the memory to show once an Undo is done
        self._build()
        self.settings_signals = SettingsSignals(self.settings, self)
        self.settings_signals.changed.connect(self._on_settings_changed)
        self.worker = MemoryWorker(prefs)
        self._thread = worker_thread(self, self.worker, "engram-memory-browser")
        self._connect_worker()
        self._thread.start()
        self.refresh()

    def _show_unavailable(self, problem: Problem) -> None:
        self.problem = problem
        label = QLabel(errors.text(problem))
        label.setObjectName("notice")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setCentralWidget(label)

    # -- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        splitter = QSplitter()
        splitter.addWidget(self._build_list())
        splitter.addWidget(self._build_detail())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.setCentralWidget(splitter)
        self._build_toolbar()
        self.retranslate()
        self._wire()
        self._show(None)

    def _build_list(self) -> QWidget:
        """The filters, the table of memories, its empty state and its count."""
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.kind = QComboBox()
        for code in (None, *KINDS):
            self.kind.addItem("", code)
        self.status = QComboBox()
        for state in (*STATUSES, None):
            self.status.addItem("", state)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.kind)
        filters.addWidget(self.status)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.count_label = QLabel()
        self.empty_state = QLabel()
        self.empty_state.setObjectName("empty_state")
        self.empty_state.setWordWrap(True)
        self.empty_state.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_state.hide()
        left = QVBoxLayout()
        left.addLayout(filters)
        left.addWidget(self.table, 1)
        left.addWidget(self.empty_state, 1)
        left.addWidget(self.count_label)
        left_widget = QWidget()
        left_widget.setLayout(left)
        return left_widget

    def _build_detail(self) -> QWidget:
        """The selected memory: its text, importance, buttons, history and sources."""
        self.editor = QPlainTextEdit()
        self.importance = QDoubleSpinBox()
        self.importance.setRange(0.0, 1.0)
        self.importance.setSingleStep(0.1)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.save_button = QPushButton()
        self.pin_button = QPushButton()
        self.pin_button.setCheckable(True)
        self.delete_button = QPushButton()
        self.restore_button = QPushButton()
        buttons = QHBoxLayout()
        for button in (self.save_button, self.pin_button, self.restore_button, self.delete_button):
            buttons.addWidget(button)
        importance_row = QHBoxLayout()
        self.importance_label = QLabel()
        importance_row.addWidget(self.importance_label)
        importance_row.addWidget(self.importance)
        importance_row.addStretch(1)
        self.sources = QListWidget()
        self.sources.setWordWrap(True)
        self.sources.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.history_label = QLabel()
        self.history = MemoryHistory(self.memories)
        right = QVBoxLayout()
        right.addWidget(self.details)
        right.addWidget(self.editor, 1)
        right.addLayout(importance_row)
        right.addLayout(buttons)
        right.addWidget(self.history_label)
        right.addWidget(self.history, 1)
        self.sources_label = QLabel()
        right.addWidget(self.sources_label)
        right.addWidget(self.sources, 1)
        self.detail_pane = QWidget()
        self.detail_pane.setLayout(right)
        return self.detail_pane

    def _build_toolbar(self) -> None:
        self.toolbar = QToolBar()
        self.toolbar.setMovable(False)
        self.addToolBar(self.toolbar)
        self.add_action = self.toolbar.addAction("", self.ask_add)
        self.toolbar.addSeparator()
        self.export_action = self.toolbar.addAction("", self.ask_export)
        self.import_action = self.toolbar.addAction("", self.ask_import)
        self.pause_action = self.toolbar.addAction("")
        self.pause_action.setCheckable(True)
        self.pause_action.setChecked(self.settings.current.memory_paused)
        self.forget_action = self.toolbar.addAction("", self.ask_forget)

    def _wire(self) -> None:
        """Filters, selection, buttons and shortcuts to what they do."""
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self.search.textChanged.connect(self._debounce.start)
        self.kind.currentIndexChanged.connect(self.refresh)
        self.status.currentIndexChanged.connect(self.refresh)
        self.table.selectionModel().selectionChanged.connect(self._on_selected)
        # A new list (filters, a search, a change) selects nothing and says no selectionChanged:
        # the pane shows nothing either, not the text of a memory no longer selected (or gone).
        self.model.modelReset.connect(lambda: self._show(self.current()))
        self.save_button.clicked.connect(self._save)
        self.pin_button.toggled.connect(self._pin)
        self.delete_button.clicked.connect(self._delete)
        self.restore_button.clicked.connect(self._restore)
        self.pause_action.toggled.connect(self._pause)
        self.sources.itemDoubleClicked.connect(self._open_source)
        self.history.undo_requested.connect(self._undo)
        QShortcut(QKeySequence.StandardKey.Find, self, self.search.setFocus)

    def retranslate(self) -> None:
        """Every text in the current language (at start and when the language changes)."""
        self.setWindowTitle(self.tr("Engram — Memories"))
        self.search.setPlaceholderText(self.tr("Search memories (words or meaning)…"))
        self.search.setAccessibleName(self.tr("Search memories"))
        self.kind.setAccessibleName(self.tr("Kind"))
        self.status.setAccessibleName(self.tr("Status"))
        for combo, anything in (
            (self.kind, self.tr("All kinds")),
            (self.status, self.tr("Any status")),
        ):
            for index in range(combo.count()):
                code = combo.itemData(index)
                combo.setItemText(index, labels.label(code) if code else anything)
        self.table.setAccessibleName(self.tr("Memories"))
        self.model.retranslate()
        self.empty_state.setText(
            self.tr(
                "No memories yet.\n\nEngram learns what matters from your chats in the background "
                "(with a large model of at least 1B parameters). To add one yourself, click Add "
                "memory, or start a message with “remember this:”. Memories appear here, where "
                "you can edit, pin, restore or delete them."
            )
        )
        self.editor.setAccessibleName(self.tr("Memory text"))
        self.importance.setAccessibleName(self.tr("Importance"))
        self.importance_label.setText(self.tr("Importance"))
        self.sources.setAccessibleName(self.tr("Where this memory came from"))
        self.history.setAccessibleName(self.tr("History of this memory"))
        self.history_label.setText(self.tr("History (newest first):"))
        self.sources_label.setText(self.tr("Learned from (double-click to open the chat):"))
        for button, text in (
            (self.save_button, self.tr("Save")),
            (self.pin_button, self.tr("Pin")),
            (self.delete_button, self.tr("Delete")),
            (self.restore_button, self.tr("Restore")),
        ):
            button.setText(text)
        self.toolbar.setWindowTitle(self.tr("Memory actions"))
        self.add_action.setText(self.tr("Add memory…"))
        self.add_action.setToolTip(self.tr("Add a memory in your own words"))
        self.export_action.setText(self.tr("Export…"))
        self.import_action.setText(self.tr("Import…"))
        self.pause_action.setText(self.tr("Pause memory"))
        self.pause_action.setToolTip(self.tr("While paused, Engram learns no new memories"))
        self.forget_action.setText(self.tr("Forget everything…"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        # A closed browser (its database closed) may still get the language change: not shown.
        if event.type() == QEvent.Type.LanguageChange and self.problem is None and not self._closed:
            self.retranslate()
            self._show(self.current())
            self._update_count()
        super().changeEvent(event)

    def _connect_worker(self) -> None:
        w = self.worker
        self.search_requested.connect(w.search)
        self.add_requested.connect(w.add)
        self.provenance_requested.connect(w.load_provenance)
        self.save_requested.connect(w.save)
        self.pin_requested.connect(w.pin)
        self.delete_requested.connect(w.delete)
        self.restore_requested.connect(w.restore)
        self.undo_requested.connect(w.undo)
        self.export_requested.connect(w.export)
        self.import_requested.connect(w.import_file)
        self.forget_requested.connect(w.forget_all)
        self.shutdown_requested.connect(w.shutdown)
        w.searched.connect(self._on_searched)
        w.provenance.connect(self._on_provenance)
        w.changed.connect(self._on_changed)
        w.added.connect(self._on_added)
        w.failed.connect(self._on_failed)

    # -- browsing and searching ----------------------------------------------------------------

    def _filters(self) -> tuple[list[str] | None, list[str] | None]:
        kind = self.kind.currentData()
        status = self.status.currentData()
        return ([kind] if kind else None), ([status] if status else None)

    def refresh(self) -> None:
        """Browse with the filters, or search when there is a query (results arrive later)."""
        kinds, statuses = self._filters()
        query = self.search.text().strip()
        self._request += 1
        if query:
            self.search_requested.emit(self._request, query, kinds, statuses)
            return
        self.model.browse(kinds, statuses)
        self._update_count()

    def _on_searched(self, request: int, memories: list[Memory]) -> None:
        # An older, slower search must not replace a newer one; none counts after closing.
        if request == self._request and not self._closed:
            self.model.show_results(memories)
            self._update_count()

    def _update_count(self) -> None:
        shown = self.model.rowCount()
        more = "+" if self.model.canFetchMore() else ""
        self.count_label.setText(self.tr("{count} memories").format(count=f"{shown}{more}"))
        empty = not shown and not self.search.text().strip() and not self.memories.counts()[0]
        self.empty_state.setVisible(empty)  # nothing at all yet: say what memories are
        self.table.setVisible(not empty)

    def select_memory(self, memory_id: int) -> None:
        """Show one memory (e.g. from a chip in the chat), whatever the filters were."""
        self.show_only([memory_id])

    def show_only(self, memory_ids: list[int]) -> None:
        """Show these memories (e.g. what learning just wrote), the first selected."""
        if self.problem is not None:
            return
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        memories = [m for m in map(self.memories.get, memory_ids) if m is not None]
        if not memories:
            return
        self.model.show_results(memories)
        self.table.selectRow(0)

    # -- the selected memory -------------------------------------------------------------------

    def current(self) -> Memory | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.memory(rows[0].row()) if rows else None

    def _on_selected(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        self._show(self.current())

    def _show(self, memory: Memory | None) -> None:
        self.detail_pane.setEnabled(memory is not None)
        self.sources.clear()
        self.history.show_memory(memory)
        if memory is None:
            self.editor.clear()
            self.details.setText(self.tr("Select a memory to see and change it."))
            return
        self.editor.setPlainText(memory.content)
        self.importance.setValue(memory.importance)
        self.pin_button.blockSignals(True)
        self.pin_button.setChecked(memory.pinned)
        self.pin_button.blockSignals(False)
        self.restore_button.setEnabled(memory.status != "active")
        day = time.strftime("%Y-%m-%d %H:%M", time.localtime(memory.created_at))
        self.details.setText(
            self.tr("{kind} · {status} · from {origin} · created {day} · used {uses}×").format(
                kind=labels.label(memory.kind),
                status=labels.label(memory.status),
                origin=labels.label(memory.origin),
                day=day,
                uses=memory.use_count,
            )
            + memory_history.last_written(self.memories, memory)
            + memory_history.lesson_record(self.memories, memory)
        )
        self.provenance_requested.emit(memory.id)

    def _undo(self, memory_id: int, write_id: int) -> None:
        self._select_after = memory_id
        self.undo_requested.emit(memory_id, write_id)

    def _on_provenance(self, memory_id: int, episodes: list) -> None:  # type: ignore[type-arg]
        current = self.current()
        if current is None or current.id != memory_id:
            return
        self.sources.clear()
        for episode in episodes:
            text = markdown.plain(episode.content)  # the words, not the Markdown around them
            preview = "\n".join(text.splitlines()[:SOURCE_LINES])[:SOURCE_CHARS]
            speaker = labels.label(episode.role)
            line = self.tr("{speaker}: {text}").format(speaker=speaker, text=preview)
            item = QListWidgetItem(line)
            item.setToolTip(QtGui.Qt.convertFromPlainText(text[:2000]))  # typed tags stay text
            item.setData(Qt.ItemDataRole.UserRole, episode.conversation_id)
            self.sources.addItem(item)
        if not episodes:
            self.sources.addItem(self.tr("(added by hand, or its chat was deleted)"))

    def _open_source(self, item: QListWidgetItem) -> None:
        conversation_id = item.data(Qt.ItemDataRole.UserRole)
        if conversation_id:
            self.open_conversation.emit(int(conversation_id))

    def _save(self) -> None:
        memory = self.current()
        if memory is not None:
            self.save_requested.emit(memory.id, self.editor.toPlainText(), self.importance.value())

    def _pin(self, pinned: bool) -> None:
        memory = self.current()
        if memory is not None:
            self.pin_requested.emit(memory.id, pinned)

    def _delete(self) -> None:
        memory = self.current()
        if memory is None:
            return
        answer = QMessageBox.question(
            self,
            self.tr("Delete memory"),
            self.tr("Delete this memory for good? Its text is erased from the database file."),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_requested.emit(memory.id)

    def _restore(self) -> None:
        memory = self.current()
        if memory is not None:
            self.restore_requested.emit(memory.id)

    def _pause(self, paused: bool) -> None:
        try:
            self.settings.update(memory_paused=paused)
        except EngramError as exc:
            self._show_pause(not paused)
            self._on_failed(exc.problem)
            return
        self.statusBar().showMessage(
            self.tr("Memory paused: nothing new will be learned.")
            if paused
            else self.tr("Memory resumed.")
        )

    # -- whole-store actions -------------------------------------------------------------------

    def ask_add(self) -> None:
        """Ask for a memory in the user's words and its kind, and add it."""
        dialog = AddMemoryDialog(self)
        self.add_dialog = dialog
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.add_memory(dialog.text(), dialog.kind())

    def add_memory(self, content: str, kind: str) -> None:
        """Add a memory (on the worker); it is shown and selected once it is stored."""
        if content.strip():
            self.add_requested.emit(content.strip(), kind)

    def ask_export(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self,
            self.tr("Export memories"),
            "engram-memories.jsonl",
            self.tr("Engram export (*.jsonl);;Readable list (*.md)"),
        )
        if path:
            self.export_requested.emit(path, "markdown" if chosen.endswith("(*.md)") else "jsonl")

    def ask_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import memories"), "", self.tr("Engram export (*.jsonl)")
        )
        if path:
            self.import_requested.emit(path)

    def forget_summary(self) -> tuple[int, int, int]:
        """How many memories, chats and messages "forget everything" would erase."""
        return self.memories.counts()

    def ask_forget(self) -> None:
        memories, chats, messages = self.forget_summary()
        box = QDialog(self)
        box.setWindowTitle(self.tr("Forget everything"))
        text = QLabel(
            self.tr(
                "This erases all {memories} memories Engram has learned, for good: their text is "
                "removed from the database file. It cannot be undone."
            ).format(memories=memories)
        )
        text.setWordWrap(True)
        also = QCheckBox(
            self.tr("Also erase all {chats} chats ({messages} messages)").format(
                chats=chats, messages=messages
            )
        )
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Cancel | QDialogButtonBox.StandardButton.Ok
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Forget everything"))
        buttons.accepted.connect(box.accept)
        buttons.rejected.connect(box.reject)
        layout = QVBoxLayout(box)
        layout.addWidget(text)
        layout.addWidget(also)
        layout.addWidget(buttons)
        self.forget_dialog = box
        self.forget_also_chats = also
        if box.exec() == QDialog.DialogCode.Accepted:
            self.forget_requested.emit(also.isChecked())

    # -- worker reports ------------------------------------------------------------------------

    def _on_changed(self, message: str) -> None:
        if self._closed:  # queued before the window closed; its connection is gone
            return
        self.statusBar().showMessage(message, 8000)
        selected = self.current()
        after, self._select_after = self._select_after, None
        self.refresh()
        if after is not None and selected is not None and after != selected.id:
            self.select_memory(after)  # an undone replacement: the memory it had replaced
        elif selected is not None and self.memories.get(selected.id) is not None:
            self._reselect(selected.id)

    def _on_added(self, memory_id: int, message: str) -> None:
        """The added memory at once in the list (no search, filters that show it), selected."""
        if self._closed:
            return
        self.statusBar().showMessage(message, 8000)
        memory = self.memories.get(memory_id)
        kind = memory.kind if memory is not None else None
        for combo, keep in ((self.kind, (kind, None)), (self.status, ("active", None))):
            if combo.currentData() not in keep:
                combo.blockSignals(True)
                combo.setCurrentIndex(0 if combo is self.kind else combo.findData("active"))
                combo.blockSignals(False)
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        self._debounce.stop()
        self.refresh()
        self._reselect(memory_id)
        if self.current() is None:  # beyond the first page (many pinned memories)
            self.select_memory(memory_id)
        self.table.scrollTo(self.table.currentIndex())

    def _reselect(self, memory_id: int) -> None:
        for row, memory in enumerate(self.model.rows):
            if memory.id == memory_id:
                self.table.selectRow(row)
                return

    def _on_failed(self, problem: Problem) -> None:
        self._select_after = None
        message, hint = errors.translate(problem)
        QMessageBox.warning(self, self.tr("Engram"), f"{message}\n\n{hint}".strip())

    def _on_settings_changed(self, _old: Settings, new: Settings) -> None:
        """Memory paused or resumed elsewhere (the settings dialog) shows here too."""
        self._show_pause(new.memory_paused)

    def _show_pause(self, paused: bool) -> None:
        self.pause_action.blockSignals(True)
        self.pause_action.setChecked(paused)
        self.pause_action.blockSignals(False)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        if self.problem is None and not self._closed:
            self._closed = True
            self.settings_signals.close()
            stop_thread(self._thread, self.shutdown_requested)
            self.memories.close()
        super().closeEvent(event)
