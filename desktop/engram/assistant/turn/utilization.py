"""Did an answer use what it was given? It did when it agrees with it; and the chips under it.

An answer agrees with a memory (or an earlier message) when it

1. draws on it: it repeats enough of the memory's distinctive terms (words of four letters or
   more that are not stopwords, and CJK bigrams: two of them, or half), a term counting when the
   answer has it or an inflection of it ("lives" and "live"), as the learning credit finds a
   lesson's situation in a message (:func:`engram.assistant.learning.signals.same_term`); and
2. says nothing against it: no sentence of the answer that restates it (shares one of its terms)
   gives another number where the memory gives one ("Lily is 9" for "Lily is 7", "两点" for
   "九点"), names another name and not the memory's where the memory names one ("You live in
   Paris" for "lives in Lyon"), or negates what the memory states or states what it negates
   ("not allergic" for "allergic", "You eat meat" for "does not eat meat"). Numbers, names and
   negation decide, as they decide whether a new statement corrects a memory
   (:mod:`engram.memory.changes`).

So "You live in Paris." does not use "The user lives in Lyon.", and "周一上午两点上课" does not
use "用户周六上午九点上课" however many words they share. The eval can add a judge pass on top.

:func:`chips` makes the chips of an answer from what it was given, for the live answer and for
the answer of a chat opened again alike (``Assistant.chips``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping, Sequence

from engram.assistant.events import Recalled
from engram.assistant.learning.signals import same_term
from engram.assistant.turn import recitation
from engram.memory import changes
from engram.memory.kinds import PLAN
from engram.memory.text import query_terms

MIN_SHARED = 2
MIN_SHARE = 0.5
# A negation reaches this many tokens ahead ("not allergic", "don't eat meat", "不过敏"), and
# never past a punctuation mark ("No, you live in Lyon").
NEGATION_REACH = 2
_PAUSE = re.compile(r"[,.;:!?，。；：！？、]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def distinctive(text: str) -> set[str]:
    """The terms of a text that carry its meaning."""
    return {t for t in query_terms(text) if len(t) >= 4 or not t.isascii()}


def agrees(answer: str, memory: str) -> bool:
    """Does the answer draw on the memory and say nothing against it (see the module)?"""
    terms = distinctive(memory)
    if not terms or not _draws_on(distinctive(answer), terms):
        return False
    stated = _Statement(memory)
    return not any(
        stated.contradicted_by(_Statement(sentence), terms)
        for line in answer.splitlines()
        for sentence in recitation.sentences(line)
    )


def used(answer: str, items: Sequence[Recalled]) -> list[Recalled]:
    """The items the answer agrees with (:func:`agrees`)."""
    return [item for item in items if agrees(answer, item.content)]


def chips(
    answer: str,
    notes: Sequence[Recalled],
    system: Sequence[Recalled],
    sources: Mapping[int, Collection[int]],
) -> tuple[tuple[Recalled, ...], tuple[Recalled, ...]]:
    """The chips under an answer, and those it used, from what it was given: ``notes`` (its
    memory block, memories and earlier messages in order) and ``system`` (its system part: the
    plan, pinned and saved memories); ``sources``: the earlier messages each memory was made
    from (by memory id).

    The plan comes first, used (the answer follows it). One chip per memory: an earlier message
    a memory given was made from is folded into that memory's chip, not shown as a chip of its
    own. A memory of the system part is shown when it was used or holds a message (the others
    are given to every answer). A chip is used when the answer agrees with its memory or with a
    message folded into it.
    """
    given = [*notes, *system]
    maker: dict[int, int] = {}  # an earlier message's id → the given memory made from it
    for item in given:
        if item.memory_id is not None and item.label != PLAN:
            for episode in sources.get(item.memory_id, ()):
                maker.setdefault(episode, item.memory_id)
    folded: dict[int, list[Recalled]] = {}
    for item in notes:
        if item.memory_id is None and item.episode_id in maker:
            folded.setdefault(maker[item.episode_id], []).append(item)

    def chip(item: Recalled) -> Recalled:
        inside = folded.get(item.memory_id, []) if item.memory_id is not None else []
        return dataclasses.replace(item, folded=tuple(inside)) if inside else item

    def was_used(item: Recalled) -> bool:
        return item.label == PLAN or any(agrees(answer, i.content) for i in (item, *item.folded))

    plans = [chip(item) for item in system if item.label == PLAN]
    shown = [
        chip(item) for item in notes if item.memory_id is not None or item.episode_id not in maker
    ]
    for item in system:
        if item.label != PLAN and ((made := chip(item)).folded or was_used(made)):
            shown.append(made)
    ordered = (*plans, *shown)
    return ordered, tuple(item for item in ordered if was_used(item))


def _draws_on(said: set[str], terms: set[str]) -> bool:
    shared = sum(1 for term in terms if term in said or any(same_term(term, w) for w in said))
    return shared >= MIN_SHARED or shared / len(terms) >= MIN_SHARE


class _Statement:
    """One text's tokens as the agreement check reads them: its numbers, names and the terms
    it negates."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans = changes.spans(text)
        self.words = [m.group(0).lower() for m in self.spans]
        self.numbers = changes.numbers(self.spans)
        self.names = {
            m.group(0).lower()
            for i, m in enumerate(self.spans)
            if changes.is_name(m.group(0), i == 0)
        }

    def contradicted_by(self, sentence: _Statement, terms: set[str]) -> bool:
        """Does ``sentence`` restate this statement (share one of its ``terms``) and say
        something else: another number, another name, the other way round?"""
        shared = [t for t in terms if sentence.polarity(t)]
        if not shared:
            return False
        if self.numbers and sentence.numbers and not self.numbers & sentence.numbers:
            return True
        if self.names and sentence.names and not self.names & set(sentence.words):
            return True
        return any(
            {self.polarity(t), sentence.polarity(t)} == {"states", "negates"} for t in shared
        )

    def polarity(self, term: str) -> str:
        """How the text says ``term``: "states", "negates", "both" (it says it both ways), or ""
        (it does not say it)."""
        said = {self._negated(i) for i in self._places(term)}
        if not said:
            return ""
        if len(said) == 2:
            return "both"
        return "negates" if said == {True} else "states"

    def _places(self, term: str) -> list[int]:
        """Where the term is: a word or an inflection of it, or a CJK bigram's first character."""
        if _CJK.match(term):
            pair = list(term)
            return [
                i for i in range(len(self.words) - 1) if self.words[i : i + 2] == pair
            ] if len(pair) == 2 else [i for i, w in enumerate(self.words) if w == term]  # fmt: skip
        return [i for i, word in enumerate(self.words) if same_term(term, word)]

    def _negated(self, place: int) -> bool:
        for before in range(max(0, place - NEGATION_REACH), place):
            if changes.negates(self.words[before]) and not _PAUSE.search(
                self.text[self.spans[before].end() : self.spans[place].start()]
            ):
                return True
        return False
