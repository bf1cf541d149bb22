"""The tool model: a tool, what one call gives back, and the registry that runs calls safely.

Every way a call can go wrong (unknown tool, arguments that break the schema, a tool that raises)
becomes an error *output* for the model to read, never an exception out of the turn. Outputs
longer than :data:`MAX_RESULT_CHARS` are cut, for the model and for the database alike.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engram.assistant.tools.permissions import BUILT_IN
from engram.core import log
from engram.core.errors import EngramError, Problem, tr
from engram.models import schema_check

_log = log.get("assistant.tools")
MAX_RESULT_CHARS = 4000
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class ToolError(EngramError):
    """A tool could not do what it was asked; the model reads the message as the result."""


@dataclass(frozen=True)
class ToolContext:
    """What a running tool may use: the user's memory, the folders they shared, the time."""

    store: Any = None  # engram.memory.store.MemoryStore, when memory is on
    conversation_id: int = 0
    # Why nothing may be learned from the message being answered (memory off or paused, a
    # temporary chat: the application's one rule), or None: the tools keep no memory then.
    quiet: Problem | None = None
    folders: tuple[Path, ...] = ()
    language: str = "en"
    now: Callable[[], float] = time.time
    # How the user allowed this call ("once", "always"; '' for a tool that does not ask) and
    # where the untrusted text the answer read before it came from (a file, a tool, recalled
    # memories): where a request may have come from.
    granted: str = ""
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolOutput:
    """What one call gave back (already cut to :data:`MAX_RESULT_CHARS`)."""

    text: str
    is_error: bool = False
    duration_s: float = 0.0
    cut_chars: int = 0  # characters left out of ``text``


@dataclass(frozen=True)
class Tool:
    """One tool: a name, what it does in English and Chinese, its arguments' JSON schema."""

    name: str
    description: str
    description_zh: str
    schema: Mapping[str, Any]
    run: Callable[[dict[str, Any], ToolContext], str]
    # Asks the user before it runs: a tool with effects (remember, every MCP tool) or one that
    # reads the user's files. The calculator, the clock and recall never ask.
    needs_permission: bool = False
    source: str = BUILT_IN  # "built-in" or the MCP server's name
    remote_name: str = ""  # the name the MCP server knows it by (when renamed on a clash)
    # Raises ToolError when a call cannot run whatever the user says (a path outside the
    # shared folders): checked before the user is asked for permission.
    precheck: Callable[[dict[str, Any], ToolContext], None] | None = None
    # A tool that asks but only reads (the files tools): its call changes nothing. Every other
    # tool that asks has effects (remember; every MCP tool, as Engram cannot know what a server
    # does), and :meth:`Permissions.allowed` guards those after untrusted text.
    reads_only: bool = False
    # Its result brings in text Engram did not make (a file, a memory, a server's answer): after
    # it, the answer has read untrusted text. False for the calculator, the clock and remember.
    reads_outside: bool = True
    # The call's arguments when the user's own message holds them whole ("Calculate (45 + 55) *
    # 12 / 4."): the call the message asks for is then made from their words, not generated
    # (the 0.5B dropped the parentheses). None: the model writes the arguments.
    arguments_in: Callable[[str], dict[str, Any] | None] | None = None
    # The part of a result an answer must give (the calculator's number, the clock's count of
    # days); an answer that leaves it out is followed by the result. None: no such part.
    value: Callable[[str], str | None] | None = None

    def describe(self, language: str) -> str:
        return (
            self.description_zh
            if language.startswith("zh") and self.description_zh
            else (self.description)
        )

    def spec(self, language: str = "en") -> dict[str, Any]:
        """The tool as chat templates expect it (OpenAI's function format)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.describe(language),
                "parameters": dict(self.schema),
            },
        }


def one_text(name: str, max_length: int) -> dict[str, Any]:
    """The schema of arguments that are one required, non-empty string."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "minLength": 1, "maxLength": max_length}},
        "required": [name],
        "additionalProperties": False,
    }


def cut(text: str, limit: int = MAX_RESULT_CHARS) -> tuple[str, int]:
    """``text`` within ``limit`` characters with a notice of what was left out, and that count."""
    if len(text) <= limit:
        return text, 0
    left_out = len(text) - limit
    return f"{text[:limit]}\n[… {left_out:,} more characters were cut]", left_out


@dataclass
class Registry:
    """The tools one assistant may call: built-ins first, then each MCP server's."""

    tools: dict[str, Tool] = field(default_factory=dict)

    def add(self, tool: Tool) -> Tool:
        """Register ``tool``; a name taken already is prefixed with its source (``server.name``)."""
        name = tool.name
        if name in self.tools:
            name = f"{tool.source}.{tool.name}"
        if not _NAME.match(name) or name in self.tools:
            raise EngramError(
                tr("The tool name {name!r} is not usable or is taken."),
                tr("Rename the MCP server so its tools get distinct names."),
                name=name,
            )
        if name != tool.name:
            tool = replace(tool, name=name, remote_name=tool.remote_name or tool.name)
        self.tools[name] = tool
        return tool

    def extend(self, tools: Iterable[Tool]) -> None:
        for tool in tools:
            self.add(tool)

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def __iter__(self) -> Any:
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def specs(self, language: str, names: Collection[str]) -> list[dict[str, Any]]:
        """The specs of the tools named in ``names``, in the registry's order."""
        return [tool.spec(language) for tool in self.tools.values() if tool.name in names]

    def check(self, name: str, arguments: object) -> Problem | None:
        """Why a call cannot run as given (None when it can)."""
        tool = self.tools.get(name)
        if tool is None:
            return Problem(
                tr("There is no tool named {name!r}; the tools are: {names}."),
                name=name,
                names=", ".join(self.tools) or "-",
            )
        if not isinstance(arguments, dict):
            return Problem(tr("The arguments of {name} must be a JSON object."), name=name)
        problems = schema_check.errors(arguments, dict(tool.schema))
        if problems:
            return Problem(
                tr("The arguments of {name} do not fit its schema: {problems}."),
                name=name,
                problems="; ".join(problems[:4]),
            )
        return None

    def call(self, name: str, arguments: object, ctx: ToolContext) -> ToolOutput:
        """Run one call; whatever happens, the model gets a readable output back."""
        start = time.perf_counter()
        problem = self.check(name, arguments)
        if problem is not None:
            return ToolOutput(problem.message, True, time.perf_counter() - start)
        assert isinstance(arguments, dict)
        tool = self.tools[name]
        try:
            text, is_error = tool.run(arguments, ctx), False
        except EngramError as exc:
            text, is_error = f"{exc.message} {exc.hint}".strip(), True
        except Exception as exc:  # a tool's bug must not end the turn; the model is told
            _log.warning("tool %s raised %s", name, type(exc).__name__)
            text, is_error = f"{name} failed: {type(exc).__name__}: {exc}", True
        text, left_out = cut(str(text))
        return ToolOutput(text, is_error, time.perf_counter() - start, left_out)
