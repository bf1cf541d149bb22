"""The memory browser's worker thread: searches and every change to memories run here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal, Slot

from engram.assistant.session import embedder_for
from engram.core import log, paths
from engram.core.atomic import atomic_write
from engram.core.errors import EngramError
from engram.core.settings import Settings
from engram.memory import db, transfer
from engram.memory.search import Filters
from engram.memory.store import MemoryStore
from engram.ui import errors

_log = log.get("ui.memory")
SEARCH_K = 200


class MemoryWorker(QObject):
    """Owns a MemoryStore on its own thread; results and errors come back as signals."""

    searched = Signal(int, object)  # request number, [Memory]
    provenance = Signal(int, object)  # memory id, [Episode]
    changed = Signal(str)  # what happened, for the status line
    failed = Signal(str, str)  # message, hint

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self._settings = settings
        self._store: MemoryStore | None = None

    def _open(self) -> MemoryStore:
        if self._store is None:
            self._store = MemoryStore(
                db.connect(paths.database_path()), embedder_for(self._settings)
            )
        return self._store

    def _run(self, action: str, fn: Callable[[], str]) -> None:
        try:
            message = fn()
        except EngramError as exc:
            _log.warning("%s failed: %s", action, exc)
            self.failed.emit(*errors.translate(exc))
            return
        self.changed.emit(message)

    @Slot(int, str, object, object)
    def search(self, request: int, query: str, kinds: object, statuses: object) -> None:
        try:
            store = self._open()
            filters = Filters(kinds=kinds, statuses=statuses)  # type: ignore[arg-type]
            hits = store.search(query, k=SEARCH_K, filters=filters, dedupe=1.01)
        except EngramError as exc:
            self.failed.emit(*errors.translate(exc))
            return
        self.searched.emit(request, [hit.memory for hit in hits])

    @Slot(int)
    def load_provenance(self, memory_id: int) -> None:
        try:
            episodes = self._open().source_episodes(memory_id)
        except EngramError as exc:
            self.failed.emit(*errors.translate(exc))
            return
        self.provenance.emit(memory_id, episodes)

    @Slot(int, str, float)
    def save(self, memory_id: int, content: str, importance: float) -> None:
        def save() -> str:
            self._open().update(memory_id, content, importance=importance)
            return self.tr("Saved.")

        self._run("save", save)

    @Slot(int, bool)
    def pin(self, memory_id: int, pinned: bool) -> None:
        def pin() -> str:
            self._open().pin(memory_id, pinned)
            return self.tr("Pinned.") if pinned else self.tr("Unpinned.")

        self._run("pin", pin)

    @Slot(int)
    def delete(self, memory_id: int) -> None:
        def delete() -> str:
            self._open().delete(memory_id)
            return self.tr("Deleted; its text is gone from the database file.")

        self._run("delete", delete)

    @Slot(int)
    def restore(self, memory_id: int) -> None:
        def restore() -> str:
            self._open().update(memory_id, status="active")
            return self.tr("Restored.")

        self._run("restore", restore)

    @Slot(str, str)
    def export(self, path: str, kind: str) -> None:
        def export() -> str:
            with atomic_write(Path(path)) as handle:
                if kind == "markdown":
                    count = transfer.export_markdown(self._open(), handle)
                else:
                    count = transfer.export_jsonl(self._open(), handle, episodes=True)
            return self.tr("Exported to {path} ({count} entries).").format(path=path, count=count)

        self._run("export", export)

    @Slot(str)
    def import_file(self, path: str) -> None:
        def imported() -> str:
            count = transfer.import_jsonl(self._open(), Path(path))
            return self.tr("Imported {count} memories.").format(count=count)

        self._run("import", imported)

    @Slot(bool)
    def forget_all(self, with_conversations: bool) -> None:
        def forget() -> str:
            count = self._open().forget_all(episodes=with_conversations)
            return self.tr("Forgot {count} memories.").format(count=count)

        self._run("forget", forget)

    @Slot()
    def shutdown(self) -> None:
        if self._store is not None:
            self._store.conn.close()
            self._store = None
        QThread.currentThread().quit()
