"""Per-tool permission: allow once (for the rest of the answer), always allow, or deny; stored
choices are revocable.

Tools that only compute (calculator, date) never ask. For the others the loop asks through a
callback: the window shows an inline prompt, ``engram chat`` asks on the terminal, tests script
the answer. Without a callback an unanswered tool is denied.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engram.core.settings import SettingsStore

if TYPE_CHECKING:
    from engram.assistant.tools.base import Tool

BUILT_IN = "built-in"  # the source of Engram's own tools; an MCP tool's is its server's name
ONCE, ALWAYS, DENY = "once", "always", "deny"
CHOICES = (ONCE, ALWAYS, DENY)
STORED = (ALWAYS, DENY)


@dataclass(frozen=True)
class Question:
    """A tool that wants to run, as the user is asked about it: its name, where it comes from
    (built in, or an MCP server's name), the arguments it would run with, and what the answer
    had read before it asked (``after``: the tools whose results it read, untrusted text that
    may have asked for the call)."""

    name: str
    source: str
    arguments: dict[str, Any]
    after: tuple[str, ...] = ()


Ask = Callable[[Question], str]


class Permissions:
    """The stored choices (tool name → ``always`` or ``deny``) and how to ask for the rest."""

    def __init__(
        self,
        stored: Mapping[str, str] | None = None,
        ask: Ask | None = None,
        on_change: Callable[[dict[str, str]], None] | None = None,
    ) -> None:
        self.stored = {k: v for k, v in (stored or {}).items() if v in STORED}
        self.ask = ask
        self.on_change = on_change
        self._this_answer: set[str] = set()  # tools allowed once: for the rest of the answer
        self.granted = ""  # how the last call allowed was: "once", "always" ('' without asking)

    def new_answer(self) -> None:
        """An answer begins: what was allowed once for the last one is asked again."""
        self._this_answer.clear()

    def allowed(self, tool: Tool, arguments: dict[str, Any], after: tuple[str, ...] = ()) -> bool:
        """Whether this call may run, asking the user when nothing is stored for the tool
        (``after``: the tools whose results the answer read before this call)."""
        self.granted = ""
        if not tool.needs_permission:
            return True
        choice = self.stored.get(tool.name)
        if choice is None and tool.name in self._this_answer:
            self.granted = ONCE
            return True  # "once" covers every call of this answer, not each one
        if choice is None:
            asked = Question(tool.name, tool.source, arguments, after)
            choice = self.ask(asked) if self.ask is not None else DENY
            if choice not in CHOICES:
                choice = DENY
            if choice in STORED:
                self.set(tool.name, choice)
            elif choice == ONCE:
                self._this_answer.add(tool.name)
        self.granted = choice if choice in (ONCE, ALWAYS) else ""
        return choice in (ONCE, ALWAYS)

    def set(self, name: str, choice: str | None) -> None:
        """Store ``always``/``deny`` for a tool, or forget its choice (``None``: ask again)."""
        if choice is None:
            self.stored.pop(name, None)
        elif choice in STORED:
            self.stored[name] = choice
        if self.on_change is not None:
            self.on_change(dict(self.stored))


def saving_to(store: SettingsStore) -> Callable[[dict[str, str]], None]:
    """An ``on_change`` that keeps the choices in the settings."""

    def save(choices: dict[str, str]) -> None:
        tools = dataclasses.replace(store.current.tools, permissions=dict(choices))
        store.update(tools=tools)

    return save
