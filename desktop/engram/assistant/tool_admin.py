"""The tools Engram's model may call, as the Tools page of Settings and ``engram tools`` show
and save them, without a session: Engram's own tools, every tool the settings name (the MCP
servers' too, started for it), one tool run without a model, MCP server entries (checked, or
read from a Claude Desktop config) and a folder to share with the files tools.

Everything here that starts an MCP server is slow: not for a UI thread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.assistant.tools import builtins, files, mcp
from engram.assistant.tools import setup as tool_setup
from engram.assistant.tools.base import Registry, Tool, ToolContext
from engram.core.settings import ToolSettings

MAX_TOOL_STEPS = tool_setup.MAX_STEPS  # tool calls one answer may make, at most
MCP_START_TIMEOUT_S = mcp.START_TIMEOUT_S  # how long an MCP server may take to start


@dataclass(frozen=True)
class ToolInfo:
    """A tool as the user sees it: its name, where it comes from (``BUILT_IN`` or its MCP
    server), what it does, and whether it asks before it runs."""

    name: str
    source: str
    description: str
    needs_permission: bool


def _info(tool: Tool, language: str) -> ToolInfo:
    return ToolInfo(tool.name, tool.source, tool.describe(language), tool.needs_permission)


def builtin_tools(language: str = "en") -> list[ToolInfo]:
    """Engram's own tools (offline), described in ``language``."""
    return [_info(tool, language) for tool in builtins.BUILT_INS]


@contextmanager
def _all_tools(settings: ToolSettings) -> Iterator[Registry]:
    """Every tool the settings name, turned on or not: the MCP servers' too, started for it and
    stopped after (one that does not start has none)."""
    box, hub = tool_setup.toolbox(dataclasses.replace(settings, enabled=True, disabled=()))
    assert box is not None
    try:
        yield box.tools()
    finally:
        if hub is not None:
            hub.close()


def every_tool(settings: ToolSettings) -> list[ToolInfo]:
    """Every tool the settings name (slow with MCP servers: not for a UI thread)."""
    with _all_tools(settings) as tools:
        return [_info(tool, "en") for tool in tools]


def call_tool(settings: ToolSettings, name: str, arguments: object) -> tuple[str, bool]:
    """Run one tool without a model (``engram tools call``): its output and whether it is an
    error."""
    with _all_tools(settings) as tools:
        folders = tuple(Path(f) for f in settings.folders)
        output = tools.call(name, arguments, ToolContext(folders=folders))
    return output.text, output.is_error


def server_tools(name: str, entry: dict[str, Any], start_timeout: float) -> list[ToolInfo]:
    """Start one MCP server, list its tools and stop it (slow: not for a UI thread)."""
    hub = mcp.McpHub([mcp.ServerConfig.from_json(name, entry)], start_timeout=start_timeout)
    try:
        return [_info(tool, "en") for tool in hub.tools(name)]
    finally:
        hub.close()


def mcp_entry(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """An MCP server's settings entry as it is saved; raises what is wrong with a bad one."""
    return mcp.ServerConfig.from_json(name, entry).to_json()


def mcp_entries(claude_config: str) -> dict[str, dict[str, Any]]:
    """The MCP servers of a Claude Desktop config (its text), as settings entries by name."""
    return {server.name: server.to_json() for server in mcp.import_claude_config(claude_config)}


def folder_to_share(path: Path) -> str:
    """A folder for the files tools to read, as it is saved; raises why it may not be shared
    (not a folder, the filesystem's root, or holding or inside one of Engram's own)."""
    folder = path.expanduser()
    files.check_shareable(folder)
    return str(folder.resolve())
