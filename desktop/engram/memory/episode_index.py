"""The episode index: vectors for raw messages, and hybrid search over them."""

from __future__ import annotations

from typing import Literal

import apsw

from engram.memory import db, faults
from engram.memory.embed import Vectors
from engram.memory.episodes import EpisodeLog
from engram.memory.records import EpisodeHit
from engram.memory.search import Filters, focus, hybrid
from engram.memory.vectors import EmbeddingSpace

SearchMode = Literal["hybrid", "vector", "text"]


class EpisodeIndex:
    """Embeds and searches the episodes of the file (share the store's ``EmbeddingSpace``)."""

    def __init__(self, space: EmbeddingSpace) -> None:
        self.space = space

    @property
    def conn(self) -> apsw.Connection:
        return self.space.conn

    @faults.reported
    def index_new(self, batch: int = 64) -> int:
        """Embed the episodes that have no vector yet; returns how many were added."""
        space = self.space
        space.sync()
        done = 0
        while space.index is not None and (todo := space.index.missing("episodes", batch)):
            vecs = space.embedder.embed([text or " " for _, text in todo])
            with db.transaction(space.conn):
                space.index.put("episodes", [i for i, _ in todo], vecs)
            done += len(todo)
        return done

    def query_vector(self, query: str) -> Vectors | None:
        """The query embedded without the words common to the messages (see ``search.focus``)."""
        return self.space.query_vector(focus(self.space.conn, "episodes", query).text)

    @faults.reported
    def search(
        self,
        query: str,
        k: int = 10,
        filters: Filters | None = None,
        vector: Vectors | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[EpisodeHit]:
        """Search raw messages; ``mode`` is "hybrid", "vector" or "text".

        ``vector`` should come from :meth:`query_vector` (it is computed so when not given).
        """
        terms = focus(self.space.conn, "episodes", query)
        vec = self.space.query_vector(terms.text, vector) if mode != "text" else None
        found = hybrid(
            self.space.conn,
            self.space.index if mode != "text" else None,
            "episodes",
            terms,
            vec,
            filters or Filters(statuses=None),
            max(50, k * 3),
            use_text=mode != "vector",
        )[:k]
        episodes = EpisodeLog(self.space.conn).by_id([c.id for c in found])
        return [
            EpisodeHit(episodes[c.id], c.score, c.similarity, c.text_rank)
            for c in found
            if c.id in episodes
        ]
