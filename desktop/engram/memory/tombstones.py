"""Tombstones: what the user deleted, marked wrong or forgot stays gone.

Learning reads the same chats again (a later job, a regenerate, an outcome) and would write a
deleted memory anew from the very messages it came from, or from the answers it spoiled. A
tombstone keeps, for each memory the user took away, its kind, a digest of its normalised words,
its vector and the model that made it, and the chats it came from or was given in; never its
words. A candidate that is the same memory (the same words, or as close in meaning as a
restatement, :attr:`~engram.memory.embed.Floors.restated`) and comes only from messages said
before the tombstone in those chats is not written again. The user saying it again (a message
after the tombstone) writes it as anything else; undoing the forget lifts the tombstone.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from typing import Literal

import apsw
import numpy as np

from engram.memory import db
from engram.memory.embed import Vectors, floors_of
from engram.memory.episodes import EpisodeLog
from engram.memory.records import Memory
from engram.memory.text import normalized, text_language
from engram.memory.vectors import EmbeddingSpace

Reason = Literal["deleted", "wrong", "forgotten"]
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def digest(text: str) -> str:
    """A memory's words, normalised, as a digest: the same words give the same digest, and the
    words cannot be read back from it."""
    return hashlib.sha256(normalized(text).encode("utf-8")).hexdigest()


# Where a memory's sentence splits into parts that say one thing each: a summary or a plan that
# restates what the user took away among other things is as far from it in meaning as the other
# things make it, and each part is compared on its own.
_CLAUSE_END = re.compile(r"[.!?;:。！？；：，,]+\s*|\s+(?:and|but|while|whereas)\s+")
_CLAUSE_WORDS = 3  # a part of fewer words (Latin) is no statement of its own
_CLAUSE_CHARS = 4  # nor one of fewer characters (CJK)


def clauses(text: str) -> list[str]:
    """The parts of ``text`` that each say one thing (none when it is one already)."""
    parts = [p.strip() for p in _CLAUSE_END.split(text) if p and p.strip()]
    kept = [
        p
        for p in parts
        if len(p.split()) >= _CLAUSE_WORDS or len(_CJK_CHAR.findall(p)) >= _CLAUSE_CHARS
    ]
    return kept if len(kept) > 1 else []


class Tombstones:
    """The ``tombstones`` table of one file, on one connection, with its embedding space."""

    def __init__(self, conn: apsw.Connection, space: EmbeddingSpace) -> None:
        self.conn = conn
        self.space = space

    def bury(self, memory: Memory, reason: Reason) -> None:
        """Keep ``memory`` from being learned again (call before its text is deleted)."""
        self.space.sync()
        index = self.space.index
        vector = index.get("memories", [memory.id]).get(memory.id) if index else None
        chats = {
            int(row["conversation_id"])
            for row in db.rows(
                self.conn,
                "SELECT conversation_id FROM memory_sources WHERE memory_id = ?"
                " AND conversation_id IS NOT NULL"
                " UNION SELECT e.conversation_id FROM injections i"
                " JOIN episodes e ON e.id = i.answer_episode_id WHERE i.memory_id = ?",
                (memory.id, memory.id),
            )
        }
        if memory.conversation_id is not None:
            chats.add(memory.conversation_id)
        with db.transaction(self.conn):
            if db.scalar(self.conn, "SELECT 1 FROM tombstones WHERE memory_id = ?", (memory.id,)):
                return  # forgotten first, deleted at the end of the session: one tombstone
            self.conn.execute(
                "INSERT INTO tombstones(memory_id, kind, digest, model, embedding, conversations,"
                " reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    memory.id,
                    memory.kind,
                    digest(memory.content),
                    self.space.model_id if vector is not None else None,
                    np.asarray(vector, dtype=np.float32).tobytes() if vector is not None else None,
                    json.dumps(sorted(chats)),
                    reason,
                    time.time(),
                ),
            )

    def lift(self, memory_id: int) -> None:
        """The user took back the forget or the verdict: the memory may be learned again."""
        with db.transaction(self.conn):
            self.conn.execute("DELETE FROM tombstones WHERE memory_id = ?", (memory_id,))

    def covers(self, content: str, situated: str, episode_ids: Sequence[int]) -> int | None:
        """The id of the memory the user took away that this candidate would write again (of
        any kind: a lesson comes back as a summary as easily), from messages said before it was
        taken away in the chats it lived in; None otherwise."""
        episodes = EpisodeLog(self.conn).by_id(list(episode_ids)).values()
        if not episodes:
            return None
        latest = max(e.created_at for e in episodes)
        chats = {e.conversation_id for e in episodes}
        found = db.rows(
            self.conn,
            "SELECT memory_id, digest, model, embedding, conversations FROM tombstones"
            " WHERE at >= ? ORDER BY id",
            (latest,),
        )
        near: Vectors | None = None
        for row in found:
            if not chats <= set(json.loads(row["conversations"])):
                continue
            if row["digest"] == digest(content):
                return int(row["memory_id"])
            if row["embedding"] is None or row["model"] != self.space.model_id:
                continue
            if near is None:
                near = self.space.embed([situated, content, *clauses(content)])
                if near is None:
                    return None
            buried = np.frombuffer(row["embedding"], dtype=np.float32)
            floor = floors_of(self.space.embedder, text_language(content)).restated
            if float(np.max(near @ buried)) >= floor:
                return int(row["memory_id"])
        return None

    def clear(self) -> None:
        """Forget every tombstone (the user forgot everything, chats included)."""
        with db.transaction(self.conn):
            self.conn.execute("DELETE FROM tombstones")
