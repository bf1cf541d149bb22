"""Hybrid retrieval: vector KNN and FTS5 BM25 fused by reciprocal rank, under SQL filters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import apsw

from engram.memory import db
from engram.memory import text as textmod
from engram.memory.embed import Vectors
from engram.memory.vectors import VectorIndex

RRF_K = 60


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
        elif space == "episodes":  # a temporary chat is never recalled in another one
            clauses.append(
                "b.conversation_id NOT IN (SELECT id FROM conversations WHERE temporary = 1)"
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
    """One fused result before ranking: its RRF score and what each retriever said."""

    id: int
    rrf: float
    similarity: float | None
    text_rank: int | None


def vector_candidates(
    conn: apsw.Connection,
    index: VectorIndex,
    space: str,
    query: Vectors,
    pool: int,
    filters: Filters,
) -> list[tuple[int, float]]:
    """Nearest rows that pass the filters; falls back to an exact filtered scan if too few pass."""
    where, params = filters.where(space)
    near = index.knn(space, query, pool * 2)
    if where == "1":
        return near[:pool]
    allowed = {
        row_id
        for (row_id,) in conn.execute(
            f"SELECT b.id FROM json_each(?) j CROSS JOIN {space} b ON b.id = j.value WHERE {where}",
            (json.dumps([i for i, _ in near]), *params),
        )
    }
    kept = [(i, s) for i, s in near if i in allowed][:pool]
    if len(kept) < pool:
        return index.exact(space, query, pool, where, params)
    return kept


def selective_terms(conn: apsw.Connection, space: str, terms: list[str]) -> list[str]:
    """Drop terms in more than 0.2% of the rows (at least 1,000): they rank little, cost much."""
    if not terms:
        return []
    rows = max(1, int(conn.execute(f"SELECT MAX(rowid) FROM {space}").fetchall()[0][0] or 1))
    cap = max(1000, rows // 500)
    sql = f"SELECT COUNT(*) FROM (SELECT rowid FROM {space}_fts WHERE {space}_fts MATCH ? LIMIT ?)"
    return [t for t in terms if int(db.scalar(conn, sql, (textmod.fts_match([t]), cap + 1))) <= cap]


def text_candidates(
    conn: apsw.Connection, space: str, query: str, pool: int, filters: Filters
) -> list[int]:
    """Ids ranked by BM25 over the CJK-aware full-text index."""
    match = textmod.fts_match(selective_terms(conn, space, textmod.query_terms(query)))
    if not match:
        return []
    where, params = filters.where(space)
    join = f" CROSS JOIN {space} b ON b.id = f.rowid" if where != "1" else ""
    return [
        row_id
        for (row_id,) in conn.execute(
            f"SELECT f.rowid FROM {space}_fts f{join}"
            f" WHERE {space}_fts MATCH ? AND {where} ORDER BY bm25({space}_fts) LIMIT ?",
            (match, *params, pool),
        )
    ]


def fuse(vector: list[tuple[int, float]], lexical: list[int]) -> list[Candidate]:
    """Reciprocal rank fusion of the two ranked lists, best first."""
    scores: dict[int, float] = {}
    for rank, (row_id, _) in enumerate(vector, 1):
        scores[row_id] = scores.get(row_id, 0.0) + 1.0 / (RRF_K + rank)
    for rank, row_id in enumerate(lexical, 1):
        scores[row_id] = scores.get(row_id, 0.0) + 1.0 / (RRF_K + rank)
    similarity = dict(vector)
    text_rank = {row_id: rank for rank, row_id in enumerate(lexical, 1)}
    return [
        Candidate(i, s, similarity.get(i), text_rank.get(i))
        for i, s in sorted(scores.items(), key=lambda item: -item[1])
    ]


def hybrid(
    conn: apsw.Connection,
    index: VectorIndex | None,
    space: str,
    query: str,
    vector: Vectors | None,
    filters: Filters,
    pool: int = 50,
    use_text: bool = True,
) -> list[Candidate]:
    """Fused candidates from both retrievers (either may be skipped)."""
    near = (
        vector_candidates(conn, index, space, vector, pool, filters)
        if index is not None and vector is not None
        else []
    )
    lexical = text_candidates(conn, space, query, pool, filters) if use_text else []
    return fuse(near, lexical)
