"""MemoryStore: the one facade the rest of Engram uses to write, search and forget memories."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from engram.core import log
from engram.core.errors import InputError, Problem, StoreError, tr
from engram.memory import db, vectors
from engram.memory.embed import Embedder, Vectors
from engram.memory.episodes import EPISODE_COLUMNS, Episode
from engram.memory.ranking import Weights, collapse, rank
from engram.memory.records import MEMORY_COLUMNS, EpisodeHit, Hit, Memory, Source
from engram.memory.schema import KINDS, ORIGINS, STATUSES
from engram.memory.search import Filters, hybrid

_log = log.get("memory.store")
MAX_CONTENT = 8000
DUPLICATE_SIMILARITY = 0.95
_EMBEDDERS: dict[str, Embedder] = {}
IN_IDS = "(SELECT value FROM json_each(?))"
_KIND = Problem(tr("memory kind"))
_ORIGIN = Problem(tr("memory origin"))
_STATUS = Problem(tr("memory status"))


def check_content(content: str) -> str:
    """Stripped content, or InputError when it is empty or too long."""
    content = content.strip() if isinstance(content, str) else ""
    if not content:
        raise InputError(tr("A memory cannot be empty."), tr("Write what should be remembered."))
    if len(content) > MAX_CONTENT:
        raise InputError(
            tr("A memory of {length:,} characters is too long (at most {limit:,})."),
            tr("Split it into shorter facts, or keep the long text in a conversation."),
            length=len(content),
            limit=MAX_CONTENT,
        )
    return content


def _check_choice(value: str, allowed: Sequence[str], what: Problem) -> str:
    if value not in allowed:
        raise InputError(
            tr("Unknown {what} {value!r}."),
            tr("Use one of: {allowed}."),
            what=what,
            value=value,
            allowed=", ".join(allowed),
        )
    return value


class MemoryStore:
    """Memories and episode search on one connection (one store per thread)."""

    def __init__(self, conn: apsw.Connection, embedder: Embedder, weights: Weights | None = None):
        self.conn = conn
        self.embedder = embedder
        self.weights = weights or Weights()
        self.index: vectors.VectorIndex | None = None
        _EMBEDDERS.setdefault(embedder.model_id, embedder)
        with self._writing():
            if self._meta("embedding_model") is None:
                self._set_meta("embedding_model", embedder.model_id)
                self._set_meta("embedding_dim", str(embedder.dim))
                self._set_meta("vector_generation", "1")
                vectors.create_tables(conn, 1)
        self._sync()

    @classmethod
    def open(cls, path: Path, embedder: Embedder) -> MemoryStore:
        return cls(db.connect(path), embedder)

    # -- plumbing ------------------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        value = db.scalar(self.conn, "SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def _sync(self) -> None:
        """Follow the generation in the file (another thread may have switched models)."""
        generation = int(self._meta("vector_generation") or 1)
        if self.index is not None and self.index.generation == generation:
            return
        model = self._meta("embedding_model") or ""
        embedder = self.embedder if self.embedder.model_id == model else _EMBEDDERS.get(model)
        if embedder is None:
            _log.warning(
                "vectors are from %s, not %s: text search only", model, self.embedder.model_id
            )
            self.index = None
            return
        self.embedder = embedder
        self.index = vectors.VectorIndex(self.conn, generation, embedder.dim)

    @property
    def embedding_model(self) -> str:
        return self._meta("embedding_model") or ""

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write transaction; a full disk or I/O failure rolls back and becomes StoreError."""
        try:
            with db.transaction(self.conn):
                yield
        except (apsw.FullError, apsw.IOError, apsw.ReadOnlyError) as exc:
            raise StoreError(
                tr("Could not write to the database ({error}); nothing was changed."),
                tr("Free some disk space (or check the folder's permissions) and try again."),
                error=str(exc),
            ) from exc

    def _embed(self, texts: Sequence[str]) -> Vectors | None:
        self._sync()
        return self.embedder.embed(list(texts)) if self.index is not None else None

    # -- writes --------------------------------------------------------------------------------

    def add(
        self,
        content: str,
        kind: str = "fact",
        *,
        importance: float = 0.5,
        confidence: float = 0.8,
        origin: str = "user",
        pinned: bool = False,
        conversation_id: int | None = None,
        source_episodes: Sequence[int] = (),
        meta: dict[str, Any] | None = None,
        vector: Vectors | None = None,
    ) -> Memory:
        """Store a memory, or return the existing near-duplicate of the same kind instead."""
        content = check_content(content)
        _check_choice(kind, KINDS, _KIND)
        _check_choice(origin, ORIGINS, _ORIGIN)
        vec = self._embed([content]) if vector is None else vector
        duplicate = self._duplicate(content, kind, vec)
        if duplicate is not None:
            return duplicate
        now = time.time()
        with self._writing():
            self.conn.execute(
                "INSERT INTO memories(kind, content, importance, confidence, pinned, created_at,"
                " updated_at, origin, conversation_id, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    kind,
                    content,
                    _unit(importance),
                    _unit(confidence),
                    int(pinned),
                    now,
                    now,
                    origin,
                    conversation_id,
                    json.dumps(meta or {}, ensure_ascii=False),
                ),
            )
            new_id = self.conn.last_insert_rowid()
            if vec is not None and self.index is not None:
                self.index.put("memories", [new_id], vec)
            self._link_sources(new_id, source_episodes)
        return self._get(new_id)

    def add_many(
        self,
        contents: Sequence[str],
        kind: str = "fact",
        *,
        origin: str = "local",
        importance: float = 0.5,
        vectors: Vectors | None = None,
    ) -> list[int]:
        """Bulk insert in one transaction, without near-duplicate checks; returns the new ids."""
        texts = [check_content(c) for c in contents]
        _check_choice(kind, KINDS, _KIND)
        _check_choice(origin, ORIGINS, _ORIGIN)
        vecs = self._embed(texts) if vectors is None else vectors
        now = time.time()
        with self._writing():
            first = int(db.scalar(self.conn, "SELECT COALESCE(MAX(id), 0) + 1 FROM memories"))
            ids = list(range(first, first + len(texts)))
            self.conn.executemany(
                "INSERT INTO memories(id, kind, content, importance, created_at, updated_at,"
                " origin) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (i, kind, t, _unit(importance), now, now, origin)
                    for i, t in zip(ids, texts, strict=True)
                ],
            )
            if vecs is not None and self.index is not None:
                self.index.put("memories", ids, vecs)
        return ids

    def _duplicate(self, content: str, kind: str, vec: Vectors | None) -> Memory | None:
        same = db.scalar(
            self.conn,
            "SELECT id FROM memories WHERE status = 'active' AND kind = ? AND content = ?",
            (kind, content),
        )
        if same is None and vec is not None and self.index is not None:
            for row_id, similarity in self.index.knn("memories", vec, 5):
                if similarity < DUPLICATE_SIMILARITY:
                    break
                found = self.get(row_id)
                if found and found.status == "active" and found.kind == kind:
                    same = row_id
                    break
        return self.get(int(same)) if same is not None else None

    def _link_sources(self, memory_id: int, episode_ids: Sequence[int]) -> None:
        self.conn.execute(
            "INSERT INTO memory_sources(memory_id, episode_id, conversation_id, turn_index)"
            " SELECT ?, e.id, e.conversation_id, e.turn_index FROM episodes e"
            f" WHERE e.id IN {IN_IDS}"
            " AND NOT EXISTS (SELECT 1 FROM memory_sources s"
            " WHERE s.memory_id = ? AND s.episode_id = e.id) ORDER BY e.id",
            (memory_id, json.dumps(list(episode_ids)), memory_id),
        )

    def add_sources(self, memory_id: int, episode_ids: Sequence[int]) -> None:
        """Link more source episodes to an existing memory (links already there are kept once)."""
        self._get(memory_id)
        with self._writing():
            self._link_sources(memory_id, episode_ids)

    def update(self, memory_id: int, content: str | None = None, **fields: Any) -> Memory:
        """Change a memory in place (content, kind, importance, confidence, status, meta)."""
        current = self._get(memory_id)
        changes: dict[str, Any] = {}
        if content is not None and check_content(content) != current.content:
            changes["content"] = check_content(content)
        for key, value in fields.items():
            if key in ("importance", "confidence"):
                changes[key] = _unit(value)
            elif key == "kind":
                changes[key] = _check_choice(value, KINDS, _KIND)
            elif key == "status":
                changes[key] = _check_choice(value, STATUSES, _STATUS)
            elif key == "meta":
                changes[key] = json.dumps(value, ensure_ascii=False)
            else:
                raise InputError(tr("A memory has no field {key!r} to update."), key=key)
        vec = self._embed([changes["content"]]) if "content" in changes else None
        with self._writing():
            self._set_fields(memory_id, changes)
            if vec is not None and self.index is not None:
                self.index.put("memories", [memory_id], vec)
        return self._get(memory_id)

    def _set_fields(self, memory_id: int, changes: dict[str, Any]) -> None:
        changes = {**changes, "updated_at": time.time()}
        assignments = ", ".join(f"{key} = ?" for key in changes)
        self.conn.execute(
            f"UPDATE memories SET {assignments} WHERE id = ?", (*changes.values(), memory_id)
        )

    def supersede(self, old_id: int, content: str, **kwargs: Any) -> Memory:
        """Replace a memory with a new one; the old one stays for history, out of search."""
        old = self._get(old_id)
        kwargs.setdefault("kind", old.kind)
        kwargs.setdefault("importance", old.importance)
        kwargs.setdefault("pinned", old.pinned)
        new = self.add(content, **kwargs)
        with self._writing():
            self._set_fields(old_id, {"status": "superseded", "superseded_by": new.id})
        return new

    def pin(self, memory_id: int, pinned: bool = True) -> Memory:
        self._get(memory_id)
        with self._writing():
            self._set_fields(memory_id, {"pinned": int(pinned)})
        return self._get(memory_id)

    def feedback(self, memory_id: int, vote: int) -> Memory:
        """A +1 / -1 vote from the user; it lifts or lowers the memory in ranking."""
        if vote not in (1, -1):
            raise InputError(tr("Feedback must be +1 or -1, not {vote!r}."), vote=vote)
        self._get(memory_id)
        with self._writing():
            self.conn.execute(
                "UPDATE memories SET feedback = feedback + ? WHERE id = ?", (vote, memory_id)
            )
        return self._get(memory_id)

    def mark_used(self, memory_ids: Sequence[int]) -> None:
        now = time.time()
        with self._writing():
            self.conn.executemany(
                "UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id = ?",
                [(now, i) for i in memory_ids],
            )

    def record_injections(
        self, answer_episode_id: int, chosen: Sequence[tuple[int, float]]
    ) -> None:
        """Remember which memories (id, score) went into an answer's prompt; mark them used.

        Memories deleted since they were chosen are left out.
        """
        with self._writing():
            self.conn.executemany(
                "INSERT OR REPLACE INTO injections(answer_episode_id, memory_id, rank, score)"
                " SELECT ?, id, ?, ? FROM memories WHERE id = ?",
                [(answer_episode_id, rank, score, i) for rank, (i, score) in enumerate(chosen, 1)],
            )
        self.mark_used([i for i, _ in chosen])

    def injections(self, answer_episode_id: int) -> list[tuple[Memory, int, float]]:
        found = db.rows(
            self.conn,
            "SELECT memory_id, rank, score FROM injections WHERE answer_episode_id = ?"
            " ORDER BY rank",
            (answer_episode_id,),
        )
        return [(self._get(r["memory_id"]), r["rank"], r["score"]) for r in found]

    def delete(self, memory_id: int) -> None:
        """Remove a memory and every trace of its text (base row, full text, vector, WAL)."""
        with self._writing():
            self.conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
        self.purge()

    def forget_all(self, episodes: bool = False) -> int:
        """Delete every memory (and, with ``episodes``, every conversation); returns the count."""
        count = int(db.scalar(self.conn, "SELECT COUNT(*) FROM memories"))
        with self._writing():
            self.conn.execute("DELETE FROM memories")
            if episodes:
                self.conn.execute("DELETE FROM conversations")
        self.purge()
        return count

    def purge(self) -> None:
        """Rewrite the full-text indexes and truncate the WAL, so deleted words leave the disk.

        ``secure-delete`` removes a row's entries, but a word can survive as a page separator
        key; merging the index into one segment (with ``secure_delete`` zeroing freed pages)
        drops it. Call this after deleting episodes outside the store.
        """
        with self._writing():
            for table in ("memories_fts", "episodes_fts"):
                self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        self.checkpoint()

    def checkpoint(self) -> None:
        """Copy the WAL into the main file and truncate it, so deleted text leaves the disk."""
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except apsw.BusyError:
            _log.info("checkpoint postponed: the database is busy")

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

    def counts(self) -> tuple[int, int, int]:
        """How many memories (any status), conversations and episodes the file holds."""
        memories, chats, messages = (
            int(db.scalar(self.conn, f"SELECT COUNT(*) FROM {table}"))
            for table in ("memories", "conversations", "episodes")
        )
        return memories, chats, messages

    def sources(self, memory_id: int) -> list[Source]:
        return [
            Source(
                r["episode_id"], r["conversation_id"], r["turn_index"], bool(r["source_deleted"])
            )
            for r in db.rows(
                self.conn,
                "SELECT episode_id, conversation_id, turn_index, source_deleted FROM memory_sources"
                " WHERE memory_id = ? ORDER BY conversation_id, turn_index",
                (memory_id,),
            )
        ]

    def source_episodes(self, memory_id: int) -> list[Episode]:
        """Recursive lookup: the raw episodes a summary or lesson was distilled from."""
        found = self.episodes_by_id([s.episode_id for s in self.sources(memory_id) if s.episode_id])
        return sorted(found.values(), key=lambda e: (e.conversation_id, e.turn_index))

    def episodes_by_id(self, ids: Sequence[int]) -> dict[int, Episode]:
        """The episodes with these ids (missing ones are left out), keyed by id."""
        return {
            row["id"]: Episode(**row)
            for row in db.rows(
                self.conn,
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN {IN_IDS}",
                (json.dumps(list(ids)),),
            )
        }

    def search(
        self,
        query: str,
        k: int = 10,
        filters: Filters | None = None,
        vector: Vectors | None = None,
        dedupe: float = DUPLICATE_SIMILARITY,
    ) -> list[Hit]:
        """Hybrid search over memories, re-ranked and with near-duplicates collapsed."""
        vec = self._query_vector(query, vector)
        found = hybrid(
            self.conn, self.index, "memories", query, vec, filters or Filters(), max(50, k * 3)
        )
        if not found:
            return []
        top = found[0].rrf
        memories = {m.id: m for m in self._many([c.id for c in found])}
        now = time.time()
        hits = [
            Hit(
                memories[c.id],
                rank(c.rrf / top, memories[c.id], now, self.weights),
                c.similarity,
                c.text_rank,
            )
            for c in found
            if c.id in memories
        ]
        hits.sort(key=lambda h: -h.score)
        ids = [h.memory.id for h in hits[: k * 3]]
        kept = collapse(hits, k, dedupe, self.index.get("memories", ids) if self.index else {})
        return [
            Hit(h.memory, h.score, h.similarity, h.text_rank, tuple(self.sources(h.memory.id)))
            for h in kept
        ]

    def query_vector(self, query: str) -> Vectors | None:
        """The query embedded with the store's model (None when only text search works)."""
        return self._query_vector(query, None)

    def _query_vector(self, query: str, vector: Vectors | None) -> Vectors | None:
        if vector is not None:
            self._sync()
            return vector
        return self._embed([query]) if query.strip() else None

    def _many(self, ids: Sequence[int]) -> list[Memory]:
        return [
            Memory.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN {IN_IDS}",
                (json.dumps(list(ids)),),
            )
        ]

    # -- episodes ------------------------------------------------------------------------------

    def index_episodes(self, batch: int = 64) -> int:
        """Embed the episodes that have no vector yet; returns how many were added."""
        self._sync()
        done = 0
        while self.index is not None and (todo := self.index.missing("episodes", batch)):
            vecs = self.embedder.embed([text or " " for _, text in todo])
            with self._writing():
                self.index.put("episodes", [i for i, _ in todo], vecs)
            done += len(todo)
        return done

    def search_episodes(
        self,
        query: str,
        k: int = 10,
        filters: Filters | None = None,
        vector: Vectors | None = None,
        mode: str = "hybrid",
    ) -> list[EpisodeHit]:
        """Search raw messages; ``mode`` is "hybrid", "vector" or "text"."""
        vec = self._query_vector(query, vector) if mode != "text" else None
        found = hybrid(
            self.conn,
            self.index if mode != "text" else None,
            "episodes",
            query,
            vec,
            filters or Filters(statuses=None),
            max(50, k * 3),
            use_text=mode != "vector",
        )[:k]
        episodes = self.episodes_by_id([c.id for c in found])
        return [
            EpisodeHit(episodes[c.id], c.rrf, c.similarity, c.text_rank)
            for c in found
            if c.id in episodes
        ]


def _unit(value: float) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise InputError(tr("{value!r} is not between 0 and 1."), value=value)
    return number
