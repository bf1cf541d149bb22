"""The model manager: the catalogue with what fits, downloads, deletions, imports, model choice.

Reading the catalogue and the disk happens on the UI thread (small files and stats); downloads
run on the download queue and imports/deletions on the
:class:`~engram.ui.download_worker.DownloadWorker` thread, reporting back by queued signals.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engram.assistant import model_admin as models
from engram.assistant.model_admin import (
    Catalogue,
    GgufFile,
    JobState,
    ModelEntry,
    Options,
    Pair,
    Progress,
)
from engram.core.errors import EngramError, Problem
from engram.core.settings import ROLES, Settings, SettingsStore, store_of
from engram.ui import errors, i18n, labels
from engram.ui.download_worker import DownloadWorker
from engram.ui.hub_search_page import HubSearch
from engram.ui.labels import human_bytes
from engram.ui.memory_effect import MemoryEffectDialog
from engram.ui.model_rows import (
    COLUMNS,
    FIT_COLUMN,
    FIT_NAMES,
    LANGUAGES_COLUMN,
    LANGUAGES_SHOWN,
    LICENCE_COLUMN,
    NARROW_COLUMNS,
    Row,
    bytes_on_disk,
)
from engram.ui.settings_signals import SettingsSignals
from engram.ui.threads import stop_thread, worker_thread

# What removing a model in use stops, by the role it plays (the removal box says it first).
IN_USE = {
    "small": QT_TRANSLATE_NOOP(
        "ModelManager",
        "Engram answers with it now: after this it cannot answer until you choose another model "
        "with Use as small.",
    ),
    "large": QT_TRANSLATE_NOOP(
        "ModelManager",
        "Engram learns with it now: learning stops until you choose another model with Use as "
        "large.",
    ),
    "embedding": QT_TRANSLATE_NOOP(
        "ModelManager",
        "Engram finds your memories with it now: choose another embedding model in Settings "
        "before you chat again.",
    ),
}


class ModelManager(QMainWindow):
    """The catalogue with the machine's fit; downloads, imports, deletions and model choice."""

    changed = Signal()  # the installed models or the chosen ones changed
    import_requested = Signal(str)
    delete_requested = Signal(object)
    add_requested = Signal(object)  # a GgufFile found on the hub
    shutdown_requested = Signal()
    speed_measured = Signal()  # a decode speed was measured here (emitted by the timing thread)

    def __init__(self, settings: Settings | SettingsStore, options: Options | None = None) -> None:
        """``settings``: the app's store (plain settings get one of their own); the models
        chosen here are saved there and take effect at once."""
        super().__init__()
        self.resize(1200, 640)
        self.setAcceptDrops(True)
        self.settings = store_of(settings)
        self.settings_signals = SettingsSignals(self.settings, self)
        self.settings_signals.changed.connect(self._on_settings_changed)
        self._catalogue = Catalogue(())
        self._pair: Pair | None = None
        self._pending_pair: Pair | None = None
        self.rows: dict[str, Row] = {}
        self._hub_model: str | None = None  # the model chosen on the search page, once added
        self._build()
        self.worker = DownloadWorker(options or Options.from_settings(self.settings.current))
        self._thread = worker_thread(self, self.worker, "engram-model-manager")
        self._connect_worker()
        self._thread.start()
        # A measured speed changes the machine's state: the recommendation is worked out again
        # (by the same function as the welcome panel's and the terminal's).
        self.speed_measured.connect(self._show_machine, Qt.ConnectionType.QueuedConnection)
        self._stop_hearing_speed = models.on_speed_measured(self.speed_measured.emit)
        self.destroyed.connect(self._stop_hearing_speed)
        self.retranslate()

    # -- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        self.machine_label = QLabel()
        self.machine_label.setWordWrap(True)
        self.pair_label = QLabel()
        self.pair_label.setWordWrap(True)
        self.pair_button = QPushButton()
        self.pair_button.clicked.connect(self._download_recommended)
        pair_row = QHBoxLayout()
        pair_row.addWidget(self.pair_label, 1)
        pair_row.addWidget(self.pair_button)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.setStyleSheet("color: #b3261e;")
        self.notice.hide()
        self.status_label = QLabel()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in NARROW_COLUMNS.items():
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(column, width)
        self.import_button = QPushButton()
        self.import_button.clicked.connect(self._choose_import)
        self.measure_button = QPushButton()
        self.measure_button.clicked.connect(self._show_measure)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.measure_button)
        self.find_button = QPushButton()
        self.find_button.clicked.connect(self._toggle_search)
        bottom.addWidget(self.find_button)
        bottom.addWidget(self.import_button)
        layout = QVBoxLayout()
        layout.addWidget(self.machine_label)
        layout.addLayout(pair_row)
        layout.addWidget(self.notice)
        # The search takes the catalogue's place (a tab bar would cost the table a row).
        self.hub = HubSearch()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(self.hub)
        layout.addWidget(self.pages, 1)
        layout.addLayout(bottom)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)

    def retranslate(self) -> None:
        """Every text in the current language (at start and when the language changes)."""
        self.setWindowTitle(self.tr("Engram — Models"))
        self.table.setHorizontalHeaderLabels(
            [QCoreApplication.translate("ModelManager", str(c)) for c in COLUMNS]
        )
        self.table.setAccessibleName(self.tr("Model catalogue"))
        self._show_find_button()
        self.hub.retranslate()
        self.import_button.setText(self.tr("Import GGUF…"))
        self.import_button.setToolTip(self.tr("Or drop a .gguf file onto this window"))
        self.measure_button.setText(self.tr("What does memory add?…"))
        self.measure_button.setToolTip(
            self.tr("Measure what Engram's memory adds with your own models")
        )
        self.refresh()

    def show_search(self, searching: bool = True) -> None:
        """Show the hub search in the catalogue's place (or the catalogue again)."""
        self.pages.setCurrentWidget(self.hub if searching else self.table)
        self._show_find_button()
        if searching:
            self.hub.field.setFocus()

    def _toggle_search(self) -> None:
        self.show_search(self.pages.currentWidget() is not self.hub)

    def _show_find_button(self) -> None:
        if self.pages.currentWidget() is self.hub:
            self.find_button.setText(self.tr("Back to the catalogue"))
            self.find_button.setToolTip("")
        else:
            self.find_button.setText(self.tr("Find on the hub…"))
            self.find_button.setToolTip(
                self.tr("Search Hugging Face for GGUF models beyond the catalogue")
            )

    def measure_command(self) -> str:
        """The command that measures what memory adds with the models Settings chose, on the
        shipped task set of the user's language."""
        prefs = self.settings.current
        tasks = "tasks-zh" if i18n.resolve(prefs.language) == "zh_CN" else "tasks-en"
        return (
            f"engram eval {tasks} --small {prefs.small_model} --large {prefs.large_model}"
            " --out engram-eval"
        )

    def _show_measure(self) -> None:
        """Open "What does memory add?", the short check run here (the one open, if any)."""
        dialog = self.findChild(MemoryEffectDialog)
        if dialog is None:
            dialog = MemoryEffectDialog(self.settings.current, self.measure_command(), self)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.LanguageChange:  # Settings → Language applies live
            self.retranslate()
        super().changeEvent(event)

    def _connect_worker(self) -> None:
        queued = Qt.ConnectionType.QueuedConnection
        self.worker.progress.connect(self._on_progress, queued)
        self.worker.finished.connect(self._on_finished, queued)
        self.worker.imported.connect(self._on_imported, queued)
        self.worker.deleted.connect(self._on_deleted, queued)
        self.worker.failed.connect(self._on_failed, queued)
        self.import_requested.connect(self.worker.import_gguf, queued)
        self.delete_requested.connect(self.worker.delete, queued)
        self.shutdown_requested.connect(self.worker.shutdown, queued)
        self.hub.search_requested.connect(self.worker.search_hub, queued)
        self.hub.files_requested.connect(self.worker.list_hub_files, queued)
        self.add_requested.connect(self.worker.add_hub_file, queued)
        self.worker.found.connect(self.hub.show_hits, queued)
        self.worker.listed.connect(self.hub.show_files, queued)
        self.worker.search_failed.connect(self.hub.show_failure, queued)
        self.worker.added.connect(self._on_hub_added, queued)
        self.hub.chosen.connect(self.choose_hub_file)
        self.hub.use_requested.connect(self._use_hub_model)
        self.hub.cancel_requested.connect(lambda: self.worker.cancel(str(self._hub_model)))

    # -- reading the catalogue ---------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the catalogue and the machine's state and redraw every row."""
        try:
            self._catalogue = models.catalogue()
        except EngramError as exc:
            self._on_failed(exc.problem)
            return
        machine = self._show_machine()
        busy = self.worker.active()
        self.table.setRowCount(len(self._catalogue.models))
        self.rows = {}
        for row, entry in enumerate(self._catalogue.models):
            self.rows[entry.id] = Row(self, entry, row)
            self._fill(row, entry, machine, entry.id in busy)

    def _show_machine(self) -> models.Machine:
        """This machine and the pair recommended for it (worked out again when a speed is
        measured here)."""
        machine = models.probe(gpu=False)
        self.machine_label.setText(
            self.tr("This machine: {machine}. Decode speed: {speed}.").format(
                machine=errors.text(machine.describe()), speed=errors.text(machine.describe_speed())
            )
        )
        self._show_pair(models.offer(self._catalogue, machine))
        self._show_checked(machine)
        return machine

    def _show_checked(self, machine: models.Machine) -> None:
        """The quality check's choice among the installed models, when the recommended pair
        does not already answer with it (its reason then is the check's)."""
        found = machine.verdict
        if found is None or self._pair is None or found.chosen.model_id == self._pair.small:
            return
        names = {entry.id: entry.name for entry in self._catalogue.models}
        reason = found.reason(names, i18n.resolve(self.settings.current.language))
        self.pair_label.setText(
            self.pair_label.text()
            + " "
            + self.tr("Of the installed models: {reason}").format(reason=reason)
        )

    def _show_pair(self, offer: models.Offer | None) -> None:
        pair = offer.pair if offer is not None else None
        self._pair = pair
        self.pair_button.setVisible(pair is not None)
        self.pair_button.setEnabled(True)
        if offer is None or pair is None:
            self.pair_label.setText(self.tr("The catalogue recommends no models."))
            return
        if models.pair_in_use(pair, self.settings.current):  # nothing to switch to
            self.pair_button.setText(self.tr("Use this pair"))
            self.pair_button.setEnabled(False)
            self.pair_button.setToolTip(self.tr("This is the pair in use."))
        elif offer.missing:
            self.pair_button.setText(
                self.tr("Download and use this pair ({cost})").format(cost=labels.offer_cost(offer))
            )
            self.pair_button.setToolTip(
                self.tr("{cost} at {speed}/s; the chat stays usable meanwhile.").format(
                    cost=labels.offer_cost(offer), speed=human_bytes(models.ASSUMED_BYTES_PER_S)
                )
            )
        else:
            self.pair_button.setText(self.tr("Use this pair"))
            self.pair_button.setToolTip(self.tr("Engram switches to these models at once."))
        names = {role: self._catalogue.get(getattr(pair, role)).name for role in ROLES}
        self.pair_label.setText(
            self.tr(
                "Recommended for this machine: {small} answers, {large} learns, "
                "{embedding} finds memories. {reason}"
            ).format(reason=pair.reason_in(i18n.resolve(self.settings.current.language)), **names)
        )

    def _fill(self, row: int, entry: ModelEntry, machine: models.Machine, busy: bool) -> None:
        is_installed = models.installed(entry)
        on_disk = bytes_on_disk(entry)
        fit = models.fit(entry, machine, is_installed)
        prefs = self.settings.current
        in_use = [role for role in ROLES if prefs.model_for(role) == entry.id]
        name = entry.name + (f"  [{', '.join(map(labels.label, in_use))}]" if in_use else "")
        exact = is_installed or all(f.size is not None for f in entry.files)
        # what it takes on this disk, else what a download would fetch
        size = ("" if exact else "~") + human_bytes(
            on_disk if is_installed else entry.download_bytes()
        )
        if is_installed:
            state = self.tr("installed")
        elif on_disk:
            state = self.tr("partly downloaded, {size}").format(size=human_bytes(on_disk))
        else:
            state = self.tr("not installed")
        languages = ", ".join(entry.languages[:LANGUAGES_SHOWN])
        if len(entry.languages) > LANGUAGES_SHOWN:
            languages += f" +{len(entry.languages) - LANGUAGES_SHOWN}"
        cells = (
            name,
            ", ".join(map(labels.label, entry.roles)),
            size,
            languages,
            entry.license,
            QCoreApplication.translate("ModelManager", str(FIT_NAMES[fit.level])),
            state,
        )
        tips = {
            0: f"{name}\n{entry.notes or entry.id}",
            LANGUAGES_COLUMN: ", ".join(entry.languages),
            LICENCE_COLUMN: cells[LICENCE_COLUMN],
            FIT_COLUMN: errors.text(fit.reason),
        }
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(tips.get(column, ""))
            self.table.setItem(row, column, item)
        self.rows[entry.id].show_state(is_installed, busy, on_disk)

    # -- actions -------------------------------------------------------------------------------

    def download(self, model_id: str) -> None:
        """Start (or resume) downloading one catalogue entry."""
        entry = self._catalogue.get(model_id)
        if self.worker.download(entry):
            row = self.rows[model_id]
            row.progress.setValue(0)
            row.progress.setFormat(self.tr("waiting…"))
            row.show_state(False, True, bytes_on_disk(entry))

    def _download_recommended(self) -> None:
        if self._pair is not None:
            self.download_pair(self._pair)

    def download_pair(self, pair: Pair) -> None:
        """Fetch whatever the pair still lacks, then make it the models Engram uses."""
        self._pending_pair = pair
        for role in ROLES:
            model_id = getattr(pair, role)
            if not models.installed(self._catalogue.get(model_id)):
                self.download(model_id)
        self._apply_pair_if_ready()

    def _apply_pair_if_ready(self) -> None:
        pair = self._pending_pair
        if pair is None:
            return
        ids = {getattr(pair, role) for role in ROLES}
        if ids & self.worker.active():
            return
        self._pending_pair = None
        if all(models.installed(self._catalogue.get(model_id)) for model_id in ids):
            self._save({role: getattr(pair, role) for role in ROLES})

    def choose_hub_file(self, choice: GgufFile) -> None:
        """Add a file found on the hub to the models (on the worker thread), then download it."""
        self.hub.show_done(None)
        self.hub.status.setText(self.tr("Adding {file}…").format(file=choice.name))
        self.add_requested.emit(choice)

    def _on_hub_added(self, entry: ModelEntry) -> None:
        self._hub_model = entry.id
        self.refresh()
        self.changed.emit()
        if models.installed(entry):
            self._show_hub_done(entry)
            return
        self.hub.status.setText(
            self.tr("Downloading {file} as {name}; it is in the catalogue too.").format(
                file=entry.files[0].remote_name(), name=entry.name
            )
        )
        self.hub.show_progress(0.0, self.tr("waiting…"))
        self.download(entry.id)

    def _show_hub_done(self, entry: ModelEntry) -> None:
        self.hub.status.setText(self.tr("Downloaded {name}.").format(name=entry.name))
        self.hub.show_done(entry.name, entry.roles)

    def _use_hub_model(self, role: str) -> None:
        if self._hub_model is not None:
            self.use(self._hub_model, role)

    def use(self, model_id: str, role: str) -> None:
        """Make an installed model the one Engram uses for ``role`` (small or large)."""
        self._save({role: model_id})

    def _save(self, by_role: dict[str, str]) -> None:
        try:
            self.settings.choose_models(**by_role)
        except EngramError as exc:
            self._on_failed(exc.problem)
            return
        self.status_label.setText(self.tr("Saved; Engram switches to the new models now."))
        self.changed.emit()  # the rows follow through the settings signal

    def delete(self, model_id: str) -> None:
        """Remove a model's files after the user confirms; the box says first when Engram uses
        the model (answers, learns or finds memories with it) and what stops."""
        entry = self._catalogue.get(model_id)
        roles_in_use = models.uses(entry, self.settings.current)
        text = self.tr("Remove {name} ({size}) from this computer? Its files are deleted.").format(
            name=entry.name, size=human_bytes(bytes_on_disk(entry))
        )
        said = [QCoreApplication.translate("ModelManager", str(IN_USE[r])) for r in roles_in_use]
        if entry.starter:
            said.append(self.tr("It is an offline starter model: Download brings it back."))
        box = QMessageBox(
            QMessageBox.Icon.Warning if roles_in_use else QMessageBox.Icon.Question,
            self.tr("Remove model"),
            "\n\n".join([text, *said]),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # Enter keeps the model
        box.exec()
        if box.clickedButton() is remove:
            self.delete_requested.emit(entry)

    def import_files(self, paths: list[str]) -> None:
        """Import GGUF files on the worker thread."""
        for path in paths:
            self.status_label.setText(self.tr("Importing {path}…").format(path=path))
            self.import_requested.emit(path)

    def _choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import a GGUF model"), "", self.tr("GGUF models (*.gguf)")
        )
        if path:
            self.import_files([path])

    def show_notice(self, message: str, hint: str = "") -> None:
        """Show a known problem (message and what to do) above the table."""
        self.notice.setText(f"{message}\n{hint}" if hint else message)
        self.notice.show()

    # -- worker and settings reports ----------------------------------------------------------

    def _on_failed(self, problem: Problem) -> None:
        self.show_notice(*errors.translate(problem))

    def _on_settings_changed(self, old: Settings, new: Settings) -> None:
        """Models chosen elsewhere (the settings dialog) show here too."""
        if any(old.model_for(role) != new.model_for(role) for role in ROLES):
            self.refresh()

    def _on_progress(self, p: Progress) -> None:
        row = self.rows.get(p.model_id)
        if row is None:
            return
        row.progress.setValue(int(p.fraction * 1000))
        eta = self.tr("{seconds:.0f} s left").format(seconds=p.eta) if p.eta is not None else ""
        text = (
            f"{p.file or row.entry.name}: {human_bytes(p.done)} / {human_bytes(p.total)}, "
            f"{human_bytes(p.speed)}/s {eta}".strip()
        )
        row.progress.setFormat(text)
        if p.model_id == self._hub_model:
            self.hub.show_progress(p.fraction, text)

    def _on_finished(self, model_id: str, state: str, problem: Problem | None) -> None:
        self.refresh()
        if model_id == self._hub_model:
            self._hub_finished(state, problem)
        if state == JobState.DONE:
            self.status_label.setText(self.tr("Downloaded {id}.").format(id=model_id))
            self.changed.emit()
        elif state == JobState.CANCELLED:
            self.status_label.setText(
                self.tr("Cancelled {id}; Resume continues where it stopped.").format(id=model_id)
            )
            self._pending_pair = None
        else:
            if problem is not None:
                self._on_failed(problem)
            self._pending_pair = None
        self._apply_pair_if_ready()

    def _hub_finished(self, state: str, problem: Problem | None) -> None:
        """The search page says how the chosen file's download ended."""
        entry = self._catalogue.get(str(self._hub_model))
        if state == JobState.DONE:
            self._show_hub_done(entry)
            return
        self.hub.show_done(None)
        if state == JobState.CANCELLED:
            self.hub.status.setText(
                self.tr("Cancelled {name}; Download continues where it stopped.").format(
                    name=entry.name
                )
            )
        elif problem is not None:
            message, hint = errors.translate(problem)
            self.hub.status.setText(f"{message}\n{hint}" if hint else message)

    def _on_imported(self, model_id: str) -> None:
        self.status_label.setText(
            self.tr("Imported {id}; choose it with Use as small or Use as large.").format(
                id=model_id
            )
        )
        self.refresh()
        self.changed.emit()

    def _on_deleted(self, model_id: str) -> None:
        self.status_label.setText(self.tr("Removed {id}.").format(id=model_id))
        self.refresh()
        self.changed.emit()

    # -- drag and drop, closing ------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if _gguf_paths(event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt API)
        paths = _gguf_paths(event.mimeData().urls())
        if paths:
            event.acceptProposedAction()
            self.import_files(paths)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        self._stop_hearing_speed()
        self.settings_signals.close()
        stop_thread(self._thread, self.shutdown_requested)
        super().closeEvent(event)


def _gguf_paths(urls: list[QUrl]) -> list[str]:
    """The local .gguf files among dropped URLs."""
    local = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    return [str(p) for p in local if p.suffix.lower() == ".gguf"]
