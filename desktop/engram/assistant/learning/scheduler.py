"""When to consolidate: the turn pipeline notifies the Scheduler, which queues jobs.

Triggers: every N user turns, a conversation going idle, an explicit "remember this" (a button, or a
message starting with "remember this:" / "记住："), the user correcting the assistant (a lesson
candidate), and app exit (the job is persisted and run on the next start). Pure Python, no threads:
``wake`` tells the worker that new work is queued. Whether anything may be learned now (memory
off or paused, a temporary chat) is decided before the scheduler hears of it, by the one rule of
:mod:`engram.assistant.app`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engram.assistant.intent import Intent
from engram.assistant.learning.signals import AT_ONCE
from engram.core import log
from engram.core.settings import Settings
from engram.memory.jobs import Job, JobQueue
from engram.memory.outcomes import waiting_kinds

_log = log.get("consolidation")

# Why a job is queued: every N turns, an idle chat, "remember", a correction, another outcome
# signal (thumbs, praise, a question asked again), the app exiting. The job stores it.
Reason = Literal["turns", "idle", "remember", "correction", "outcome", "exit"]


@dataclass(frozen=True)
class Trigger:
    """Why a job was queued (for the log and the status line)."""

    reason: Reason
    job: Job


class Scheduler:
    """Counts turns per conversation and queues consolidation jobs on the triggers."""

    def __init__(
        self,
        queue: JobQueue,
        settings: Callable[[], Settings] = Settings,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.queue = queue
        self._settings = settings
        self._wake = wake
        self._turns: dict[int, int] = {}

    @property
    def idle_seconds(self) -> int:
        """How long a conversation must be quiet before :meth:`on_idle` should be called."""
        return self._settings().consolidate_idle_seconds

    def on_user_turn(self, conversation_id: int, episode_id: int, said: Intent) -> Trigger | None:
        """A user message (``said``: what it asks for) was answered (``episode_id``: the answer);
        queue a job when it triggers one.

        A signal waiting in the conversation that asks for a lesson at once (:data:`AT_ONCE`:
        praise or the same question again in this message, a regenerate or an edit that this
        answer replaces) queues an ``outcome`` job; tool outcomes wait for the next job.
        """
        if said.remember is not None:
            return self._queue("remember", conversation_id, episode_id)
        if said.correction:
            return self._queue("correction", conversation_id, episode_id)
        if waiting_kinds(self.queue.conn, conversation_id) & AT_ONCE:
            return self._queue("outcome", conversation_id, episode_id)
        count = self._turns.get(conversation_id, 0) + 1
        self._turns[conversation_id] = count
        every = self._settings().consolidate_every_turns
        if every > 0 and count >= every:
            return self._queue("turns", conversation_id, episode_id)
        return None

    def on_signal(self, conversation_id: int) -> Trigger | None:
        """The user judged an answer (a thumb): learn a lesson from it now."""
        return self._queue("outcome", conversation_id, None)

    def on_idle(self, conversation_id: int, episode_id: int | None = None) -> Trigger | None:
        """The conversation has been quiet for :attr:`idle_seconds`."""
        return self._queue("idle", conversation_id, episode_id)

    def remember(self, conversation_id: int, episode_id: int | None = None) -> Trigger | None:
        """The user asked to remember (the button); distill the conversation now."""
        return self._queue("remember", conversation_id, episode_id)

    def on_exit(self) -> list[Trigger]:
        """Persist jobs for everything not yet consolidated; they run on the next start."""
        jobs = self.queue.enqueue_all()
        self._turns.clear()
        return [Trigger("exit", job) for job in jobs]

    def _queue(
        self, reason: Reason, conversation_id: int, episode_id: int | None
    ) -> Trigger | None:
        job = self.queue.enqueue(conversation_id, episode_id, reason)
        self._turns[conversation_id] = 0
        if job is None:
            return None
        _log.info("job %d queued (%s)", job.id, reason)
        self._wake()
        return Trigger(reason, job)
