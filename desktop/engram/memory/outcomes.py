"""Outcome signals stored with their answer, and the record that holds lessons accountable.

When a signal arrives on an answer, each lesson (each memory of a kind whose outcomes are
credited, :mod:`engram.memory.kinds`) injected into that answer is credited once
(the first signal of the answer that judges the answer counts; a chip's "this memory is wrong"
judges one memory and credits nothing): helped when the signal is positive, hurt otherwise. A
lesson that helps rises (importance up); one that hurts is demoted (importance down, so it ranks
lower) and retired (status ``archived``, ``meta.retired = "hurt"``) once its hurts outweigh its
helps by :data:`RETIRE_MARGIN`. Retiring is reversible: restoring the memory makes it active.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import apsw

from engram.core import log
from engram.memory import db
from engram.memory.kinds import CREDITED
from engram.memory.reads import IN_IDS
from engram.memory.store import MemoryStore

_log = log.get("memory.outcomes")
RISE = 0.1  # importance a lesson gains when it helped
DEMOTE = 0.15  # and loses when it hurt
RETIRE_MARGIN = 2  # hurt - helped at which a lesson is retired


@dataclass(frozen=True)
class StoredSignal:
    """A signal as stored: the answer it judges (None once that answer was dropped, its text
    then kept in ``replaced`` when a regenerate or an edit dropped it), its kind and text, the
    job that took it."""

    id: int
    conversation_id: int
    answer_episode_id: int | None
    kind: str
    text: str | None
    replaced: str | None
    positive: bool
    created_at: float
    job_id: int | None


@dataclass(frozen=True)
class LessonRecord:
    """How a lesson has done: answers it went into, and the signals credited to it."""

    memory_id: int
    used: int
    helped: int
    hurt: int
    answers: tuple[int, ...]  # answer episode ids it was injected into, oldest first


@dataclass(frozen=True)
class Credit:
    """What one signal did to one lesson."""

    memory_id: int
    helped: bool
    retired: bool


_SIGNAL_COLUMNS = (
    "id, conversation_id, answer_episode_id, kind, text, replaced, positive, created_at, job_id"
)


def _signal(row: dict[str, object]) -> StoredSignal:
    return StoredSignal(**{**row, "positive": bool(row["positive"])})  # type: ignore[arg-type]


def _kinds(conn: apsw.Connection, where: str, value: int) -> set[str]:
    rows = db.rows(conn, f"SELECT DISTINCT kind FROM signals WHERE {where}", (value,))
    return {str(r["kind"]) for r in rows}


def waiting_kinds(conn: apsw.Connection, conversation_id: int) -> set[str]:
    """The kinds of the conversation's signals that no consolidation job has taken yet."""
    return _kinds(conn, "job_id IS NULL AND conversation_id = ?", conversation_id)


