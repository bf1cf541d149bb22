"""Switching the embedding model: re-embed everything in batches into a new vector generation.

Search keeps using the current generation until the new one is complete; the swap (catch-up of rows
written meanwhile, meta update, dropping the old tables) happens in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable

from engram.core import log
from engram.memory import db, migrations, vectors
from engram.memory.embed import Embedder
from engram.memory.store import MemoryStore

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
    old = store.space.generation
    new = old + 1
    with db.transaction(conn):
        migrations.drop_vector_tables(conn, new)
        migrations.create_vector_tables(conn, new)
    index = vectors.VectorIndex(conn, new, embedder.dim)
    total = sum(int(db.scalar(conn, f"SELECT COUNT(*) FROM {s}")) for s in migrations.VECTOR_SPACES)
    done = 0
    for space in migrations.VECTOR_SPACES:
        while todo := index.missing(space, batch):
            if cancel is not None and cancel():
                with db.transaction(conn):
                    migrations.drop_vector_tables(conn, new)
                _log.info("re-embedding with %s cancelled", embedder.model_id)
                return False
            vecs = embedder.embed([text or " " for _, text in todo])
            with db.transaction(conn):
                index.put(space, [i for i, _ in todo], vecs)
            done += len(todo)
            if progress is not None:
                progress(min(done, total), total)
    with db.transaction(conn):
        for space in migrations.VECTOR_SPACES:
            while todo := index.missing(space, batch):
                index.put(space, [i for i, _ in todo], embedder.embed([t or " " for _, t in todo]))
        migrations.drop_vector_tables(conn, old)
        conn.execute(migrations.BUMP_VECTOR_VERSION)
        store.space.bind(embedder, new)
    _log.info("re-embedded %d rows with %s", done, embedder.model_id)
    return True
