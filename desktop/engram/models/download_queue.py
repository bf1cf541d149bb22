"""The download queue: model downloads run one at a time on a worker thread of lowered
priority, each a :class:`Job` the caller can wait for or cancel, waiting or running; the
window's model manager and ``engram models`` submit to it. A job runs
:func:`engram.models.download.download`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from engram.core import log, priority
from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError, tr
from engram.models.catalogue import ModelEntry
from engram.models.download import Options, download
from engram.models.fetching import DownloadCancelledError, ProgressCallback

_log = log.get("models.download")


class JobState(StrEnum):
    """Where a download job is; a job ends done, failed or cancelled."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Job:
    """One queued download; ``cancel()`` works whether it is waiting or running."""

    def __init__(
        self,
        entry: ModelEntry,
        progress: ProgressCallback | None,
        finished: Callable[[Job], None] | None,
    ) -> None:
        self.entry = entry
        self.progress = progress
        self.finished = finished
        self.state = JobState.QUEUED
        self.error: DownloadError | None = None
        self.written: list[Path] = []
        self.token = CancelToken()
        self._done = threading.Event()

    def cancel(self) -> None:
        self.token.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended; False on timeout."""
        return self._done.wait(timeout)

    def _end(self, state: JobState, error: DownloadError | None = None) -> None:
        self.state, self.error = state, error
        self._done.set()
        if self.finished is not None:
            self.finished(self)


class DownloadQueue:
    """Runs downloads one at a time on a worker thread; the caller never blocks.

    Callbacks (``progress`` and ``finished``) run on the worker thread: a Qt worker forwards
    them to the UI thread with signals. ``close()`` cancels what is left and joins the thread.
    """

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        self._jobs: list[Job] = []
        self._wake = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(
        self,
        entry: ModelEntry,
        progress: ProgressCallback | None = None,
        finished: Callable[[Job], None] | None = None,
    ) -> Job:
        job = Job(entry, progress, finished)
        with self._wake:
            if self._closed:
                raise DownloadError(tr("The download queue is closed."))
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="engram-downloads")
                self._thread.start()
            self._wake.notify()
        return job

    def jobs(self) -> list[Job]:
        with self._wake:
            return list(self._jobs)

    def close(self, timeout: float | None = None) -> None:
        """Cancel every unfinished job and stop the worker thread."""
        with self._wake:
            self._closed = True
            for job in self._jobs:
                job.cancel()
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> DownloadQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self) -> Job | None:
        with self._wake:
            while True:
                job = next((j for j in self._jobs if j.state == JobState.QUEUED), None)
                if job is not None:
                    job.state = JobState.RUNNING
                    return job
                if self._closed:
                    return None
                self._wake.wait()

    def _run(self) -> None:
        priority.lower_this_thread()
        while (job := self._next()) is not None:
            if job.token.cancelled:
                job._end(
                    JobState.CANCELLED,
                    DownloadCancelledError(tr("Download cancelled before it started.")),
                )
                continue
            try:
                job.written = download(job.entry, job.progress, job.token, self.options)
            except DownloadCancelledError as exc:
                job._end(JobState.CANCELLED, exc)
            except DownloadError as exc:
                job._end(JobState.FAILED, exc)
            except Exception as exc:
                _log.exception("download of %s crashed", job.entry.id)
                job._end(
                    JobState.FAILED,
                    DownloadError(
                        tr("Download of {name} failed: {error}"),
                        name=job.entry.name,
                        error=repr(exc),
                    ),
                )
            else:
                job._end(JobState.DONE)
