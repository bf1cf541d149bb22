"""What the parts of one :class:`~engram.assistant.app.Engram` share: its settings, its session
while it is open, the answer being written, and the two rules every part asks: is memory on
(:class:`MemoryState`), and may what is said now be learned (:meth:`MemoryState.quiet`).

The managers the application is composed of (its chats, memories, learning and plan) each hold
the one :class:`AppState` of their ``Engram``, never the ``Engram`` itself, so no part imports
the facade that composes it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from engram.assistant.session import Session
from engram.assistant.turn.chat_model import ChatModel
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem, tr
from engram.core.settings import Settings
from engram.memory import pause

TEMPORARY = Problem(
    tr("This is a temporary chat: nothing said in it is remembered."),
    tr("Start a normal chat for what Engram should remember."),
)
PAUSED = Problem(
    tr("Memory is paused: Engram learns nothing new until you resume it."),
    tr("Resume it in Settings → Memory, in the memory browser or with engram memory resume."),
)


@dataclass(frozen=True)
class MemoryState:
    """Whether Engram remembers: ``on``; ``off``, with ``problem`` saying why (no embedding
    model, a damaged file); or ``paused`` by the user (nothing new is learned until resumed)."""

    mode: Literal["on", "off", "paused"]
    problem: Problem | None = None
    elsewhere: bool = False  # paused or resumed by another process, not by these settings

    @classmethod
    def of(cls, off: Problem | None, paused: bool) -> MemoryState:
        """The state of a session that opened without memory for ``off`` (None: with it), in
        a file where memory is ``paused`` or not."""
        if off is not None:
            return cls("off", off)
        return cls("paused") if paused else cls("on")

    def quiet(self, temporary: bool = False) -> Problem | None:
        """The one "may this be learned?" rule: why nothing said now may become a memory or
        teach Engram anything (memory off or paused, a ``temporary`` chat), or None when it
        may. What is said meanwhile is kept in its chat and never learned from."""
        if self.mode == "off":
            return Problem(tr("Memory is off: {why}"), why=self.problem)
        if temporary:
            return TEMPORARY
        return PAUSED if self.mode == "paused" else None


class NotReadyError(EngramError):
    """A use case that needs the session was asked for before it opened (or after it failed)."""


class AppState:
    """One Engram's settings and session (open between ``open()`` and ``close()``), and the
    answer being written: the model writing it and its cancel token."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.session: Session | None = None
        self.answering: ChatModel | None = None  # the model writing the current answer
        self.cancel = CancelToken()  # the current answer's

    def ready(self) -> Session:
        """The open session; raises :class:`NotReadyError` when there is none."""
        if self.session is None:
            raise NotReadyError(
                tr("Engram is not ready: no model is loaded."),
                tr("Wait until the model has loaded, or see why it could not load."),
            )
        return self.session

    @property
    def memory(self) -> MemoryState:
        """Whether memory is on, off (and why) or paused, now: the pause is read from the
        database, so one made by another process (``engram memory pause``, another window)
        holds here from the next message on."""
        session = self.session
        if session is None:
            return MemoryState.of(None, self.settings.memory_paused)
        paused = pause.paused(session.conn)
        state = MemoryState.of(session.memory_problem, paused)
        return dataclasses.replace(state, elsewhere=paused != self.settings.memory_paused)

    def quiet(self, conversation_id: int) -> Problem | None:
        """:meth:`MemoryState.quiet` for a chat (0: a new one, never temporary)."""
        log_ = self.ready().assistant.log
        chat = log_.conversation(conversation_id) if conversation_id else None
        return self.memory.quiet(temporary=chat is not None and chat.temporary)
