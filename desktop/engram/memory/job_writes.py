"""The writes a learning job made, kept together so the job can be undone as one.

Every write of a memory is recorded in ``memory_writes`` (:meth:`MemoryStore.record`): a memory
a job creates carries the job's id there from the start; its other writes (a text it changed, a
memory it replaced, and what the hygiene pass after it merged into what it wrote) are marked
with the job's id here, right after they are made, by the consolidation that made them. Undoing
the job (:mod:`engram.assistant.unlearn`) reads them back, newest first.
"""

from __future__ import annotations

import json
from collections.abc import Collection

import apsw

from engram.memory import db
from engram.memory.reads import IN_IDS
from engram.memory.records import Write

_COLUMNS = "memory_id, id, at, change, via, model, job_id, detail, content_before AS before"


def last(conn: apsw.Connection) -> int:
    """The id of the newest write (0 for none): what a job writes next comes after it."""
    return int(db.scalar(conn, "SELECT COALESCE(MAX(id), 0) FROM memory_writes"))


def since(conn: apsw.Connection, after: int) -> list[tuple[int, Write]]:
    """(memory id, write) of every write after ``after``, oldest first."""
    return _read(conn, f"SELECT {_COLUMNS} FROM memory_writes WHERE id > ? ORDER BY id", (after,))


def claim(conn: apsw.Connection, job_id: int, after: int, memory_ids: Collection[int]) -> None:
    """Mark the writes of ``memory_ids`` made after ``after`` as the job's."""
    with db.transaction(conn):
        conn.execute(
            f"UPDATE memory_writes SET job_id = ? WHERE id > ? AND memory_id IN {IN_IDS}",
            (job_id, after, json.dumps(sorted(memory_ids))),
        )


def of_jobs(conn: apsw.Connection, job_ids: Collection[int]) -> list[tuple[int, Write]]:
    """(memory id, write) of every write of the jobs, newest first."""
    return _read(
        conn,
        f"SELECT {_COLUMNS} FROM memory_writes WHERE job_id IN {IN_IDS} ORDER BY id DESC",
        (json.dumps(sorted(job_ids)),),
    )


def _read(conn: apsw.Connection, sql: str, params: tuple[object, ...]) -> list[tuple[int, Write]]:
    found = []
    for row in db.rows(conn, sql, params):
        memory_id = int(row.pop("memory_id"))
        found.append((memory_id, Write(**row)))
    return found
