"""Regenerate and edit-and-resend judge the answer they replace: a signal like a thumb, the lessons
in that answer credited "hurt"; the signal outlives the dropped answer (keeping its text) and the
lesson job is queued once the answer that replaces it is stored."""

from __future__ import annotations

import tiny
from engram.assistant.app import TEMPORARY
from engram.assistant.events import Finished
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core.cancel import CancelToken
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.outcomes import RETIRE_MARGIN, Outcomes
from engram.memory.store import MemoryStore
from test_consolidation_support import ScriptedModel, ScriptedSource
from test_lessons import LESSON, KmChat, _lesson_when_asked, store  # noqa: F401  (shared fixture)
from test_memory_store import embedder  # noqa: F401  (shared fixture)


def _assistant(store: MemoryStore) -> tuple[Assistant, JobQueue]:  # noqa: F811
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, settings=lambda: tiny.settings(consolidate_every_turns=50))
    chat = KmChat()
    recall = Recall(store, chat.count_tokens)
    return Assistant(EpisodeLog(store.conn), chat, recall=recall, scheduler=scheduler), queue


def _ask(assistant: Assistant, conversation: int, text: str) -> Finished:
    return next(e for e in assistant.turn(conversation, text) if isinstance(e, Finished))


def test_regenerating_twice_keeps_both_signals_retires_the_lesson_and_learns_from_both(
    store: MemoryStore,  # noqa: F811
) -> None:
    assistant, queue = _assistant(store)
    outcomes = Outcomes(store)
    lesson = store.add(LESSON, "lesson", importance=0.8, origin="local")
    question = "How long is the Golden Gate Bridge?"
    done = _ask(assistant, 0, question)
    conversation = outcomes.conversation_of(done.episode_id)
    assert conversation is not None and "km" in done.text  # the lesson went into it
    replaced = []
    for _round in range(RETIRE_MARGIN):
        replaced.append(done.text)
        asked = [e for e in assistant.log.episodes(conversation) if e.role == "user"][-1]
        assistant.rewind(conversation, asked.id, asked.content)  # the window's Regenerate
        assert queue.jobs("queued") == []  # the job waits for the answer that replaces it
        done = _ask(assistant, conversation, asked.content)

    # Both signals outlive their answers, each keeping the answer it replaced; both credited.
    rows = db.rows(store.conn, "SELECT id FROM signals ORDER BY id")
    kept = [outcomes.get(int(r["id"])) for r in rows]
    assert [(s.kind, s.answer_episode_id, s.conversation_id) for s in kept if s] == [
        ("regenerate", None, conversation)
    ] * RETIRE_MARGIN
    assert [s.replaced for s in kept if s] == replaced
    record = outcomes.lesson_record(lesson.id)
    assert (record.helped, record.hurt) == (0, RETIRE_MARGIN)
    retired = store.get(lesson.id)
    assert retired is not None and retired.status == "archived"
    assert retired.meta.get("retired") == "hurt"
    assert "miles" in done.text  # retired: the last answer was made without it

    # One lesson job, queued after the last answer, reads it with both replaced answers.
    [job] = queue.jobs("queued")
    assert job.reason == "outcome"
    assert [s.kind for s in outcomes.of_job(job.id)] == ["regenerate"] * RETIRE_MARGIN
    assert [e.content for e in queue.episodes(job)] == [question, done.text]
    distiller = ScriptedModel(_lesson_when_asked)
    claimed = queue.claim()
    assert claimed is not None
    assert (
        run_job(claimed, store, queue, ScriptedSource(distiller), CancelToken()).outcome == "done"
    )
    request = distiller.calls[0][1][-1]["content"]
    assert '[-] regenerate replaced: "It is about 2.7 km."' in request
    assert f"user: {question}" in request and f"assistant: {done.text}" in request
    # Read: the replaced answers are not kept any longer; the signals and credit stay.
    assert [s.replaced for s in outcomes.of_job(job.id)] == [None] * RETIRE_MARGIN
    assert outcomes.lesson_record(lesson.id).hurt == RETIRE_MARGIN


def test_a_regenerate_after_a_job_covered_the_answer_still_learns_from_the_new_one(
    store: MemoryStore,  # noqa: F811
) -> None:
    assistant, queue = _assistant(store)
    done = _ask(assistant, 0, "How long is the Golden Gate Bridge?")
    conversation = Outcomes(store).conversation_of(done.episode_id)
    assert conversation is not None
    covered = queue.enqueue(conversation, reason="idle")  # learned from, up to this answer
    assert covered is not None and queue.claim() is not None
    queue.complete(covered.id)
    asked = next(e for e in assistant.log.episodes(conversation) if e.role == "user")

    assistant.rewind(conversation, asked.id, asked.content)
    again = _ask(assistant, conversation, asked.content)

    # SQLite may give the new messages the dropped ones' ids: they are distilled all the same.
    [job] = queue.jobs("queued")
    assert job.reason == "outcome"
    assert [e.id for e in queue.episodes(job)] == [again.episode_id - 1, again.episode_id]
    assert [s.kind for s in Outcomes(store).of_job(job.id)] == ["regenerate"]


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
    question = [e for e in assistant.log.episodes(conversation) if e.role == "user"][-1]

    assistant.rewind(conversation, question.id, "How long is the Brooklyn Bridge?")

    def stored(conversation: int) -> list[tuple[str, str | None, str | None]]:
        rows = db.rows(
            store.conn,
            "SELECT kind, text, replaced FROM signals WHERE conversation_id = ? ORDER BY id",
            (conversation,),
        )
        return [(r["kind"], r["text"], r["replaced"]) for r in rows]

    assert stored(conversation) == [
        ("edit_resend", "How long is the Brooklyn Bridge?", second.text)
    ]
    assert [e.id for e in assistant.log.episodes(conversation)][-1] == first.episode_id
    assert store.get(lesson.id).importance < 0.8  # type: ignore[union-attr]

    temporary = assistant.new_conversation(temporary=True)
    _ask(assistant, temporary, "How long is a marathon?")
    asked = next(e for e in assistant.log.episodes(temporary) if e.role == "user")
    assistant.rewind(temporary, asked.id, asked.content, quiet=TEMPORARY)  # the app's rule
    assert stored(temporary) == []

    assistant.delete_conversation(conversation)  # the chat's signals go with it
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM signals") == 0
