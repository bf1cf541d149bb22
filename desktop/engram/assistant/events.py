"""What Engram tells its front ends, and the values they hand back: the typed events of a message
(consumed alike by the desktop UI and the terminal), the memories an answer was given and its
prompt, the learning thread's status, a plan, the kinds of verdict on an answer.

The front ends import from the assistant only this module, the application
(:mod:`engram.assistant.app`) and the permission types (:mod:`engram.assistant.tools.permissions`);
an import contract in ``pyproject.toml`` holds them to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engram.core import sanitize
from engram.core.errors import Problem
from engram.core.messages import Message

if TYPE_CHECKING:
    from engram.models.local import CallStats


@dataclass(frozen=True)
class Recalled:
    """One memory (or earlier message) put in front of the model for this turn."""

    label: str  # a memory kind, or "message" for an earlier raw message
    content: str
    score: float
    created_at: float
    memory_id: int | None = None
    episode_id: int | None = None
    role: str | None = None
    # A lesson's example: the question it was learnt from, answered the way the user asked.
    example: tuple[str, str] | None = None
    # On a memory's chip: the earlier messages given with it that it was made from (its
    # sources), shown in its chip rather than as chips of their own.
    folded: tuple[Recalled, ...] = ()

    def line(self, markers: frozenset[str] = frozenset()) -> str:
        """As the prompt gives it: a bullet with the text on one line, and nothing else.

        Qwen2.5-Coder-0.5B repeats what frames a note: with the kind and day in front
        ("[lesson, 2026-12-02] …") it began 4 of 8 failed answers with such a line, and with the
        speaker and day after a message ("(user, 2026-12-02)") it answered "2026-12-02" to two
        questions. The kind shows in the block's header instead (facts and messages, lessons).
        """
        return f"- {sanitize.one_line(self.content, markers)}"


def user_message(block: str, text: str) -> str:
    """The new user message with this turn's memory block in front of it."""
    return f"{block}\n\n{text}" if block else text


@dataclass(frozen=True)
class PromptParts:
    """The exact prompt of one answer, part by part, with token counts (for inspection)."""

    system: str
    history: list[Message]
    block: str
    user: str
    tokens: dict[str, int] = field(default_factory=dict)
    tools: str = ""  # the tool list a chat template renders beside the system part (JSON)
    # The given lessons' examples, as an earlier exchange right before the message (data, like
    # the history): Qwen2.5-Coder-0.5B follows a form it is shown more often than one it is told.
    examples: tuple[Message, ...] = ()

    def messages(self) -> list[Message]:
        return [
            {"role": "system", "content": self.system},
            *self.history,
            *self.examples,
            {"role": "user", "content": user_message(self.block, self.user)},
        ]

    def counted(self, count: Callable[[str], int]) -> PromptParts:
        memory = count(self.block) if self.block else 0
        tokens = {
            "system": count(self.system),
            "history": sum(count(m["content"]) for m in self.history),
            "memory": memory + sum(count(m["content"]) for m in self.examples),
            "user": count(self.user),
            "tools": count(self.tools) if self.tools else 0,
        }
        return PromptParts(
            self.system, self.history, self.block, self.user, tokens, self.tools, self.examples
        )


@dataclass(frozen=True)
class TurnStarted:
    """The user's message is stored; ``escalated`` when the large model answers it."""

    conversation_id: int
    user_episode_id: int
    escalated: bool = False


@dataclass(frozen=True)
class Recalling:
    """Retrieval is done: these memories and earlier messages go into this answer's prompt
    (``in_system``: those its system part holds, the current plan and pinned memories)."""

    items: tuple[Recalled, ...]
    prompt: PromptParts
    in_system: tuple[Recalled, ...] = ()


@dataclass(frozen=True)
class Remembered:
    """The user said "remember this: …"; the text is stored as a memory right away.

    When it corrects a memory (a different number, date, name or a negation), the old one is
    kept as superseded: ``replaced_id`` names it and ``change`` says what changed, e.g.
    ``("5 mg", "50 mg")`` for "updated: 5 mg → 50 mg".
    """

    memory_id: int
    content: str
    replaced_id: int | None = None
    change: tuple[str, str] | None = None


@dataclass(frozen=True)
class NotRemembered:
    """The user said "remember this: …" but nothing was stored: memory is off or paused, or the
    chat is temporary (``problem`` says which, for the user)."""

    problem: Problem


@dataclass(frozen=True)
class Forgotten:
    """ "forget that": the memory it meant is archived; the undo brings it back, and it is
    deleted for good once the undo is no longer offered."""

    memory_id: int
    content: str


@dataclass(frozen=True)
class NothingToForget:
    """ "forget that", but nothing was just remembered and the last answer used no memory."""


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
class ToolCalled:
    """The model asked for a tool (``arguments`` as written; ``error`` when the call could not be
    read). ``step`` counts the calls of this answer from 1."""

    step: int
    name: str
    arguments: object
    error: str = ""


@dataclass(frozen=True)
class ToolResult:
    """What the tool of step ``step`` gave back, cut for the model (``cut_chars`` left out)."""

    step: int
    name: str
    text: str
    is_error: bool
    duration_s: float
    cut_chars: int = 0


