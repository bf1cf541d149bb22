"""Switching the embedding model: re-embed everything in batches into a new vector generation.

Search keeps using the current generation until the new one is complete; the swap (catch-up of rows
written meanwhile, meta update, dropping the old tables) happens in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable

from engram.core import log
from engram.memory import db, vectors
from engram.memory.embed import Embedder
from engram.memory.store import _EMBEDDERS, MemoryStore

_log = log.get("memory.reembed")
Progress = Callable[[int, int], None]


def reembed(
    store: MemoryStore,
    embedder: Embedder,
    progress: Progress | None = None,
    cancel: Callable[[], bool] | None = None,
    batch: int = 64,
) -> bool:
    """Re-embed all memories and episodes with ``embedder``; False if cancelled (nothing changes).

    Run it on a background thread with that thread's own store; ``progress(done, total)`` is
    called after every batch and ``cancel()`` is checked before each one.
    """
    conn = store.conn
    old = int(db.scalar(conn, "SELECT value FROM meta WHERE key = 'vector_generation'") or 1)
    new = old + 1
    with store._writing():
        vectors.drop_tables(conn, new)
        vectors.create_tables(conn, new)
    index = vectors.VectorIndex(conn, new, embedder.dim)
    total = sum(int(db.scalar(conn, f"SELECT COUNT(*) FROM {s}")) for s in vectors.SPACES)
    done = 0
    for space in vectors.SPACES:
        while todo := index.missing(space, batch):
            if cancel is not None and cancel():
                with store._writing():
                    vectors.drop_tables(conn, new)
                _log.info("re-embedding with %s cancelled", embedder.model_id)
                return False
            vecs = embedder.embed([text or " " for _, text in todo])
            with store._writing():
                index.put(space, [i for i, _ in todo], vecs)
            done += len(todo)
            if progress is not None:
                progress(min(done, total), total)
    with store._writing():
        for space in vectors.SPACES:
            while todo := index.missing(space, batch):
                index.put(space, [i for i, _ in todo], embedder.embed([t or " " for _, t in todo]))
        store._set_meta("embedding_model", embedder.model_id)
        store._set_meta("embedding_dim", str(embedder.dim))
        store._set_meta("vector_generation", str(new))
        vectors.drop_tables(conn, old)
        conn.execute(vectors.BUMP_VERSION)
    _EMBEDDERS[embedder.model_id] = embedder
    store.embedder = embedder
    store._sync()
    _log.info("re-embedded %d rows with %s", done, embedder.model_id)
    return True
