"""The built-in tools, which work offline: calculator, date and time, recall, remember, files."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from engram.assistant.tools import calculator, clock, files, memory
from engram.assistant.tools.base import Registry, Tool

BUILT_INS: tuple[Tool, ...] = (calculator.TOOL, clock.TOOL, *memory.TOOLS, *files.TOOLS)


def registry(
    disabled: Collection[str] = (), more: Iterable[Tool] = (), memory_on: bool = True
) -> Registry:
    """The built-ins and ``more`` (MCP tools), without the ones the user turned off, and without
    the memory tools when there is no memory (offered, a small model calls them and repeats
    "memory is off" as its answer)."""
    left_out = set(disabled) | (set() if memory_on else {t.name for t in memory.TOOLS})
    found = Registry()
    for tool in (*BUILT_INS, *more):
        if tool.name not in left_out:
            found.add(tool)
    return found
