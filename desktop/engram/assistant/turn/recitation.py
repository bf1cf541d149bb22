"""An answer that recites its prompt instead of answering, caught before the user sees it.

Given lessons, the small model sometimes answers with one of them ("Temperatures in Celsius,
please." to "At what temperature does water boil?"), with the block's header, or with the
question itself. On ``engram eval tasks-en --limit 10`` with Qwen2.5-Coder-0.5B answering, 3 of
the 6 answers that passed without memory and failed with it were such recitations (and a fourth
in a test that failed both ways).

While the opening of an answer could still be the start of a lesson, a header or the message, it
is held back; an ordinary answer parts from all of them within a few words and is shown at once.
Once it has copied enough of one, the turn answers again without the memory block, as it does
when an answer given notes ends having said nothing but a tag ("<response>"). A recalled
fact or earlier message is no suspect: quoting "The wifi password is hunter2" is an answer.
"""

from __future__ import annotations

import enum
import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

_NOT_WORD = re.compile(r"[\W_]+")
# A tag the model wraps a copy in ("<note>Use the calculator tool …") is no part of it, nor is
# a label in front ("Lessons:" of a header, which the 0.5B gave back as "Marketers: how the user
# wants to be answered …").
_TAG = re.compile(r"</?[A-Za-z][\w-]{0,23}>")
_LABEL = re.compile(r"^[^\W\d_][\w ]{0,18}[:：]")
# A lone first word may yet become such a label: held until the next piece (one token).
_LONE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{0,18}")
# So may an opening of tags whose last is still being written ("<res" of "<response>").
_PART_TAG = re.compile(r"(?:</?[A-Za-z][\w-]{0,23}>\s*)*</?[A-Za-z]?[\w-]{0,23}")
# Copied from a suspect's start, this share of it (and at least MIN_CHARS letters or digits,
# spaces and punctuation left out) is a recitation: "Temperatures in Cels" of the lesson above,
# the first six characters of "重量请用公斤说，不要用斤或者磅"; of a long one (a header) MAX_CHARS
# are enough. Shorter suspects ("Thanks!", "早上好") are left out: an answer may well open with
# them.
SHARE = 0.4
MIN_CHARS = 6
MAX_CHARS = 24
MIN_SUSPECT = 8
# From this many letters on, an opening this similar to a suspect's start counts as a copy.
FUZZY_FROM = 8
SIMILAR = 0.85


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def sentences(text: str) -> list[str]:
    """The sentences of a prompt text, each a suspect of its own (an answer copies one)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def normalised(text: str) -> str:
    """Letters and digits only, case folded, tags and a leading label left out: how much of a
    suspect an opening copies."""
    return _NOT_WORD.sub("", _LABEL.sub("", _TAG.sub("", text).strip()).casefold())


class Verdict(enum.Enum):
    HOLD = "hold"  # could still be a recitation: show nothing yet
    PASS = "pass"  # parted from every suspect: an answer
    RECITED = "recited"


@dataclass(frozen=True)
class Guard:
    """The texts an answer must not open by copying, normalised, each with how many of its
    letters a copy takes."""

    suspects: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, copied: Iterable[str], repeated: Iterable[str] = ()) -> Guard | None:
        """A guard against answers that open with a good part of one of ``copied`` (the lessons
        given, the headers) or with the whole of one of ``repeated`` (the message: an answer
        may well open with its words, "荷兰的首都是阿姆斯特丹。" to "荷兰的首都是哪里？");
        None when none is long enough to tell."""
        part = (
            (s, math.ceil(min(max(MIN_CHARS, SHARE * len(s)), MAX_CHARS)))
            for t in copied
            if len(s := normalised(t)) >= MIN_SUSPECT
        )
        whole = ((s, len(s)) for t in repeated if len(s := normalised(t)) >= MIN_SUSPECT)
        kept = tuple(dict.fromkeys([*part, *whole]))
        return cls(kept) if kept else None

    def verdict(self, opening: str) -> Verdict:
        said = normalised(opening)
        stripped = opening.strip()
        if not said or _LONE_WORD.fullmatch(stripped) or _PART_TAG.fullmatch(stripped):
            return Verdict.HOLD
        alive = False
        for suspect, enough in self.suspects:
            head = said[: len(suspect)]
            if not _alike(head, suspect[: len(head)]):
                continue
            if len(head) >= enough:
                return Verdict.RECITED
            alive = True
        return Verdict.HOLD if alive else Verdict.PASS


def _alike(said: str, suspect: str) -> bool:
    """The same text, or nearly once a few letters are in: the 0.5B recited "Temperatures in
    Celsius, please." as "Temperature in Celsius, please."."""
    if len(said) < FUZZY_FROM:
        return said == suspect
    return SequenceMatcher(None, said, suspect, autojunk=False).ratio() >= SIMILAR


class Holder:
    """Holds an answer's first pieces while its guard cannot yet tell."""

    def __init__(self, guard: Guard | None) -> None:
        self.guard = guard
        self._held: list[str] = []

    def feed(self, piece: str) -> list[str] | None:
        """The pieces to show now ([] while held back); None: the answer recites."""
        if self.guard is None:
            return [piece]
        self._held.append(piece)
        verdict = self.guard.verdict("".join(self._held))
        if verdict is Verdict.RECITED:
            return None
        return [] if verdict is Verdict.HOLD else self.release()

    def said_nothing(self) -> bool:
        """Is what is still held at the answer's end nothing but tags and punctuation? Given
        notes, the small model answered a price question with "<response>" and nothing else:
        no answer, asked again without memory like a recitation. A
        symbol is something said ("👍", or the 135M model's row of stars)."""
        if self.guard is None:
            return False
        left = _TAG.sub("", "".join(self._held))
        return all(c.isspace() or unicodedata.category(c).startswith("P") for c in left)

    def release(self) -> list[str]:
        """Everything held (the answer ended, or called a tool), and no more holding."""
        held, self._held, self.guard = self._held, [], None
        return held
