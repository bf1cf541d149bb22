"""Settings → Tools: folders, built-in switches, MCP servers (added, started off the UI thread,
their tools switched, a hanging one), a Claude Desktop import, revoking a permission; in both
languages, with settings.json holding the result."""

from __future__ import annotations

import dataclasses
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QTabWidget
from pytestqt.qtbot import QtBot

import tiny
from engram.core import paths, settings
from engram.ui import tools_settings
from engram.ui.settings_dialog import SettingsDialog
from engram.ui.tools_settings import ToolsPage
from test_tools_mcp import _free_port

SERVER = str(Path(__file__).parent / "mcp_server.py")


def saved_tools() -> dict[str, Any]:
    """The tool settings as settings.json holds them."""
    tools = json.loads(paths.settings_path().read_text(encoding="utf-8"))["tools"]
    assert isinstance(tools, dict)
    return tools


@pytest.fixture
def page(qtbot: QtBot, ui_language: str) -> Iterator[ToolsPage]:
    settings.save(tiny.settings(language=ui_language))
    shown = ToolsPage(settings.SettingsStore.load(), start_timeout=2.0)
    qtbot.addWidget(shown)
    shown.show()
    yield shown
    shown.stop()


def add_stdio_server(page: ToolsPage, name: str, *args: str, env: str = "") -> None:
    page.server_name.setText(name)
    page.server_kind.setCurrentIndex(0)
    page.server_command.setText(sys.executable)
    page.server_args.setText(" ".join(args))
    page.server_env.setPlainText(env)
    page.add_server_button.click()


def test_folders_and_built_in_switches_are_saved(
    page: ToolsPage, tmp_path: Path, ui_language: str
) -> None:
    notes = tmp_path / "Notes"
    notes.mkdir()
    page.add_folder(notes)
    page.add_folder(notes)  # twice: kept once
    assert saved_tools()["folders"] == [str(notes.resolve())]
    assert [page.folders.item(i).text() for i in range(page.folders.count())] == [
        str(notes.resolve())
    ]
    page.add_folder(paths.data_dir().parent)  # holds Engram's own data: refused, with the reason
    assert saved_tools()["folders"] == [str(notes.resolve())]
    assert page.folders.count() == 1 and page.status.text()
    page.builtin_switches["files_read"].click()
    assert saved_tools()["disabled"] == ["files_read"]
    page.builtin_switches["files_read"].click()
    assert saved_tools()["disabled"] == []
    page.max_steps.setValue(7)
    page.enabled.click()
    assert saved_tools()["max_steps"] == 7 and saved_tools()["enabled"] is False
    page.folders.setCurrentRow(0)
    page.remove_folder_button.click()
    assert saved_tools()["folders"] == []
    # Each built-in is described in the UI language.
    described = page.findChildren(type(page.status))
    zh = "计算" if ui_language == "zh_CN" else "arithmetic"
    assert any(zh in label.text() for label in described)


@pytest.mark.slow
def test_a_stdio_server_is_added_started_listed_and_its_tools_switched(
    page: ToolsPage, qtbot: QtBot
) -> None:
    add_stdio_server(page, "test", SERVER, env="ENGRAM_TEST=1\n")
    assert saved_tools()["mcp_servers"] == {
        "test": {"command": sys.executable, "args": [SERVER], "env": {"ENGRAM_TEST": "1"}}
    }
    assert page.servers.count() == 1 and page.server_name.text() == ""
    add_stdio_server(page, "test", "other-program")  # the name is taken: nothing replaced
    assert "test" in page.status.text() and page.server_name.text() == "test"
    assert saved_tools()["mcp_servers"]["test"]["command"] == sys.executable
    page.start_timeout = 30.0  # a real start on a busy machine
    page.list_button.click()
    assert page.busy_listing() and not page.list_button.isEnabled()
    qtbot.waitUntil(lambda: not page.busy_listing(), timeout=40_000)
    names = [
        page.server_tools.item(i).data(Qt.ItemDataRole.UserRole)
        for i in range(page.server_tools.count())
    ]
    assert {"add", "echo", "fail", "sleep", "crash"} <= set(names)
    assert "test" in page.status.text() and page.busy.isHidden()
    echo = page.server_tools.item(names.index("echo"))
    assert echo.text() == "echo — Echo the text back."  # the server's own description
    echo.setCheckState(Qt.CheckState.Unchecked)
    assert saved_tools()["disabled"] == ["echo"]
    echo = page.server_tools.item(names.index("echo"))  # the list was drawn again
    assert echo.checkState() == Qt.CheckState.Unchecked
    echo.setCheckState(Qt.CheckState.Checked)
    assert saved_tools()["disabled"] == []
    page.servers.setCurrentRow(0)
    page.remove_server_button.click()
    assert saved_tools()["mcp_servers"] == {} and page.servers.count() == 0


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
@pytest.mark.network_local
def test_a_streamable_http_server_is_added_and_listed(page: ToolsPage, qtbot: QtBot) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        qtbot.waitUntil(lambda: _accepts(port), timeout=30_000)
        page.server_name.setText("web")
        page.server_kind.setCurrentIndex(1)
        assert page.server_url.isEnabled() and not page.server_command.isEnabled()
        page.server_url.setText(f"http://127.0.0.1:{port}/mcp")
        page.add_server_button.click()
        assert saved_tools()["mcp_servers"] == {"web": {"url": f"http://127.0.0.1:{port}/mcp"}}
        page.start_timeout = 30.0
        page.list_button.click()
        qtbot.waitUntil(lambda: not page.busy_listing(), timeout=40_000)
        assert page.server_tools.count() >= 5, page.status.text()
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_a_hanging_server_gives_a_message_and_the_window_stays_responsive(
    page: ToolsPage, qtbot: QtBot
) -> None:
    add_stdio_server(page, "stuck", SERVER, "--garbage")
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    page.list_button.click()
    assert page.busy_listing() and page.busy.isVisible()
    page.enabled.click()  # the page answers while the server hangs
    assert saved_tools()["enabled"] is False
    qtbot.waitUntil(lambda: not page.busy_listing(), timeout=20_000)
    timer.stop()
    assert len(ticks) > 10  # the event loop ran all along
    assert "stuck" in page.status.text() and "2" in page.status.text()  # name, timeout
    assert page.server_tools.count() == 0 and page.list_button.isEnabled()


