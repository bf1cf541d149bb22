"""The memory browser's worker thread: searches and every change to memories run here."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal

from engram.assistant.memories import Memories, open_memories
from engram.core import log
from engram.core.settings import Settings
from engram.ui.threads import Worker, worker_slot

_log = log.get("ui.memory")
SEARCH_K = 200


class MemoryWorker(Worker):
    """Owns the memories on its own thread; results and errors come back as signals."""

    searched = Signal(int, object)  # request number, [Memory]
    provenance = Signal(int, object)  # memory id, [Episode]
    changed = Signal(str)  # what happened, for the status line
    added = Signal(int, str)  # the memory the user added (or the one already there), what happened

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self._settings = settings
        self._memories: Memories | None = None

    def _open(self) -> Memories:
        if self._memories is None:
            self._memories = open_memories(self._settings)
        return self._memories

    @worker_slot(int, str, object, object)
    def search(self, request: int, query: str, kinds: object, statuses: object) -> None:
        hits = self._open().search(query, SEARCH_K, kinds, statuses, dedupe=1.01)  # type: ignore[arg-type]
        self.searched.emit(request, [hit.memory for hit in hits])

    @worker_slot(int)
    def load_provenance(self, memory_id: int) -> None:
        self.provenance.emit(memory_id, self._open().source_episodes(memory_id))

    @worker_slot(str, str)
    def add(self, content: str, kind: str) -> None:
        remembered = self._open().add(content, kind)
        if remembered.change is not None:
            before, after = remembered.change
            said = self.tr("Added; it updates an earlier memory: {before} → {after}.").format(
                before=before, after=after
            )
        else:
            said = self.tr("Added.")
        self.added.emit(remembered.memory_id, said)

    @worker_slot(int, str, float)
    def save(self, memory_id: int, content: str, importance: float) -> None:
        self._open().save(memory_id, content, importance)
        self.changed.emit(self.tr("Saved."))

    @worker_slot(int, bool)
    def pin(self, memory_id: int, pinned: bool) -> None:
        self._open().pin(memory_id, pinned)
        self.changed.emit(self.tr("Pinned.") if pinned else self.tr("Unpinned."))

    @worker_slot(int)
    def delete(self, memory_id: int) -> None:
        self._open().delete(memory_id)
        self.changed.emit(self.tr("Deleted; its text is gone from the database file."))

    @worker_slot(int)
    def restore(self, memory_id: int) -> None:
        self._open().restore(memory_id)
        self.changed.emit(self.tr("Restored."))

    @worker_slot(int, int)
    def undo(self, memory_id: int, write_id: int) -> None:
        self._open().undo(memory_id, write_id)
        self.changed.emit(self.tr("Undone: the earlier version is back."))

    @worker_slot(str, str)
    def export(self, path: str, kind: str) -> None:
        count = self._open().export_to(Path(path), markdown=kind == "markdown", chats=True)
        self.changed.emit(
            self.tr("Exported to {path} ({count} entries).").format(path=path, count=count)
        )

    @worker_slot(str)
    def import_file(self, path: str) -> None:
        count = self._open().import_file(Path(path)).added
        self.changed.emit(self.tr("Imported {count} memories.").format(count=count))

    @worker_slot(bool)
    def forget_all(self, with_conversations: bool) -> None:
        count = self._open().forget_all(chats=with_conversations)
        self.changed.emit(self.tr("Forgot {count} memories.").format(count=count))

    def close(self) -> None:
        if self._memories is not None:
            self._memories.close()
            self._memories = None
