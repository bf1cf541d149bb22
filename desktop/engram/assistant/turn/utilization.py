"""Did an answer use what it was reminded of? A cheap overlap check between answer and memories.

A memory counts as used when the answer repeats enough of its distinctive terms (words of four
letters or more that are not stopwords, and CJK bigrams). The eval can add a judge pass on top.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.assistant.events import Recalled
from engram.memory.text import query_terms

MIN_SHARED = 2
MIN_SHARE = 0.5


def distinctive(text: str) -> set[str]:
    """The terms of a text that carry its meaning."""
    return {t for t in query_terms(text) if len(t) >= 4 or not t.isascii()}


def used(answer: str, items: Sequence[Recalled]) -> list[Recalled]:
    """The recalled items whose distinctive terms the answer repeats."""
    said = distinctive(answer)
    result = []
    for item in items:
        terms = distinctive(item.content)
        shared = len(terms & said)
        if terms and (shared >= MIN_SHARED or shared / len(terms) >= MIN_SHARE):
            result.append(item)
    return result
