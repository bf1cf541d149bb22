"""The tools of a session, from the settings: built-ins, shared folders, MCP servers, the step
limit and the stored permission choices (saved back through the settings owner)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.assistant.tools import builtins
from engram.assistant.tools.base import ToolContext
from engram.assistant.tools.loop import Toolbox
from engram.assistant.tools.mcp import McpError, McpHub, ServerConfig
from engram.assistant.tools.permissions import Ask, Permissions
from engram.core import log
from engram.core.settings import ToolSettings

_log = log.get("assistant.tools.setup")
MAX_STEPS = 16  # a higher setting is read as this: each step re-reads the whole prompt


def servers(settings: ToolSettings) -> list[ServerConfig]:
    """The configured MCP servers (a malformed entry is left out and logged)."""
    found = []
    for name, entry in settings.mcp_servers.items():
        try:
            found.append(ServerConfig.from_json(name, entry))
        except McpError:
            _log.warning("MCP server entry %r is malformed; left out", name)
    return found


def toolbox(
    settings: ToolSettings,
    store: Any = None,
    language: str = "en",
    ask: Ask | None = None,
    on_change: Callable[[dict[str, str]], None] | None = None,
) -> tuple[Toolbox | None, McpHub | None]:
    """The toolbox of a session and the hub of its MCP servers (close the hub with it); ``ask``
    asks the user whether a tool may run, ``on_change`` keeps the choices made."""
    if not settings.enabled:
        return None, None
    hub = McpHub(servers(settings)) if settings.mcp_servers else None
    if hub is not None:
        hub.start()  # in the background: by the first answer they have had time to start
    disabled = set(settings.disabled)
    more = (lambda: [t for t in hub.all_tools() if t.name not in disabled]) if hub else None
    box = Toolbox(
        builtins.registry(disabled=disabled, memory_on=store is not None),
        Permissions(settings.permissions, ask, on_change),
        ToolContext(
            store=store, folders=tuple(Path(f) for f in settings.folders), language=language
        ),
        max_steps=min(max(0, settings.max_steps), MAX_STEPS),
        more=more,
    )
    return box, hub
