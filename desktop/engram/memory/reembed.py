"""Switching the embedding model: re-embed everything in batches into a new vector generation.

Search keeps using the current generation until the new one is complete; the swap (catch-up of rows
written meanwhile, meta update) happens in one transaction. The old generation's tables stay until
the next start (``migrations.drop_older_generations``): a search that read the old generation's
number just before the swap still finds them. A run that
stops (the app closed, the machine went down) leaves the rows it embedded in the new generation
and the next run for the same model carries on from there; a run for another model starts over.
Vectors of two models are never compared: the new generation is searched only once it is whole.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import apsw

from engram.core import log
from engram.memory import db, migrations, vectors
from engram.memory.embed import Embedder
from engram.memory.episode_index import Progress
from engram.memory.passes import Pass
from engram.memory.store import MemoryStore

_log = log.get("memory.reembed")
# meta key: the model a re-embedding under way is for, and its generation ("model@generation").
TARGET = "reembed_target"


def reembed(
    store: MemoryStore,
    embedder: Embedder,
    progress: Progress | None = None,
    cancel: Callable[[], bool] | None = None,
    batch: int = 64,
) -> bool:
    """Re-embed all memories and episodes with ``embedder``; False if cancelled (the rows done
    so far are kept for the next run with the same model; search is unchanged).

    Run it on a background thread with that thread's own store; ``progress(done, total)`` is
    called after every batch and ``cancel()`` is checked before each one.
    """
    conn = store.conn
    old = store.space.generation
    new = old + 1
    target = f"{embedder.model_id}@{new}"
    with db.transaction(conn):
        migrations.drop_older_generations(conn, old)
        if db.scalar(conn, "SELECT value FROM meta WHERE key = ?", (TARGET,)) != target:
            migrations.drop_vector_tables(conn, new)
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (TARGET, target))
        migrations.create_vector_tables(conn, new)
    index = vectors.VectorIndex(conn, new, embedder.dim)
    total = sum(int(db.scalar(conn, f"SELECT COUNT(*) FROM {s}")) for s in migrations.VECTOR_SPACES)
    done = sum(index.count(s) for s in migrations.VECTOR_SPACES)
    if progress is not None:
        progress(min(done, total), total)
    for space in migrations.VECTOR_SPACES:
        while todo := index.missing(space, batch):
            if cancel is not None and cancel():
                _log.info("re-embedding stopped at %d of %d rows", done, total)
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
        conn.execute("DELETE FROM meta WHERE key = ?", (TARGET,))
        conn.execute(migrations.BUMP_VECTOR_VERSION)
        store.space.bind(embedder, new)
    _log.info("re-embedded %d rows with %s", done, embedder.model_id)
    return True


class Reembedding(Pass):
    """Re-embeds a file's memories and messages with a new model on its own thread and
    connection, when the file's vectors are another model's.

    Until it is done, search uses the file's current vectors through ``old`` (the embedder of
    their model, when this machine has it; else by words alone). ``progress`` is (done, total);
    ``close()`` stops it between batches and waits; the next start carries on.
    """

    name = "reembed"

    def __init__(self, path: Path, embedder: Embedder, old: Embedder | None) -> None:
        if old is not None:
            vectors.register(old)  # every store in this process searches the old space meanwhile
        super().__init__(path, embedder)
        self.progress: tuple[int, int] = (0, 0)
        self.finished = False
        self.start()

    def _report(self, done: int, total: int) -> None:
        self.progress = (done, total)

    def work(self, conn: apsw.Connection, embedder: Embedder) -> None:
        store = MemoryStore(conn, embedder)
        self.finished = reembed(store, embedder, self._report, self.cancel)

    def wait(self) -> bool:
        """Wait for the end; True when the new vectors are in place."""
        self.join()
        return self.finished
