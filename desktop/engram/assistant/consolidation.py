"""The consolidation worker: a plain thread that takes queued jobs and distills them into memories.

Between steps it waits on the foreground gate (a user waiting for an answer comes first), runs the
distiller, reconciles each candidate with the store, marks the job done, and reports a small
:class:`Status` through a callback the UI forwards. A missing or failing distiller never loses a
job: it waits in the queue and the status says why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engram.assistant import distill, reconcile
from engram.assistant.distiller_backends import DistillerSource, DistillerUnavailableError
from engram.assistant.jobs import Job, JobQueue, backoff
from engram.assistant.redact import Redactor
from engram.core import log
from engram.core.errors import (
    CloudError,
    EngramError,
    InputError,
    ModelFileError,
    ModelLoadError,
    Problem,
    tr,
)
from engram.memory.store import MemoryStore
from engram.models.background import ForegroundGate

_log = log.get("consolidation")
_UNAVAILABLE = (CloudError, DistillerUnavailableError, ModelLoadError, ModelFileError)


@dataclass(frozen=True)
class Status:
    """What the worker is doing, for the status bar."""

    state: str  # "idle", "waiting" (for the foreground), "distilling", "failed"
    progress: float = 0.0  # 0..1 while distilling
    queued: int = 0
    parked: int = 0
    # The large model's state: "not configured", "not loaded", "loading", "loaded", "cloud".
    model: str = ""
    error: Problem | None = None  # why it failed (the UI translates it)
    job_id: int | None = None


class _StoppedError(Exception):
    """The worker was asked to stop in the middle of a job."""


def private(text: str) -> str:
    """Text for the log: verbatim with verbose (debug) logging, else with personal data redacted."""
    return text if _log.isEnabledFor(logging.DEBUG) else Redactor().redact(text)


class ConsolidationWorker(threading.Thread):
    """Runs jobs from the persisted queue until :meth:`stop`."""

    def __init__(
        self,
        open_store: Callable[[], MemoryStore],
        source: DistillerSource,
        *,
        gate: ForegroundGate | None = None,
        on_status: Callable[[Status], None] = lambda status: None,
        after_job: Callable[[MemoryStore], object] | None = None,
        retry_delay: float = 60.0,
        base_backoff: float = 30.0,
        poll: float = 5.0,
        limits: distill.Limits | None = None,
    ) -> None:
        super().__init__(name="engram-consolidation")
        self._open_store = open_store
        self.source = source
        self.gate = gate
        self._on_status = on_status
        self._after_job = after_job
        self.retry_delay = retry_delay
        self.base_backoff = base_backoff
        self.poll = poll
        self.limits = limits or distill.Limits()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self.status = Status("idle")
        self.jobs_done = 0

    def wake(self) -> None:
        """New work was queued (the Scheduler's ``wake`` callback)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the worker to stop (an interrupted job goes back to the queue) and wait for it."""
        self._stopping.set()
        self._wake.set()
        if self.is_alive():
            self.join(timeout)

    def run(self) -> None:
        try:
            store = self._open_store()
        except EngramError as exc:  # e.g. a damaged database: say so, the chat goes on
            _log.warning("consolidation cannot start: %s", exc.message)
            self.status = Status("failed", model=self.source.state(), error=exc.problem)
            self._on_status(self.status)
            return
        try:
            queue = JobQueue(store.conn, self.base_backoff)
            queue.recover()
            while not self._stopping.is_set():
                self._wake.clear()
                job = queue.claim()
                if job is not None:
                    self.run_job(store, queue, job)
                    continue
                self.source.idle()
                if self.status.state != "failed":
                    self._report(queue, "idle")
                due = queue.next_due()
                wait = self.poll if due is None else min(self.poll, max(0.0, due - time.time()))
                self._wake.wait(wait)
        finally:
            store.conn.close()

    def run_job(self, store: MemoryStore, queue: JobQueue, job: Job) -> bool:
        """Distill and reconcile one claimed job; True when it is done."""
        try:
            self._wait_foreground(queue, job)
            if self.source.state() == "not loaded":  # acquiring it loads it: say so meanwhile
                self._report(queue, "distilling", 0.0, job=job, model="loading")
            model = self.source.acquire(self._stopping.is_set)
            episodes = queue.episodes(job)
            self._report(queue, "distilling", 0.05, job=job)
            result, raw = distill.distill(model, episodes, self.limits)
            _log.info(
                "job %d (%s): %d candidates, %d dropped\ninput:\n%s\nraw: %s",
                job.id, result.language, len(result.candidates), result.dropped,
                private(distill.transcript(episodes)), private(str(raw)),
            )  # fmt: skip
            total = max(1, len(result.candidates))
            for i, candidate in enumerate(result.candidates):
                self._wait_foreground(queue, job)
                self._apply(store, model, candidate, result.language, job)
                self._report(queue, "distilling", 0.3 + 0.7 * (i + 1) / total, job=job)
        except _StoppedError:
            queue.defer(job, "interrupted by shutdown", 0.0)
            return False
        except EngramError as exc:
            return self._failed(queue, job, exc)
        except Exception as exc:  # a bug: keep the thread and the job, log the traceback
            _log.exception("job %d failed with an internal error", job.id)
            queue.fail(job, f"internal error: {exc!r}")
            internal = Problem(tr("internal error: {error}"), error=repr(exc))
            self._report(queue, "failed", error=internal, job=job)
            return False
        queue.complete(job.id)
        self.jobs_done += 1
        if self._after_job is not None:
            try:
                self._after_job(store)
            except EngramError as exc:  # hygiene is best effort; the job is done
                _log.warning("after job %d: %s", job.id, exc.message)
        self._report(queue, "idle")
        return True

    def _apply(
        self,
        store: MemoryStore,
        model: distill.StructuredModel,
        candidate: distill.Candidate,
        language: str,
        job: Job,
    ) -> None:
        decision = reconcile.decide(store, model, candidate, language, job.conversation_id)
        try:
            written = reconcile.apply(
                store,
                decision,
                candidate,
                origin=self.source.origin,
                conversation_id=job.conversation_id,
                job_id=job.id,
            )
        except InputError as exc:  # one bad candidate must not sink the job
            _log.info("job %d: candidate dropped (%s)", job.id, exc.message)
            return
        _log.info(
            "job %d: %s %r -> %s #%s (%s)",
            job.id, candidate.kind, private(candidate.content), decision.action,
            written.id if written else decision.target_id, decision.why,
        )  # fmt: skip

    def _failed(self, queue: JobQueue, job: Job, exc: EngramError) -> bool:
        if self._stopping.is_set():
            queue.defer(job, "interrupted by shutdown", 0.0)
            return False
        if isinstance(exc, _UNAVAILABLE):
            # The distiller is missing or unreachable, not wrong: wait without using up attempts.
            queue.defer(job, exc.message, backoff(job.attempts, self.retry_delay))
        else:
            queue.fail(job, exc.message)
        _log.warning("job %d: %s", job.id, exc.message)
        self._report(queue, "failed", error=exc.problem, job=job)
        return False

    def _wait_foreground(self, queue: JobQueue, job: Job) -> None:
        if self._stopping.is_set():
            raise _StoppedError
        if self.gate is not None and self.gate.busy:
            self._report(queue, "waiting", self.status.progress, job=job)
            self.gate.wait_idle(self._stopping.is_set)
        if self._stopping.is_set():
            raise _StoppedError

    def _report(
        self,
        queue: JobQueue,
        state: str,
        progress: float = 0.0,
        error: Problem | None = None,
        job: Job | None = None,
        model: str | None = None,
    ) -> None:
        counts = queue.counts()
        status = Status(
            state,
            progress,
            counts.get("queued", 0) + counts.get("running", 0),
            counts.get("parked", 0),
            model or self.source.state(),
            error,
            job.id if job else None,
        )
        if status != self.status:
            self.status = status
            self._on_status(status)
