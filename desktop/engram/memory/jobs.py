"""The persisted consolidation queue: which episodes to distill, status, attempts and backoff.

Jobs live in the ``consolidation_jobs`` table, so they survive a crash or a kill at any moment:
a job found ``running`` at start-up is put back in the queue. A conversation's episodes are
covered by consecutive, non-overlapping jobs, so the same episodes are never queued twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import apsw

from engram.core import log
from engram.memory import db, pause
from engram.memory.episodes import EPISODE_COLUMNS, Episode

_log = log.get("consolidation")
MAX_ATTEMPTS = 5
BACKOFF_SECONDS = 30.0
MAX_BACKOFF_SECONDS = 3600.0
# queued (waiting, maybe for its backoff), running (claimed by the worker), done, or parked (failed
# MAX_ATTEMPTS times; waits for the user to retry)
JobStatus = Literal["queued", "running", "done", "parked"]
_JOB_COLUMNS = (
    "id, conversation_id, first_episode_id, last_episode_id, status, attempts, last_error,"
    " next_attempt_at, reason"
)


@dataclass(frozen=True)
class Job:
    """One queued range of a conversation's episodes."""

    id: int
    conversation_id: int
    first_episode_id: int
    last_episode_id: int
    status: JobStatus
    attempts: int
    last_error: str | None
    next_attempt_at: float
    reason: str = "turns"  # the trigger that queued it ("outcome": it carries signals)


def backoff(attempts: int, base: float = BACKOFF_SECONDS) -> float:
    """Seconds to wait after the ``attempts``-th failure: doubling, capped at an hour."""
    return float(min(MAX_BACKOFF_SECONDS, base * 2 ** max(0, attempts - 1)))


