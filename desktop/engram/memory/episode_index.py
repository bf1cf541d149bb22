"""The episode index: vectors for raw messages, and hybrid search over them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import apsw

from engram.core import log
from engram.memory import db, faults, migrations
from engram.memory.embed import Embedder, Vectors
from engram.memory.episodes import EpisodeLog
from engram.memory.passes import Pass
from engram.memory.records import EpisodeHit
from engram.memory.search import Filters, Focus, focus, hybrid
from engram.memory.vectors import EmbeddingSpace

SearchMode = Literal["hybrid", "vector", "text"]
_log = log.get("memory.episode_index")


class EpisodeIndex:
    """Embeds and searches the episodes of the file (share the store's ``EmbeddingSpace``)."""

    def __init__(self, space: EmbeddingSpace) -> None:
        self.space = space

    @property
    def conn(self) -> apsw.Connection:
        return self.space.conn

    @faults.reported
    def index_new(
        self,
        batch: int = 64,
        limit: int | None = None,
        cancel: Callable[[], bool] | None = None,
        newest: bool = False,
    ) -> int:
        """Embed the episodes that have no vector yet (at most ``limit``, oldest first, until
        ``cancel``; ``newest``: only those after the newest vector, see
        ``VectorIndex.missing``); returns how many were added."""
        return embed_missing(self.space, "episodes", batch, limit, cancel, newest=newest)

    def focus(self, query: str) -> Focus:
        """The query without the words common to the messages (see ``search.focus``): its
        ``text`` to embed and its ``terms`` to match."""
        return focus(self.space.conn, "episodes", query)

    def query_vector(self, query: str | Focus) -> Vectors | None:
        """The query (or its focus) embedded without the words common to the messages."""
        terms = query if isinstance(query, Focus) else self.focus(query)
        return self.space.query_vector(terms.text)

    @faults.reported
    def search(
        self,
        query: str | Focus,
        k: int = 10,
        filters: Filters | None = None,
        vector: Vectors | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[EpisodeHit]:
        """Search raw messages; ``mode`` is "hybrid", "vector" or "text".

        A message said again word for word counts once, where it ranks best: asked in six chats,
        "When did I go to the dentist?" filled every place and the message that said when was
        never found. ``vector`` should come from :meth:`query_vector` (it is computed so when
        not given); a :meth:`focus` given as ``query`` is not worked out again.
        """
        terms = query if isinstance(query, Focus) else self.focus(query)
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
            need=k,
        )
        # Whole rows are read a head at a time: the next head only while repeats and missing
        # rows leave fewer than k (a turn keeps a fifth of the candidates with their neighbours).
        log = EpisodeLog(self.space.conn)
        hits: list[EpisodeHit] = []
        said: set[str] = set()
        head = max(k * 2, 1)
        for start in range(0, len(found), head):
            chunk = found[start : start + head]
            episodes = log.by_id([c.id for c in chunk])
            for c in chunk:
                episode = episodes.get(c.id)
                words = " ".join(episode.content.split()).casefold() if episode else ""
                if episode is None or words in said:
                    continue
                said.add(words)
                hits.append(EpisodeHit(episode, c.score, c.similarity, c.text_rank, c.beside))
                if len(hits) == k:
                    return hits
        return hits


Progress = Callable[[int, int], None]  # (embedded so far, how many in all)


def embed_missing(
    space: EmbeddingSpace,
    table: str,
    batch: int = 64,
    limit: int | None = None,
    cancel: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    newest: bool = False,
) -> int:
    """Embed the rows of ``table`` (one of ``migrations.VECTOR_SPACES``) that have no vector
    yet, a batch per transaction (at most ``limit``, oldest first, until ``cancel``); returns
    how many."""
    space.sync()
    if space.index is None:
        return 0
    index = space.index
    # Counting is a scan of both tables: only for a caller that shows progress (each turn calls
    # this, almost always to find nothing missing).
    total = (
        int(db.scalar(space.conn, f"SELECT COUNT(*) FROM {table}")) - index.count(table)
        if progress is not None
        else 0
    )
    done = 0
    while not (cancel is not None and cancel()):
        size = batch if limit is None else min(batch, limit - done)
        todo = index.missing(table, size, newest) if size > 0 else []
        if not todo:
            break
        vecs = space.embedder.embed([text or " " for _, text in todo])
        with db.transaction(space.conn):
            index.put(table, [i for i, _ in todo], vecs)
        done += len(todo)
        if progress is not None:
            progress(done, max(total, done))
    return done


class Backfill(Pass):
    """Embeds every memory and episode still without a vector on its own thread and connection.

    After a large import the turn embeds only a few messages before it searches (the rest are
    found by their words meanwhile), and an import cut short leaves memories without vectors;
    this catches up in the background. ``close()`` stops it between batches and waits.
    """

    name = "backfill"

    def __init__(self, path: Path, embedder: Embedder) -> None:
        super().__init__(path, embedder)
        self.done = 0
        self.start()

    def work(self, conn: apsw.Connection, embedder: Embedder) -> None:
        space = EmbeddingSpace(conn, embedder)
        for table in migrations.VECTOR_SPACES:
            self.done += embed_missing(space, table, cancel=self.cancel)
        _log.info("backfill embedded %d rows", self.done)

    def wait(self) -> int:
        self.join()
        return self.done
