"""Reconciliation: each candidate becomes add, update, supersede or skip against what is known.

A deterministic guard comes first: a candidate whose text equals an existing memory (after
normalization) or whose embedding is within :data:`SAME_COSINE` of one is skipped without asking,
unless it changes a number, date, name or negation of it (:mod:`engram.memory.changes`): then it
supersedes it, whatever a model would say.
Otherwise the large model decides from the candidate and its nearest memories (mem0 style); a
decision naming a memory that was not offered falls back to a plain add.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engram.assistant.learning import signals
from engram.assistant.learning.distill import Candidate, StructuredModel, is_garbage, line_schema
from engram.core import log, prompts, sanitize
from engram.memory import changes
from engram.memory.kinds import PLAN
from engram.memory.records import Memory
from engram.memory.store import MemoryStore
from engram.memory.text import normalized

_log = log.get("consolidation")
SAME_COSINE = 0.92
RELATED_COSINE = 0.4
DISTILLED = "distilled"  # meta key: the candidate texts a memory was written from
NEIGHBOURS = 5
PLANS_CHECKED = 5  # active plans a plan candidate is compared with
SAME_GOAL = 0.5  # term overlap at which two goals are the same goal restated
ACTIONS = ("add", "update", "supersede", "skip")

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(ACTIONS)},
        "target_id": {"type": "integer"},
        "content": line_schema(200),
    },
    "required": ["decision", "target_id", "content"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    """What to do with one candidate; ``target_id`` names the memory updated/superseded/kept."""

    action: str
    target_id: int | None
    content: str
    why: str  # "new", "same text", "similar 0.95", "model"


def neighbours(store: MemoryStore, candidate: Candidate, k: int = NEIGHBOURS) -> list[Memory]:
    """The active memories related to the candidate (hybrid search, unrelated vectors left out)."""
    return [
        hit.memory
        for hit in store.search(candidate.content, k=k, dedupe=1.01)
        if hit.similarity is None or hit.similarity >= RELATED_COSINE
    ]


def guard(store: MemoryStore, candidate: Candidate, near: Sequence[Memory]) -> Decision | None:
    """Skip without asking when an existing memory says the same thing; supersede it without
    asking when it is the same statement with another number, date, name or negation."""
    text = normalized(candidate.content)
    for memory in near:
        if normalized(memory.content) == text or text in memory.meta.get(DISTILLED, ()):
            return Decision("skip", memory.id, memory.content, "same text")
    if store.index is None or not near:
        return None
    vec = store.embedder.embed([candidate.content])[0]
    stored = store.index.get("memories", [m.id for m in near])
    for memory in near:
        other = stored.get(memory.id)
        if other is not None and (cos := float(np.dot(vec, other.reshape(-1)))) >= SAME_COSINE:
            return corrected(memory, candidate) or Decision(
                "skip", memory.id, memory.content, f"similar {cos:.2f}"
            )
    return None


def corrected(memory: Memory, candidate: Candidate) -> Decision | None:
    """Supersede ``memory`` when the candidate changes what matters in it ("5 mg" → "50 mg")."""
    if changes.update_between(memory.content, candidate.content) is None:
        return None
    return Decision("supersede", memory.id, candidate.content, "a correction")


def ask(
    model: StructuredModel, candidate: Candidate, near: Sequence[Memory], language: str
) -> Decision:
    """The model's decision, checked: an unknown target or empty content falls back safely."""
    listing = "\n".join(f"[{m.id}] ({m.kind}) {sanitize.clean(m.content)}" for m in near)
    question = (
        f"NEW ({candidate.kind}): {sanitize.clean(candidate.content)}\n\nEXISTING:\n{listing}"
    )
    raw = model.structured(
        [
            {"role": "system", "content": prompts.text("reconcile", language)},
            {"role": "user", "content": question},
        ],
        SCHEMA,
        256,
    )
    action = raw.get("decision")
    target = raw.get("target_id")
    content = " ".join(str(raw.get("content") or "").split())
    if is_garbage(content):
        content = candidate.content
    known = {m.id for m in near}
    if action not in ACTIONS:
        return Decision("add", None, candidate.content, "model gave no decision")
    if action == "add":
        return Decision("add", None, candidate.content, "model")
    if target not in known:
        # The model named a memory it was not shown: never touch an unrelated memory.
        return Decision("add", None, candidate.content, f"model named unknown #{target}")
    if action == "skip":
        return Decision("skip", target, candidate.content, "model")
    return Decision(action, target, content, "model")


