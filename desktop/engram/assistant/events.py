"""The typed events of one turn, consumed alike by the desktop UI and the terminal."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TurnStarted:
    """The user's message is stored."""

    conversation_id: int
    user_episode_id: int


@dataclass(frozen=True)
class Notice:
    """Something the user should know about this turn (e.g. the message was truncated)."""

    text: str


@dataclass(frozen=True)
class Token:
    """A piece of the answer."""

    text: str


@dataclass(frozen=True)
class Finished:
    """The answer is complete and stored."""

    episode_id: int
    text: str


@dataclass(frozen=True)
class Cancelled:
    """The user stopped the answer; what was generated so far is stored."""

    episode_id: int
    text: str


@dataclass(frozen=True)
class Failed:
    """The turn failed with a known error (message and hint for the user)."""

    message: str
    hint: str = ""


TurnEvent = TurnStarted | Notice | Token | Finished | Cancelled | Failed
