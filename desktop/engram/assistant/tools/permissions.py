"""Per-tool permission: allow once (for the rest of the answer), always allow, or deny; stored
choices are revocable.

Tools that only compute (calculator, date) never ask. For the others the loop asks through a
callback: the window shows an inline prompt, ``engram chat`` asks on the terminal, tests script
the answer. Without a callback an unanswered tool is denied.

Provenance decides what may change anything (issue 28, item 1), here and nowhere else: once the
answer has read text that did not come from the user (a tool's result, a file, an MCP server's
answer, the memories recall put in the prompt), a call with effects (a tool that asks and is not
``reads_only``: remember, every MCP tool) runs only on the user's yes to that very call, asked
with where the text came from; "always allow" and "allow once" given earlier do not cover it,
and the answer covers that call alone (nothing is stored: denying a planted request does not
turn the tool off, and "always" is not offered).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engram.core.settings import SettingsStore

BUILT_IN = "built-in"  # the source of Engram's own tools; an MCP tool's is its server's name
ONCE, ALWAYS, DENY = "once", "always", "deny"
CHOICES = (ONCE, ALWAYS, DENY)
STORED = (ALWAYS, DENY)
# A source of untrusted text in an answer's prompt: the memories and earlier messages recalled.
RECALLED = "recalled memories"
REMEMBER = "remember"  # the built-in tool that writes a memory: its question quotes the text


class Guarded(Protocol):
    """What a permission is asked about: a tool (``tools.base.Tool`` is one), by what it does."""

    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def needs_permission(self) -> bool: ...
    @property
    def reads_only(self) -> bool: ...


@dataclass(frozen=True)
class Question:
    """A tool that wants to run, as the user is asked about it: its name, where it comes from
    (built in, or an MCP server's name), the arguments it would run with, and what the answer
    had read before it asked (``after``: where the untrusted text came from, a file's path, a
    tool, :data:`RECALLED`; that text, not the user, may be asking for the call)."""

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

    def allowed(
        self, tool: Guarded, arguments: dict[str, Any], after: tuple[str, ...] = ()
    ) -> bool:
        """Whether this call may run, asking the user when nothing is stored for the tool
        (``after``: where the untrusted text the answer read before this call came from). A call
        with effects after untrusted text is always asked about (see the module's note)."""
        self.granted = ""
        if not tool.needs_permission:
            return True
        untrusted = bool(after) and not tool.reads_only
        choice = self.stored.get(tool.name)
        if untrusted and choice != DENY:
            choice = None  # the user's yes to this very call, knowing where it may come from
        elif choice is None and tool.name in self._this_answer:
            self.granted = ONCE
            return True  # "once" covers every call of this answer, not each one
        if choice is None:
            asked = Question(tool.name, tool.source, arguments, after)
            choice = self.ask(asked) if self.ask is not None else DENY
            if choice not in CHOICES:
                choice = DENY
            if untrusted:  # the answer is about this call: nothing stored for the tool
                choice = ONCE if choice == ALWAYS else choice
            elif choice in STORED:
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