def already_distilled(store: MemoryStore, candidate: Candidate, conversation_id: int) -> int | None:
    """A memory (of any status) this conversation's distillation already wrote from this text."""
    return store.noted_in(conversation_id, DISTILLED, normalized(candidate.content))


def same_plan(store: MemoryStore, candidate: Candidate) -> Memory | None:
    """The active plan a plan candidate restates (same goal, maybe another step), if any."""
    spec = candidate.meta.get("plan")
    if candidate.kind != PLAN or not isinstance(spec, dict):
        return None
    goal = str(spec.get("goal", ""))
    for plan in store.memories(kinds=[PLAN], limit=PLANS_CHECKED):
        known = plan.meta.get("plan")
        if not isinstance(known, dict):
            continue
        other = str(known.get("goal", ""))
        if normalized(other) == normalized(goal) or signals.overlap(other, goal) >= SAME_GOAL:
            return plan
    return None


def decide(
    store: MemoryStore,
    model: StructuredModel,
    candidate: Candidate,
    language: str,
    conversation_id: int | None = None,
) -> Decision:
    """Add, update, supersede or skip for one candidate (from ``conversation_id``, if known)."""
    if conversation_id is not None:
        seen = already_distilled(store, candidate, conversation_id)
        if seen is not None:
            return Decision("skip", seen, candidate.content, "distilled before")
    if (plan := same_plan(store, candidate)) is not None:
        if plan.meta.get("plan") == candidate.meta.get("plan"):
            return Decision("skip", plan.id, plan.content, "plan unchanged")
        return Decision("update", plan.id, candidate.content, "plan advanced")
    near = neighbours(store, candidate)
    if not near:
        return Decision("add", None, candidate.content, "new")
    decision = guard(store, candidate, near) or ask(model, candidate, near, language)
    target = next((m for m in near if m.id == decision.target_id), None)
    if decision.action == "skip" and target is not None:
        # "Already known" must not swallow a correction, whoever judged it.
        decision = corrected(target, candidate) or decision
    if (
        decision.action in ("update", "supersede")
        and target is not None
        and normalized(decision.content) == normalized(target.content)
    ):
        return Decision("skip", target.id, target.content, f"{decision.action} changes nothing")
    return decision


def apply(
    store: MemoryStore,
    decision: Decision,
    candidate: Candidate,
    *,
    origin: str,
    conversation_id: int | None,
    job_id: int,
) -> Memory | None:
    """Carry out a decision with provenance; returns the memory written (None for skip)."""
    sources = candidate.episode_ids
    new: dict[str, Any] = {
        "kind": candidate.kind,
        "origin": origin,
        "conversation_id": conversation_id,
        "source_episodes": sources,
        "meta": {**candidate.meta, "job": job_id, DISTILLED: [normalized(candidate.content)]},
    }
    if decision.action == "add":
        return store.add(decision.content, importance=candidate.importance, **new)
    if decision.action == "supersede" and decision.target_id is not None:
        return store.supersede(decision.target_id, decision.content, **new)
    if decision.action == "update" and decision.target_id is not None:
        old = store.get(decision.target_id)
        if old is None:
            return None
        seen = [*old.meta.get(DISTILLED, ()), normalized(candidate.content)]
        meta = {**old.meta, DISTILLED: seen}
        status = {}
        if candidate.kind == PLAN and "plan" in candidate.meta:  # the structure follows the text
            meta["plan"] = candidate.meta["plan"]
            if candidate.meta["plan"].get("done"):  # finished: out of the system part, kept
                status = {"status": "archived"}
        updated = store.update(
            old.id,
            decision.content,
            importance=max(candidate.importance, old.importance),
            meta=meta,
            **status,
        )
        store.add_sources(updated.id, sources)
        return updated
    return None
