"""Consolidation: distilling queued jobs into memories, as one function and a thin thread.

:func:`run_job` takes one claimed job through the whole way: it waits for the foreground (a user
waiting for an answer comes first), runs the distiller, reconciles each candidate with the store
and settles the job in the queue (done, back in the queue, or failed with its error). The
:class:`ConsolidationWorker` thread only loops: wait, claim, ``run_job``, report a small
:class:`Status` through a callback the UI forwards. ``engram eval`` calls ``run_job`` directly.
A missing or failing distiller never loses a job: it waits in the queue and the status says why.

A job reports its steps (:class:`~engram.assistant.events.Step`): loading the large model,
reading the chat, proposing memories, checking each proposal, saving. The proposal is one model
call of a minute or two on a small machine; a local model says meanwhile how many of the chat's
tokens it has read and how many tokens it has written (asked from the stop check it calls
between batches and tokens, at most every :data:`TICK_SECONDS`), so the status moves during it.

What a job writes is marked as its own (:mod:`engram.memory.job_writes`): the memories it adds,
changes and replaces, and those the hygiene pass after it merges into what it wrote, so
:mod:`engram.assistant.unlearn` can undo the job as one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engram.assistant import reading
from engram.assistant.events import LargeModelState, Learned, Phase, Status, Step
from engram.assistant.learning import distill, plan_words, proposals, reconcile
from engram.assistant.learning.distiller_backends import (
    CallProgress,
    DistillerSource,
    DistillerUnavailableError,
    ReportsProgress,
)
from engram.core import log, priority
from engram.core.cancel import CancelToken
from engram.core.errors import (
    CloudError,
    EngramError,
    InputError,
    ModelFileError,
    ModelLoadError,
    Problem,
    StoreError,
    tr,
)
from engram.memory import job_writes
from engram.memory.jobs import Job, JobQueue, backoff
from engram.memory.kinds import PLAN
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore
from engram.models.background import ForegroundGate

_log = log.get("consolidation")
_UNAVAILABLE = (CloudError, DistillerUnavailableError, ModelLoadError, ModelFileError)

# How a job ended: done; back in the queue (stopped, or no distiller right now); failed.
Outcome = Literal["done", "stopped", "deferred", "failed"]


@dataclass(frozen=True)
class Result:
    """What :func:`run_job` did with a job; ``problem`` says why when it did not finish,
    ``learned`` what it wrote."""

    outcome: Outcome
    problem: Problem | None = None
    learned: tuple[Learned, ...] = ()


# on_progress(phase, fraction, model state to show instead of the source's or None, the step)
Progress = Callable[[Phase, float, LargeModelState | None, Step | None], None]
# Where each step starts in the job's share (the rest is saving, up to 1).
READING, PROPOSING, CHECKING, SAVING = 0.05, 0.15, 0.3, 0.95
# How often a model call in progress is reported, at most (seconds).
TICK_SECONDS = 0.5


def _told_to_no_one(status: Status) -> None:
    """Where a status goes when nobody listens (no window; after the worker's ``stop``)."""


class _StoppedError(Exception):
    """The work was cancelled in the middle of a job."""


def _quiet(phase: Phase, fraction: float, model: LargeModelState | None, step: Step | None) -> None:
    pass


class _Steps:
    """A job's steps as it reports them: the share only grows, and a model call in progress
    (asked from the stop check, :meth:`check`) moves the reading and proposing steps."""

    def __init__(self, cancel: CancelToken, on_progress: Progress) -> None:
        self.cancel = cancel
        self.on_progress = on_progress
        self.step: Step | None = None
        self.fraction = 0.0
        self.model: object = None  # the distiller model, once acquired
        self._ticked = 0.0

    def report(self, step: Step, fraction: float, model: LargeModelState | None = None) -> None:
        self.step, self.fraction = step, max(self.fraction, fraction)
        self.on_progress("distilling", self.fraction, model, step)

    def waiting(self) -> None:
        self.on_progress("waiting", self.fraction, None, self.step)

    def check(self) -> bool:
        """The stop check the model calls while it works: stop when asked; meanwhile say how
        far its call is, while the chat is read and the memories proposed."""
        if self.step is not None and self.step.name in ("reading", "proposing"):
            now = time.monotonic()
            if now - self._ticked >= TICK_SECONDS:
                self._ticked = now
                if isinstance(self.model, ReportsProgress):
                    # inside the model's call: a report that cannot be made now waits for
                    # the next tick, and never breaks the call
                    with contextlib.suppress(StoreError):
                        self._moved(self.model.progress())
        return self.cancel.cancelled

    def _moved(self, call: CallProgress | None) -> None:
        if call is None or self.step is None or not call.total:
            return
        share = min(1.0, call.done / call.total)
        if call.writing:  # its first token came: the proposal is being written
            self.report(Step("proposing", call.done, call.total), PROPOSING + share * 0.15)
        elif self.step.name == "reading":  # a later call (a lesson's example) reads no chat
            self.report(Step("reading", call.done, call.total), READING + share * 0.1)


def run_job(
    job: Job,
    store: MemoryStore,
    queue: JobQueue,
    source: DistillerSource,
    cancel: CancelToken,
    on_progress: Progress = _quiet,
    *,
    gate: ForegroundGate | None = None,
    limits: distill.Limits | None = None,
    retry_delay: float = 60.0,
) -> Result:
    """Distill and reconcile one claimed job and settle it in ``queue``.

    A cancel puts the job back in the queue; a missing or unreachable distiller defers it
    without using up an attempt; another known problem or a bug counts as a failed attempt.
    """
    limits = limits or distill.Limits()
    steps = _Steps(cancel, on_progress)

    def wait_foreground() -> None:
        if cancel.cancelled:
            raise _StoppedError
        if gate is not None and gate.busy:
            steps.waiting()
            gate.wait_idle(cancel)
        if cancel.cancelled:
            raise _StoppedError

    try:
        learned = _learn(job, store, queue, source, steps, wait_foreground, limits)
    except _StoppedError:
        queue.defer(job, "interrupted by shutdown", 0.0)
        return Result("stopped")
    except EngramError as exc:
        if cancel.cancelled:
            queue.defer(job, "interrupted by shutdown", 0.0)
            return Result("stopped")
        if isinstance(exc, _UNAVAILABLE):
            # The distiller is missing or unreachable, not wrong: wait without using up attempts.
            # A state the status bar and `engram chat` show once, not a warning for every job.
            _log.info("job %d: %s", job.id, exc.message)
            queue.defer(job, exc.message, backoff(job.attempts, retry_delay))
            return Result("deferred", exc.problem)
        _log.warning("job %d: %s", job.id, exc.message)
        queue.fail(job, exc.message)
        return Result("failed", exc.problem)
    except Exception as exc:  # a bug: keep the thread and the job, log the traceback
        _log.exception("job %d failed with an internal error", job.id)
        queue.fail(job, f"internal error: {exc!r}")
        return Result("failed", Problem(tr("internal error: {error}"), error=repr(exc)))
    queue.complete(job.id)
    steps.report(Step("saving"), 1.0)
    return Result("done", learned=tuple(learned))


def _learn(
    job: Job,
    store: MemoryStore,
    queue: JobQueue,
    source: DistillerSource,
    steps: _Steps,
    wait_foreground: Callable[[], None],
    limits: distill.Limits,
) -> list[Learned]:
    """Distill the job's episodes and reconcile each candidate with the memories, waiting for
    the foreground between candidates; returns what was written."""
    wait_foreground()
    if source.state() == "not loaded":  # acquiring it loads it: say so meanwhile
        steps.report(Step("loading"), 0.0, "loading")
    model = steps.model = source.acquire(steps.check)
    episodes = queue.episodes(job)
    steps.report(Step("reading"), READING)
    outcomes = [
        proposals.Outcome(s.answer_episode_id, s.kind, s.text, s.replaced)
        for s in Outcomes(store).of_job(job.id)
    ]
    # the plan the user's messages name: the distiller and their words may advance it
    plans = store.memories(kinds=[PLAN], limit=plan_words.PLANS)
    said = " ".join(e.content for e in episodes if e.role == "user")
    plan = plan_words.named(plans, said).meta.get("plan") if plans else None
    read = functools.partial(reading.read, embedder=store.embedder)  # as the turn reads
    result, raw = distill.distill(
        model, episodes, limits, outcomes, plan if isinstance(plan, dict) else None, read
    )
    _log.info(
        "job %d (%s): %d candidates, %d dropped\ninput:\n%s\nraw: %s",
        job.id, result.language, len(result.candidates), result.dropped,
        log.private(distill.transcript(episodes)), log.private(str(raw)),
    )  # fmt: skip
    # and the user's own words of a correction, which only replace what they set right
    candidates = [*result.candidates, *proposals.set_right(episodes, result.candidates, read)]
    learned: list[Learned] = []
    for i, candidate in enumerate(candidates):
        steps.report(
            Step("checking", i + 1, len(candidates)),
            CHECKING + (SAVING - CHECKING) * i / len(candidates),
        )
        wait_foreground()
        if wrote := _apply(store, model, candidate, result.language, job, source.origin):
            learned.append(wrote)
    steps.report(Step("saving"), SAVING)
    return learned


def _apply(
    store: MemoryStore,
    model: distill.StructuredModel,
    candidate: proposals.Candidate,
    language: str,
    job: Job,
    origin: str,
) -> Learned | None:
    decision = reconcile.decide(store, model, candidate, language, job.conversation_id)
    before = job_writes.last(store.conn)
    try:
        written = reconcile.apply(
            store,
            decision,
            candidate,
            origin=origin,
            conversation_id=job.conversation_id,
            job_id=job.id,
        )
    except InputError as exc:  # one bad candidate must not sink the job
        _log.info("job %d: candidate dropped (%s)", job.id, exc.message)
        return None
    _log.info(
        "job %d: %s %r -> %s #%s (%s)",
        job.id, candidate.kind, log.private(candidate.content), decision.action,
        written.id if written else decision.target_id, decision.why,
    )  # fmt: skip
    if written is None:
        return None
    replaced = store.replaced_by(written.id)  # an added memory may replace a near-duplicate
    touched = {
        written.id,
        decision.target_id or written.id,
        replaced.id if replaced else written.id,
    }
    job_writes.claim(store.conn, job.id, before, touched)
    return Learned(written.id, decision.action, written.content, job.id)


def _claim_merges(store: MemoryStore, job_id: int, after: int, learned: set[int]) -> None:
    """Mark as the job's the archiving of each memory the pass after it merged into one the
    job wrote (undoing the job splits them back); the pass's other upkeep stays its own."""
    merged = {
        memory_id
        for memory_id, write in job_writes.since(store.conn, after)
        if write.change == "status → archived"
        and (memory := store.get(memory_id)) is not None
        and memory.meta.get("archived") in {f"merged into #{i}" for i in learned}
    }
    if merged:
        job_writes.claim(store.conn, job_id, after, merged)


class ConsolidationWorker(threading.Thread):
    """Runs jobs from the persisted queue until :meth:`stop`: wait, claim, run_job, report."""

    def __init__(
        self,
        open_store: Callable[[], MemoryStore],
        source: DistillerSource,
        *,
        gate: ForegroundGate | None = None,
        on_status: Callable[[Status], None] = _told_to_no_one,
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
        self._telling = threading.Lock()  # held while the status is told, and by stop()
        self._after_job = after_job
        self.retry_delay = retry_delay
        self.base_backoff = base_backoff
        self.poll = poll
        self.limits = limits or distill.Limits()
        self._cancel = CancelToken()
        self._wake = threading.Event()
        self.status = Status("idle")
        self.jobs_done = 0
        self._in_a_row = 0  # jobs run since the worker was last idle: the chat is the next one

    def wake(self) -> None:
        """New work was queued (the Scheduler's ``wake`` callback)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the worker to stop (an interrupted job goes back to the queue) and wait for it."""
        self._cancel.cancel()
        self._wake.set()
        if self.is_alive():
            self.join(timeout)
        with self._telling:  # a job still inside a model call past the wait tells no one:
            self._on_status = _told_to_no_one  # whoever listened may be gone once this returns

    def run(self) -> None:
        priority.lower_this_thread()
        try:
            store = self._open_store()
        except EngramError as exc:  # e.g. a damaged database: say so, the chat goes on
            _log.warning("consolidation cannot start: %s", exc.message)
            self.status = Status("failed", model=self.source.state(), error=exc.problem)
            self._tell(self.status)
            return
        try:
            queue = JobQueue(store.conn, self.base_backoff)
            queue.recover()
            while not self._cancel.cancelled:
                self._wake.clear()
                job = queue.claim()
                if job is not None:
                    self._run(store, queue, job)
                    self._in_a_row += 1
                    continue
                self._in_a_row = 0
                self.source.idle()
                if self.status.state != "failed":
                    self._report(queue, "idle")
                due = queue.next_due()
                wait = self.poll if due is None else min(self.poll, max(0.0, due - time.time()))
                self._wake.wait(wait)
        finally:
            store.conn.close()

    def _run(self, store: MemoryStore, queue: JobQueue, job: Job) -> None:
        def progress(
            phase: Phase, fraction: float, model: LargeModelState | None, step: Step | None
        ) -> None:
            self._report(queue, phase, fraction, job=job, model=model, step=step)

        result = run_job(
            job,
            store,
            queue,
            self.source,
            self._cancel,
            progress,
            gate=self.gate,
            limits=self.limits,
            retry_delay=self.retry_delay,
        )
        if result.outcome != "done":
            if result.outcome != "stopped":
                self._report(queue, "failed", error=result.problem, job=job)
            return
        self.jobs_done += 1
        if self._after_job is not None:
            before = job_writes.last(store.conn)
            try:
                self._after_job(store)
                _claim_merges(store, job.id, before, {item.memory_id for item in result.learned})
            except EngramError as exc:  # hygiene is best effort; the job is done
                _log.warning("after job %d: %s", job.id, exc.message)
        self._report(queue, "idle", learned=result.learned)

    def _report(
        self,
        queue: JobQueue,
        state: Phase,
        progress: float = 0.0,
        error: Problem | None = None,
        job: Job | None = None,
        model: LargeModelState | None = None,
        learned: tuple[Learned, ...] = (),
        step: Step | None = None,
    ) -> None:
        counts = queue.counts()
        if step is not None:  # this job's chat of those run in a row and those still waiting
            chat = self._in_a_row + 1
            step = dataclasses.replace(step, chat=chat, chats=chat + counts.get("queued", 0))
        status = Status(
            state,
            progress,
            counts.get("queued", 0) + counts.get("running", 0),
            counts.get("parked", 0),
            model or self.source.state(),
            error,
            job.id if job else None,
            learned,
            step,
        )
        if status != self.status:
            self.status = status
            self._tell(status)

    def _tell(self, status: Status) -> None:
        with self._telling:
            self._on_status(status)
