"""What a chat model can do besides answering, declared once by the model itself.

The runtimes differ: a local GGUF renders its own chat template (so it can be offered tools),
keeps the numbers of its last answer and says how far it has read a prompt; a model behind an
OpenAI-compatible server does none of that. Each runtime states which in one frozen
:class:`Capabilities` (its ``capabilities`` attribute), and the turn, the tool loop and the
application read that, never probing the model's attributes. :func:`declared` checks a model
once, where it is handed to a turn; a model that declares nothing is refused there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Capabilities:
    """What one model runtime offers beyond ``count_tokens``, ``stream_chat`` and ``prefill``."""

    # The chat template the runtime renders chats with ('' when it is not known as text); None
    # when a server renders them, out of sight. Tools are offered only with a template: a call
    # is written in its format (or as JSON) and generated under a grammar.
    chat_template: str | None = None
    stats: bool = False  # ``last_stats`` holds the numbers of the last answer (a CallStats)
    reading: bool = False  # ``reading()`` says how far the prompt being answered was read
    # Control texts of the model's template that untrusted text may not carry into a prompt.
    markers: frozenset[str] = frozenset()

    @property
    def tools(self) -> bool:
        """Whether the model can be offered tools."""
        return self.chat_template is not None


class Capable(Protocol):
    """A model that declares its capabilities."""

    @property
    def capabilities(self) -> Capabilities: ...


def declared(model: object) -> Capabilities:
    """``model``'s capabilities, checked once where a model is handed over: one that declares
    none is a runtime written without them, refused with a :class:`TypeError` that names it."""
    found = getattr(model, "capabilities", None)
    if not isinstance(found, Capabilities):
        raise TypeError(
            f"{type(model).__name__} declares no capabilities: a chat model needs a "
            "`capabilities` attribute, an engram.models.capabilities.Capabilities (what it "
            "offers: its chat template, answer stats, reading progress)"
        )
    return found
