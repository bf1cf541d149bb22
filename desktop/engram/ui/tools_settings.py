"""Settings → Tools: tools on/off and the step limit, the built-in tools, shared folders, MCP
servers (add, import, remove, list and switch their tools) and the remembered permissions.

Every change is applied at once through the settings store (the running session rebuilds its
tools when they change). Listing a server's tools starts it, so that runs on a worker thread.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QThread, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engram.assistant import tool_admin
from engram.assistant.tools.permissions import ALWAYS
from engram.core import log
from engram.core.errors import EngramError, InputError, Problem, tr
from engram.core.settings import SettingsStore
from engram.ui import errors, i18n
from engram.ui.settings_signals import SettingsSignals
from engram.ui.threads import Worker, start_worker, stop_thread, worker_slot

_log = log.get("ui.tools_settings")
_WARN_STYLE = "color: #c62828;"
STDIO, HTTP = 0, 1


class ToolLister(Worker):
    """Starts one MCP server, lists its tools and stops it again (off the UI thread)."""

    listed = Signal(str, object)  # server name, [(tool name, description)]

    def __init__(self, start_timeout: float) -> None:
        super().__init__()
        self.start_timeout = start_timeout

    @worker_slot(str, object)
    def list_tools(self, name: str, entry: dict[str, Any]) -> None:
        found = tool_admin.server_tools(name, entry, self.start_timeout)
        self.listed.emit(name, [(t.name, _first_line(t.description)) for t in found])


# Listing threads let go of while a server was still starting: each ends by itself after the
# start timeout; held here (not by the closed page) until then.
_finishing: set[tuple[ToolLister, QThread]] = set()


def finishing() -> int:
    """How many listing threads are still ending after their page closed."""
    _finishing.difference_update([held for held in _finishing if held[1].isFinished()])
    return len(_finishing)


class ToolsPage(QScrollArea):
    """The Tools tab of the settings dialog; call :meth:`stop` when the dialog closes."""

    list_requested = Signal(str, object)  # server name, its JSON entry
    lister_shutdown = Signal()

    def __init__(
        self,
        store: SettingsStore,
        parent: QWidget | None = None,
        *,
        start_timeout: float = tool_admin.MCP_START_TIMEOUT_S,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.start_timeout = start_timeout
        self._lister: tuple[ToolLister, QThread] | None = None
        self._listing = ""  # the server being started, if any
        self.listed: dict[str, list[tuple[str, str]]] = {}  # server → its tools, once listed
        self._language = i18n.resolve(store.current.language)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self._general_box())
        layout.addWidget(self._builtins_box())
        layout.addWidget(self._folders_box())
        layout.addWidget(self._servers_box())
        layout.addWidget(self._permissions_box())
        layout.addStretch(1)
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.settings_signals = SettingsSignals(store, self)  # e.g. "always allow" in a chat
        self.settings_signals.changed.connect(
            lambda old, new: self._refresh() if old.tools != new.tools else None
        )
        self._refresh()

    # -- the sections ---------------------------------------------------------------------

    def _general_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Tools"))
        form = QFormLayout(box)
        tools = self.store.current.tools
        self.enabled = QCheckBox(self.tr("Let the assistant use tools"))
        self.enabled.setChecked(tools.enabled)
        self.enabled.toggled.connect(lambda on: self._change(enabled=on))
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, tool_admin.MAX_TOOL_STEPS)
        self.max_steps.setValue(min(max(1, tools.max_steps), tool_admin.MAX_TOOL_STEPS))
        self.max_steps.setToolTip(self.tr("Each step reads the whole conversation again."))
        self.max_steps.valueChanged.connect(lambda n: self._change(max_steps=n))
        form.addRow(self.enabled)
        form.addRow(self.tr("Tool calls per answer, at most"), self.max_steps)
        return box

    def _builtins_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Built-in tools (offline)"))
        layout = QVBoxLayout(box)
        self.builtin_switches: dict[str, QCheckBox] = {}
        for tool in tool_admin.builtin_tools(self._language):
            switch = QCheckBox(tool.name)
            switch.toggled.connect(lambda on, name=tool.name: self._switch_tool(name, on))
            about = QLabel(tool.description)
            about.setWordWrap(True)
            about.setIndent(24)
            layout.addWidget(switch)
            layout.addWidget(about)
            if tool.needs_permission:
                switch.setToolTip(self.tr("Asks for your permission the first time."))
            self.builtin_switches[tool.name] = switch
        return box

    def _folders_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Shared folders"))
        layout = QVBoxLayout(box)
        note = QLabel(
            self.tr(
                "The files tools may list, search and read these folders, and nothing else. "
                "They never change or delete a file."
            )
        )
        note.setWordWrap(True)
        self.folders = QListWidget()
        self.folders.setMaximumHeight(80)
        add = QPushButton(self.tr("Add folder…"))
        add.clicked.connect(self._pick_folder)
        self.remove_folder_button = QPushButton(self.tr("Remove"))
        self.remove_folder_button.clicked.connect(self._remove_folder)
        layout.addWidget(note)
        layout.addWidget(self.folders)
        layout.addLayout(_row(add, self.remove_folder_button))
        return box

    def _servers_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("MCP servers"))
        layout = QVBoxLayout(box)
        self.servers = QListWidget()
        self.servers.setMaximumHeight(80)
        self.servers.currentRowChanged.connect(lambda _row: self._show_server_tools())
        self.list_button = QPushButton(self.tr("Start and list its tools"))
        self.list_button.clicked.connect(self._list_selected)
        self.remove_server_button = QPushButton(self.tr("Remove"))
        self.remove_server_button.clicked.connect(self._remove_server)
        import_button = QPushButton(self.tr("Import Claude Desktop config…"))
        import_button.clicked.connect(self._pick_claude_config)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # a spinner: the server is starting
        self.busy.setMaximumHeight(8)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.server_tools = QListWidget()
        self.server_tools.setMaximumHeight(110)
        self.server_tools.itemChanged.connect(self._server_tool_switched)
        layout.addWidget(self.servers)
        layout.addLayout(_row(self.list_button, self.remove_server_button, import_button))
        layout.addWidget(self.busy)
        layout.addWidget(self.status)
        layout.addWidget(self.server_tools)
        layout.addWidget(self._add_server_form())
        return box

    def _add_server_form(self) -> QGroupBox:
        box = QGroupBox(self.tr("Add a server"))
        form = QFormLayout(box)
        self.server_name = QLineEdit()
        self.server_name.setPlaceholderText(self.tr("e.g. notes"))
        self.server_kind = QComboBox()
        self.server_kind.addItem(self.tr("Program on this computer (stdio)"))
        self.server_kind.addItem(self.tr("Streamable HTTP address"))
        self.server_command = QLineEdit()
        self.server_command.setPlaceholderText("npx")
        self.server_args = QLineEdit()
        self.server_args.setPlaceholderText("-y @modelcontextprotocol/server-filesystem ~/Notes")
        self.server_env = QPlainTextEdit()
        self.server_env.setPlaceholderText(self.tr("KEY=VALUE, one a line"))
        self.server_env.setMaximumHeight(60)
        self.server_url = QLineEdit()
        self.server_url.setPlaceholderText("http://127.0.0.1:8000/mcp")
        self.add_server_button = QPushButton(self.tr("Add server"))
        self.add_server_button.clicked.connect(self._add_server)
        form.addRow(self.tr("Name"), self.server_name)
        form.addRow(self.tr("Kind"), self.server_kind)
        form.addRow(self.tr("Command"), self.server_command)
        form.addRow(self.tr("Arguments"), self.server_args)
        form.addRow(self.tr("Environment"), self.server_env)
        form.addRow(self.tr("URL"), self.server_url)
        form.addRow(self.add_server_button)
        self._stdio_fields = (self.server_command, self.server_args, self.server_env)
        self.server_kind.currentIndexChanged.connect(self._show_kind)
        self._show_kind(STDIO)
        return box

    def _permissions_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Remembered permissions"))
        layout = QVBoxLayout(box)
        self.permissions = QListWidget()
        self.permissions.setMaximumHeight(80)
        self.revoke_button = QPushButton(self.tr("Revoke"))
        self.revoke_button.setToolTip(self.tr("Ask again the next time the tool is called."))
        self.revoke_button.clicked.connect(self._revoke)
        layout.addWidget(self.permissions)
        layout.addLayout(_row(self.revoke_button))
        return box

    # -- showing the settings ------------------------------------------------------------

    def _refresh(self) -> None:
        """Show the store's current tool settings."""
        tools = self.store.current.tools
        shown = {self.enabled: tools.enabled}
        shown.update({s: name not in tools.disabled for name, s in self.builtin_switches.items()})
        for switch, on in shown.items():
            switch.blockSignals(True)
            switch.setChecked(on)
            switch.blockSignals(False)
        self.max_steps.blockSignals(True)
        self.max_steps.setValue(min(max(1, tools.max_steps), tool_admin.MAX_TOOL_STEPS))
        self.max_steps.blockSignals(False)
        self.folders.clear()
        self.folders.addItems(list(tools.folders))
        selected = self._selected_server()
        self.servers.clear()
        for name, entry in tools.mcp_servers.items():
            item = QListWidgetItem(f"{name} — {_where(entry)}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.servers.addItem(item)
            if name == selected:
                self.servers.setCurrentItem(item)
        self.permissions.clear()
        for name, choice in sorted(tools.permissions.items()):
            said = self.tr("always allowed") if choice == ALWAYS else self.tr("denied")
            item = QListWidgetItem(f"{name} — {said}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.permissions.addItem(item)
        self.revoke_button.setEnabled(bool(tools.permissions))
        self._show_server_tools()

    def _selected_server(self) -> str:
        item = self.servers.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def _show_server_tools(self) -> None:
        name = self._selected_server()
        self.remove_server_button.setEnabled(bool(name))
        self.list_button.setEnabled(bool(name) and not self._listing)
        disabled = set(self.store.current.tools.disabled)
        self.server_tools.blockSignals(True)
        self.server_tools.clear()
        for tool, description in self.listed.get(name, []):
            item = QListWidgetItem(f"{tool} — {description}" if description else tool)
            item.setData(Qt.ItemDataRole.UserRole, tool)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = tool not in disabled
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.server_tools.addItem(item)
        self.server_tools.blockSignals(False)
        self.server_tools.setVisible(bool(self.listed.get(name)))

    def _show_kind(self, kind: int) -> None:
        for field in self._stdio_fields:
            field.setEnabled(kind == STDIO)
        self.server_url.setEnabled(kind == HTTP)

    def _say(self, text: str, problem: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(_WARN_STYLE if problem else "")

    # -- changes ------------------------------------------------------------------------

    def _change(self, **fields: Any) -> None:
        """Apply changed tool settings to the store (saved at once), or say why not."""
        try:
            self.store.update(tools=dataclasses.replace(self.store.current.tools, **fields))
        except EngramError as exc:
            self._say(errors.text(exc), problem=True)
        self._refresh()

    def _switch_tool(self, name: str, on: bool) -> None:
        disabled = set(self.store.current.tools.disabled)
        (disabled.discard if on else disabled.add)(name)
        self._change(disabled=tuple(sorted(disabled)))

    def _server_tool_switched(self, item: QListWidgetItem) -> None:
        on = item.checkState() == Qt.CheckState.Checked
        self._switch_tool(str(item.data(Qt.ItemDataRole.UserRole)), on)

    def _pick_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Share a folder with the tools"))
        if path:
            self.add_folder(Path(path))

    def add_folder(self, path: Path) -> None:
        """Share a folder with the files tools (read-only); Engram's own folders, their parents
        and the filesystem's root are refused with the reason, as on the command line."""
        try:
            folder = tool_admin.folder_to_share(path)
        except EngramError as exc:
            self._say(errors.text(exc), problem=True)
            return
        self._change(folders=tuple(dict.fromkeys([*self.store.current.tools.folders, folder])))

    def _remove_folder(self) -> None:
        item = self.folders.currentItem()
        if item is not None:
            kept = [f for f in self.store.current.tools.folders if f != item.text()]
            self._change(folders=tuple(kept))

    def _add_server(self) -> None:
        name = self.server_name.text().strip()
        try:
            if not name:
                raise InputError(tr("Give the MCP server a name."), tr("For example: notes."))
            if name in self.store.current.tools.mcp_servers:
                raise InputError(
                    tr("There is already an MCP server named {name!r}."),
                    tr("Remove it first, or choose another name."),
                    name=name,
                )
            if self.server_kind.currentIndex() == HTTP:
                entry: dict[str, Any] = {"url": self.server_url.text().strip()}
            else:
                words = _arguments(self.server_args.text())
                entry = {
                    "command": self.server_command.text().strip(),
                    "args": words,
                    "env": _environment(self.server_env.toPlainText()),
                }
            saved = tool_admin.mcp_entry(name, entry)
        except EngramError as exc:
            self._say(errors.text(exc), problem=True)
            return
        self._save_servers({name: saved})
        for field in (self.server_name, self.server_command, self.server_args, self.server_url):
            field.clear()
        self.server_env.clear()
        self._select(name)
        self._say(self.tr("Added {name}. Start it to see its tools.").format(name=name))

    def _pick_claude_config(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import MCP servers"), "", self.tr("JSON files (*.json)")
        )
        if path:
            self.import_config(Path(path))

    def import_config(self, path: Path) -> None:
        """Add the servers of a Claude Desktop ``mcpServers`` file; a problem names the file."""
        try:
            servers = tool_admin.mcp_entries(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, EngramError) as exc:
            why = _problem_text(exc)
            self._say(self.tr("{file}: {why}").format(file=path.name, why=why), problem=True)
            return
        self._save_servers(servers)
        names = ", ".join(servers) or "—"
        self._say(
            self.tr("Imported {count} server(s) from {file}: {names}").format(
                count=len(servers), file=path.name, names=names
            )
        )

    def _save_servers(self, added: dict[str, dict[str, Any]]) -> None:
        self._change(mcp_servers={**self.store.current.tools.mcp_servers, **added})

    def _select(self, name: str) -> None:
        for row in range(self.servers.count()):
            if self.servers.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.servers.setCurrentRow(row)

    def _remove_server(self) -> None:
        name = self._selected_server()
        servers = dict(self.store.current.tools.mcp_servers)
        if servers.pop(name, None) is not None:
            self.listed.pop(name, None)
            self._change(mcp_servers=servers)
            self._say(self.tr("Removed {name}.").format(name=name))

    def _revoke(self) -> None:
        item = self.permissions.currentItem() or self.permissions.item(0)
        if item is not None:
            choices = dict(self.store.current.tools.permissions)
            choices.pop(str(item.data(Qt.ItemDataRole.UserRole)), None)
            self._change(permissions=choices)

    # -- listing a server's tools (starts it) -------------------------------------------

    def _list_selected(self) -> None:
        name = self._selected_server()
        entry = self.store.current.tools.mcp_servers.get(name)
        if entry is None or self._listing:
            return
        if self._lister is None:
            lister = ToolLister(self.start_timeout)
            self._lister = start_worker(self, lister, "engram-mcp-list", (
                (self.list_requested, lister.list_tools), (self.lister_shutdown, lister.shutdown),
                (lister.listed, self.show_tools), (lister.failed, self._on_list_failed),
            ))  # fmt: skip
        self._listing = name
        self.list_button.setEnabled(False)
        self.busy.show()
        self._say(self.tr("Starting {name} and asking for its tools…").format(name=name))
        self.list_requested.emit(name, dict(entry))

    def _done_listing(self) -> str:
        name, self._listing = self._listing, ""
        self.busy.hide()
        return name

    def show_tools(self, name: str, tools: list[tuple[str, str]]) -> None:
        """Show a server's tools (name, description) as it listed them, each with its switch."""
        self._done_listing()
        self.listed[name] = tools
        self._say(self.tr("{name} offers {count} tool(s).").format(name=name, count=len(tools)))
        self._select(name)
        self._show_server_tools()

    def _on_list_failed(self, problem: Problem) -> None:
        self._done_listing()
        self._say(errors.text(problem), problem=True)
        self._show_server_tools()

    def busy_listing(self) -> bool:
        """Whether a server is being started and listed right now."""
        return bool(self._listing)

    def stop(self) -> None:
        """End the listing thread and stop following the settings. A server still starting is
        not waited for: its thread is let go of and ends by itself after the start timeout."""
        self.settings_signals.close()
        if self._lister is None:
            return
        lister, thread = self._lister
        self._lister = None
        if not self._listing:
            stop_thread(thread, self.lister_shutdown)
            return
        self._done_listing()
        lister.listed.disconnect(self.show_tools)
        lister.failed.disconnect(self._on_list_failed)
        thread.setParent(None)
        finishing()  # forget the ones that ended
        _finishing.add((lister, thread))  # the worker too: unreferenced, Python would delete it
        self.lister_shutdown.emit()  # queued after the listing: the thread then ends


def _row(*buttons: QWidget) -> QHBoxLayout:
    row = QHBoxLayout()
    for button in buttons:
        row.addWidget(button)
    row.addStretch(1)
    return row


def _first_line(text: str, limit: int = 160) -> str:
    """A tool's description as one list line (servers may write pages)."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _where(entry: dict[str, Any]) -> str:
    """A server's command line or URL, as the list shows it."""
    if entry.get("url"):
        return str(entry["url"])
    return shlex.join([str(entry.get("command", "")), *map(str, entry.get("args", []))])


def _arguments(text: str) -> list[str]:
    """The arguments split as a shell would (quotes group words)."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise InputError(
            tr("The arguments cannot be split into words ({error})."),
            tr("Close every quote, or put a backslash before a quote that is part of a word."),
            error=str(exc),
        ) from exc


def _environment(text: str) -> dict[str, str]:
    """KEY=VALUE lines as a mapping; a line without ``=`` is refused."""
    env = {}
    for line in filter(None, (raw.strip() for raw in text.splitlines())):
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise InputError(
                tr("The environment line “{line}” is not KEY=VALUE."),
                tr("Write one variable a line, e.g. API_TOKEN=abc123."),
                line=line[:60],
            )
        env[key.strip()] = value
    return env


def _problem_text(exc: Exception) -> str:
    """What went wrong, in the UI language: a known problem, or why a file is unreadable."""
    if isinstance(exc, EngramError):
        return errors.text(exc)
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
    return errors.text(Problem(tr("It could not be read ({error})."), error=why))
