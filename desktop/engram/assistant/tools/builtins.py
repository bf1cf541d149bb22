"""The built-in tools, which work offline: calculator, date and time, recall, remember, files."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from engram.assistant.tools import calculator, clock, files, memory
from engram.assistant.tools.base import Registry, Tool

BUILT_INS: tuple[Tool, ...] = (calculator.TOOL, clock.TOOL, *memory.TOOLS, *files.TOOLS)


def registry(disabled: Collection[str] = (), more: Iterable[Tool] = ()) -> Registry:
    """The built-ins and ``more`` (MCP tools), without the ones the user turned off."""
    found = Registry()
    for tool in (*BUILT_INS, *more):
        if tool.name not in disabled:
            found.add(tool)
    return found
