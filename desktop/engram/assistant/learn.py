"""Learning as the front ends ask for it: in a session (``Engram.learning``: a verdict on an
answer or a memory, Remember, a chat gone idle, another chance for parked jobs), and without
one (:func:`learn_waiting`, ``engram learn``: every waiting job now).

Each asks the one rule first (:meth:`~engram.assistant.state.MemoryState.quiet`), and says why
nothing was learned when it may not be.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engram.assistant.events import Phase, SignalKind, Step
from engram.assistant.learning import distiller_backends
from engram.assistant.learning.consolidation import Result, run_job
from engram.assistant.memories import open_store
from engram.assistant.session import cloud_key, distilling, tidy
from engram.assistant.state import PAUSED, AppState
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem, tr
from engram.core.settings import Settings
from engram.memory import pause
from engram.memory.jobs import Job, JobQueue
from engram.memory.records import Memory
from engram.memory.store import MemoryStore

# Why Remember queued no learning job (besides the one rule): nothing new since the last job,
# no chat yet, no learning in this session.
NOTHING_NEW, NO_CHAT, NO_LEARNING = (
    Problem(
        tr("Nothing new to learn from this chat: Engram has learned from all of it already."),
        tr("What you say next is learned from as the chat goes on."),
    ),
    Problem(
        tr("There is nothing to learn from yet."),
        tr("Send a message first; Engram learns from the chat it is in."),
    ),
    Problem(
        tr("Engram does not learn in this session."),
        tr("Learning runs in the desktop app and engram chat."),
    ),
)


class LearningManager:
    """What the user asks of learning in an open session (``Engram.learning``)."""

    def __init__(self, state: AppState) -> None:
        self._state = state

    def judge(
        self,
        answer_episode_id: int,
        kind: SignalKind,
        text: str | None = None,
        *,
        memory_id: int | None = None,
    ) -> Problem | None:
        """The user's verdict on an answer (a thumb, and what was wrong when said), or on a
        memory it was given (``memory_wrong`` with ``memory_id``: "This is wrong" on its chip):
        Engram learns from it. Returns why it was not noted (the one rule), or None."""
        assistant = self._state.ready().assistant
        quiet = self._state.quiet(self._chat_of(answer_episode_id))
        if quiet is None:
            assistant.judgments.signal(answer_episode_id, kind, text, memory_id=memory_id)
        return quiet

    def _chat_of(self, answer_episode_id: int) -> int:
        log_ = self._state.ready().assistant.log
        found = log_.by_id([answer_episode_id]).get(answer_episode_id)
        return found.conversation_id if found is not None else 0

    def learn_now(self, conversation_id: int) -> Problem | None:
        """Remember: learn from this chat now. Returns None when a learning job was queued,
        else why not: the one rule (memory off or paused, a temporary chat), nothing in the chat
        that was not learned from already, or no learning in this session."""
        session = self._state.ready()
        quiet = self._state.quiet(conversation_id)
        if quiet is not None:
            return quiet
        if not conversation_id:
            return NO_CHAT
        if session.learning is None:
            return NO_LEARNING
        if session.learning.scheduler.remember(conversation_id) is None:
            return NOTHING_NEW
        return None

    def idle(self, conversation_id: int) -> None:
        """The chat has gone quiet: a good moment to learn from it (when it may be)."""
        session = self._state.session
        learning = session.learning if session is not None else None
        if learning is not None and conversation_id and self._state.quiet(conversation_id) is None:
            learning.scheduler.on_idle(conversation_id)

    def retry(self) -> None:
        """Give the learning jobs that failed too often another chance."""
        learning = self._state.ready().learning
        if learning is not None:
            learning.scheduler.queue.retry_parked()
            learning.worker.wake()


# -- without a session: engram learn ------------------------------------------------------------


@dataclass(frozen=True)
class Learnt:
    """What learning the waiting jobs at once did: each job and how it ended, and the memories
    (by id, every status) before and after."""

    jobs: tuple[tuple[Job, Result], ...]
    before: dict[int, Memory]
    after: dict[int, Memory]


def learn_waiting(settings: Settings, progress: Callable[[float, str], None]) -> Learnt:
    """Run every learning job waiting in the queue now, one after another, backoffs skipped
    (``engram learn``); ``progress`` hears the share done (0..1) and what runs. Raises why
    no job can run when no distiller can (once, with what to do)."""
    store = open_store(settings)
    try:
        if pause.paused(store.conn, settings.memory_paused):
            raise EngramError(PAUSED.template, PAUSED.hint_template, **PAUSED.params)
        queue = JobQueue(store.conn)
        queue.recover()
        waiting = len(queue.jobs("queued"))
        if not waiting:
            return Learnt((), {}, {})
        source = distiller_backends.from_settings(settings, None, cloud_key)
        if isinstance(source, distiller_backends.MissingDistiller):
            source.acquire(CancelToken())  # raises its problem
        store.writer = distilling(settings)
        before = _memories(store)
        ran: list[tuple[Job, Result]] = []
        try:
            while len(ran) < waiting and (job := queue.claim(now=float("inf"))) is not None:
                share = len(ran) / waiting

                def report(
                    phase: Phase,
                    done: float,
                    _model: object,
                    step: Step | None,
                    job_id: int = job.id,
                ) -> None:
                    doing = step.name if step is not None and phase == "distilling" else phase
                    progress(share + done / waiting, f"job {job_id}: {doing}")  # noqa: B023

                ran.append((job, run_job(job, store, queue, source, CancelToken(), report)))
        finally:
            source.idle()
        tidy(store)
        return Learnt(tuple(ran), before, _memories(store))
    finally:
        store.conn.close()


def _memories(store: MemoryStore) -> dict[int, Memory]:
    return {m.id: m for m in store.memories(statuses=None, limit=1_000_000)}
