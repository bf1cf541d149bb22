"""Reading and searching memories: the read side of :class:`~engram.memory.store.MemoryStore`.

:class:`MemoryReads` holds the connection and the file's embedding space, and reads memories:
one, a page, the user's own, their sources and recorded writes, the memories that apply to a
situation, and the hybrid search (vectors and BM25, re-ranked by importance, pinning, feedback
and recency, near-duplicates collapsed). ``MemoryStore`` adds the writes.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from typing import NamedTuple

import apsw

from engram.core.errors import InputError, tr
from engram.memory import db, faults
from engram.memory.embed import Embedder, Floors, Vectors, floors_of, reads_language
from engram.memory.episodes import Episode, EpisodeLog
from engram.memory.ranking import Weights, collapse, rank
from engram.memory.records import MEMORY_COLUMNS, Hit, Memory, Source, Write
from engram.memory.search import Candidate, Filters, focus, hybrid, text_candidates
from engram.memory.text import query_terms, text_language
from engram.memory.tombstones import Tombstones
from engram.memory.vectors import EmbeddingSpace, VectorIndex

IN_IDS = "(SELECT value FROM json_each(?))"
# The relevance of the weakest candidate of a search, the best's being 1: the range the ranking's
# lifts (importance, pinning, feedback, recency) were made for, which reciprocal rank fusion gave
# a pool of 50 (one list's last rank against both lists' first: 1/110 over 2/61).
WEAKEST_RELEVANCE = 0.28


def _relevance(score: float, top: float) -> float:
    """A fused score as relevance: from :data:`WEAKEST_RELEVANCE` for the weakest candidate
    (fused scores start at 0) to 1 for the best; all the best when every score is 0."""
    if top <= 0:
        return 1.0
    return WEAKEST_RELEVANCE + (1.0 - WEAKEST_RELEVANCE) * score / top


class MemoryReads:
    """The memories of one file on one connection, read (one per thread)."""

    def __init__(
        self, conn: apsw.Connection, embedder: Embedder, weights: Weights | None = None
    ) -> None:
        self.conn = conn
        self.space = EmbeddingSpace(conn, embedder)
        self.weights = weights or Weights()

    @property
    def embedder(self) -> Embedder:
        return self.space.embedder

    @property
    def tombstones(self) -> Tombstones:
        """What the user took away, kept from being learned again."""
        return Tombstones(self.conn, self.space)

    def floors(self, text: str) -> Floors:
        """The embedder's similarity floors for the language of ``text``."""
        return floors_of(self.space.embedder, text_language(text))

    @property
    def index(self) -> VectorIndex | None:
        """The current generation's vectors (None when only text search works)."""
        return self.space.index

    @property
    def embedding_model(self) -> str:
        return self.space.model_id

    # -- reads ---------------------------------------------------------------------------------

    def get(self, memory_id: int) -> Memory | None:
        row = db.one(self.conn, f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        return Memory.from_row(row) if row else None

    def _get(self, memory_id: int) -> Memory:
        found = self.get(memory_id)
        if found is None:
            raise InputError(
                tr("There is no memory #{id}."),
                tr("List them with `engram memory list`."),
                id=memory_id,
            )
        return found

    def memories(
        self,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = ("active",),
        limit: int = 1000,
        offset: int = 0,
    ) -> list[Memory]:
        """Memories, pinned first, then newest first."""
        where, params = Filters(kinds=kinds, statuses=statuses).where("memories")
        return [
            Memory.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {MEMORY_COLUMNS} FROM memories b WHERE {where}"
                " ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
        ]

    def saved(self, kinds: Sequence[str], limit: int) -> list[Memory]:
        """The user's own active memories of ``kinds`` (what they asked to be kept, in their
        words), newest first."""
        marks = ", ".join("?" for _ in kinds)
        return [
            Memory.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {MEMORY_COLUMNS} FROM memories b INDEXED BY memories_saved"
                f" WHERE origin = 'user' AND status = 'active' AND kind IN ({marks})"
                " ORDER BY updated_at DESC, id DESC LIMIT ?",
                (*kinds, limit),
            )
        ]

    def counts(self) -> tuple[int, int, int]:
        """How many memories (any status), conversations and episodes the file holds."""
        memories, chats, messages = (
            int(db.scalar(self.conn, f"SELECT COUNT(*) FROM {table}"))
            for table in ("memories", "conversations", "episodes")
        )
        return memories, chats, messages

    def sources(self, memory_id: int) -> list[Source]:
        return self.sources_of([memory_id]).get(memory_id, [])

    def sources_of(self, memory_ids: Sequence[int]) -> dict[int, list[Source]]:
        """The sources of several memories in one query (memories without any are left out)."""
        found: dict[int, list[Source]] = {}
        for r in db.rows(
            self.conn,
            "SELECT memory_id, episode_id, conversation_id, turn_index, source_deleted"
            f" FROM memory_sources WHERE memory_id IN {IN_IDS}"
            " ORDER BY memory_id, conversation_id, turn_index",
            (json.dumps(list(memory_ids)),),
        ):
            found.setdefault(r["memory_id"], []).append(
                Source(
                    r["episode_id"],
                    r["conversation_id"],
                    r["turn_index"],
                    bool(r["source_deleted"]),
                )
            )
        return found

    def source_episodes(self, memory_id: int) -> list[Episode]:
        """Recursive lookup: the raw episodes a summary or lesson was distilled from."""
        sources = [s.episode_id for s in self.sources(memory_id) if s.episode_id]
        found = EpisodeLog(self.conn).by_id(sources)
        return sorted(found.values(), key=lambda e: (e.conversation_id, e.turn_index))

    @faults.reported
    def search(
        self,
        query: str,
        k: int = 10,
        filters: Filters | None = None,
        vector: Vectors | None = None,
        dedupe: float | None = None,
    ) -> list[Hit]:
        """Hybrid search over memories, re-ranked and with near-duplicates collapsed (those at
        ``dedupe`` or closer; by default the embedder's duplicate floor for the query). In a
        language the embedder does not tell apart, by words alone: its vectors would add
        noise scored like meaning."""
        self.space.sync()  # the model the file's vectors are in now decides
        reads = reads_language(self.space.embedder, text_language(query))
        vec = self.space.query_vector(query, vector) if reads else None
        terms = focus(self.conn, "memories", query)
        found = hybrid(
            self.conn,
            self.index,
            "memories",
            terms,
            vec,
            filters or Filters(),
            max(50, k * 3),
            need=k,
        )
        if not found:
            return []
        top = found[0].score
        standing = self._standing([c.id for c in found])
        now = time.time()
        ranked = sorted(
            (
                (rank(_relevance(c.score, top), standing[c.id], now, self.weights), c)
                for c in found
                if c.id in standing
            ),
            key=lambda pair: -pair[0],
        )
        # Whole rows are read a head at a time, the next one only while near-duplicates thin
        # the ones read out below k.
        head = k * 3
        vectors = self.index.get("memories", [c.id for _, c in ranked[:head]]) if self.index else {}
        twins = self.floors(query).duplicate if dedupe is None else dedupe
        hits: list[Hit] = []
        kept: list[Hit] = []
        for start in range(0, len(ranked), head):
            hits += self._hits(ranked[start : start + head])
            kept = collapse(hits, k, twins, vectors)
            if len(kept) == k:
                break
        sources = self.sources_of([h.memory.id for h in kept])
        return [
            Hit(h.memory, h.score, h.similarity, h.text_rank, tuple(sources.get(h.memory.id, ())))
            for h in kept
        ]

    def query_vector(self, query: str) -> Vectors | None:
        """The query embedded with the file's model (None when only text search works)."""
        return self.space.query_vector(query)

    def _standing(self, ids: Sequence[int]) -> dict[int, _Standing]:
        """What ranking needs of each memory, without reading whole rows."""
        return {
            row[0]: _Standing(row[1], bool(row[2]), *row[3:])
            for row in self.conn.execute(
                "SELECT id, importance, pinned, feedback, last_used_at, updated_at FROM memories"
                f" WHERE id IN {IN_IDS}",
                (json.dumps(list(ids)),),
            )
        }

    def _hits(self, ranked: Sequence[tuple[float, Candidate]]) -> list[Hit]:
        memories = {m.id: m for m in self._many([c.id for _, c in ranked])}
        return [
            Hit(memories[c.id], score, c.similarity, c.text_rank)
            for score, c in ranked
            if c.id in memories
        ]

    def _many(self, ids: Sequence[int]) -> list[Memory]:
        return [
            Memory.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN {IN_IDS}",
                (json.dumps(list(ids)),),
            )
        ]

    def replaced_by(self, memory_id: int) -> Memory | None:
        """The memory that ``memory_id`` superseded most recently (None when it replaced none)."""
        found = db.scalar(
            self.conn,
            "SELECT id FROM memories WHERE superseded_by = ? ORDER BY updated_at DESC LIMIT 1",
            (memory_id,),
        )
        return self.get(int(found)) if found is not None else None

    def writes(self, memory_id: int) -> list[Write]:
        """Every recorded write of a memory, oldest first."""
        return [
            Write(**row)
            for row in db.rows(
                self.conn,
                "SELECT id, at, change, via, model, job_id, detail, content_before AS before"
                " FROM memory_writes WHERE memory_id = ? ORDER BY at, id",
                (memory_id,),
            )
        ]

    def situated(self, vector: Vectors | None, k: int, kinds: Sequence[str]) -> list[Hit]:
        """The active memories of ``kinds`` that apply to a situation among the ``k`` nearest
        ``vector``, closest first, each with the cosine of its closest one as its similarity
        (and score)."""
        if vector is None or self.index is None:
            return []
        near = dict(self.index.knn("situations", vector, k))
        return [Hit(m, sim, sim, None) for m, sim in self._applying(near, kinds)]

    def situated_by_words(self, query: str, k: int, kinds: Sequence[str]) -> list[Hit]:
        """The active memories of ``kinds`` that apply to a situation among the ``k`` that
        share the most words with ``query`` (BM25), best first, each with that rank."""
        near = dict(text_candidates(self.conn, "situations", query_terms(query), k, Filters()))
        found = self._applying(near, kinds)
        return [Hit(m, score, None, rank) for rank, (m, score) in enumerate(found, 1)]

    def _applying(self, near: dict[int, float], kinds: Sequence[str]) -> list[tuple[Memory, float]]:
        """The active memories of ``kinds`` the situations ``near`` (ids with their scores)
        belong to, each with the best score of its situations, best first."""
        if not near:
            return []
        best: dict[int, float] = {}
        for situation, memory_id in self.conn.execute(
            # CROSS JOIN: the few situations by their ids first, not every memory of the kinds
            "SELECT s.id, s.memory_id FROM situations s CROSS JOIN memories m"
            f" ON m.id = s.memory_id WHERE s.id IN {IN_IDS} AND m.status = 'active'"
            " AND m.kind IN (SELECT value FROM json_each(?))",
            (json.dumps(list(near)), json.dumps(list(kinds))),
        ):
            best[memory_id] = max(best.get(memory_id, -math.inf), near[situation])
        found = self._many(list(best))
        return sorted(((m, best[m.id]) for m in found), key=lambda pair: -pair[1])


class _Standing(NamedTuple):
    importance: float
    pinned: bool
    feedback: int
    last_used_at: float | None
    updated_at: float
