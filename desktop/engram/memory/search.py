"""Hybrid retrieval: vector KNN and FTS5 BM25, fused, under SQL filters.

Both fuse the two lists by their z-scored scores (memories' ranking adds importance, pinning
and recency). Raw messages go further, as measured on real conversations (bench/recall_lab.py,
docs/evaluation.md): words found in a quarter of the messages leave both queries (a speaker's
name says nothing about which of their messages is meant); the keyword side also reads the
previous message at 0.3 of the weight (an answer holds few of its question's words); the two
retrievers' scores are z-scored and added; each message is lifted by the best message of its
sitting (its session); and the messages right before and after a strong hit join the ranking,
so an answer is found next to its question.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import apsw
import numpy as np

from engram.memory import db
from engram.memory import text as textmod
from engram.memory.embed import Vectors
from engram.memory.vectors import KNN_CANDIDATES, VectorIndex

# A word in more than this share of the rows (of at least MIN_COMMON) leaves both queries.
RRF_K = 60
MIN_SCORED = 3  # candidates a list needs before its scores are z-scored
COMMON_SHARE = 0.25
MIN_COMMON = 50
# Messages of one conversation less than this many seconds apart are one sitting (session).
SITTING_GAP = 3600.0
SESSION_LIFT = 0.3  # share of the sitting's best score added to each of its messages
NEIGHBOUR_SHARE = 0.6  # share of a hit's score its previous and next message rank with
# BM25 column weights: a message's words, then the previous message's (migration 0010).
WEIGHTS = {"memories": "", "episodes": ", 1.0, 0.3", "situations": ""}


@dataclass(frozen=True)
class Filters:
    """Which rows a search may return. ``statuses`` and ``kinds`` apply to memories only."""

    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = ("active",)
    conversation_id: int | None = None
    since: float | None = None
    until: float | None = None

    def where(self, space: str) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if space == "memories":
            for column, values in (("kind", self.kinds), ("status", self.statuses)):
                if values:
                    clauses.append(f"b.{column} IN ({', '.join('?' for _ in values)})")
                    params.extend(values)
        if self.conversation_id is not None:
            clauses.append("b.conversation_id = ?")
            params.append(self.conversation_id)
        elif space == "episodes":
            # Never recalled in another chat: a temporary chat, and what was said while memory
            # was paused (stored as excluded, and indexed like every message).
            clauses.append(
                "b.excluded = 0"
                " AND b.conversation_id NOT IN (SELECT id FROM conversations WHERE temporary = 1)"
            )
        if self.since is not None:
            clauses.append("b.created_at >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append("b.created_at < ?")
            params.append(self.until)
        return (" AND ".join(clauses) or "1"), params


@dataclass(frozen=True)
class Candidate:
    """One fused result before ranking: its fused score and what each retriever said."""

    id: int
    score: float
    similarity: float | None
    text_rank: int | None
    beside: int | None = None  # a neighbour: the hit it came with (and whose signals it has)

    @property
    def signals(self) -> tuple[float | None, int | None]:
        """What the retrievers said (a copy with another id or score keeps them)."""
        return self.similarity, self.text_rank


def vector_candidates(
    conn: apsw.Connection,
    index: VectorIndex,
    space: str,
    query: Vectors,
    pool: int,
    filters: Filters,
    need: int | None = None,
) -> list[tuple[int, float]]:
    """The ``pool`` nearest rows that pass the filters, or as many as pass among the nearest
    when that is at least ``need`` (the rows the caller keeps; default ``pool``); else a search
    among the rows that pass (:meth:`VectorIndex.among`). A filtered search looks among the
    candidates the coarse scan rescored (:data:`KNN_CANDIDATES`, read once for both of a turn's
    searches), nearest first, ``2 * pool`` at a time until ``pool`` pass (the search of every
    active memory checks 100 rows, not 400: 0.6 ms of a turn at 100k memories): at 100k
    memories a fifth of them stated preferences, so the scan among the 20k preferences (3 ms) is
    left for the messages near fewer of them than a turn keeps (24-31 of 400 for four of the
    fourteen messages of bench/turn.py, each keeping three)."""
    where, params = filters.where(space)
    asked = pool * 2 if where == "1" else max(pool * 2, KNN_CANDIDATES)
    near = index.knn(space, query, asked)
    if where == "1":
        return near[:pool]
    kept: list[tuple[int, float]] = []
    for start in range(0, len(near), pool * 2):
        chunk = near[start : start + pool * 2]
        allowed = {
            row_id
            for (row_id,) in conn.execute(
                f"SELECT b.id FROM json_each(?) j CROSS JOIN {space} b ON b.id = j.value"
                f" WHERE {where}",
                (json.dumps([i for i, _ in chunk]), *params),
            )
        }
        kept += [(i, s) for i, s in chunk if i in allowed]
        if len(kept) >= pool:
            break
    kept = kept[:pool]
    # Fewer nearest than asked for are every row there is: those that pass are all that do.
    cut = len(near) == asked or asked > KNN_CANDIDATES
    enough = pool if need is None else min(pool, need)
    if len(kept) < enough and cut:
        return index.among(space, query, pool, where, params)
    return kept


@dataclass(frozen=True)
class Focus:
    """A query without the words that tell rows apart too little: ``text`` to embed, ``terms``
    to match."""

    text: str
    terms: list[str]


def _row_count(conn: apsw.Connection, space: str) -> int:
    return max(1, int(conn.execute(f"SELECT MAX(rowid) FROM {space}").fetchall()[0][0] or 1))


# A query's first this many distinct terms are searched (each costs one full-text lookup).
MAX_QUERY_TERMS = 64


Share = Literal["kept", "common", "skipped"]
# A term's share of the rows changes slowly: its class is looked up again once the table has grown
# or shrunk by this share since (a turn adds two messages, an import thousands).
RECLASS_SHARE = 0.02
MAX_CLASSED = 20_000  # terms remembered per file and table


@dataclass
class _Classes:
    rows: int
    of: dict[str, Share]


_CLASSES: dict[tuple[str, str], _Classes] = {}
_CLASSES_LOCK = threading.Lock()


def focus(conn: apsw.Connection, space: str, query: str) -> Focus:
    """The query's terms in at most 0.2% of the rows (at least 1,000; they rank little, cost
    much), and its text without the words in more than ``COMMON_SHARE`` of them."""
    terms = textmod.query_terms(query)[:MAX_QUERY_TERMS]  # a pasted book is not 30k lookups
    if not terms:
        return Focus(query, [])
    rows = _row_count(conn, space)
    with _CLASSES_LOCK:
        known = _CLASSES.get((conn.filename, space))
        if known is None or abs(rows - known.rows) > RECLASS_SHARE * known.rows:
            known = _CLASSES[(conn.filename, space)] = _Classes(rows, {})
        shares = {term: known.of[term] for term in terms if term in known.of}
    looked_up = {t: _share(conn, space, t, rows) for t in terms if t not in shares}
    shares.update(looked_up)
    if looked_up and conn.filename:  # one in-memory database must not answer for another
        with _CLASSES_LOCK:
            if len(known.of) > MAX_CLASSED:
                known.of.clear()
            known.of.update(looked_up)
    kept = [term for term in terms if shares[term] == "kept"]
    common = [term for term in terms if shares[term] == "common"]
    return Focus(textmod.without_words(query, common) or query, kept)


def _share(conn: apsw.Connection, space: str, term: str, rows: int) -> Share:
    """Whether a term is in few enough rows to search ("kept"), in more than ``COMMON_SHARE`` of
    them ("common": dropped from the embedded text too), or in between ("skipped")."""
    cap = max(1000, rows // 500)
    common_cap = max(MIN_COMMON, int(rows * COMMON_SHARE))
    sql = f"SELECT COUNT(*) FROM (SELECT rowid FROM {space}_fts WHERE {space}_fts MATCH ? LIMIT ?)"
    match = "body : " + textmod.fts_match([term])  # a row's own words, not its context
    count = int(db.scalar(conn, sql, (match, min(cap, common_cap) + 1)))
    if count <= min(cap, common_cap):
        return "kept"
    if common_cap <= cap or int(db.scalar(conn, sql, (match, common_cap + 1))) > common_cap:
        return "common"
    return "skipped"


def text_candidates(
    conn: apsw.Connection, space: str, terms: list[str], pool: int, filters: Filters
) -> list[tuple[int, float]]:
    """Ids and BM25 scores (higher is better) over the CJK-aware full-text index, best first."""
    match = textmod.fts_match(terms)
    if not match:
        return []
    where, params = filters.where(space)
    join = f" CROSS JOIN {space} b ON b.id = f.rowid" if where != "1" else ""
    return [
        (int(row_id), -float(score))
        for row_id, score in conn.execute(
            f"SELECT f.rowid, bm25({space}_fts{WEIGHTS[space]}) AS s FROM {space}_fts f{join}"
            f" WHERE {space}_fts MATCH ? AND {where} ORDER BY s LIMIT ?",
            (match, *params, pool),
        )
    ]


def fuse(vector: list[tuple[int, float]], lexical: list[tuple[int, float]]) -> list[Candidate]:
    """Reciprocal rank fusion of the two ranked lists, best first."""
    scores: dict[int, float] = {}
    for ranked in (vector, lexical):
        for rank, (row_id, _) in enumerate(ranked, 1):
            scores[row_id] = scores.get(row_id, 0.0) + 1.0 / (RRF_K + rank)
    return _candidates(scores, vector, lexical)


def fuse_memories(
    vector: list[tuple[int, float]], lexical: list[tuple[int, float]]
) -> list[Candidate]:
    """Score fusion (:func:`fuse_scores`) where both lists are long enough to say how far a
    score stands out (:data:`MIN_SCORED`), else reciprocal rank fusion: two scores z-score to
    +1 and -1 however close they are."""
    if min(len(vector), len(lexical)) >= MIN_SCORED or not (vector and lexical):
        return fuse_scores(vector, lexical)
    return fuse(vector, lexical)


def fuse_scores(
    vector: list[tuple[int, float]], lexical: list[tuple[int, float]]
) -> list[Candidate]:
    """Score fusion: each list's scores z-scored, a row missing from one list taking that list's
    lowest, the sum shifted so the weakest candidate scores 0; best first."""
    zv, zl = _z(vector), _z(lexical)
    low_v, low_l = min(zv.values(), default=0.0), min(zl.values(), default=0.0)
    summed = {i: zv.get(i, low_v) + zl.get(i, low_l) for i in zv.keys() | zl.keys()}
    floor = min(summed.values(), default=0.0)
    return _candidates({i: s - floor for i, s in summed.items()}, vector, lexical)


def _z(ranked: list[tuple[int, float]]) -> dict[int, float]:
    if not ranked:
        return {}
    values = np.array([s for _, s in ranked], dtype=np.float64)
    spread = float(values.std()) or 1.0
    mean = float(values.mean())
    return {i: (s - mean) / spread for i, s in ranked}


def _candidates(
    scores: dict[int, float], vector: list[tuple[int, float]], lexical: list[tuple[int, float]]
) -> list[Candidate]:
    similarity = dict(vector)
    text_rank = {row_id: rank for rank, (row_id, _) in enumerate(lexical, 1)}
    return [
        Candidate(i, s, similarity.get(i), text_rank.get(i))
        for i, s in sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    ]


def hybrid(
    conn: apsw.Connection,
    index: VectorIndex | None,
    space: str,
    query: Focus,
    vector: Vectors | None,
    filters: Filters,
    pool: int = 50,
    use_text: bool = True,
    need: int | None = None,
) -> list[Candidate]:
    """Candidates from both retrievers (either may be skipped), by score fusion: a memory that
    only the vectors find (a fact told in another language shares no word with the question)
    still ranks above the memories that share a word and little meaning, as reciprocal rank
    fusion did not rank it. Messages are fused within their sittings, with their neighbours
    (``need``: see :func:`vector_candidates`)."""
    near = (
        vector_candidates(conn, index, space, vector, pool, filters, need)
        if index is not None and vector is not None
        else []
    )
    lexical = text_candidates(conn, space, query.terms, pool, filters) if use_text else []
    if space == "memories":
        return fuse_memories(near, lexical)
    return in_context(conn, fuse_scores(near, lexical), filters)


def in_context(conn: apsw.Connection, found: list[Candidate], filters: Filters) -> list[Candidate]:
    """Messages lifted by the best message of their sitting, then joined by the message before
    and after each hit at ``NEIGHBOUR_SHARE`` of its score (a neighbour carries the retrieval
    signals of the hit it came with); best first."""
    if not found:
        return []
    where, params = filters.where("episodes")
    rows = {
        int(r[0]): (int(r[1]), int(r[2]), float(r[3]))
        for r in conn.execute(
            "SELECT b.id, b.conversation_id, b.turn_index, b.created_at FROM json_each(?) j"
            " CROSS JOIN episodes b ON b.id = j.value",
            (json.dumps([c.id for c in found]),),
        )
    }
    known = [c for c in found if c.id in rows]
    conversation = np.array([rows[c.id][0] for c in known])
    at = np.array([rows[c.id][2] for c in known])
    scores = np.array([c.score for c in known])
    sitting = (conversation[:, None] == conversation[None, :]) & (
        np.abs(at[:, None] - at[None, :]) <= SITTING_GAP
    )
    best = np.where(sitting, scores[None, :], -np.inf).max(axis=1, initial=-np.inf)
    lifted = {c.id: c for c in found}
    for c, top in zip(known, best, strict=True):
        lifted[c.id] = Candidate(c.id, c.score + SESSION_LIFT * float(top), *c.signals)
    wanted = [
        (conv, turn + step, c.id)
        for c in lifted.values()
        if c.id in rows
        for conv, turn, _ in [rows[c.id]]
        for step in (-1, 1)
    ]
    beside = conn.execute(
        "SELECT b.id, b.created_at, j.value ->> 2 FROM json_each(?) j CROSS JOIN episodes b"
        " ON b.conversation_id = j.value ->> 0 AND b.turn_index = j.value ->> 1"
        f" WHERE {where}",
        (json.dumps(wanted), *params),
    )
    out = dict(lifted)
    for row_id, when, source in beside:
        hit = lifted[int(source)]
        if abs(float(when) - rows[hit.id][2]) > SITTING_GAP:
            continue
        score = NEIGHBOUR_SHARE * hit.score
        if row_id not in out or out[row_id].score < score:
            own = lifted.get(int(row_id))  # a hit itself keeps what the retrievers said of it
            out[row_id] = (
                Candidate(int(row_id), score, *own.signals)
                if own is not None
                else Candidate(int(row_id), score, *hit.signals, beside=hit.id)
            )
    # At equal scores a hit ranks before a neighbour.
    return sorted(out.values(), key=lambda c: (-c.score, c.id not in lifted, c.id))
