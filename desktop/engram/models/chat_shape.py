"""Fitting Engram's chat layout to what a model's chat template accepts.

Engram always sends: a system part, the conversation, the new user message (and tool steps).
Some templates refuse parts of that: Gemma 2 and others raise on a system message, and Gemma 3,
Llama 2 and Mistral raise when two user (or two assistant) messages follow each other, which
happens after an answer that failed and was not stored. :func:`probe` renders two tiny chats
through the template once, at load, and :func:`fit` reshapes every chat to what it accepted: the
system part folded into the first user message, neighbours with the same role joined, and an
answer that opens the history window (its question fell out of the context) left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engram.core.messages import Message

_SYSTEM, _USER = "Probe system part.", "Probe user message."


@dataclass(frozen=True)
class Shape:
    """What a template accepts."""

    system_role: bool = True  # a system message renders (in place, or folded in by the template)
    alternating: bool = False  # user and assistant must alternate, starting with the user


def probe(render: Callable[[list[Message]], str]) -> Shape:
    """What ``render`` (the chat template, raising on what it refuses) accepts."""

    def renders(chat: list[Message]) -> str | None:
        try:
            return render(chat)
        except Exception:  # templates raise anything through raise_exception
            return None

    with_system = renders(
        [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": _USER}]
    )
    doubled = renders([{"role": "user", "content": _USER}, {"role": "user", "content": _USER}])
    return Shape(system_role=with_system is not None, alternating=doubled is None)


def fit(chat: list[Message], shape: Shape) -> list[Message]:
    """``chat`` in a form the template with ``shape`` renders, with every text kept."""
    if shape.system_role and not shape.alternating:
        return chat
    system: list[str] = []
    rest = list(chat)
    if not shape.system_role:
        while rest and rest[0].get("role") == "system":
            system.append(str(rest.pop(0).get("content") or ""))
    if shape.alternating:
        rest = _alternating(rest)
    if system:
        joined = "\n\n".join(part for part in system if part)
        if rest and rest[0].get("role") == "user":
            rest[0] = {**rest[0], "content": f"{joined}\n\n{rest[0].get('content') or ''}"}
        else:
            rest.insert(0, {"role": "user", "content": joined})
    return rest


def _alternating(chat: list[Message]) -> list[Message]:
    """Join neighbours with the same role; drop an answer that opens the conversation."""
    merged: list[Message] = []
    for message in chat:
        role = message["role"]
        if (
            merged
            and role in ("user", "assistant")
            and merged[-1].get("role") == role
            and _plain(message)
            and _plain(merged[-1])
        ):
            merged[-1] = {
                "role": role,
                "content": f"{merged[-1]['content']}\n\n{message['content']}",
            }
            continue
        merged.append(message.copy())
    first = next((i for i, m in enumerate(merged) if m.get("role") != "system"), len(merged))
    if first < len(merged) - 1 and merged[first].get("role") == "assistant":
        del merged[first]  # the window of history began mid-exchange: its first reply goes
    return merged


def _plain(message: Message) -> bool:
    """A message with text only (tool calls and results are never joined)."""
    return isinstance(message.get("content"), str) and set(message) <= {"role", "content"}
