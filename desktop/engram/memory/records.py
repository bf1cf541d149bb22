"""The value types the memory store hands out: memories, provenance, search hits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from engram.core import log
from engram.core.errors import Problem, tr
from engram.memory.episodes import Episode
from engram.memory.kinds import Kind

_log = log.get("memory.records")

# The states a memory row can hold (the table's CHECK constraints say the same); values from
# outside (the user, a distiller, an import) are checked against them before they are stored.
# Its kind and the kind's policy: engram.memory.kinds.
Status = Literal["active", "superseded", "archived"]  # superseded: replaced by a newer version
Origin = Literal["local", "cloud", "user"]  # distilled locally, by a cloud model, or by the user
# Who wrote a memory (``memory_writes.via``): the user's own words or action ("remember this:",
# /remember, the memory browser, engram memory, the plan), a tool call the user allowed, an
# import, the distiller (with its model), hygiene; ``earlier``: written before Engram recorded it,
# ``unknown``: a caller that did not say.
Via = Literal["user", "tool", "import", "distiller", "hygiene", "earlier", "unknown"]
STATUSES: tuple[str, ...] = get_args(Status)
ORIGINS: tuple[str, ...] = get_args(Origin)
VIAS: tuple[str, ...] = get_args(Via)

# The meta key of the situations a preference or a lesson applies to (the distiller writes them;
# the store keeps each as a row of ``situations`` with a vector of its own).
SITUATIONS = "applies_to"
# A lesson's example: the question it was learnt from, answered the way the user asked
# (``{"asked": …, "answer": …}``, written by the distiller).
EXAMPLE = "example"

MEMORY_COLUMNS = (
    "id, kind, content, importance, confidence, pinned, status, superseded_by, created_at,"
    " updated_at, last_used_at, use_count, feedback, origin, conversation_id, meta"
)


@dataclass(frozen=True)
class Memory:
    """One distilled memory."""

    id: int
    kind: Kind
    content: str
    importance: float
    confidence: float
    pinned: bool
    status: Status
    superseded_by: int | None
    created_at: float
    updated_at: float
    last_used_at: float | None
    use_count: int
    feedback: int
    origin: Origin
    conversation_id: int | None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Memory:
        values = dict(row)
        values["pinned"] = bool(values["pinned"])
        values["meta"] = _meta(values["id"], values["meta"])
        return cls(**values)


def _meta(memory_id: int, text: str | None) -> dict[str, Any]:
    """A memory's stored meta, or {} (logged with the memory id) when it is not a JSON object."""
    try:
        found = json.loads(text or "{}")
    except (ValueError, RecursionError):
        found = None
    if isinstance(found, dict):
        return found
    _log.warning("memory %d: its meta is not a JSON object; ignored", memory_id)
    return {}


def plan_problem(spec: object) -> Problem | None:
    """What is wrong with a plan's meta (goal, steps, current_step), or None when it is usable."""
    if not isinstance(spec, dict):
        return Problem(tr("plan must be an object"))
    steps = spec.get("steps")
    if not isinstance(spec.get("goal", ""), str):
        return Problem(tr("plan goal must be text"))
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        return Problem(tr("plan steps must be a list of texts"))
    step = spec.get("current_step", 0)
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < max(1, len(steps)):
        return Problem(
            tr("plan current_step must be a step number from 0 to {last}"),
            last=max(0, len(steps) - 1),
        )
    return None


def plan_of(memory: Memory) -> tuple[str, list[str], int] | None:
    """A plan memory's goal, steps and current step; None (logged with its id) when unusable."""
    spec = memory.meta.get("plan")
    if spec is None:
        return None
    problem = plan_problem(spec)
    if problem is not None:
        _log.warning("memory %d: %s; shown as plain text", memory.id, problem.message)
        return None
    return str(spec.get("goal", "")), list(spec["steps"]), int(spec.get("current_step", 0))


@dataclass(frozen=True)
class Provenance:
    """Where a write of a memory comes from: ``via`` whom, the distiller's ``model``, and in
    ``detail`` what else tells it apart (the message, the file imported, the tool call and what
    the answer had read before it)."""

    via: Via
    model: str | None = None
    detail: str = ""


SUPERSEDED_BY = "superseded by #"  # the change recorded on a memory another one replaced


@dataclass(frozen=True)
class Write:
    """One recorded write of a memory: when, what changed, and where it came from; for a
    change of its text, the text it had ``before`` (None for other writes and for writes
    recorded before Engram kept it)."""

    at: float
    change: str  # created, content, kind, status → archived, pinned, superseded by #7, …
    via: Via
    model: str | None
    job_id: int | None
    detail: str
    id: int = 0
    before: str | None = None

    @property
    def replaced_by(self) -> int | None:
        """The memory that replaced this one in this write (a supersede), else None."""
        if not self.change.startswith(SUPERSEDED_BY):
            return None
        number = self.change.removeprefix(SUPERSEDED_BY)
        return int(number) if number.isdigit() else None

    @property
    def undoable(self) -> bool:
        """Can the user take this write back: a change of the text, or a replacement, that
        someone other than the user made (Engram's learning, upkeep, a tool, an import)?"""
        return self.via != "user" and (self.before is not None or self.replaced_by is not None)


@dataclass(frozen=True)
class Source:
    """Where a memory came from; ``episode_id`` is None once that conversation was deleted."""

    episode_id: int | None
    conversation_id: int | None
    turn_index: int | None
    source_deleted: bool


@dataclass(frozen=True)
class Hit:
    """A ranked memory search result with the scores that put it there."""

    memory: Memory
    score: float
    similarity: float | None
    text_rank: int | None
    sources: tuple[Source, ...] = ()

    @property
    def content(self) -> str:
        return self.memory.content


@dataclass(frozen=True)
class EpisodeHit:
    """A ranked episode (raw message) search result."""

    episode: Episode
    score: float
    similarity: float | None
    text_rank: int | None
    beside: int | None = None  # came as the neighbour of this hit, with its signals

    @property
    def content(self) -> str:
        return self.episode.content


def situations_in(meta: Mapping[str, Any]) -> list[str]:
    """The situations a memory's ``meta`` says it applies to, each once, in order."""
    listed = meta.get(SITUATIONS)
    if not isinstance(listed, list):
        return []
    texts = (item.strip() for item in listed if isinstance(item, str))
    return list(dict.fromkeys(t for t in texts if t))


def example_in(meta: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (question, answer) of a lesson's example in its ``meta``, or None."""
    example = meta.get(EXAMPLE)
    if not isinstance(example, dict):
        return None
    asked, answer = example.get("asked"), example.get("answer")
    if not isinstance(asked, str) or not isinstance(answer, str) or not asked or not answer:
        return None
    return asked, answer
