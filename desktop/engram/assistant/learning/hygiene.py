"""Memory hygiene after consolidation: decay, expiry, merging, caps and retiring bad lessons.

Everything is reversible: memories change status (archived) or importance, nothing is deleted,
and the reason is written into the memory's meta.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from engram.core import log
from engram.memory import kinds
from engram.memory.records import Memory
from engram.memory.store import MemoryStore

_log = log.get("consolidation")
DAY = 86400.0


@dataclass(frozen=True)
class Policy:
    """Hygiene settings; the defaults suit a personal assistant used daily."""

    decay_after_days: float = 30.0  # unused this long, importance starts to halve...
    half_life_days: float = 90.0  # ...every this many days
    min_importance: float = 0.05
    plan_expiry_days: float = 60.0  # a plan nobody used for this long is archived
    merge_cosine: float | None = None  # None: the embedder's duplicate floor, per language
    retire_feedback: int = -2  # a credited memory (a lesson) voted down this far is archived
    caps: dict[str, int] = field(default_factory=kinds.caps)  # each kind's (memory.kinds)


@dataclass
class Report:
    decayed: int = 0
    expired: int = 0
    merged: int = 0
    capped: int = 0
    retired: int = 0


def run(store: MemoryStore, policy: Policy | None = None, now: float | None = None) -> Report:
    """One hygiene pass over the active memories."""
    policy = policy or Policy()
    now = time.time() if now is None else now
    report = Report()
    active = store.memories(statuses=("active",), limit=100_000)
    for memory in active:
        if memory.pinned:
            continue
        if kinds.POLICIES[memory.kind].credited and memory.feedback <= policy.retire_feedback:
            _archive(store, memory, "retired: negative feedback")
            report.retired += 1
        elif memory.kind == kinds.PLAN and _idle_days(memory, now) > policy.plan_expiry_days:
            _archive(store, memory, "expired")
            report.expired += 1
        elif _decay(store, memory, policy, now):
            report.decayed += 1
    report.merged = _merge(store, policy)
    report.capped = _cap(store, policy)
    if any(vars(report).values()):
        _log.info("hygiene: %s", report)
    return report


def _idle_days(memory: Memory, now: float) -> float:
    return (now - (memory.last_used_at or memory.created_at)) / DAY


def _archive(store: MemoryStore, memory: Memory, why: str) -> None:
    store.update(memory.id, status="archived", meta={**memory.meta, "archived": why})


def _decay(store: MemoryStore, memory: Memory, policy: Policy, now: float) -> bool:
    """Halve importance per half-life of disuse (from where the last pass stopped)."""
    unused_since = (memory.last_used_at or memory.created_at) + policy.decay_after_days * DAY
    start = max(unused_since, float(memory.meta.get("decayed_at", 0.0)))
    if now <= start:
        return False
    factor = math.pow(0.5, (now - start) / (policy.half_life_days * DAY))
    importance = max(policy.min_importance, memory.importance * factor)
    if memory.importance - importance < 0.01:
        return False
    store.fade(memory.id, importance, {**memory.meta, "decayed_at": now})
    return True


def _strength(memory: Memory) -> tuple[float, int, float]:
    return (memory.importance + 0.1 * memory.feedback, memory.use_count, memory.created_at)


def _merge(store: MemoryStore, policy: Policy) -> int:
    """Archive the weaker of two active memories of the same kind that say the same thing."""
    if store.index is None:
        return 0
    merged = 0
    for kind in {m.kind for m in store.memories(limit=100_000)}:
        group = sorted(store.memories(kinds=(kind,), limit=5000), key=_strength, reverse=True)
        vectors = store.index.get("memories", [m.id for m in group])
        kept: list[tuple[Memory, np.ndarray]] = []
        for memory in group:
            vec = vectors.get(memory.id)
            if vec is None:
                continue
            vec = vec.reshape(-1)
            floor = policy.merge_cosine or store.floors(memory.content).duplicate
            twin = next((k for k, v in kept if float(np.dot(v, vec)) >= floor), None)
            if twin is not None and not memory.pinned:
                _archive(store, memory, f"merged into #{twin.id}")
                merged += 1
            else:
                kept.append((memory, vec))
    return merged


def _cap(store: MemoryStore, policy: Policy) -> int:
    """Archive the weakest unpinned memories of a kind beyond its cap."""
    capped = 0
    for kind in {m.kind for m in store.memories(limit=100_000)}:
        cap = policy.caps[kind]
        group = sorted(store.memories(kinds=(kind,), limit=100_000), key=_strength, reverse=True)
        for memory in [m for m in group if not m.pinned][max(0, cap - _pinned(group)) :]:
            _archive(store, memory, "over the cap")
            capped += 1
    return capped


def _pinned(group: list[Memory]) -> int:
    return sum(m.pinned for m in group)
