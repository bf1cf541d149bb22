"""Choosing which memories fit a prompt's token budget: best value per token, little repetition."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from engram.memory.text import query_terms


class Packable(Protocol):
    @property
    def score(self) -> float: ...

    @property
    def content(self) -> str: ...


P = TypeVar("P", bound=Packable)


def _terms(content: str) -> set[str]:
    return set(query_terms(content))


def overlap(a: set[str], b: set[str]) -> float:
    """Jaccard overlap of two term sets."""
    return len(a & b) / len(a | b) if a and b else 0.0


def pack(
    items: Sequence[P],
    budget: int,
    count_tokens: Callable[[str], int],
    redundancy: float = 0.7,
    repeat: float = 0.6,
) -> list[P]:
    """Greedy selection by score per token, discounting items that repeat chosen ones.

    An item whose words overlap a chosen one by ``repeat`` or more (Jaccard) is left out.

    Returns the chosen items in descending score order; their token total never exceeds ``budget``.
    """
    costs = [max(1, count_tokens(item.content)) for item in items]
    terms = [_terms(item.content) for item in items]
    similar = [0.0] * len(items)  # each item's largest overlap with a chosen one
    chosen: list[int] = []
    left = budget
    remaining = {i for i, cost in enumerate(costs) if cost <= budget and items[i].score > 0}

    def value(i: int) -> float:
        if similar[i] >= repeat:
            return 0.0
        return float(items[i].score) * (1.0 - redundancy * similar[i]) / math.sqrt(costs[i])

    while remaining:
        best = max(remaining, key=value)
        remaining.discard(best)
        if costs[best] <= left and value(best) > 0:
            chosen.append(best)
            left -= costs[best]
            for i in remaining:
                similar[i] = max(similar[i], overlap(terms[i], terms[best]))
        remaining = {i for i in remaining if costs[i] <= left}
    return sorted((items[i] for i in chosen), key=lambda item: -item.score)
