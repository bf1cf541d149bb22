"""What the user's reactions say about the answers: the signals a turn reads from the next
message, the thumbs and chips of the window, and the lessons each judgment credits.

The turn pipeline holds one :class:`Judgments` per assistant; everything here only records (in
the store's outcome tables) and tells the consolidation scheduler, never calls a model.
"""

from __future__ import annotations

from engram.assistant import events
from engram.assistant.intent import Intent
from engram.assistant.learning import signals
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.turn.recall import Recall
from engram.memory.episodes import Episode, EpisodeLog
from engram.memory.outcomes import Credit, Outcomes

REPEAT_WINDOW = 5  # a message repeats one of the user's last this many messages


class Judgments:
    """The outcome signals of one episode log's answers (no-ops without memory)."""

    def __init__(
        self, log_: EpisodeLog, recall: Recall | None, scheduler: Scheduler | None
    ) -> None:
        self.log = log_
        self.recall = recall
        self.scheduler = scheduler

    def previous(self, earlier: list[Episode], said: Intent) -> None:
        """Store the outcome signals the new message gives on the answer before it (cheap:
        regular expressions and word overlap, no model call)."""
        answer = next((e for e in reversed(earlier) if e.role == "assistant"), None)
        if answer is None or self.recall is None:
            return
        asked = [e.content for e in earlier if e.role == "user"][-REPEAT_WINDOW:]
        found = signals.detect(said, answer.id, asked)
        if found is not None:
            self.record(found)
        if (found is None or found.positive) and self._tools_succeeded(answer.id):
            self.record(signals.Signal("tool_accepted", answer.id))

    def _tools_succeeded(self, answer_episode_id: int) -> bool:
        """The answer called tools and none ended in an error (no ``tool_error`` on it)."""
        if self.recall is None or not self.log.tool_steps(answer_episode_id):
            return False
        return "tool_error" not in Outcomes(self.recall.store).kinds_on(answer_episode_id)

    def signal(
        self,
        answer_episode_id: int,
        kind: events.SignalKind,
        text: str | None = None,
        *,
        memory_id: int | None = None,
    ) -> list[Credit]:
        """The user judged an answer (a thumb): store it, credit the lessons that went into the
        answer, and learn from it now. ``memory_wrong`` judges the memory ``memory_id`` the
        answer was given instead (a chip's "This is wrong"): the signal keeps the memory's
        text, the memory is retired at once (archived, its harm counted, a tombstone keeping
        learning from writing it again; the memory browser can restore it), and no lesson is
        credited."""
        store = self.recall.store if self.recall is not None else None
        wrong = None
        if kind == "memory_wrong" and store is not None and memory_id is not None:
            wrong = store.get(memory_id)
        if wrong is not None and store is not None:  # first: whoever sees the signal sees this
            store.feedback(wrong.id, -1)
            store.tombstones.bury(wrong, "wrong")
            store.update(wrong.id, status="archived")
        found = signals.Signal(kind, answer_episode_id, wrong.content if wrong else text)
        credits = self.record(found)
        if self.recall is None or self.scheduler is None or kind not in signals.LESSON_KINDS:
            return credits
        conversation = Outcomes(self.recall.store).conversation_of(answer_episode_id)
        if conversation is not None:
            self.scheduler.on_signal(conversation)
        return credits

    def record(self, found: signals.Signal) -> list[Credit]:
        """Store one signal on its answer and credit the lessons it judges."""
        if self.recall is None or not self.log.by_id([found.answer_episode_id]):
            return []  # no answer to judge (it failed before it was stored, or was deleted)
        outcomes = Outcomes(self.recall.store)
        _stored, credits = outcomes.record(
            found.answer_episode_id,
            found.kind,
            found.positive,
            found.text,
            credit=found.kind in signals.JUDGES_LESSONS,
            bore_on=lambda ids: self._bore_on(found.answer_episode_id, ids),
        )
        return credits

    def _bore_on(self, answer_episode_id: int, lesson_ids: list[int]) -> set[int]:
        """The lessons among ``lesson_ids`` whose situation came up in the message the answer
        replied to (:func:`signals.credited`, by shared terms or by meaning)."""
        assert self.recall is not None
        store = self.recall.store
        answer = self.log.by_id([answer_episode_id]).get(answer_episode_id)
        if answer is None:
            return set()
        asked = next(
            (
                e.content
                for e in reversed(self.log.episodes(answer.conversation_id))
                if e.role == "user" and e.turn_index < answer.turn_index
            ),
            "",
        )
        lessons = [m for i in lesson_ids if (m := store.get(i)) is not None]

        floor = store.floors(asked).bears

        def close(first: str, second: str) -> bool:
            vectors = store.space.embed([first, second])
            return vectors is not None and float(vectors[0] @ vectors[1]) >= floor

        return {m.id for m in signals.credited(lessons, asked, close)}
