"""A pass over the whole file on a thread and connection of its own, at low priority, stopped
between batches by ``close()``: the embedding backfill and the re-embedding are two."""

from __future__ import annotations

import threading
from pathlib import Path

import apsw

from engram.core import log, priority
from engram.core.cancel import CancelToken
from engram.core.errors import StoreError
from engram.memory import db
from engram.memory.embed import Embedder

_log = log.get("memory.passes")


class Pass:
    """Runs :meth:`work` once on its own thread and connection; a store error ends it with a
    line in the log, never a traceback."""

    name = "pass"

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.cancel = CancelToken()
        self._thread = threading.Thread(
            target=self._run, args=(path, embedder), name=f"engram-{self.name}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def work(self, conn: apsw.Connection, embedder: Embedder) -> None:
        raise NotImplementedError

    def _run(self, path: Path, embedder: Embedder) -> None:
        priority.lower_this_thread()
        try:
            conn = db.connect(path)
        except StoreError as exc:
            _log.warning("%s not started: %s", self.name, type(exc).__name__)
            return
        try:
            self.work(conn, embedder)
        except StoreError as exc:
            _log.warning("%s stopped: %s", self.name, type(exc).__name__)
        finally:
            conn.close()

    def join(self) -> None:
        self._thread.join()

    def close(self) -> None:
        """Stop between batches and wait (the next start carries on)."""
        self.cancel.cancel()
        self._thread.join()
