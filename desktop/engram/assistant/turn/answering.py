"""One answer as the turn makes it: the prompt laid out for it, what it has said and called so
far, and the helpers that decide what it may say (the words of "remember this: …", what a
recited answer copies)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engram.assistant import events, intent
from engram.assistant.events import Token
from engram.assistant.intent import Intent
from engram.assistant.tools import loop as tool_loop
from engram.assistant.tools.route import Route
from engram.assistant.turn import context
from engram.assistant.turn.chat_model import ChatModel
from engram.core import prompts
from engram.core.errors import InputError, Problem
from engram.core.stream_filter import StreamFilter
from engram.memory.kinds import LESSON
from engram.memory.store import check_content
from engram.memory.text import text_language


@dataclass(frozen=True)
class Prepared:
    """A laid-out prompt: what was fitted, recalled and put where."""

    fitted: context.Fitted
    items: list[events.Recalled]  # in the memory block
    parts: events.PromptParts
    in_system: list[events.Recalled]  # pinned memories and the current plan
    window: set[int]  # ids of the earlier messages the prompt shows verbatim
    route: Route  # the tools the answer may call, the only ones the prompt describes


@dataclass
class Answering:
    """One answer as it is made: its prompt (notes and parts, given up when it recites them)
    and what it has said and called so far."""

    conversation_id: int
    model: ChatModel
    prepared: Prepared
    quiet: Problem | None
    noted: str | None  # the answer without a model ("remember this: …" and nothing more)
    marker: str | None = None  # the episodes.model marker (the large model's answer)
    pieces: list[str] = dataclasses.field(default_factory=list)
    steps: list[tool_loop.Step] = dataclasses.field(default_factory=list)
    shown: StreamFilter = dataclasses.field(default_factory=StreamFilter)

    def __post_init__(self) -> None:
        self.items = self.prepared.items
        self.parts = self.prepared.parts


def noted(said: Intent, quiet: Problem | None) -> str | None:
    """The answer to "remember this: …" asking nothing more: the application keeps the words as
    said, and the answer says so in the words' language, with no model (the 0.5B answered
    "Remember this: I am allergic to peanuts." with "Remember to avoid peanuts.")."""
    if quiet is None and said.remember is not None and _only_kept(said.remember):
        return prompts.text("noted", text_language(said.remember))
    return None


def _only_kept(content: str) -> bool:
    """Is "remember this: ``content``" a memory to keep and nothing else (no question, not
    empty or too long to be one memory)?"""
    try:
        check_content(content)
    except InputError:
        return False
    return not intent.is_question(content)


def shown(visible: Sequence[str], pieces: list[str]) -> Iterator[Token]:
    """Pieces of the answer for the user: kept for the stored answer, and yielded."""
    for piece in visible:
        pieces.append(piece)
        yield Token(piece)


def asked_before(items: Sequence[events.Recalled]) -> list[str]:
    """The earlier questions of the user's among the notes: said back whole, they are no
    answer ("- How deep is Lake Baikal?" to "How far is Lyon from Nice?")."""
    return [i.content for i in items if i.role == "user" and intent.is_question(i.content)]


def suspects(items: Sequence[events.Recalled], parts: events.PromptParts) -> list[str]:
    """What an answer given these memories must not open by copying: the lessons, and the
    headers the prompt shows with each of their sentences, which say what to do with the notes
    (given notes, Qwen2.5-Coder-0.5B answered "At what temperature does water boil?" with the
    rules for them: "The user's message may start with notes from earlier conversations …")."""
    shows = [h for h in prompts.headers() if h in parts.block or h in parts.system]
    return [*(i.content for i in items if i.label == LESSON), *shows]
