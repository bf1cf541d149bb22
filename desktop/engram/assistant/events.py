"""The typed events of one turn, consumed alike by the desktop UI and the terminal."""

from __future__ import annotations

from dataclasses import dataclass, field

from engram.assistant.prompt import PromptParts, Recalled
from engram.core.errors import Problem


@dataclass(frozen=True)
class TurnStarted:
    """The user's message is stored; ``escalated`` when the large model answers it."""

    conversation_id: int
    user_episode_id: int
    escalated: bool = False


@dataclass(frozen=True)
class Recalling:
    """Retrieval is done: these memories and earlier messages go into this answer's prompt."""

    items: tuple[Recalled, ...]
    prompt: PromptParts


@dataclass(frozen=True)
class Remembered:
    """The user said "remember this: …"; the text is stored as a memory right away."""

    memory_id: int
    content: str


@dataclass(frozen=True)
class Truncated:
    """The message was too long for the model's context; its end was left out of the prompt."""

    chars: int

    @property
    def text(self) -> str:
        return (
            f"The message is too long for the model's context; the last {self.chars:,} "
            "characters were left out of this answer (the whole message is saved)."
        )


@dataclass(frozen=True)
class Token:
    """A piece of the answer."""

    text: str


@dataclass(frozen=True)
class Finished:
    """The answer is complete and stored; ``used`` are the recalled items it draws on."""

    episode_id: int
    text: str
    recalled: tuple[Recalled, ...] = ()
    used: tuple[Recalled, ...] = field(default=())


@dataclass(frozen=True)
class Cancelled:
    """The user stopped the answer; what was generated so far is stored."""

    episode_id: int
    text: str


@dataclass(frozen=True)
class Failed:
    """The turn failed with a known error: the window translates it, the terminal prints it."""

    problem: Problem


TurnEvent = TurnStarted | Remembered | Recalling | Truncated | Token | Finished | Cancelled | Failed
