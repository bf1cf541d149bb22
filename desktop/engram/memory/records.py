"""The value types the memory store hands out: memories, provenance, search hits."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from engram.memory.episodes import Episode

# The states a memory row can hold (the table's CHECK constraints say the same); values from
# outside (the user, a distiller, an import) are checked against them before they are stored.
Kind = Literal["fact", "preference", "profile", "lesson", "summary", "plan"]
Status = Literal["active", "superseded", "archived"]  # superseded: replaced by a newer version
Origin = Literal["local", "cloud", "user"]  # distilled locally, by a cloud model, or by the user
KINDS: tuple[str, ...] = get_args(Kind)
STATUSES: tuple[str, ...] = get_args(Status)
ORIGINS: tuple[str, ...] = get_args(Origin)

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
        values["meta"] = json.loads(values["meta"] or "{}")
        return cls(**values)


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

    @property
    def content(self) -> str:
        return self.episode.content