class Outcomes:
    """Signals and lesson credit on the store's connection."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.conn = store.conn

    def record(
        self,
        answer_episode_id: int,
        kind: str,
        positive: bool,
        text: str | None = None,
        credit: bool = True,
        bore_on: Callable[[list[int]], Collection[int]] | None = None,
    ) -> tuple[StoredSignal, list[Credit]]:
        """Store a signal on an answer and credit the lessons that went into it (unless the
        signal judges something else than the answer: ``credit`` off). ``bore_on`` picks, among
        the lessons given to the answer, the ones whose situation came up (the others were
        given but had no part in how it went: no credit, no blame)."""
        with db.transaction(self.conn):
            first = not db.scalar(  # no signal on this answer was credited yet
                self.conn,
                "SELECT COUNT(*) FROM lesson_credit c JOIN signals s ON s.id = c.signal_id"
                " WHERE s.answer_episode_id = ?",
                (answer_episode_id,),
            )
            self.conn.execute(
                "INSERT INTO signals(conversation_id, answer_episode_id, kind, text, positive,"
                " created_at) SELECT conversation_id, id, ?, ?, ?, ? FROM episodes WHERE id = ?",
                (kind, text, int(positive), time.time(), answer_episode_id),
            )
            if not self.conn.changes():
                raise ValueError(f"no answer {answer_episode_id} to judge")
            signal_id = self.conn.last_insert_rowid()
            lessons = (
                [
                    int(r["memory_id"])
                    for r in db.rows(
                        self.conn,
                        "SELECT i.memory_id FROM injections i JOIN memories m ON m.id = i.memory_id"
                        " WHERE i.answer_episode_id = ? AND m.kind IN (SELECT value FROM"
                        " json_each(?)) ORDER BY i.rank",
                        (answer_episode_id, json.dumps(CREDITED)),
                    )
                ]
                if first and credit
                else []
            )
            if bore_on is not None and lessons:
                relevant = set(bore_on(lessons))
                lessons = [memory_id for memory_id in lessons if memory_id in relevant]
            for memory_id in lessons:
                self.conn.execute(
                    "INSERT INTO lesson_credit(memory_id, signal_id, helped) VALUES (?, ?, ?)",
                    (memory_id, signal_id, int(positive)),
                )
        credits = [self._settle(memory_id, positive) for memory_id in lessons]
        _log.info(
            "signal %d (%s) on answer %d credited %d lesson(s)",
            signal_id, kind, answer_episode_id, len(credits),
        )  # fmt: skip
        stored = self.get(signal_id)
        assert stored is not None
        return stored, credits

    def _settle(self, memory_id: int, helped: bool) -> Credit:
        """Raise or demote the lesson; retire it once it hurts more than it helps."""
        lesson = self.store.get(memory_id)
        assert lesson is not None
        record = self.lesson_record(memory_id)
        importance = lesson.importance + (RISE if helped else -DEMOTE)
        retire = lesson.status == "active" and record.hurt - record.helped >= RETIRE_MARGIN
        changes: dict[str, Any] = {"importance": min(1.0, max(0.0, importance))}
        if retire:
            changes.update(status="archived", meta={**lesson.meta, "retired": "hurt"})
            helps, hurts = record.helped, record.hurt
            _log.info("lesson %d retired: helped %d, hurt %d", memory_id, helps, hurts)
        self.store.update(memory_id, **changes)
        return Credit(memory_id, helped, retire)

    def keep_replaced(self, answer_episode_id: int) -> None:
        """The answer is about to be dropped (regenerate, edit and resend): its signals keep its
        text, so the job that takes them can still show the distiller what was replaced."""
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE signals SET replaced = (SELECT content FROM episodes WHERE id = ?)"
                " WHERE answer_episode_id = ?",
                (answer_episode_id, answer_episode_id),
            )

    def conversation_of(self, answer_episode_id: int) -> int | None:
        """The conversation an answer belongs to (None when it was deleted)."""
        found = db.scalar(
            self.conn, "SELECT conversation_id FROM episodes WHERE id = ?", (answer_episode_id,)
        )
        return None if found is None else int(found)

    def judged(self, episode_ids: Sequence[int]) -> tuple[set[int], set[int]]:
        """The answers among ``episode_ids`` the user turned down (a thumb down, a correction, a
        regenerate…; a negative signal wins) and those they accepted (a thumb up, praise)."""
        rows = db.rows(
            self.conn,
            "SELECT answer_episode_id AS id, MIN(positive) AS positive FROM signals"
            f" WHERE answer_episode_id IN {IN_IDS} GROUP BY answer_episode_id",
            (json.dumps(list(episode_ids)),),
        )
        wrong = {int(r["id"]) for r in rows if not r["positive"]}
        return wrong, {int(r["id"]) for r in rows} - wrong

    def kinds_on(self, answer_episode_id: int) -> set[str]:
        """The kinds of signal already recorded on an answer."""
        return _kinds(self.conn, "answer_episode_id = ?", answer_episode_id)

    def get(self, signal_id: int) -> StoredSignal | None:
        row = db.one(self.conn, f"SELECT {_SIGNAL_COLUMNS} FROM signals WHERE id = ?", (signal_id,))
        return _signal(row) if row else None

    def of_job(self, job_id: int) -> list[StoredSignal]:
        """The signals a consolidation job took (the reason it asks for lessons)."""
        return [
            _signal(r)
            for r in db.rows(
                self.conn,
                f"SELECT {_SIGNAL_COLUMNS} FROM signals WHERE job_id = ? ORDER BY id",
                (job_id,),
            )
        ]

    def lesson_record(self, memory_id: int) -> LessonRecord:
        """Used, helped, hurt and the answers behind them (the memory browser shows it)."""
        answers = tuple(
            int(r["answer_episode_id"])
            for r in db.rows(
                self.conn,
                "SELECT answer_episode_id FROM injections WHERE memory_id = ?"
                " ORDER BY answer_episode_id",
                (memory_id,),
            )
        )
        row = db.one(
            self.conn,
            "SELECT COALESCE(SUM(helped), 0) AS helped, COUNT(*) - COALESCE(SUM(helped), 0)"
            " AS hurt FROM lesson_credit WHERE memory_id = ?",
            (memory_id,),
        )
        helped, hurt = (int(row["helped"]), int(row["hurt"])) if row else (0, 0)
        return LessonRecord(memory_id, len(answers), helped, hurt, answers)
