"""MemoryStore: writing and forgetting memories (their CRUD, duplicates, pins, feedback), on top
of reading and searching them (:class:`~engram.memory.reads.MemoryReads`).

Raw messages are searched by ``memory.episode_index``; the memories given to each answer are
recorded by ``memory.injections``. All three share the file's ``vectors.EmbeddingSpace``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from engram.core import log
from engram.core.errors import InputError, Problem, tr
from engram.memory import backup, changes, db
from engram.memory.embed import Embedder, Vectors
from engram.memory.kinds import FACT, KINDS
from engram.memory.ranking import Weights
from engram.memory.reads import IN_IDS, MemoryReads
from engram.memory.records import ORIGINS, STATUSES, Memory, Provenance, situations_in

_log = log.get("memory.store")
# How long a checkpoint waits for other readers before it reports the WAL not truncated.
CHECKPOINT_WAIT_MS = 500
MAX_CONTENT = 8000
_KIND = Problem(tr("memory kind"))
_ORIGIN = Problem(tr("memory origin"))
_STATUS = Problem(tr("memory status"))
UNKNOWN = Provenance("unknown")


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


class MemoryStore(MemoryReads):
    """The memories of one file on one connection (one store per thread): read and written."""

    def __init__(
        self,
        conn: apsw.Connection,
        embedder: Embedder,
        weights: Weights | None = None,
        writer: Provenance = UNKNOWN,
    ):
        super().__init__(conn, embedder, weights)
        self.wal_truncated = True  # False after a checkpoint another reader kept from finishing
        # Where this store's writes come from, unless a write says (``by``); every write of a
        # memory is recorded with it (``writes``).
        self.writer = writer

    @classmethod
    def open(cls, path: Path, embedder: Embedder, writer: Provenance = UNKNOWN) -> MemoryStore:
        return cls(db.connect(path), embedder, writer=writer)

    @contextmanager
    def writing(self, by: Provenance) -> Iterator[MemoryStore]:
        """Record the writes made inside as coming from ``by``."""
        before, self.writer = self.writer, by
        try:
            yield self
        finally:
            self.writer = before

    def record(
        self,
        memory_ids: Sequence[int],
        change: str,
        by: Provenance | None,
        job: object = None,
        before: str | None = None,
    ) -> None:
        """Record a write of each memory (inside the write's transaction); ``before``: the
        text it had before, when the write changed it."""
        by = by or self.writer
        job_id = job if isinstance(job, int) and not isinstance(job, bool) else None
        self.conn.executemany(
            "INSERT INTO memory_writes(memory_id, at, change, via, model, job_id, detail,"
            " content_before) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (i, time.time(), change, by.via, by.model, job_id, by.detail, before)
                for i in memory_ids
            ],
        )

    def undo(self, memory_id: int, write_id: int) -> Memory:
        """Take back a write someone other than the user made (:attr:`Write.undoable`),
        recorded as a write of :attr:`writer` (the user, in the memory browser).

        A change of the text puts the earlier text back through :meth:`update` (re-embedded,
        like an edit). A replacement (supersede) makes the replaced memory active again and
        archives the memory that replaced it, if that one is still active. Returns the memory.
        """
        write = next((w for w in self.writes(memory_id) if w.id == write_id), None)
        if write is None or not write.undoable:
            raise InputError(
                tr("Memory #{id} has no change of Engram's to undo there."),
                tr("Edit the memory's text instead."),
                id=memory_id,
            )
        undoing = Provenance(self.writer.via, self.writer.model, f"undid write #{write.id}")
        with self.writing(undoing):
            if write.before is not None:
                return self.update(memory_id, write.before)
            replacement = self.get(write.replaced_by or 0)
            with db.transaction(self.conn):
                self._set_fields(memory_id, {"status": "active", "superseded_by": None})
                self.record([memory_id], "status → active", None)
                if replacement is not None and replacement.status == "active":
                    self._set_fields(replacement.id, {"status": "archived"})
                    self.record([replacement.id], "status → archived", None)
        return self._get(memory_id)

    # -- writes --------------------------------------------------------------------------------

    def add(
        self,
        content: str,
        kind: str = FACT,
        *,
        importance: float = 0.5,
        confidence: float = 0.8,
        origin: str = "user",
        pinned: bool = False,
        conversation_id: int | None = None,
        source_episodes: Sequence[int] = (),
        meta: dict[str, Any] | None = None,
        vector: Vectors | None = None,
        by: Provenance | None = None,
    ) -> Memory:
        """Store a memory, or return the existing near-duplicate of the same kind instead.

        A near-duplicate that differs in a number, date, name or negation is not the same
        memory but an update ("5 mg" → "50 mg"): the new one supersedes it (the old one stays,
        superseded, for history; ``superseded_by`` names the new one). A correction's opening
        words ("actually, …", "其实…") are not stored.
        """
        content = changes.without_discourse(check_content(content))
        _check_choice(kind, KINDS, _KIND)
        _check_choice(origin, ORIGINS, _ORIGIN)
        vec = self.space.embed([content]) if vector is None else vector
        places = situations_in(meta or {})
        duplicate = self._duplicate(content, kind, vec)
        if duplicate is not None and (
            duplicate.content == content
            or changes.update_between(duplicate.content, content) is None
        ):
            return duplicate
        now = time.time()
        place_vectors = self.space.embed(places) if places else None
        with db.transaction(self.conn):
            (new_id,) = self.next_ids(1)
            self.conn.execute(
                "INSERT INTO memories(id, kind, content, importance, confidence, pinned,"
                " created_at, updated_at, origin, conversation_id, meta)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    new_id,
                    kind,
                    content,
                    _unit(importance),
                    _unit(confidence),
                    int(pinned or (duplicate is not None and duplicate.pinned)),
                    now,
                    now,
                    origin,
                    conversation_id,
                    json.dumps(meta or {}, ensure_ascii=False),
                ),
            )
            if vec is not None and self.index is not None:
                self.index.put("memories", [new_id], vec)
            self.put_situations(new_id, places, place_vectors)
            self._link_sources(new_id, source_episodes)
            self.record([new_id], "created", by, (meta or {}).get("job"))
            if duplicate is not None:
                self._set_fields(duplicate.id, {"status": "superseded", "superseded_by": new_id})
                self.record([duplicate.id], f"superseded by #{new_id}", by)
                _log.info("memory %d supersedes %d (an update)", new_id, duplicate.id)
        return self._get(new_id)

    def next_ids(self, count: int) -> list[int]:
        """Fresh memory ids: never one a deleted memory had (see migration 0008)."""
        first = int(
            db.scalar(
                self.conn,
                "SELECT MAX((SELECT COALESCE(MAX(id), 0) + 1 FROM memories),"
                " COALESCE((SELECT CAST(value AS INTEGER) FROM meta"
                " WHERE key = 'memory_next_id'), 1))",
            )
        )
        return list(range(first, first + count))

    def add_many(
        self,
        contents: Sequence[str],
        kind: str = FACT,
        *,
        origin: str = "local",
        importance: float = 0.5,
        vectors: Vectors | None = None,
        by: Provenance | None = None,
    ) -> list[int]:
        """Bulk insert in one transaction, without near-duplicate checks; returns the new ids."""
        texts = [check_content(c) for c in contents]
        _check_choice(kind, KINDS, _KIND)
        _check_choice(origin, ORIGINS, _ORIGIN)
        vecs = self.space.embed(texts) if vectors is None else vectors
        now = time.time()
        with db.transaction(self.conn):
            ids = self.next_ids(len(texts))
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
            self.record(ids, "created", by)
        return ids

    def _duplicate(self, content: str, kind: str, vec: Vectors | None) -> Memory | None:
        same = db.scalar(
            self.conn,
            "SELECT id FROM memories WHERE status = 'active' AND kind = ? AND content = ?",
            (kind, content),
        )
        if same is None and vec is not None and self.index is not None:
            for row_id, similarity in self.index.knn("memories", vec, 5):
                found = self.get(row_id)
                if not found or found.status != "active" or found.kind != kind:
                    continue
                # The embedder may not see it (MiniLM and Chinese): the same words with one
                # number changed are a correction all the same.
                if similarity >= self.floors(content).duplicate or changes.corrects(
                    found.content, content
                ):
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

    def put_situations(
        self, memory_id: int, places: Sequence[str], vectors: Vectors | None = None
    ) -> None:
        """Replace the situations a memory applies to (call inside the write transaction of its
        row); without ``vectors`` they are embedded later (``episode_index.embed_missing``)."""
        self.conn.execute("DELETE FROM situations WHERE memory_id = ?", (memory_id,))
        ids = []
        for place in places:
            self.conn.execute(
                "INSERT INTO situations(memory_id, content) VALUES (?, ?)", (memory_id, place)
            )
            ids.append(self.conn.last_insert_rowid())
        if vectors is not None and self.index is not None:
            self.index.put("situations", ids, vectors)

    def add_sources(self, memory_id: int, episode_ids: Sequence[int]) -> None:
        """Link more source episodes to an existing memory (links already there are kept once)."""
        self._get(memory_id)
        with db.transaction(self.conn):
            self._link_sources(memory_id, episode_ids)

    def update(self, memory_id: int, content: str | None = None, **fields: Any) -> Memory:
        """Change a memory in place (content, kind, importance, confidence, status, meta); the
        change is recorded as coming from :attr:`writer`."""
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
        vec = self.space.embed([changes["content"]]) if "content" in changes else None
        places = situations_in(fields.get("meta") or {})
        moved = "meta" in fields and places != situations_in(current.meta)
        place_vectors = self.space.embed(places) if moved and places else None
        with db.transaction(self.conn):
            self._set_fields(memory_id, changes)
            if vec is not None and self.index is not None:
                self.index.put("memories", [memory_id], vec)
            if moved:
                self.put_situations(memory_id, places, place_vectors)
            if said := _changed(current, changes):
                before = current.content if "content" in changes else None
                self.record([memory_id], said, None, before=before)
        return self._get(memory_id)

    def fade(self, memory_id: int, importance: float, meta: dict[str, Any]) -> None:
        """Lower a memory's importance as it goes unused (hygiene), without stamping
        ``updated_at``: a fading memory must not look fresh."""
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE memories SET importance = ?, meta = ? WHERE id = ?",
                (_unit(importance), json.dumps(meta, ensure_ascii=False), memory_id),
            )

    def noted_in(self, conversation_id: int, key: str, value: str) -> int | None:
        """A memory of the conversation (of any status) whose meta list ``key`` holds
        ``value`` (the distiller notes there the texts it wrote a memory from)."""
        found = db.scalar(
            self.conn,
            "SELECT m.id FROM memories m, json_each(m.meta, '$.' || ?) d"
            " WHERE m.conversation_id = ? AND d.value = ? LIMIT 1",
            (key, conversation_id, value),
        )
        return None if found is None else int(found)

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
        recorded = self._get(old_id).superseded_by == new.id  # add found it a near-duplicate
        with db.transaction(self.conn):
            self._set_fields(old_id, {"status": "superseded", "superseded_by": new.id})
            if not recorded:
                self.record([old_id], f"superseded by #{new.id}", kwargs.get("by"))
        return new

    def pin(self, memory_id: int, pinned: bool = True) -> Memory:
        self._get(memory_id)
        with db.transaction(self.conn):
            self._set_fields(memory_id, {"pinned": int(pinned)})
            self.record([memory_id], "pinned" if pinned else "unpinned", None)
        return self._get(memory_id)

    def feedback(self, memory_id: int, vote: int) -> Memory:
        """A +1 / -1 vote from the user; it lifts or lowers the memory in ranking."""
        if vote not in (1, -1):
            raise InputError(tr("Feedback must be +1 or -1, not {vote!r}."), vote=vote)
        self._get(memory_id)
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE memories SET feedback = feedback + ? WHERE id = ?", (vote, memory_id)
            )
        return self._get(memory_id)

    def delete(self, memory_id: int) -> None:
        """Remove a memory and every trace of its text (base row, full text, vector, WAL); a
        tombstone keeps learning from writing it again (:mod:`engram.memory.tombstones`)."""
        memory = self.get(memory_id)
        if memory is not None:
            self.tombstones.bury(memory, "deleted")
        with db.transaction(self.conn):
            self.conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
        self.purge()

    def forget_all(self, episodes: bool = False) -> int:
        """Delete every memory (and, with ``episodes``, every conversation) and empty the log;
        returns the count."""
        count = int(db.scalar(self.conn, "SELECT COUNT(*) FROM memories"))
        with db.transaction(self.conn):
            self.conn.execute("DELETE FROM memories")
            if episodes:  # nothing left to learn from again
                self.conn.execute("DELETE FROM conversations")
                self.conn.execute("DELETE FROM tombstones")
        self.purge()
        log.clear()
        if self.conn.filename:  # backups hold the same text
            backup.remove_all(backup.folder_of(Path(self.conn.filename)))
        return count

    def purge(self) -> bool:
        """Rewrite the full-text indexes and truncate the WAL, so deleted words leave the disk.

        ``secure-delete`` removes a row's entries, but a word can survive as a page separator
        key; merging the index into one segment (with ``secure_delete`` zeroing freed pages)
        drops it. Call this after deleting episodes outside the store. False when the WAL
        could not be truncated yet (see :meth:`checkpoint`).
        """
        with db.transaction(self.conn):
            for table in ("memories_fts", "episodes_fts", "situations_fts"):
                self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        return self.checkpoint()

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it, so deleted text leaves the disk.

        False when another connection (another Engram window or command) still reads an older
        state: the WAL then keeps its copy until the next checkpoint that completes. It waits
        for such readers half a second, not the full busy timeout. The result is also kept in
        ``wal_truncated``.
        """
        self.conn.set_busy_timeout(CHECKPOINT_WAIT_MS)
        try:
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0][0]
        except apsw.BusyError:
            busy = 1
        finally:
            self.conn.set_busy_timeout(db.BUSY_TIMEOUT_MS)
        if busy:
            _log.warning("checkpoint could not complete: another connection reads the database")
        self.wal_truncated = not busy
        return self.wal_truncated


def _changed(current: Memory, changes: dict[str, Any]) -> str:
    """What an update changed, in a few words ('' when nothing that is recorded: the meta)."""
    said = [
        f"{key} → {value}" if key in ("kind", "status") else key
        for key, value in changes.items()
        if key in ("content", "kind", "status", "importance", "confidence")
        and value != getattr(current, key)
    ]
    return ", ".join(said)


def _unit(value: float) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise InputError(tr("{value!r} is not between 0 and 1."), value=value)
    return number