def test_a_malformed_server_or_environment_is_refused_with_a_message(page: ToolsPage) -> None:
    add_stdio_server(page, "bad", SERVER, env="NOT A VARIABLE")
    assert "NOT A VARIABLE" in page.status.text()
    add_stdio_server(page, "bad", SERVER, "'unclosed")
    assert "No closing quotation" in page.status.text()
    page.server_kind.setCurrentIndex(1)
    page.server_name.setText("web")
    page.server_url.setText("")
    page.add_server_button.click()
    assert "web" in page.status.text()
    assert saved_tools()["mcp_servers"] == {}


def test_a_claude_desktop_config_is_imported_and_a_broken_one_named(
    page: ToolsPage, tmp_path: Path
) -> None:
    good = tmp_path / "claude_desktop_config.json"
    good.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "notes": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]},
                    "web": {"url": "http://127.0.0.1:8000/mcp"},
                }
            }
        ),
        encoding="utf-8",
    )
    page.import_config(good)
    assert set(saved_tools()["mcp_servers"]) == {"notes", "web"}
    assert page.servers.count() == 2 and "notes" in page.status.text()
    for name, text in (("broken.json", '{"mcpServers": '), ("other.json", '{"servers": {}}')):
        broken = tmp_path / name
        broken.write_text(text, encoding="utf-8")
        page.import_config(broken)
        assert name in page.status.text()
    page.import_config(tmp_path / "missing.json")
    assert "missing.json" in page.status.text()
    assert set(saved_tools()["mcp_servers"]) == {"notes", "web"}  # nothing lost


def test_a_remembered_permission_is_listed_and_revoked(page: ToolsPage, qtbot: QtBot) -> None:
    store = page.store
    choices = {"files_read": "always", "echo": "deny"}
    store.update(tools=dataclasses.replace(store.current.tools, permissions=choices))
    qtbot.waitUntil(lambda: page.permissions.count() == 2)  # the page follows the store
    assert page.revoke_button.isEnabled() and page.revoke_button.isEnabled()
    page.permissions.setCurrentRow(0)  # sorted: echo first
    page.revoke_button.click()
    assert saved_tools()["permissions"] == {"files_read": "always"}
    page.revoke_button.click()
    assert saved_tools()["permissions"] == {} and not page.revoke_button.isEnabled()


def test_the_settings_dialog_has_the_tools_tab(qtbot: QtBot, ui_language: str) -> None:
    settings.save(tiny.settings(language=ui_language))
    dialog = SettingsDialog(settings.SettingsStore.load())
    qtbot.addWidget(dialog)
    tabs = dialog.findChild(QTabWidget)
    assert tabs is not None
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert ("工具" if ui_language == "zh_CN" else "Tools") in titles
    assert isinstance(dialog.tools_page, ToolsPage)
    dialog.reject()


@pytest.mark.slow
def test_closing_while_a_server_starts_does_not_wait_for_it(page: ToolsPage, qtbot: QtBot) -> None:
    add_stdio_server(page, "stuck", SERVER, "--garbage")
    page.list_button.click()
    assert page.busy_listing()
    page.stop()  # the dialog closes: the hanging start is let go of
    assert not page.busy_listing() and page.busy.isHidden()
    assert tools_settings.finishing() == 1
    qtbot.waitUntil(lambda: tools_settings.finishing() == 0, timeout=20_000)
    assert "stuck" in page.status.text()  # "Starting stuck…": no answer came back to it


def test_the_page_follows_changes_made_elsewhere(page: ToolsPage, qtbot: QtBot) -> None:
    store = page.store
    choices = {"files_read": "always"}
    store.update(tools=dataclasses.replace(store.current.tools, permissions=choices, max_steps=9))
    qtbot.waitUntil(lambda: page.permissions.count() == 1)
    assert page.max_steps.value() == 9
