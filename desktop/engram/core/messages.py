"""The one shape of a chat message, from the prompt to the model runtimes and back.

``role`` and ``content``; a tool step also carries ``tool_calls`` (the assistant's turn that
made a call, for a template that renders calls itself) or ``name`` (the tool whose result a
``tool`` message holds). One type for every layer, so a message built by the turn is the
message a runtime reads, and mypy checks every key written or read.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Role = Literal["system", "user", "assistant", "tool"]


class CalledFunction(TypedDict):
    """The function a tool call names, with its arguments (as the model wrote them)."""

    name: str
    arguments: dict[str, Any]


class ToolCallSpec(TypedDict):
    """One call in an assistant message, in the OpenAI shape chat templates read."""

    type: Literal["function"]
    function: CalledFunction


class Message(TypedDict):
    """A chat message: who says it and what; a tool step adds ``tool_calls`` or ``name``."""

    role: Role
    content: str
    tool_calls: NotRequired[list[ToolCallSpec]]
    name: NotRequired[str]
