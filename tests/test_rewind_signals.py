"""Regenerate and edit-and-resend judge the answer they replace: a signal through the same path as
a thumb, the lessons in that answer credited "hurt", and a lesson job queued at once."""

from __future__ import annotations

from engram.assistant.events import Finished
from engram.assistant.jobs import JobQueue
from engram.assistant.recall import Recall
from engram.assistant.scheduler import Scheduler
from engram.assistant.turn import Assistant
from engram.core.settings import Settings
from engram.memory.episodes import EpisodeLog
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore
from test_lessons import LESSON, KmChat, store  # noqa: F401  (shared fixture)
from test_memory_store import embedder  # noqa: F401  (shared fixture)


def _assistant(store: MemoryStore) -> tuple[Assistant, JobQueue]:  # noqa: F811
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, settings=lambda: Settings(consolidate_every_turns=50))
    chat = KmChat()
    recall = Recall(store, chat.count_tokens)
    return Assistant(EpisodeLog(store.conn), chat, recall=recall, scheduler=scheduler), queue


def _ask(assistant: Assistant, conversation: int, text: str) -> Finished:
    return next(e for e in assistant.turn(conversation, text) if isinstance(e, Finished))


def test_regenerate_credits_the_lesson_in_the_replaced_answer_as_hurt(
    store: MemoryStore,  # noqa: F811
) -> None:
    assistant, queue = _assistant(store)
    lesson = store.add(LESSON, "lesson", importance=0.8, origin="local")
    done = _ask(assistant, 0, "How long is the Golden Gate Bridge?")
    conversation = Outcomes(store).conversation_of(done.episode_id)
    assert conversation is not None and "km" in done.text  # the lesson went into it
    question = next(e for e in assistant.log.episodes(conversation) if e.role == "user")

    assistant.rewind(conversation, question.id, question.content)

    record = Outcomes(store).lesson_record(lesson.id)
    assert record.answers == ()  # the answer is gone, and its injection with it
    demoted = store.get(lesson.id)
    assert demoted is not None and demoted.importance < 0.8  # credited "hurt"
    assert [j.reason for j in queue.jobs("queued")] == ["outcome"]
    # The signal row and its credit row go with the dropped answer (foreign keys cascade): the
    # demotion is what stays.
    assert Outcomes(store).kinds_on(done.episode_id) == set()
    assert assistant.log.episodes(conversation) == []


def test_edit_and_resend_is_its_own_signal_and_a_quiet_chat_gives_none(
    store: MemoryStore,  # noqa: F811
) -> None:
    assistant, _queue = _assistant(store)
    lesson = store.add(LESSON, "lesson", importance=0.8, origin="local")
    first = _ask(assistant, 0, "What is the capital of France?")
    conversation = Outcomes(store).conversation_of(first.episode_id)
    assert conversation is not None
    second = _ask(assistant, conversation, "How long is the Golden Gate Bridge?")
    assert "km" in second.text
    recorded: list[tuple[int, str, str | None]] = []
    real = assistant.signal
    assistant.signal = lambda answer, kind, text=None: (  # type: ignore[method-assign]
        recorded.append((answer, kind, text)) or real(answer, kind, text)
    )
    question = [e for e in assistant.log.episodes(conversation) if e.role == "user"][-1]

    assistant.rewind(conversation, question.id, "How long is the Brooklyn Bridge?")

    assert recorded == [(second.episode_id, "edit_resend", "How long is the Brooklyn Bridge?")]
    assert [e.id for e in assistant.log.episodes(conversation)][-1] == first.episode_id
    assert store.get(lesson.id).importance < 0.8  # type: ignore[union-attr]

    temporary = assistant.new_conversation(temporary=True)
    _ask(assistant, temporary, "How long is a marathon?")
    asked = next(e for e in assistant.log.episodes(temporary) if e.role == "user")
    recorded.clear()
    assistant.rewind(temporary, asked.id, asked.content)
    assert recorded == []
