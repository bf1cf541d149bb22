"""Re-ranking search results by importance, pinning, feedback and recency; duplicate collapse."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engram.memory.embed import Vectors
from engram.memory.records import Hit
from engram.memory.text import normalized


@dataclass(frozen=True)
class Weights:
    """How much each signal lifts a relevant memory (relevance itself is scaled to 0..1)."""

    importance: float = 0.3
    pinned: float = 0.3
    feedback: float = 0.2
    recency: float = 0.2
    recency_days: float = 60.0


class Standing(Protocol):
    """What ranking reads of a memory (a ``Memory`` has it; so does a row of just these)."""

    @property
    def importance(self) -> float: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def feedback(self) -> int: ...
    @property
    def last_used_at(self) -> float | None: ...
    @property
    def updated_at(self) -> float: ...


def rank(relevance: float, memory: Standing, now: float, w: Weights) -> float:
    """The final score: relevance times (1 + the weighted lifts), never below 5% of relevance."""
    age_days = (now - (memory.last_used_at or memory.updated_at)) / 86400
    lift = (
        w.importance * memory.importance
        + w.pinned * memory.pinned
        + w.feedback * math.tanh(memory.feedback / 2)
        + w.recency * math.exp(-max(age_days, 0) / w.recency_days)
    )
    return relevance * max(0.05, 1.0 + lift)


def collapse(hits: list[Hit], k: int, threshold: float, vectors: dict[int, Vectors]) -> list[Hit]:
    """The best ``k`` hits, skipping any whose text or vector repeats a better one."""
    with_vector = [h.memory.id for h in hits if h.memory.id in vectors]
    position = {memory_id: i for i, memory_id in enumerate(with_vector)}
    matrix = np.stack([vectors[i] for i in with_vector]) if with_vector else np.zeros((0, 0))
    # Every pair at once. einsum, not a BLAS product: a threaded GEMM this small waits tens of
    # milliseconds for its threads right after the embedder's ONNX threads ran.
    similar = np.einsum("id,jd->ij", matrix, matrix) >= threshold
    kept: list[Hit] = []
    kept_rows: list[int] = []
    seen_text: set[str] = set()
    for hit in hits:
        text = normalized(hit.memory.content)
        row = position.get(hit.memory.id)
        if text in seen_text or (row is not None and similar[row, kept_rows].any()):
            continue
        seen_text.add(text)
        kept.append(hit)
        if row is not None:
            kept_rows.append(row)
        if len(kept) == k:
            break
    return kept