class JobQueue:
    """The job queue on one connection (one queue per thread, like the store)."""

    def __init__(self, conn: apsw.Connection, base_backoff: float = BACKOFF_SECONDS) -> None:
        self.conn = conn
        self.base_backoff = base_backoff

    def enqueue(
        self, conversation_id: int, up_to_episode_id: int | None = None, reason: str = "turns"
    ) -> Job | None:
        """Queue the conversation's episodes not yet covered by a job (up to an episode id).

        The job takes the conversation's outcome signals no job has taken yet (those on its
        answers, and those whose answer was dropped by a regenerate or an edit); when every
        episode is covered but such signals wait (a thumb on an older answer), the job covers
        the signalled answers and the user messages before them again. Returns None when there
        is nothing new to distill (excluded episodes do not count).
        """
        limit = up_to_episode_id if up_to_episode_id is not None else 2**62
        with db.transaction(self.conn):
            covered = db.scalar(
                self.conn,
                "SELECT COALESCE(MAX(last_episode_id), 0) FROM consolidation_jobs"
                " WHERE conversation_id = ?",
                (conversation_id,),
            )
            span = db.one(
                self.conn,
                "SELECT MIN(id) AS first, MAX(id) AS last FROM episodes"
                " WHERE conversation_id = ? AND id > ? AND id <= ? AND excluded = 0",
                (conversation_id, covered, limit),
            )
            signalled = self._signalled_span(conversation_id)
            if span is None or span["first"] is None:
                if signalled is None:
                    return None
                span = signalled
            elif signalled is not None:  # older answers the user judged are read again
                span = {"first": min(span["first"], signalled["first"]), "last": span["last"]}
            now = time.time()
            self.conn.execute(
                "INSERT INTO consolidation_jobs(conversation_id, first_episode_id,"
                " last_episode_id, created_at, updated_at, reason) VALUES (?, ?, ?, ?, ?, ?)",
                (conversation_id, span["first"], span["last"], now, now, reason),
            )
            job_id = self.conn.last_insert_rowid()
            self.conn.execute(
                "UPDATE signals SET job_id = ? WHERE job_id IS NULL AND conversation_id = ?"
                " AND (answer_episode_id IS NULL OR answer_episode_id BETWEEN ? AND ?)",
                (job_id, conversation_id, span["first"], span["last"]),
            )
        _log.info("queued job %d: conversation %d episodes %s", job_id, conversation_id, span)
        return self.get(job_id)

    def _signalled_span(self, conversation_id: int) -> dict[str, int] | None:
        """The answers with signals no job has taken, from the user message before the first."""
        found = db.one(
            self.conn,
            "SELECT MIN(answer_episode_id) AS first, MAX(answer_episode_id) AS last"
            " FROM signals WHERE job_id IS NULL AND conversation_id = ?",
            (conversation_id,),
        )
        if found is None or found["last"] is None:
            return None
        first, last = int(found["first"]), int(found["last"])
        asked = db.scalar(
            self.conn,
            "SELECT MAX(id) FROM episodes WHERE conversation_id = ? AND id < ? AND role = 'user'",
            (conversation_id, first),
        )
        return {"first": int(asked if asked is not None else first), "last": int(last)}

    def uncover(self, conversation_id: int, from_episode_id: int) -> None:
        """The conversation's episodes from this id on are being dropped (regenerate, edit).

        No job covers them any more, so the messages that replace them are distilled (SQLite
        may even give those the same ids): a queued job within them is dropped (its signals
        wait for the next job) and the others end before them. A running job is left alone.
        """
        with db.transaction(self.conn):
            self.conn.execute(
                "DELETE FROM consolidation_jobs WHERE conversation_id = ? AND status = 'queued'"
                " AND first_episode_id >= ?",
                (conversation_id, from_episode_id),
            )
            self.conn.execute(
                "UPDATE consolidation_jobs SET last_episode_id = ? WHERE conversation_id = ?"
                " AND last_episode_id >= ? AND status != 'running'",
                (from_episode_id - 1, conversation_id, from_episode_id),
            )

    def enqueue_all(self) -> list[Job]:
        """Queue every conversation's uncovered episodes (at app exit)."""
        pending = db.rows(
            self.conn,
            "SELECT DISTINCT e.conversation_id AS cid FROM episodes e WHERE e.id > COALESCE("
            "(SELECT MAX(j.last_episode_id) FROM consolidation_jobs j"
            " WHERE j.conversation_id = e.conversation_id), 0)",
        )
        return [
            job for row in pending if (job := self.enqueue(row["cid"], reason="exit")) is not None
        ]

    def recover(self) -> int:
        """Put jobs left ``running`` by a crash or kill back in the queue; returns how many."""
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE consolidation_jobs SET status = 'queued', next_attempt_at = 0,"
                " updated_at = ? WHERE status = 'running'",
                (time.time(),),
            )
            count = self.conn.changes()
        if count:
            _log.info("requeued %d interrupted job(s)", count)
        return count

    def claim(self, now: float | None = None) -> Job | None:
        """Take the oldest due job and mark it running (counting the attempt); None while
        memory is paused (in any process: the jobs wait until it is resumed)."""
        now = time.time() if now is None else now
        with db.transaction(self.conn):
            if pause.paused(self.conn):
                return None
            job_id = db.scalar(
                self.conn,
                "SELECT id FROM consolidation_jobs WHERE status = 'queued'"
                " AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 1",
                (now,),
            )
            if job_id is None:
                return None
            self.conn.execute(
                "UPDATE consolidation_jobs SET status = 'running', attempts = attempts + 1,"
                " updated_at = ? WHERE id = ?",
                (now, job_id),
            )
        return self.get(int(job_id))

    def complete(self, job_id: int) -> None:
        """The job is done: the dropped answers its signals kept for it are not kept longer."""
        with db.transaction(self.conn):
            self._set(job_id, "status = 'done', last_error = NULL")
            self.conn.execute("UPDATE signals SET replaced = NULL WHERE job_id = ?", (job_id,))

    def fail(self, job: Job, error: str, now: float | None = None) -> Job:
        """Record a failed attempt: retry later with backoff, or park after too many attempts."""
        now = time.time() if now is None else now
        error = log.scrub(error)  # a provider may echo the API key in its error body
        current = self.get(job.id)
        attempts = current.attempts if current else job.attempts
        if attempts >= MAX_ATTEMPTS:
            self._set(job.id, "status = 'parked', last_error = ?", error)
            _log.warning("job %d parked after %d attempts: %s", job.id, attempts, error)
        else:
            due = now + backoff(attempts, self.base_backoff)
            self._set(job.id, "status = 'queued', last_error = ?, next_attempt_at = ?", error, due)
            _log.info("job %d failed (attempt %d), retry at %.0f: %s", job.id, attempts, due, error)
        return self.get(job.id) or job

    def defer(self, job: Job, reason: str, delay: float) -> None:
        """Put a job back without counting the attempt (the distiller is unavailable, not wrong)."""
        self._set(
            job.id,
            "status = 'queued', attempts = MAX(0, attempts - 1), last_error = ?,"
            " next_attempt_at = ?",
            log.scrub(reason),
            time.time() + delay,
        )

    def retry_parked(self) -> int:
        """Give parked jobs a fresh start (the user asked to retry); returns how many."""
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE consolidation_jobs SET status = 'queued', attempts = 0,"
                " next_attempt_at = 0 WHERE status = 'parked'"
            )
            return int(self.conn.changes())

    def get(self, job_id: int) -> Job | None:
        row = db.one(
            self.conn, f"SELECT {_JOB_COLUMNS} FROM consolidation_jobs WHERE id = ?", (job_id,)
        )
        return Job(**row) if row else None

    def jobs(self, status: JobStatus | None = None) -> list[Job]:
        where = "WHERE status = ?" if status else ""
        return [
            Job(**row)
            for row in db.rows(
                self.conn,
                f"SELECT {_JOB_COLUMNS} FROM consolidation_jobs {where} ORDER BY id",
                (status,) if status else (),
            )
        ]

    def counts(self) -> dict[JobStatus, int]:
        """How many jobs have each status (a status without jobs is left out)."""
        return {
            row["status"]: int(row["n"])
            for row in db.rows(
                self.conn, "SELECT status, COUNT(*) AS n FROM consolidation_jobs GROUP BY status"
            )
        }

    def next_due(self) -> float | None:
        """When the next queued job becomes due (None when the queue is empty)."""
        value = db.scalar(
            self.conn, "SELECT MIN(next_attempt_at) FROM consolidation_jobs WHERE status='queued'"
        )
        return None if value is None else float(value)

    def episodes(self, job: Job) -> list[Episode]:
        """The job's episodes in conversation order (deleted and excluded ones are left out)."""
        return [
            Episode.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE conversation_id = ?"
                " AND id BETWEEN ? AND ? AND status = 'complete' AND excluded = 0"
                " ORDER BY turn_index",
                (job.conversation_id, job.first_episode_id, job.last_episode_id),
            )
        ]

    def _set(self, job_id: int, assignments: str, *params: object) -> None:
        with db.transaction(self.conn):
            self.conn.execute(
                f"UPDATE consolidation_jobs SET {assignments}, updated_at = ? WHERE id = ?",
                (*params, time.time(), job_id),
            )
