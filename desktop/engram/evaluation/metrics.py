"""Scoring answers (token F1, exact match, evidence recall) and averaging them per group."""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from typing import Any

_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ARTICLES = frozenset({"a", "an", "the", "and"})
_PUNCT = str.maketrans("", "", string.punctuation + "，。！？、；：“”‘’（）《》")


def tokens(text: str) -> list[str]:
    """Lower-cased words and single CJK characters, without punctuation and articles."""
    words = _TOKEN.findall(text.lower().translate(_PUNCT))
    return [w for w in words if w not in _ARTICLES]


def token_f1(answer: str, gold: str) -> float:
    """SQuAD-style token F1 between an answer and the gold answer."""
    said, wanted = tokens(answer), tokens(gold)
    if not said or not wanted:
        return float(said == wanted)
    common = sum((Counter(said) & Counter(wanted)).values())
    if not common:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def exact_match(answer: str, gold: str) -> float:
    """1.0 when the answer's tokens equal the gold answer's, or contain them as a phrase."""
    said, wanted = " ".join(tokens(answer)), " ".join(tokens(gold))
    return float(bool(wanted) and (said == wanted or f" {wanted} " in f" {said} "))


def evidence_recall(wanted: Collection[int], found: Iterable[int]) -> float | None:
    """Share of the evidence episodes among ``found`` (None when there is no evidence)."""
    if not wanted:
        return None
    return len(set(wanted) & set(found)) / len(wanted)


def agreement(pairs: Collection[tuple[float, float]]) -> tuple[float, float | None]:
    """How often two 0/1 verdicts agree, and Cohen's kappa: the agreement beyond chance.

    Kappa is None when chance alone explains every agreement (both always say the same word).
    """
    observed = sum(a == b for a, b in pairs) / len(pairs)
    first, second = (sum(p[i] for p in pairs) / len(pairs) for i in (0, 1))
    chance = first * second + (1 - first) * (1 - second)
    return observed, (observed - chance) / (1 - chance) if chance < 1 else None


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a success rate (sound at small n and near 0 or 1)."""
    if n <= 0:
        return (0.0, 1.0)
    rate = successes / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Collection[float], z: float = 1.96) -> tuple[float, float]:
    """A 95 % normal interval of a mean of scores in [0, 1] (F1), clipped to [0, 1]."""
    n = len(values)
    if n < 2:
        return (0.0, 1.0)
    centre = sum(values) / n
    spread = math.sqrt(sum((v - centre) ** 2 for v in values) / (n - 1) / n)
    return (max(0.0, centre - z * spread), min(1.0, centre + z * spread))


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summarize(
    records: Iterable[Mapping[str, Any]],
    fields: Collection[str],
    pooled: Mapping[str, Collection[int]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per group ("all", each category, each ``pooled`` name -> its categories): the count and
    the mean of each field."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault("all", []).append(record)
        groups.setdefault(f"category {record['category']}", []).append(record)
        for name, categories in (pooled or {}).items():
            if record["category"] in categories:
                groups.setdefault(name, []).append(record)
    return {
        name: {"n": len(rows), **{f: mean(r.get(f) for r in rows) for f in fields}}
        for name, rows in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0]))
    }
