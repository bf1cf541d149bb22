"""The Settings dialog: models, answers (custom instructions, sampling), memory, the opt-in
cloud distiller, appearance and data."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlsplit

from PySide6.QtCore import QSize, QThread, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engram.assistant import model_admin as models
from engram.assistant.model_admin import (
    CLOUD_KEY,
    Catalogue,
    CloudClient,
    KeyStore,
    backend_problem,
    destination,
)
from engram.core import log, paths
from engram.core.errors import EngramError, InputError, KeyringUnavailableError, Problem, tr
from engram.core.settings import CloudSettings, Settings, SettingsStore, store_of
from engram.ui import errors, i18n, theme
from engram.ui.threads import Worker, start_worker, stop_thread, worker_slot
from engram.ui.tools_settings import ToolsPage

_log = log.get("ui.settings")
_WARN_STYLE = "color: #c62828; font-weight: bold;"
_AMBER_STYLE = "color: #b26a00;"
ANSWERS_TAB, CLOUD_TAB, APPEARANCE_TAB = 1, 3, 4
OPENING_SIZE = QSize(760, 620)
FRAME = 8  # the tab widget's frame and the page's margin, each side
MORE_MODELS = "\x00more"  # the combo item that opens the model manager instead of choosing


class ServerLister(Worker):
    """Asks an OpenAI-compatible server which models it offers (off the UI thread)."""

    listed = Signal(str, object)  # base URL, [model ids]

    @worker_slot(str)
    def list_models(self, base_url: str) -> None:
        self.listed.emit(base_url, CloudClient(base_url, "", timeout=5.0).list_models())


class SettingsDialog(QDialog):
    """Edits the settings as they were when it opened; OK validates everything, stores the key,
    then applies the fields the user changed to the store in one change (changes made
    meanwhile elsewhere, e.g. memory paused in the memory browser, are kept)."""

    saved = Signal(object)  # the store's new Settings, after they were saved
    models_requested = Signal()  # "Download more…": open the model manager
    list_requested = Signal(str)  # ask a server for its models
    lister_shutdown = Signal()

    def __init__(
        self,
        settings: Settings | SettingsStore,
        parent: QWidget | None = None,
        *,
        keys: KeyStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.settings = store_of(settings)
        self._original = settings = self.settings.current
        self._keys = keys or KeyStore()
        self.tabs = QTabWidget()
        self.tabs.addTab(self._models_tab(settings), self.tr("Models"))
        self.tabs.addTab(self._answers_tab(settings), self.tr("Answers"))
        self.tabs.addTab(self._memory_tab(settings), self.tr("Memory"))
        self.tabs.addTab(self._cloud_tab(settings.cloud), self.tr("Server or cloud"))
        self.tabs.addTab(self._appearance_tab(settings), self.tr("Appearance && data"))
        self.tools_page = ToolsPage(self.settings, self)  # applies its changes at once
        self.tabs.addTab(self.tools_page, self.tr("Tools"))
        self.problem = QLabel()
        self.problem.setObjectName("notice")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(_WARN_STYLE)
        self.problem.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(self._opening_size(layout))

    def _opening_size(self, layout: QVBoxLayout) -> QSize:
        """Every tab's title in view (no scroll arrows), the Tools page without sideways
        scrolling, and OPENING_SIZE otherwise, as far as the screen allows. The width is
        also the dialog's minimum, so the pages never scroll sideways."""
        bar = self.tabs.tabBar()
        tabs = sum(bar.tabSizeHint(i).width() for i in range(bar.count()))
        page = self.tools_page.widget()
        tools = page.minimumSizeHint().width() if page is not None else 0
        tools += self.tools_page.verticalScrollBar().sizeHint().width()
        margins = layout.contentsMargins()
        chrome = margins.left() + margins.right() + 2 * FRAME
        width = max(OPENING_SIZE.width(), tabs + chrome, tools + chrome)
        screen = self.screen().availableGeometry().size()
        self.setMinimumWidth(min(width, screen.width()))
        return OPENING_SIZE.expandedTo(QSize(width, 0)).boundedTo(screen)

    # -- tabs ---------------------------------------------------------------------------------

    def _models_tab(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        try:
            known = models.catalogue()
        except EngramError as exc:  # a broken user catalogue: still let the user edit the rest
            _log.warning("catalogue unavailable in settings: %s", exc.message)
            known = Catalogue(models=())
            form.addRow(self._amber(errors.text(exc)))
        self.small_model = self._model_combo(known, "small", s.small_model)
        self.large_model = self._model_combo(known, "large", s.large_model)
        self.embedding_model = self._model_combo(known, "embedding", s.embedding_model)
        self.threads = _spin(0, 256, s.threads)
        self.threads.setSpecialValueText(self.tr("Automatic"))
        self.gpu_layers = _spin(0, 999, s.gpu_layers)
        self.gpu_layers.setSpecialValueText(self.tr("None (CPU only)"))
        self.gpu_note = self._amber(
            self.tr("This build of llama.cpp can offload layers to the GPU.")
            if _gpu_offload()
            else self.tr("This build of llama.cpp runs on the CPU only; GPU layers have no effect.")
        )
        self.context_size = _spin(512, 131072, s.context_size, step=512)
        self.memory_budget = _spin(0, 8192, s.memory_budget_tokens, step=64)
        self.small_server_url = QLineEdit(s.small_server_url)
        self.small_server_url.setPlaceholderText(
            self.tr("e.g. http://192.168.1.20:8080/v1 (empty: the local model above)")
        )
        self.small_server_model = QComboBox()
        self.small_server_model.setEditable(True)
        self.small_server_model.setCurrentText(s.small_server_model)
        self.list_button = QPushButton(self.tr("List its models"))
        self.list_button.clicked.connect(self._list_server_models)
        server_row = QHBoxLayout()
        server_row.addWidget(self.small_server_model, 1)
        server_row.addWidget(self.list_button)
        self.small_server_where = self._amber("")
        self.small_server_url.textChanged.connect(self._show_small_server_destination)
        self._show_small_server_destination()
        self._lister: tuple[ServerLister, QThread] | None = None
        form.addRow(self.tr("Small model (answers)"), self.small_model)
        form.addRow(self.tr("…or on your server"), self.small_server_url)
        form.addRow(self.tr("Model on your server"), server_row)
        form.addRow("", self.small_server_where)
        form.addRow(self.tr("Large model (learning)"), self.large_model)
        form.addRow(self.tr("Embedding model"), self.embedding_model)
        form.addRow(self.tr("CPU threads"), self.threads)
        form.addRow(self.tr("GPU layers"), self.gpu_layers)
        form.addRow("", self.gpu_note)
        form.addRow(self.tr("Context size (tokens)"), self.context_size)
        form.addRow(self.tr("Memory budget (tokens)"), self.memory_budget)
        return page

    def _model_combo(self, known: Catalogue, role: str, current: str) -> QComboBox:
        """Only installed models can be chosen; the current one stays shown (disabled) when it
        is not installed, and the last item opens the model manager."""
        combo = QComboBox()
        for entry in known.for_role(role):
            if models.installed(entry):
                combo.addItem(entry.name, entry.id)
        if combo.findData(current) < 0:  # keep the setting visible, but it cannot be picked again
            listed = next((e for e in known.for_role(role) if e.id == current), None)
            if listed is not None:
                text = self.tr("{name} (not installed)").format(name=listed.name)
            else:
                text = self.tr("{id} (not in the catalogue)").format(id=current)
            combo.addItem(text, current)
            model = combo.model()
            if isinstance(model, QStandardItemModel):
                model.item(combo.count() - 1).setEnabled(False)
        combo.insertSeparator(combo.count())
        combo.addItem(self.tr("Download more…"), MORE_MODELS)
        combo.setCurrentIndex(combo.findData(current))
        chosen = [combo.currentIndex()]

        def picked(index: int) -> None:
            if combo.itemData(index) == MORE_MODELS:
                combo.setCurrentIndex(chosen[0])
                self.models_requested.emit()
            else:
                chosen[0] = index

        combo.activated.connect(picked)
        return combo

    def _show_cloud_destination(self) -> None:
        """The privacy line names where learning's text goes: your server, or a cloud."""
        url = self.base_url.text().strip()
        if _is_http_url(url):
            where = errors.translate(destination(url))[0]
            self.cloud_warning.setText(
                self.tr("⚠ While on, learning sends text to {where}.").format(where=where)
            )
        else:
            self.cloud_warning.setText(
                self.tr(
                    "⚠ Conversation text may leave this machine while the cloud distiller is on."
                )
            )

    def _show_small_server_destination(self) -> None:
        url = self.small_server_url.text().strip()
        where = errors.translate(destination(url))[0] if _is_http_url(url) else ""
        self.small_server_where.setText(
            self.tr("Answers come from {where}.").format(where=where) if where else ""
        )
        self.small_server_where.setVisible(bool(where))

    def _list_server_models(self) -> None:
        """Fill the model list from the server (asked on a worker thread)."""
        url = self.small_server_url.text().strip()
        if not _is_http_url(url):
            self._show_problem(
                self.tr("Enter your server's address first, e.g. http://127.0.0.1:8080/v1.")
            )
            return
        if self._lister is None:
            lister = ServerLister()
            self._lister = start_worker(self, lister, "engram-server-models", (
                (self.list_requested, lister.list_models), (self.lister_shutdown, lister.shutdown),
                (lister.listed, self._on_server_models), (lister.failed, self._on_list_failed),
            ))  # fmt: skip
        self.list_button.setEnabled(False)
        self.list_requested.emit(url)

    def _on_server_models(self, url: str, models: list[str]) -> None:
        self.list_button.setEnabled(True)
        current = self.small_server_model.currentText()
        self.small_server_model.clear()
        self.small_server_model.addItems(models)
        self.small_server_model.setCurrentText(
            current if current in models else models[0] if models else ""
        )
        self.problem.hide()

    def _on_list_failed(self, problem: Problem) -> None:
        self.list_button.setEnabled(True)
        self._show_problem(errors.text(problem))

    def done(self, result: int) -> None:
        """Closing (OK or Cancel) also ends the server-listing thread."""
        if self._lister is not None:
            stop_thread(self._lister[1], self.lister_shutdown)
            self._lister = None
        self.tools_page.stop()
        super().done(result)

    def _answers_tab(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.about_you = QPlainTextEdit(s.about_you)
        self.about_you.setPlaceholderText(
            self.tr("e.g. I am a nurse in Hangzhou; I am learning the violin.")
        )
        self.answer_style = QPlainTextEdit(s.answer_style)
        self.answer_style.setPlaceholderText(
            self.tr("e.g. Answer briefly, in plain words; use metric units.")
        )
        for edit in (self.about_you, self.answer_style):
            edit.setTabChangesFocus(True)
            edit.setMaximumHeight(90)
        self.temperature = _decimal(0.0, 2.0, s.temperature, 0.05)
        self.top_p = _decimal(0.05, 1.0, s.top_p, 0.05)
        self.answer_tokens = _spin(16, 8192, s.max_answer_tokens, step=64)
        form.addRow(self.tr("About you"), self.about_you)
        form.addRow(self.tr("How to answer"), self.answer_style)
        form.addRow(
            "",
            self._amber(
                self.tr(
                    "Every chat gets these, as your preferences; they never change Engram's rules."
                )
            ),
        )
        form.addRow(self.tr("Temperature"), self.temperature)
        form.addRow(self.tr("Top-p"), self.top_p)
        form.addRow(self.tr("Longest answer (tokens)"), self.answer_tokens)
        return page

    def _memory_tab(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.consolidate_turns = _spin(1, 1000, s.consolidate_every_turns)
        self.idle_seconds = _spin(1, 86400, s.consolidate_idle_seconds)
        self.unload_seconds = _spin(0, 86400, s.large_model_idle_unload_seconds)
        self.paused = QCheckBox(self.tr("Pause memory (learn nothing new)"))
        self.paused.setChecked(s.memory_paused)
        form.addRow(self.tr("Learn every N turns"), self.consolidate_turns)
        form.addRow(self.tr("Idle seconds before learning"), self.idle_seconds)
        form.addRow(self.tr("Unload large model after idle (seconds)"), self.unload_seconds)
        form.addRow(self.paused)
        return page

    def _cloud_tab(self, c: CloudSettings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.cloud_enabled = QCheckBox(
            self.tr("Learn with a model on your server or in the cloud (the large role)")
        )
        self.cloud_enabled.setChecked(c.enabled)
        self.cloud_warning = QLabel(
            self.tr("⚠ Conversation text may leave this machine while the cloud distiller is on.")
        )
        self.cloud_warning.setWordWrap(True)
        self.cloud_warning.setStyleSheet(_WARN_STYLE)
        self.cloud_warning.setVisible(c.enabled)
        self.cloud_enabled.toggled.connect(self.cloud_warning.setVisible)
        self.base_url = QLineEdit(c.base_url)
        self.base_url.setPlaceholderText("https://api.example.com/v1")
        self.base_url.textChanged.connect(self._show_cloud_destination)
        self._show_cloud_destination()
        self.cloud_model = QLineEdit(c.model)
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText(self.tr("Leave empty to keep the current key"))
        self.redact = QCheckBox(self.tr("Redact personal data before sending"))
        self.redact.setChecked(c.redact_personal_data)
        form.addRow(self.cloud_enabled)
        form.addRow(self.cloud_warning)
        form.addRow(self.tr("Base URL"), self.base_url)
        form.addRow(self.tr("Model name"), self.cloud_model)
        form.addRow(self.tr("API key"), self.api_key)
        self.keyring_note = self._amber("")
        self.session_only = QCheckBox(self.tr("Keep the key for this session only"))
        form.addRow(self.keyring_note)
        form.addRow(self.session_only)
        self.keyring_note.hide()
        self.session_only.hide()
        self.keyring_problem = backend_problem()
        if self.keyring_problem:
            self._show_keyring_problem(self.keyring_problem)
        form.addRow(self.redact)
        return page

    def _appearance_tab(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.language = QComboBox()
        self.language.addItem(self.tr("System"), "system")
        for code, name in i18n.LANGUAGES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(s.language)))
        self.theme = QComboBox()
        for code, name in (
            ("system", self.tr("System")),
            ("light", self.tr("Light")),
            ("dark", self.tr("Dark")),
        ):
            self.theme.addItem(name, code)
        self.theme.setCurrentIndex(max(0, self.theme.findData(s.theme)))
        self.theme.currentIndexChanged.connect(lambda _i: self._apply_theme(self.theme_code()))
        self.data_folder = QLineEdit(str(paths.data_dir()))
        self.data_folder.setReadOnly(True)
        self.open_folder = QPushButton(self.tr("Open folder"))
        self.open_folder.clicked.connect(self._open_data_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.data_folder)
        folder_row.addWidget(self.open_folder)
        self.hf_endpoint = QLineEdit(s.hf_endpoint)
        self.hf_endpoint.setPlaceholderText(self.tr("Empty: the official Hugging Face hub"))
        self.disable_xet = QCheckBox(self.tr("Disable Xet transfer (plain HTTP downloads)"))
        self.disable_xet.setChecked(s.disable_xet)
        self.font_size = _spin(0, 32, s.font_size)
        self.font_size.setSpecialValueText(self.tr("System"))
        self.font_warning = self._amber("")
        self.language.currentIndexChanged.connect(lambda _i: self._check_font())
        self._check_font()
        form.addRow(self.tr("Language"), self.language)
        form.addRow("", self.font_warning)
        form.addRow(self.tr("Theme"), self.theme)
        form.addRow(self.tr("Font size (points)"), self.font_size)
        form.addRow(self.tr("Data folder"), folder_row)
        form.addRow(self.tr("Download mirror"), self.hf_endpoint)
        form.addRow(self.disable_xet)
        return page

    def _amber(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setStyleSheet(_AMBER_STYLE)
        return label

    # -- behaviour ----------------------------------------------------------------------------

    def theme_code(self) -> str:
        return str(self.theme.currentData())

    def _check_font(self) -> None:
        """One line when the chosen language has no installed font (it would show boxes)."""
        language = i18n.resolve(str(self.language.currentData()))
        missing = not i18n.has_font(language)
        self.font_warning.setText(
            self.tr("No font for {language} is installed; its text would show as boxes.").format(
                language=i18n.LANGUAGES[language]
            )
            if missing
            else ""
        )
        self.font_warning.setVisible(missing)

    def _apply_theme(self, code: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.apply(app, code)

    def _open_data_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(self.data_folder.text()))

    def values(self) -> Settings:
        """The settings as edited, validated; raises :class:`InputError` naming the bad field."""
        base_url = self.base_url.text().strip()
        model = self.cloud_model.text().strip()
        endpoint = self.hf_endpoint.text().strip()
        server = self.small_server_url.text().strip()
        served = self.small_server_model.currentText().strip()
        if server and not _is_http_url(server):
            self._focus(0, self.small_server_url)
            raise InputError(
                tr("Your server's address “{url}” is not an http:// or https:// address."),
                tr("Enter it as http://HOST:PORT/v1, or leave it empty for the local model."),
                url=server,
            )
        if server and not served:
            self._focus(0, self.small_server_model)
            raise InputError(
                tr("Choose which model on your server answers."),
                tr("Press “List its models”, or type the model's name."),
            )
        if base_url and not _is_http_url(base_url):
            self._focus(CLOUD_TAB, self.base_url)
            raise InputError(
                tr("The base URL “{url}” is not an http:// or https:// address."),
                tr("Enter the API's address, for example https://api.example.com/v1."),
                url=base_url,
            )
        if self.cloud_enabled.isChecked() and not (base_url and model):
            self._focus(CLOUD_TAB, self.cloud_model if base_url else self.base_url)
            raise InputError(
                tr("The cloud distiller needs a base URL and a model name."),
                tr("Fill both in, or turn the cloud distiller off."),
            )
        if endpoint and not _is_http_url(endpoint):
            self._focus(APPEARANCE_TAB, self.hf_endpoint)
            raise InputError(
                tr("The download mirror “{url}” is not an http:// or https:// address."),
                tr("Enter a mirror such as https://hf-mirror.com, or leave it empty."),
                url=endpoint,
            )
        cloud = CloudSettings(
            enabled=self.cloud_enabled.isChecked(),
            base_url=base_url,
            model=model,
            redact_personal_data=self.redact.isChecked(),
        )
        return dataclasses.replace(
            self._original,
            small_model=str(self.small_model.currentData()),
            small_server_url=server,
            small_server_model=served if server else "",
            large_model=str(self.large_model.currentData()),
            embedding_model=str(self.embedding_model.currentData()),
            threads=self.threads.value(),
            gpu_layers=self.gpu_layers.value(),
            context_size=self.context_size.value(),
            max_answer_tokens=self.answer_tokens.value(),
            temperature=round(self.temperature.value(), 2),
            top_p=round(self.top_p.value(), 2),
            about_you=self.about_you.toPlainText().strip(),
            answer_style=self.answer_style.toPlainText().strip(),
            font_size=self.font_size.value(),
            memory_budget_tokens=self.memory_budget.value(),
            consolidate_every_turns=self.consolidate_turns.value(),
            consolidate_idle_seconds=self.idle_seconds.value(),
            large_model_idle_unload_seconds=self.unload_seconds.value(),
            memory_paused=self.paused.isChecked(),
            language=str(self.language.currentData()),
            theme=self.theme_code(),
            hf_endpoint=endpoint,
            disable_xet=self.disable_xet.isChecked(),
            cloud=cloud,
        )

    def _show_keyring_problem(self, problem: Problem) -> None:
        self.keyring_problem = problem
        why = errors.translate(problem)[0]
        self.keyring_note.setText(
            self.tr(
                "The API key cannot be stored securely: {why}. Install and unlock a keyring "
                "service, or keep the key in memory for this session only; Engram never saves "
                "it to a file."
            ).format(why=why.rstrip(".。"))
        )
        self.keyring_note.show()
        self.session_only.show()

    def _focus(self, tab: int, widget: QWidget) -> None:
        self.tabs.setCurrentIndex(tab)
        widget.setFocus()

    def _store_key(self) -> None:
        key = self.api_key.text().strip()
        if not key:
            return
        if self.keyring_problem and self.session_only.isChecked():
            self._keys.keep_for_session(CLOUD_KEY, key)
        else:
            try:
                self._keys.set(CLOUD_KEY, key)
            except KeyringUnavailableError as exc:  # offer the session-only choice from now on
                self._show_keyring_problem(exc.problem)
                self._focus(CLOUD_TAB, self.session_only)
                raise KeyringUnavailableError(
                    exc.template,
                    tr(
                        "Tick “Keep the key for this session only”, or install and unlock a "
                        "keyring service and try again."
                    ),
                    **exc.params,
                ) from exc
        self.api_key.clear()

    def accept(self) -> None:
        """Validate, store the key, apply the changed fields to the store (saved atomically),
        emit :attr:`saved`; on a problem, say why and change nothing."""
        try:
            edited = self.values()
            self._store_key()
            new = self.settings.merge(self._original, edited)
        except EngramError as exc:
            self._show_problem(errors.text(exc))
            return
        self.saved.emit(new)
        super().accept()

    def reject(self) -> None:
        """Cancel: put back the theme the settings had when the dialog opened."""
        if self.theme_code() != self._original.theme:
            self._apply_theme(self._original.theme)
        super().reject()

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()


def _spin(low: int, high: int, value: int, step: int = 1) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setValue(value)
    return spin


def _decimal(low: float, high: float, value: float, step: float) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(low, high)
    spin.setDecimals(2)
    spin.setSingleStep(step)
    spin.setValue(value)
    return spin


def _gpu_offload() -> bool:
    """Can this llama.cpp build offload layers to a GPU?"""
    import llama_cpp

    return bool(llama_cpp.llama_supports_gpu_offload())


def _is_http_url(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.hostname)
