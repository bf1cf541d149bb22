"""Outcome signals: what the user's reaction says about an answer, detected cheaply and locally.

A signal is a typed record linked to the answer episode it judges. The window and the terminal
send the explicit ones (thumbs, "this memory is wrong", regenerate, edit and resend);
:func:`detect` finds the implicit ones in the next user message with regular expressions and
word overlap only (no model call on the foreground path): a correction, praise or thanks, and the
same question asked again.
Tool outcomes (an error, a result the user accepted) use the same record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from engram.memory.text import query_terms

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
KINDS: tuple[SignalKind, ...] = get_args(SignalKind)
POSITIVE: frozenset[SignalKind] = frozenset({"thumbs_up", "praise", "tool_accepted"})
# Signals that ask the distiller for a lesson (every kind but a plain "memory is wrong" chip,
# which judges one memory rather than how the answer was made).
LESSON_KINDS: frozenset[SignalKind] = frozenset(KINDS) - {"memory_wrong"}
# Tool outcomes come on every answer that called a tool, without the user doing anything: they
# ride with the conversation's next job (every N turns, idle, exit, or the next signal below)
# rather than queue a large-model job per answer. The others ask for a lesson job at once.
TOOL_OUTCOMES: frozenset[SignalKind] = frozenset({"tool_error", "tool_accepted"})
AT_ONCE: frozenset[str] = frozenset(LESSON_KINDS - TOOL_OUTCOMES)
# A message repeats an earlier one when this share of their terms is shared (Jaccard) ...
REPEAT_OVERLAP = 0.6
# ... and the earlier one has at least this many terms (short replies like "ok" never repeat).
REPEAT_MIN_TERMS = 3

_CORRECTION_EN = re.compile(
    r"^\s*(?:no|nope)\b[\s,.!]*(?:that'?s|that is|it'?s|you'?re|you are)?\s*"
    r"(?:wrong|not (?:right|correct|true)|incorrect|mistaken)"
    r"|^\s*(?:that'?s|that is|you'?re|you are)\s+(?:wrong|not (?:right|correct)|incorrect|mistaken)"
    r"|^\s*actually\b[\s,]"
    r"|^\s*(?:wrong|incorrect)\b"
    r"|^\s*no\s*[,.!]\s*(?:I|it|the|my)\b"
    # how to answer from now on: "please always …", "next time …", "in kilometres, not miles"
    r"|^\s*(?:please\s+)?(?:always|never|from now on|next time|in (?:the )?future)\b"
    r"|\w,\s*not\s+(?:in\s+)?\w+\s*[.!]?\s*$"
    r"|\w,\s*not\s+(?:in\s+)?\w+[.;]",
    re.IGNORECASE,
)
_CORRECTION_ZH = re.compile(
    r"不对|错了|不是这样|说错|搞错|不正确|其实(?:是|不)|以后(?:请|要|都|用)|下次|不要用|别用"
)
_PRAISE_EN = re.compile(
    r"\b(?:thanks?(?:\s+you)?|thx|ty)\b(?!-)"
    r"|\b(?:that|it|this)\s+(?:worked|works|helped|helps|did it|did the trick)\b"
    r"|\b(?:perfect|exactly(?:\s+(?:right|what I (?:wanted|needed)))?|spot on|well done)\b"
    r"|\b(?:great|good|nice|excellent|helpful|useful)\s+(?:answer|job|work|one)\b"
    r"|^\s*(?:great|awesome|excellent|brilliant|nice)\s*[!.]*\s*$",
    re.IGNORECASE,
)
_PRAISE_ZH = re.compile(
    r"谢谢|多谢|感谢|有用|有帮助|管用|好用|成功了|解决了|可以了|完美|太好了|很好|非常好|正是我要的|没错"
)
# Thanks that only close a request ("no thanks", "thanks anyway") are not praise.
_NOT_PRAISE = re.compile(r"\bno,?\s+thanks?\b|\bthanks?\s+anyway\b|不用了?谢谢|不谢", re.IGNORECASE)


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


def is_correction(text: str) -> bool:
    """Does the message correct the assistant ("no, that's wrong", "actually, …", "不对")?"""
    return bool(_CORRECTION_EN.search(text) or _CORRECTION_ZH.search(text[:12]))


def is_praise(text: str) -> bool:
    """Does the message praise or thank ("that worked, thanks", "谢谢，很有用") and not correct?"""
    if is_correction(text) or _NOT_PRAISE.search(text):
        return False
    return bool(_PRAISE_EN.search(text) or _PRAISE_ZH.search(text[:40]))


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


def detect(text: str, answer_episode_id: int, recent: Sequence[str] = ()) -> Signal | None:
    """The signal a new user message gives about the answer before it, if any.

    ``recent`` are the user's earlier messages of the conversation (the question that answer
    replied to among them). A correction wins over a repeat, a repeat over praise.
    """
    if is_correction(text):
        return Signal("correction", answer_episode_id, text)
    if is_repeat(text, recent):
        return Signal("repeat", answer_episode_id, text)
    if is_praise(text):
        return Signal("praise", answer_episode_id, text)
    return None
