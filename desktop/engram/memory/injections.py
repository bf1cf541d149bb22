"""Injections: which memories went into each answer's prompt, and how often each was used."""

from __future__ import annotations

import time
from collections.abc import Sequence

import apsw

from engram.memory import db
from engram.memory.records import MEMORY_COLUMNS, Memory


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
