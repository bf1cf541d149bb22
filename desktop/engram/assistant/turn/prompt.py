"""Prompt assembly that keeps llama.cpp's prefix cache warm and keeps memories in their place.

Layout: the stable system part (persona, rules, pinned profile memories) first, then the
append-only conversation, then this turn's memory block inside the new user message. Only the
last message changes between turns, so llama.cpp re-evaluates about the new turn plus the block.

Memories are data: each is one line of cleaned text (a bullet; line breaks become spaces) inside
a delimited block under a header that says so. Every untrusted text (memories, earlier messages,
the new message) goes through :func:`sanitize` (the one sanitiser, :mod:`engram.core.sanitize`,
with the model's own control markers), so a stored sentence cannot close the block, start a new
message or rewrite the system part; a local model also tokenises these texts without
special-token parsing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from engram.assistant.events import Recalled
from engram.core import prompts
from engram.core import sanitize as sanitize_
from engram.core.messages import Message
from engram.memory import when
from engram.memory.kinds import HEADERS, LESSON, header_of
from engram.models.capabilities import Capable

BLOCK_OPEN = "<memory>"
BLOCK_CLOSE = "</memory>"
NO_MARKERS: frozenset[str] = frozenset()


def sanitize(text: str, markers: frozenset[str] = NO_MARKERS) -> str:
    """Untrusted text as it may enter a prompt (see :func:`engram.core.sanitize.clean`).

    ``markers`` are the loaded model's own (``LocalModel.prompt_markers``); without them the
    markers of the common template families are still removed.
    """
    return sanitize_.clean(text, markers)


def markers_of(model: Capable) -> frozenset[str]:
    """A model's control markers, when it knows them (a local GGUF does; a cloud API does not)."""
    return model.capabilities.markers


_CUSTOM_LABELS = {"en": ("About me", "How to answer"), "zh_CN": ("关于我", "回答方式")}


def custom_block(
    about_you: str, answer_style: str, language: str, markers: frozenset[str] = NO_MARKERS
) -> str:
    """The user's custom instructions (Settings → Answers) as a quoted block, or ''."""
    labels = _CUSTOM_LABELS[prompts.language_of(language)]
    lines = [
        f"[{label}] {sanitize_.quoted(text, markers)}"
        for label, text in zip(labels, (about_you, answer_style), strict=True)
        if text.strip()
    ]
    return _block(prompts.CUSTOM_HEADER, lines, language) if lines else ""


def system_part(
    language: str,
    profile: Sequence[Recalled] = (),
    plan: Recalled | None = None,
    markers: frozenset[str] = NO_MARKERS,
    custom: tuple[str, str] = ("", ""),
) -> str:
    """Who the model is, the user's custom instructions, the pinned memories and the current
    plan (stable across turns).

    One short sentence of persona and nothing the model could say back: what to do with
    recalled notes is said by their block's header, only when there are notes. With rules for
    notes and its name in every system part, Qwen2.5-Coder-0.5B answered 7 of 16 everyday
    messages with neither notes nor tools by reciting them ("The user's message may start with
    notes …", "Your name is Engram.") or the message itself; with this one sentence, none.
    """
    parts = [prompts.text("system", language)]
    if block := custom_block(*custom, language, markers):
        parts.append(block)
    if profile:
        parts.append(_recalled(prompts.PROFILE_HEADER, profile, language, markers))
    if plan is not None:
        parts.append(_recalled(prompts.PLAN_HEADER, [plan], language, markers))
    return "\n\n".join(parts)


MAX_LESSONS = 3  # lessons given to one answer as guidance
# Tokens the given lessons' examples may take beside the memory block (a short letter or list).
EXAMPLE_BUDGET = 256


def examples(
    items: Sequence[Recalled],
    count: Callable[[str], int],
    markers: frozenset[str] = NO_MARKERS,
    budget: int = EXAMPLE_BUDGET,
) -> tuple[Message, ...]:
    """The examples of the given lessons (best first, while they fit ``budget`` tokens), each
    as an earlier exchange: the user's question, then the answer the way they asked for it.
    Their text is data like the history's, cleaned of control markers."""
    found: list[Message] = []
    left = budget
    given = [(i.score, i.example) for i in items if i.example is not None]
    for _, example in sorted(given, key=lambda pair: -pair[0]):
        asked, answer = (sanitize(text, markers) for text in example)
        cost = count(asked) + count(answer)
        if cost <= left:
            found += [{"role": "user", "content": asked}, {"role": "assistant", "content": answer}]
            left -= cost
    return tuple(found)


def memory_block(
    items: Sequence[Recalled],
    language: str,
    markers: frozenset[str] = NO_MARKERS,
    dated: bool = False,
) -> str:
    """This turn's recalled memories as quoted, delimited blocks ('' when there are none), one
    per header their kinds are recalled under (:mod:`engram.memory.kinds`): facts and earlier
    messages first under the memory header, then lessons in a block of their own under the
    guidance header (guidance to follow where it applies, still data). ``dated`` (the message
    asks when, :func:`engram.assistant.intent.asks_when`): each earlier message begins with the
    day it was said on, and its "yesterday" or "last week" is followed by the day it means
    (:func:`engram.memory.when.dated`).
    """
    grouped = {header: [i for i in items if header_of(i.label) == header] for header in HEADERS}
    return "\n".join(
        _block(header, [_line(i, language, markers, dated) for i in chosen], language)
        for header, chosen in grouped.items()
        if chosen
    )


def _line(item: Recalled, language: str, markers: frozenset[str], dated: bool) -> str:
    """An item's bullet; an earlier message's with its day in front when ``dated``. Never
    otherwise: with the day in front of every note the 0.5B answered questions with a date."""
    line = item.line(markers)
    if dated and item.episode_id is not None:
        said = datetime.fromtimestamp(item.created_at).date()
        return f"- {when.day_text(said, language)}: {when.dated(line[2:], item.created_at)}"
    return line


def best_lessons(items: Sequence[Recalled], limit: int = MAX_LESSONS) -> list[Recalled]:
    """``items`` with only the ``limit`` best-scored lessons (the rest unchanged, in order)."""
    lessons = sorted((i for i in items if i.label == LESSON), key=lambda i: -i.score)
    dropped = {id(i) for i in lessons[limit:]}
    return [i for i in items if id(i) not in dropped]


def _recalled(
    header: str, items: Sequence[Recalled], language: str, markers: frozenset[str]
) -> str:
    return _block(header, [item.line(markers) for item in items], language)


def _block(header: str, lines: Sequence[str], language: str) -> str:
    """Data lines in a delimited block under one of Engram's headers (:mod:`.prompts`)."""
    body = "\n".join(lines)
    return f"{BLOCK_OPEN}\n{prompts.header(header, language)}\n{body}\n{BLOCK_CLOSE}"
