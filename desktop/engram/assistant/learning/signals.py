"""Outcome signals: what the user's reaction says about an answer, detected cheaply and locally.

A signal is a typed record linked to the answer episode it judges. The window and the terminal
send the explicit ones (thumbs, "this memory is wrong", regenerate, edit and resend);
:func:`detect` finds the implicit ones in the next user message, from what it was read to say
(:mod:`engram.assistant.intent`: a correction, praise or thanks) and by word overlap (the same
question asked again); no model call on the foreground path.
Tool outcomes (an error, a result the user accepted) use the same record.

An answer's outcome is credited only to the lessons that bore on it (:func:`credited`): a lesson
whose situation (its "When …" part and the situations it applies to) has nothing in common with
the message the answer replied to was beside the point, whatever the answer's fate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from engram.assistant.events import SignalKind
from engram.assistant.intent import Intent
from engram.memory.records import Memory, situations_in
from engram.memory.text import query_terms

KINDS: tuple[SignalKind, ...] = get_args(SignalKind)
POSITIVE: frozenset[SignalKind] = frozenset({"thumbs_up", "praise", "tool_accepted"})
# Signals that ask the distiller for a lesson (every kind but a plain "memory is wrong" chip,
# which judges one memory rather than how the answer was made).
LESSON_KINDS: frozenset[SignalKind] = frozenset(KINDS) - {"memory_wrong"}
# The signals that credit or blame the lessons an answer was given: not "memory wrong" (it judges
# one memory), and not a correction, which is a lesson of its own and says nothing of the lessons
# that were there. In the Chinese task set, where every lesson reaches every answer (the
# English-only embedder scores all notes alike), corrections blamed and retired 8 of the 10
# lessons the user taught.
JUDGES_LESSONS: frozenset[SignalKind] = LESSON_KINDS - {"correction"}
# Tool outcomes come on every answer that called a tool, without the user doing anything: they
# ride with the conversation's next job (every N turns, idle, exit, or the next signal below)
# rather than queue a large-model job per answer. The others ask for a lesson job at once.
TOOL_OUTCOMES: frozenset[SignalKind] = frozenset({"tool_error", "tool_accepted"})
AT_ONCE: frozenset[str] = frozenset(LESSON_KINDS - TOOL_OUTCOMES)
# A message repeats an earlier one when this share of their terms is shared (Jaccard) ...
REPEAT_OVERLAP = 0.6
# ... and the earlier one has at least this many terms (short replies like "ok" never repeat).
REPEAT_MIN_TERMS = 3
# A lesson bore on an answer when the message shares a term with its situation, or (given a
# test of closeness: the embedder's ``bears`` floor) when the message is close to the situation.
_CONDITION = re.compile(
    r"^\s*(?:when(?:ever)?|if|before|after|once)\b[^,;:，；：]*|^\s*(?:当|如果|每当)[^,，;；:：]*",
    re.I,
)


@dataclass(frozen=True)
class Signal:
    """One outcome signal about one answer; ``text`` is what the user said (a correction)."""

    kind: SignalKind
    answer_episode_id: int
    text: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown signal kind {self.kind!r}")

    @property
    def positive(self) -> bool:
        """Whether the signal says the answer went well."""
        return self.kind in POSITIVE


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of two messages' content terms (words, CJK bigrams); 0 if one has none."""
    first, second = set(query_terms(a)), set(query_terms(b))
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


def is_repeat(text: str, recent: Sequence[str]) -> bool:
    """Is the message the same question as one of the recent user messages, asked again?"""
    if len(query_terms(text)) < REPEAT_MIN_TERMS:
        return False
    return any(
        len(query_terms(earlier)) >= REPEAT_MIN_TERMS and overlap(text, earlier) >= REPEAT_OVERLAP
        for earlier in recent
    )


def detect(said: Intent, answer_episode_id: int, recent: Sequence[str] = ()) -> Signal | None:
    """The signal a new user message (read once, :func:`engram.assistant.intent.read`) gives
    about the answer before it, if any.

    ``recent`` are the user's earlier messages of the conversation (the question that answer
    replied to among them). A correction wins over a repeat, a repeat over praise.
    """
    if said.correction:
        return Signal("correction", answer_episode_id, said.text)
    if is_repeat(said.text, recent):
        return Signal("repeat", answer_episode_id, said.text)
    if said.praise:
        return Signal("praise", answer_episode_id, said.text)
    return None


def situation(lesson: Memory) -> list[str]:
    """When a lesson applies: the situations the distiller listed, and its "When …" part
    (the whole lesson when it has none)."""
    found = _CONDITION.match(lesson.content)
    return [*situations_in(lesson.meta), found.group(0) if found else lesson.content]


def bears_on(lesson: Memory, asked: str, close: Callable[[str, str], bool] | None = None) -> bool:
    """Did the lesson's situation come up in the message the answer replied to? A shared term
    (inflections allowed: "distance"/"distances", CJK bigrams) or, with ``close`` (are these
    two texts close in meaning?), a situation close to the message."""
    said = set(query_terms(asked))
    if not said:
        return False
    places = situation(lesson)
    for place in places:
        for term in query_terms(place):
            if term in _FRAME:
                continue
            if any(same_term(term, word) for word in said):
                return True
    return close is not None and any(close(p, asked) for p in places)


def credited(
    lessons: Sequence[Memory],
    asked: str,
    close: Callable[[str, str], bool] | None = None,
) -> list[Memory]:
    """The lessons given to an answer whose outcome is theirs: those that bore on the message
    it replied to (:func:`bears_on`)."""
    return [lesson for lesson in lessons if bears_on(lesson, asked, close)]


# Words of every lesson's frame, no situation of their own.
_FRAMING = (
    "when whenever user users asks asked ask question questions answer answers about something "
    "用户 户问 问题 回答 时候 的时"
)
_FRAME = frozenset(_FRAMING.split())


def same_term(term: str, word: str) -> bool:
    """One term, inflections allowed ("distance"/"distances", "lives"/"live"): how a lesson's
    situation is found in a message (:func:`bears_on`), and a memory in an answer that used it
    (:func:`engram.assistant.turn.utilization.agrees`)."""
    return term == word or _inflected(term, word)


def _inflected(term: str, word: str) -> bool:
    if not term.isascii() or not word.isascii():
        return False
    shared = min(5, len(term), len(word))
    return shared >= 4 and term[:shared] == word[:shared]
