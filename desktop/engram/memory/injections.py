"""Injections: which memories and earlier messages went into each answer's prompt (and where:
the notes or the system part), and how often each memory was used."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import apsw

from engram.memory import db
from engram.memory.records import MEMORY_COLUMNS, Memory

Place = Literal["notes", "system"]  # the memory block, or the system part


@dataclass(frozen=True)
class Given:
    """One thing an answer's prompt held: a memory or an earlier message (``episode_id``), with
    its score and its ``place``. ``counted``: it counts as a use of the memory (the plan's use
    is counted when the turn starts)."""

    score: float
    memory_id: int | None = None
    episode_id: int | None = None
    place: Place = "notes"
    counted: bool = True


@dataclass(frozen=True)
class GivenMemory:
    """A memory an answer was given, read back: the memory now, its rank, score and place."""

    memory: Memory
    rank: int
    score: float
    place: Place


@dataclass(frozen=True)
class GivenMessage:
    """An earlier message an answer was given, read back: its id, rank and score."""

    episode_id: int
    rank: int
    score: float


class Injections:
    """The ``injections`` table and the memories' use counts, on one connection."""

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn

    def record(self, answer_episode_id: int, chosen: Sequence[tuple[int, float]]) -> None:
        """Remember which memories (id, score) went into an answer's prompt; mark them used.

        Memories deleted since they were chosen are left out.
        """
        with db.transaction(self.conn):
            self.conn.executemany(
                "INSERT OR REPLACE INTO injections(answer_episode_id, memory_id, rank, score)"
                " SELECT ?, id, ?, ? FROM memories WHERE id = ?",
                [(answer_episode_id, rank, score, i) for rank, (i, score) in enumerate(chosen, 1)],
            )
            self.mark_used([i for i, _ in chosen])

    def record_given(self, answer_episode_id: int, given: Sequence[Given]) -> None:
        """Remember everything that went into an answer's prompt, ranked in order: its
        memories (each counted as used unless it says not) and its earlier messages. Memories
        and messages deleted since are left out."""
        ranked = list(enumerate(given, 1))
        with db.transaction(self.conn):
            self.conn.executemany(
                "INSERT OR REPLACE INTO injections(answer_episode_id, memory_id, rank, score,"
                " place) SELECT ?, id, ?, ?, ? FROM memories WHERE id = ?",
                [
                    (answer_episode_id, rank, g.score, g.place, g.memory_id)
                    for rank, g in ranked
                    if g.memory_id is not None
                ],
            )
            self.conn.executemany(
                "INSERT OR REPLACE INTO injected_messages(answer_episode_id, episode_id, rank,"
                " score) SELECT ?, id, ?, ? FROM episodes WHERE id = ?",
                [
                    (answer_episode_id, rank, g.score, g.episode_id)
                    for rank, g in ranked
                    if g.memory_id is None and g.episode_id is not None
                ],
            )
            self.mark_used([g.memory_id for g in given if g.memory_id is not None and g.counted])

    def given(self, answer_episode_id: int) -> tuple[list[GivenMemory], list[GivenMessage]]:
        """Everything an answer was given: its memories and its earlier messages, each in
        rank order (one order for both)."""
        columns = ", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))
        memories = []
        for row in db.rows(
            self.conn,
            f"SELECT {columns}, i.rank AS injection_rank, i.score AS injection_score,"
            " i.place AS injection_place"
            " FROM injections i JOIN memories m ON m.id = i.memory_id"
            " WHERE i.answer_episode_id = ? ORDER BY i.rank",
            (answer_episode_id,),
        ):
            rank, score = int(row.pop("injection_rank")), float(row.pop("injection_score"))
            place: Place = "system" if row.pop("injection_place") == "system" else "notes"
            memories.append(GivenMemory(Memory.from_row(row), rank, score, place))
        messages = [
            GivenMessage(int(row["episode_id"]), int(row["rank"]), float(row["score"]))
            for row in db.rows(
                self.conn,
                "SELECT episode_id, rank, score FROM injected_messages"
                " WHERE answer_episode_id = ? ORDER BY rank",
                (answer_episode_id,),
            )
        ]
        return memories, messages

    def mark_used(self, memory_ids: Sequence[int]) -> None:
        """Count a use of each memory and remember when it was last used."""
        now = time.time()
        with db.transaction(self.conn):
            self.conn.executemany(
                "UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id = ?",
                [(now, i) for i in memory_ids],
            )

    def of(self, answer_episode_id: int) -> list[tuple[Memory, int, float]]:
        """The memories given to an answer, with their rank and score, in rank order."""
        columns = ", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))
        found = db.rows(
            self.conn,
            f"SELECT {columns}, i.rank AS injection_rank, i.score AS injection_score"
            " FROM injections i JOIN memories m ON m.id = i.memory_id"
            " WHERE i.answer_episode_id = ? ORDER BY i.rank",
            (answer_episode_id,),
        )
        given = []
        for row in found:
            rank, score = int(row.pop("injection_rank")), float(row.pop("injection_score"))
            given.append((Memory.from_row(row), rank, score))
        return given
