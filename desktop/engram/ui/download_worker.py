"""The model manager's worker: drives the download queue, imports or deletes model files and
searches the hub.

Downloads run on :class:`~engram.assistant.model_admin.DownloadQueue`'s own thread; its
callbacks are turned into signals here, which Qt queues to the UI thread. Imports and
deletions (long file copies) and the hub search's requests run on the worker's QThread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal, SignalInstance

from engram.assistant import model_admin as models
from engram.assistant.model_admin import DownloadQueue, GgufFile, Job, ModelEntry, Options
from engram.core.errors import DownloadError, EngramError
from engram.ui.threads import Worker, worker_slot


class DownloadWorker(Worker):
    """Owns the download queue; reports progress, results and errors as signals."""

    progress = Signal(object)  # model_admin.Progress
    finished = Signal(str, str, object)  # model id, job state, why it failed (Problem or None)
    imported = Signal(str)  # id of the new catalogue entry
    deleted = Signal(str)  # model id
    found = Signal(str, object)  # search text, list[model_admin.Hit]
    listed = Signal(str, object)  # repository, list[model_admin.GgufFile]
    added = Signal(object)  # the catalogue entry of a hub file chosen from a search
    search_failed = Signal(str, object)  # search text or repository, Problem

    def __init__(self, options: Options) -> None:
        super().__init__()
        self._options = options
        self._queue = DownloadQueue(options)
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    # -- called directly from the UI thread: non-blocking and thread-safe ---------------------

    def download(self, entry: ModelEntry) -> bool:
        """Queue a download (resuming any partial file); False when it is already queued."""
        with self._lock:
            if entry.id in self._jobs:
                return False
            try:
                self._jobs[entry.id] = self._queue.submit(entry, self.progress.emit, self._ended)
            except DownloadError as exc:
                self.failed.emit(exc.problem)
                return False
        return True

    def cancel(self, model_id: str) -> None:
        """Stop a queued or running download; its partial file is kept for a resume."""
        with self._lock:
            job = self._jobs.get(model_id)
        if job is not None:
            job.cancel()

    def active(self) -> set[str]:
        """Ids of the models being downloaded or waiting to be."""
        with self._lock:
            return set(self._jobs)

    def _ended(self, job: Job) -> None:  # on the download thread
        with self._lock:
            if self._jobs.get(job.entry.id) is job:
                del self._jobs[job.entry.id]
        self.finished.emit(job.entry.id, job.state, job.error.problem if job.error else None)

    # -- slots, run on the worker's QThread -----------------------------------------------------

    @worker_slot(str)
    def import_gguf(self, path: str) -> None:
        """Copy (or hard-link) a GGUF into the models folder and register it for both roles."""
        self.imported.emit(models.import_gguf(Path(path))[0].id)

    @worker_slot(object)
    def delete(self, entry: ModelEntry) -> None:
        """Delete a model's folder (partial downloads too) and forget it if it was imported."""
        models.remove(entry, downloading=entry.id in self.active())
        self.deleted.emit(entry.id)

    @worker_slot(str)
    def search_hub(self, text: str) -> None:
        """Search the hub for GGUF repositories; ``found`` or ``search_failed`` answers."""
        self._ask_hub(text, models.search_hub, self.found)

    @worker_slot(str)
    def list_hub_files(self, repo: str) -> None:
        """List a repository's GGUF files; ``listed`` or ``search_failed`` answers."""
        self._ask_hub(repo, models.hub_files, self.listed)

    def _ask_hub(
        self, asked: str, ask: Callable[[str, Options], object], answer: SignalInstance
    ) -> None:
        try:
            got = ask(asked, self._options)
        except EngramError as exc:
            self.search_failed.emit(asked, exc.problem)
            return
        answer.emit(asked, got)

    @worker_slot(object)
    def add_hub_file(self, choice: GgufFile) -> None:
        """Add a chosen hub file to the imported registry (``added`` gives its entry)."""
        self.added.emit(models.add_hub_file(choice))

    def close(self) -> None:
        """Cancel what is left (partials are kept) and stop the queue."""
        self._queue.close()