@dataclass(frozen=True)
class CallNotRead:
    """The model wrote a tool call into its answer that could not be read or may not run here:
    none of it is shown; the answer ends with what it said before, and the user is told that
    the model tried to use a tool."""


@dataclass(frozen=True)
class Finished:
    """The answer is complete and stored; ``recalled`` and ``used`` are its chips.

    ``recalled``: what it was given, as chips (``Assistant.chips``, the same for the answer
    when its chat is opened again): the plan it followed, the notes (an earlier message a
    memory shown was made from folded into that memory's chip), and the pinned or saved
    memories of its system part it used (the others are given to every answer). ``used``:
    those the answer agrees with (:func:`engram.assistant.turn.utilization.agrees`).
    ``reasoning`` is what a thinking model wrote before answering (kept out of ``text``).
    ``stats`` are a local model's numbers for the answer (speed, length; None for a cloud
    model) and ``context`` its context size, for "context used" and "cut at the length limit".
    """

    episode_id: int
    text: str
    recalled: tuple[Recalled, ...] = ()
    used: tuple[Recalled, ...] = field(default=())
    reasoning: str = ""
    stats: CallStats | None = None
    context: int = 0

    @property
    def cut(self) -> bool:
        """The answer stopped at its token limit, not where the model ended it."""
        return self.stats is not None and self.stats.generated_tokens >= self.stats.max_tokens


@dataclass(frozen=True)
class Cancelled:
    """The user stopped the answer; what was generated so far is stored (with its chips, as
    :class:`Finished` has them)."""

    episode_id: int
    text: str
    recalled: tuple[Recalled, ...] = ()
    used: tuple[Recalled, ...] = ()


@dataclass(frozen=True)
class Failed:
    """The turn failed with a known error: the window translates it, the terminal prints it.

    ``text`` is the answer said before the failure (kept on screen even when it could not be
    saved, e.g. on a full disk); when it was stored, ``episode_id`` is the answer's and
    ``recalled`` and ``used`` its chips (as :class:`Finished` has them).
    """

    problem: Problem
    text: str = ""
    recalled: tuple[Recalled, ...] = ()
    used: tuple[Recalled, ...] = ()
    episode_id: int = 0


# The verdicts on an answer: the user's (thumbs, "this memory is wrong", regenerate, edit and
# resend), read from their next message (a correction, the same question again, praise) or
# from its tool calls (engram.assistant.learning.signals).
SignalKind = Literal[
    "thumbs_up",
    "thumbs_down",
    "memory_wrong",
    "correction",
    "regenerate",
    "edit_resend",
    "repeat",
    "praise",
    "tool_error",
    "tool_accepted",
]

# What the learning thread is doing: nothing to do, waiting for the foreground, distilling, stuck.
Phase = Literal["idle", "waiting", "distilling", "failed"]
# The large model's state, as the status bar says it.
LargeModelState = Literal["not configured", "too small", "not loaded", "loading", "loaded", "cloud"]


# The steps of a learning job, in order: loading the large model, reading the chat, proposing
# memories (the long model call), checking each proposal against the memories, saving.
StepName = Literal["loading", "reading", "proposing", "checking", "saving"]


@dataclass(frozen=True)
class Step:
    """Where a learning job is, for the status bar: its step, ``done`` of ``total`` within it
    (the chat's tokens the model has read; the tokens of its proposal written so far, of at
    most ``total``; the proposals checked: 0 when not known), and its chat, ``chat`` of
    ``chats`` (those the worker is learning from one after another; 0 when not known)."""

    name: StepName
    done: int = 0
    total: int = 0
    chat: int = 0
    chats: int = 0


@dataclass(frozen=True)
class Status:
    """What the worker is doing, for the status bar."""

    state: Phase
    progress: float = 0.0  # 0..1 while distilling
    queued: int = 0
    parked: int = 0
    model: LargeModelState | Literal[""] = ""  # the large model's state ("" before it is known)
    error: Problem | None = None  # why it failed (the UI translates it)
    job_id: int | None = None
    learned: tuple[Learned, ...] = ()  # what the job just finished wrote (once, then idle)
    step: Step | None = None  # the job's step while distilling (or waiting in it)


@dataclass(frozen=True)
class Learned:
    """One memory a job wrote: ``action`` "add", "update" or "supersede" (the new memory's id);
    ``job_id``: the job, which :mod:`engram.assistant.unlearn` undoes as one."""

    memory_id: int
    action: str
    content: str
    job_id: int | None = None


@dataclass(frozen=True)
class Plan:
    """A plan memory's goal, steps and the step the user is on (``len(steps)``: all done)."""

    memory_id: int
    goal: str
    steps: tuple[str, ...]
    current: int

    @property
    def done(self) -> bool:
        return bool(self.steps) and self.current >= len(self.steps)


TurnEvent = (
    TurnStarted
    | Remembered
    | NotRemembered
    | Recalling
    | Truncated
    | Token
    | ToolCalled
    | ToolResult
    | CallNotRead
    | Finished
    | Cancelled
    | Failed
)
# What sending a message gives: a turn's events, or what "forget that" did.
Event = TurnEvent | Forgotten | NothingToForget
