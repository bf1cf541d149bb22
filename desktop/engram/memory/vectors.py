"""Vector storage and nearest-neighbour search for memories and episodes.

Vectors live in plain tables (``vectors_<space>_g<generation>``: float32 blob plus a 1-bit-per-
dimension code; ``memory.migrations`` defines them). Search scans the binary codes in memory
(hamming distance, numpy popcount), then rescores a few hundred candidates with the exact float
vectors read by primary key; sqlite-vec's ``vec_distance_cosine`` scans small filtered subsets
exactly (larger ones are scanned by their codes like the whole table).
Measured on 100k x 384 (bench/retrieval.py), this is several times faster than a sqlite-vec
``vec0`` scan, whose point lookups are also slow.

The code cache is shared by the connections of one process and revalidated on every search with
two cheap reads: ``vector_version`` in ``meta`` (bumped by deletes and out-of-order writes) and the
table's largest id (plain appends are loaded as a delta).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import apsw
import numpy as np
import numpy.typing as npt

from engram.core import log
from engram.memory import db
from engram.memory.embed import Embedder, Vectors, check_vectors
from engram.memory.migrations.generations import BUMP_VECTOR_VERSION, vector_table

_log = log.get("memory.vectors")
Codes = npt.NDArray[np.uint64]
# A filtered search over at most this many rows scans them exactly; over more, by their codes.
EXACT_ROWS = 4000
KNN_CANDIDATES = 400  # codes nearest in hamming distance that a search rescores exactly
# One embedder per model id in this process, so a store can follow another thread's switch.
_EMBEDDERS: dict[str, Embedder] = {}


def encode(vectors: Vectors) -> Codes:
    """One bit per dimension (positive or not), packed into uint64 words."""
    packed = np.packbits(vectors > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


@dataclass
class _CodeCache:
    version: int = -1
    max_id: int = 0
    ids: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    codes: Codes = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint64))  # word-major
    lock: threading.Lock = field(default_factory=threading.Lock)


_CACHES: dict[tuple[str, str], _CodeCache] = {}
_CACHES_LOCK = threading.Lock()


def _cache(conn: apsw.Connection, table: str) -> _CodeCache:
    with _CACHES_LOCK:
        return _CACHES.setdefault((conn.filename, table), _CodeCache())


def _load(conn: apsw.Connection, table: str, after: int) -> tuple[npt.NDArray[np.int64], Codes]:
    ids: list[int] = []
    blobs: list[bytes] = []
    for row_id, code in conn.execute(
        f"SELECT id, code FROM {table} WHERE id > ? ORDER BY id", (after,)
    ):
        ids.append(row_id)
        blobs.append(code)
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.uint64)
    codes = np.frombuffer(b"".join(blobs), dtype=np.uint64).reshape(len(ids), -1)
    return np.asarray(ids, dtype=np.int64), codes


def _nearest_codes(codes: Codes, query: Codes, count: int) -> npt.NDArray[np.intp]:
    """Positions of about ``count`` codes nearest in hamming distance (codes are word-major)."""
    distance = np.zeros(codes.shape[1], dtype=np.uint16)
    for word, q in zip(codes, query, strict=True):
        distance += np.bitwise_count(word ^ q)
    histogram = np.bincount(distance, minlength=1)
    cutoff = int(np.searchsorted(np.cumsum(histogram), count))
    below = np.flatnonzero(distance < cutoff)
    tied = np.flatnonzero(distance == cutoff)[: count - len(below)]
    return np.concatenate([below, tied])


class VectorIndex:
    """The vectors of one generation (one embedding model) on one connection."""

    def __init__(self, conn: apsw.Connection, generation: int, dim: int) -> None:
        self.conn = conn
        self.generation = generation
        self.dim = dim
        # Each space's last search: its candidates, every one rescored, best first, and their
        # vectors. A turn asks the same question of the memories twice (all of them, then the
        # stated preferences among them) with a search of the situations between, which is
        # then one scan and one read of the candidates' float vectors, whatever number of them
        # each asks for; the vectors its hits are told apart by (:meth:`get`) are among them.
        self._last: dict[str, _Rescored] = {}

    def put(self, space: str, ids: Sequence[int], vectors: Vectors) -> None:
        """Insert or replace vectors (call inside the write transaction of the base rows)."""
        if not ids:
            return
        vectors = check_vectors(vectors, self.dim)
        table = vector_table(space, self.generation)
        top = db.scalar(self.conn, f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        codes = encode(vectors)
        self.conn.executemany(
            f"INSERT OR REPLACE INTO {table}(id, embedding, code) VALUES (?, ?, ?)",
            [(i, v.tobytes(), c.tobytes()) for i, v, c in zip(ids, vectors, codes, strict=True)],
        )
        if min(ids) <= top:
            self.conn.execute(BUMP_VECTOR_VERSION)

    def get(self, space: str, ids: Iterable[int]) -> dict[int, Vectors]:
        """The float vectors of ``ids`` that have one (those the last search rescored, while
        the file's vectors are unchanged, without reading them again)."""
        wanted = list(ids)
        last = self._last.get(space)
        known = last.vectors if last is not None and last.key[:2] == self._stamp(space) else {}
        found = {i: known[i] for i in wanted if i in known}
        if rest := [i for i in wanted if i not in found]:
            keys, matrix = self._matrix(space, rest)
            found.update(zip(keys, matrix, strict=True))
        return found

    def _matrix(self, space: str, ids: Iterable[int]) -> tuple[list[int], Vectors]:
        """The ids among ``ids`` that have a vector, and their vectors as one (n, dim) array."""
        table = vector_table(space, self.generation)
        found: list[tuple[int, bytes]] = self.conn.execute(  # type: ignore[assignment]
            f"SELECT id, embedding FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(ids)),),
        ).fetchall()
        matrix = np.frombuffer(b"".join(blob for _, blob in found), dtype=np.float32)
        return [i for i, _ in found], matrix.reshape(len(found), self.dim)

    def missing(self, space: str, limit: int, newest: bool = False) -> list[tuple[int, str]]:
        """Base rows (id, content) that have no vector yet, oldest first.

        ``newest``: only rows after the newest vector, found through the primary key instead of
        a scan of both tables (75 ms at 100k rows): what a turn adds. Gaps below it are left to
        the full search (``episode_index.Backfill``).
        """
        table = vector_table(space, self.generation)
        unmatched = (
            f"FROM {space} b WHERE b.id > (SELECT COALESCE(MAX(id), 0) FROM {table})"
            if newest
            else f"FROM {space} b LEFT JOIN {table} v ON v.id = b.id WHERE v.id IS NULL"
        )
        return [
            (i, text)
            for i, text in self.conn.execute(
                f"SELECT b.id, b.content {unmatched} ORDER BY b.id LIMIT ?", (limit,)
            )
        ]

    def count(self, space: str) -> int:
        return int(
            db.scalar(self.conn, f"SELECT COUNT(*) FROM {vector_table(space, self.generation)}")
        )

    def _codes(self, space: str) -> tuple[npt.NDArray[np.int64], Codes, tuple[int, int]]:
        """The ids and codes of ``space``, and the (version, largest id) they are valid for."""
        table = vector_table(space, self.generation)
        cache = _cache(self.conn, table)
        version = int(db.scalar(self.conn, "SELECT value FROM meta WHERE key = 'vector_version'"))
        top = int(db.scalar(self.conn, f"SELECT COALESCE(MAX(id), 0) FROM {table}"))
        with cache.lock:
            if cache.version != version or top < cache.max_id:
                cache.ids, codes = _load(self.conn, table, 0)
                cache.codes = np.ascontiguousarray(codes.T)
            elif top > cache.max_id:
                ids, codes = _load(self.conn, table, cache.max_id)
                if len(ids):
                    cache.ids = np.concatenate([cache.ids, ids])
                    fresh = np.ascontiguousarray(codes.T)
                    cache.codes = np.hstack([cache.codes, fresh]) if cache.codes.size else fresh
            cache.version, cache.max_id = version, top
            return cache.ids, cache.codes, (version, top)

    def knn(
        self, space: str, query: Vectors, n: int, candidates: int = KNN_CANDIDATES
    ) -> list[tuple[int, float]]:
        """The ``n`` nearest ids by cosine similarity: binary coarse scan, then exact rescoring."""
        q = check_vectors(query, self.dim)[0]
        ids, codes, stamp = self._codes(space)
        if len(ids) == 0:
            return []
        key = (space, stamp, candidates, q.tobytes())
        last = self._last.get(space)
        if last is not None and last.key == key:
            return last.found[:n]
        if len(ids) > candidates:
            chosen = ids[_nearest_codes(codes, encode(q[None, :])[0], candidates)]
        else:
            chosen = ids
        keys, matrix = self._matrix(space, [int(i) for i in chosen])
        found = _ranked(keys, matrix, q, len(keys))
        self._last[space] = _Rescored(key, found, dict(zip(keys, matrix, strict=True)))
        return found[:n]

    def _stamp(self, space: str) -> tuple[str, tuple[int, int]]:
        return space, self._codes(space)[2]

    def among(
        self,
        space: str,
        query: Vectors,
        n: int,
        where: str,
        params: Sequence[object],
        candidates: int = KNN_CANDIDATES,
    ) -> list[tuple[int, float]]:
        """The ``n`` nearest base rows matching ``where``: a few thousand or fewer are scanned
        exactly (sqlite-vec), more as :meth:`knn` scans all rows, by their binary codes and then
        exact rescoring (an exact scan of 20k stated preferences among 100k memories took 10 ms
        of a 30 ms recall, twice a turn)."""
        q = check_vectors(query, self.dim)[0]
        # The ids as one string: 20k of them are read and parsed in ~1 ms, row by row in ~3.
        sql = f"SELECT group_concat(b.id) FROM {space} b WHERE {where}"
        allowed = np.fromstring(db.scalar(self.conn, sql, params) or "", dtype=np.int64, sep=",")
        if len(allowed) <= EXACT_ROWS:
            table = vector_table(space, self.generation)
            return [
                (i, 1.0 - float(d))
                for i, d in self.conn.execute(
                    f"SELECT b.id, vec_distance_cosine(v.embedding, ?) AS d FROM {space} b"
                    f" JOIN {table} v ON v.id = b.id WHERE {where} ORDER BY d LIMIT ?",
                    (q.tobytes(), *params, n),
                )
            ]
        ids, codes, _stamp = self._codes(space)
        positions = np.flatnonzero(np.isin(ids, allowed))
        if len(positions) > candidates:
            nearest = _nearest_codes(codes[:, positions], encode(q[None, :])[0], candidates)
            positions = positions[nearest]
        return _ranked(*self._matrix(space, [int(i) for i in ids[positions]]), q, n)


@dataclass(frozen=True)
class _Rescored:
    """A search's candidates as :meth:`VectorIndex.knn` rescored them: ``key`` (space, the
    vectors' stamp, how many candidates, the query), best first, and their float vectors."""

    key: tuple[object, ...]
    found: list[tuple[int, float]]
    vectors: dict[int, Vectors]


def _ranked(keys: list[int], matrix: Vectors, q: Vectors, n: int) -> list[tuple[int, float]]:
    """The ``n`` of ``keys`` whose vectors (rows of ``matrix``) are nearest ``q``, best first."""
    if not keys:
        return []
    scores = np.einsum("nd,d->n", matrix, q)  # no BLAS threads (see ranking.collapse)
    order = np.argsort(-scores)[:n]
    return [(keys[i], float(scores[i])) for i in order]


def register(embedder: Embedder) -> None:
    """Let every space of this process search vectors of ``embedder``'s model with it (a file
    whose vectors are another model's than its store's, while they are re-embedded)."""
    _EMBEDDERS.setdefault(embedder.model_id, embedder)


class EmbeddingSpace:
    """The file's embedding model and its current vector generation, followed on one connection.

    The first store to open a file binds the file to its embedder's model. Another thread may
    switch models (``memory.reembed``): every use re-reads the generation and follows it with an
    embedder of the new model if this process has one, else ``index`` is None (text search only).
    """

    def __init__(self, conn: apsw.Connection, embedder: Embedder) -> None:
        self.conn = conn
        self.embedder = embedder
        self.index: VectorIndex | None = None
        register(embedder)
        if self._meta("embedding_model") is None:  # a new file: bind it to this model
            with db.transaction(conn):
                if self._meta("embedding_model") is None:
                    self._set_meta("embedding_model", embedder.model_id)
                    self._set_meta("embedding_dim", str(embedder.dim))
        self.sync()

    def _meta(self, key: str) -> str | None:
        value = db.scalar(self.conn, "SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @property
    def model_id(self) -> str:
        """The embedding model the file's vectors were made with."""
        return self._meta("embedding_model") or ""

    @property
    def generation(self) -> int:
        return int(self._meta("vector_generation") or 1)

    def sync(self) -> None:
        """Follow the generation in the file (another thread may have switched models)."""
        generation = self.generation
        if self.index is not None and self.index.generation == generation:
            return
        model = self.model_id
        embedder = self.embedder if self.embedder.model_id == model else _EMBEDDERS.get(model)
        if embedder is None:
            _log.warning(
                "vectors are from %s, not %s: text search only", model, self.embedder.model_id
            )
            self.index = None
            return
        self.embedder = embedder
        self.index = VectorIndex(self.conn, generation, embedder.dim)

    def embed(self, texts: Sequence[str]) -> Vectors | None:
        """``texts`` embedded with the file's model (None when only text search works)."""
        self.sync()
        return self.embedder.embed(list(texts)) if self.index is not None else None

    def query_vector(self, query: str, vector: Vectors | None = None) -> Vectors | None:
        """A search query's vector: the given one, or the query embedded (None if blank)."""
        if vector is not None:
            self.sync()
            return vector
        return self.embed([query]) if query.strip() else None

    def bind(self, embedder: Embedder, generation: int) -> None:
        """Make ``generation``, embedded with ``embedder``, the file's vectors.

        Call inside the write transaction that completed that generation.
        """
        self._set_meta("embedding_model", embedder.model_id)
        self._set_meta("embedding_dim", str(embedder.dim))
        self._set_meta("vector_generation", str(generation))
        _EMBEDDERS[embedder.model_id] = embedder
        self.embedder = embedder
        self.sync()
