"""The learning loop's mechanics with scripted models on a real store: a signal queues a job that
carries it, the distiller is asked for a lesson, the lesson guides a later answer in its own
block, the answer's next signal is credited to it, and a lesson that keeps hurting is demoted
then retired (reversibly)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tiny
from engram.assistant import events
from engram.assistant.events import Finished, Recalled, Recalling
from engram.assistant.learning import distiller_backends
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.proposals import plan_text
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.turn import prompt
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.cli.main import main
from engram.core import paths, prompts
from engram.core.cancel import CancelToken
from engram.memory import db, embed
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.outcomes import RETIRE_MARGIN, Outcomes
from engram.memory.records import EXAMPLE, SITUATIONS
from engram.memory.store import MemoryStore
from engram.models.capabilities import Capabilities
from test_chat_cli import _db_rows, _engram
from test_consolidation_support import ScriptedModel, ScriptedSource, episode_ids
from test_memory_store import embedder  # noqa: F401  (shared fixture)

LESSON = "When the user asks how long or how far something is, answer in kilometres."
# What the user says after a wrong answer, and the lesson kept from it: their words, not LESSON
CORRECTION = "No, that's wrong: when I ask how long or how far something is, answer in kilometres."
WORDS = "When I ask how long or how far something is, answer in kilometres."
GUIDANCE = prompts.header(prompts.GUIDANCE_HEADER, "en")
SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"


class KmChat:
    """A small model that answers in km only when its prompt's lessons or the message say so, in
    miles otherwise (the user's own words, recalled as a raw message, are not enough)."""

    n_ctx = 4096
    capabilities = Capabilities()

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        max_tokens: int = 0,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Iterator[str]:
        said = "\n".join(m["content"] for m in messages)
        self.prompts.append(said)
        lessons = said.split(GUIDANCE, 1)[1].split("</memory>", 1)[0] if GUIDANCE in said else ""
        asked = messages[-1]["content"].rsplit("</memory>", 1)[-1]
        told = "answer in kilometres" in f"{lessons}\n{asked}".lower()
        yield "It is about 2.7 km." if told else "It is 1.7 miles."

    def prefill(self, messages: object, cancelled: object = None, tools: object = None) -> int:
        return 0


def _lesson_when_asked(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A distiller that writes the lesson only when the request carries outcome signals."""
    asked = "Outcome signals:" in messages[-1]["content"]
    ids = episode_ids(messages)[:2]
    items = [{"kind": "lesson", "content": LESSON, "importance": 4, "episodes": ids}]
    return {
        "memories": items if asked else [],
        "summary": "",
        "plan": {"goal": "", "steps": [], "current_step": 0},
    }


@pytest.fixture
def store(tmp_path: Path, embedder: embed.FastEmbedder) -> Iterator[MemoryStore]:  # noqa: F811
    opened = MemoryStore.open(tmp_path / "engram.sqlite3", embedder)
    yield opened
    opened.conn.close()


def test_a_signal_on_an_answer_that_was_never_stored_is_ignored(store: MemoryStore) -> None:
    chat = KmChat()
    assistant = Assistant(EpisodeLog(store.conn), chat, recall=Recall(store, chat.count_tokens))
    assert assistant.judgments.signal(0, "thumbs_down", "the turn failed before its answer") == []
    assert assistant.judgments.signal(987_654, "praise") == []
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM signals") == 0


def _judged_with_the_lesson(
    store: MemoryStore, asked: list[str], kind: str, said: list[str | None]
) -> tuple[int, list[list[int]]]:
    """Each question answered with LESSON given to it, then judged (``kind``, with the user's
    words in ``said``): the lesson's id, and the lessons each judgement credited or blamed."""
    chat = KmChat()
    recall = Recall(store, chat.count_tokens)
    assistant = Assistant(EpisodeLog(store.conn), chat, recall=recall)
    lesson = store.add(LESSON, "lesson", origin="local")
    given = events.Recalled("lesson", LESSON, 1.0, lesson.created_at, memory_id=lesson.id)
    judged = []
    for question, words in zip(asked, said, strict=True):
        done = next(e for e in assistant.turn(0, question) if isinstance(e, Finished))
        recall.record(done.episode_id, [given])  # the lesson went into every answer
        credits = assistant.judgments.signal(done.episode_id, kind, words)
        judged.append([c.memory_id for c in credits])
    return lesson.id, judged


def test_a_correction_blames_no_lesson_a_thumb_down_does(store: MemoryStore) -> None:
    """ "No, that's wrong: use kilograms, not pounds" after an answer that was given the
    kilometre lesson is a new lesson, not a verdict on that one; a thumb down is a verdict."""
    asked = ["How far is Rome from Paris?"]
    said: list[str | None] = ["No, that's wrong: use kilograms, not pounds."]
    lesson, blamed = _judged_with_the_lesson(store, asked, "correction", said)
    assert blamed == [[]]
    again, blamed = _judged_with_the_lesson(store, asked, "thumbs_down", ["still wrong"])
    assert again == lesson and blamed == [[lesson]]  # the same lesson, stored once


def test_only_a_lesson_whose_situation_came_up_takes_the_answers_credit(
    store: MemoryStore,
) -> None:
    """A lesson given to an answer it had no part in (its situation never came up in the
    question) is neither credited nor blamed for how the answer went."""
    asked = ["Write a short poem about my cat.", "How far is Rome from Paris?"]
    lesson, credited = _judged_with_the_lesson(store, asked, "thumbs_down", [None, None])
    assert credited == [[], [lesson]]


def test_signal_job_lesson_guidance_credit_demotion_and_retirement(store: MemoryStore) -> None:
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, settings=lambda: tiny.settings(consolidate_every_turns=50))
    chat = KmChat()
    assistant = Assistant(
        EpisodeLog(store.conn), chat, recall=Recall(store, chat.count_tokens), scheduler=scheduler
    )
    outcomes = Outcomes(store)
    distiller = ScriptedModel(_lesson_when_asked)

    # A wrong answer, then the user corrects it: the correction is a signal on that answer,
    # and the job queued at once records why and carries the signal.
    first = assistant.turn(0, "How long is a half marathon?")
    answer = next(e for e in first if isinstance(e, Finished))
    conversation = outcomes.conversation_of(answer.episode_id)
    assert conversation is not None
    list(assistant.turn(conversation, CORRECTION))
    [job] = queue.jobs("queued")
    assert job.reason == "correction"
    [carried] = outcomes.of_job(job.id)
    assert (carried.kind, carried.answer_episode_id) == ("correction", answer.episode_id)
    assert not carried.positive and carried.text == CORRECTION

    claimed = queue.claim()
    assert claimed is not None
    assert (
        run_job(claimed, store, queue, ScriptedSource(distiller), CancelToken()).outcome == "done"
    )
    system, request = distiller.calls[0][1]
    assert "in the same situation" in system["content"]
    assert f"[{answer.episode_id}] correction" in request["content"]
    [lesson] = store.memories(kinds=["lesson"])
    assert lesson.content == WORDS  # the user's words; the model's lesson said where they apply

    # A later, unrelated chat: the lesson comes back in its own guidance block and is followed.
    def ask() -> tuple[Finished, str]:
        events = list(assistant.turn(0, "How long is the Golden Gate Bridge?"))
        done = next(e for e in events if isinstance(e, Finished))
        return done, next(e for e in events if isinstance(e, Recalling)).prompt.block

    done, block = ask()
    assert "km" in done.text
    assert GUIDANCE in block and block.index(GUIDANCE) < block.rindex(WORDS)
    importance = store.get(lesson.id).importance  # type: ignore[union-attr]

    # Credit: the answer's first signal on the answer counts for the lesson, a second does not.
    # "memory_wrong" judges a memory, not the lesson
    assert assistant.judgments.signal(done.episode_id, "memory_wrong") == []
    _signal, credits = outcomes.record(done.episode_id, "thumbs_up", True)
    assert [(c.memory_id, c.helped) for c in credits] == [(lesson.id, True)]
    assert outcomes.record(done.episode_id, "thumbs_down", False)[1] == []
    record = outcomes.lesson_record(lesson.id)
    assert (record.used, record.helped, record.hurt) == (1, 1, 0)
    assert record.answers == (done.episode_id,)
    risen = store.get(lesson.id)
    assert risen is not None and risen.importance > importance

    # It keeps hurting: each thumbs-down demotes it, and it is retired once hurts outweigh helps.
    levels = [risen.importance]
    for round_ in range(RETIRE_MARGIN + 1):
        done, block = ask()
        assert WORDS in block.split(GUIDANCE)[-1]
        credits = assistant.judgments.signal(done.episode_id, "thumbs_down", "still wrong")
        assert [c.memory_id for c in credits] == [lesson.id]
        now = store.get(lesson.id)
        assert now is not None
        levels.append(now.importance)
        assert credits[0].retired is (round_ == RETIRE_MARGIN)
    assert levels == sorted(levels, reverse=True) and levels[-1] < levels[0]
    retired = store.get(lesson.id)
    assert retired is not None and retired.status == "archived"
    assert retired.meta.get("retired") == "hurt"
    assert queue.jobs("queued")[-1].reason == "outcome"  # the thumbs asked for a lesson too

    # Retired: no longer given to answers; restoring it brings it back.
    done, block = ask()
    assert GUIDANCE not in block and "miles" in done.text
    store.update(lesson.id, status="active")
    assert WORDS in ask()[1].split(GUIDANCE)[-1]


def test_a_thumb_on_an_answer_already_distilled_reads_it_again(store: MemoryStore) -> None:
    queue = JobQueue(store.conn)
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation().id
    question = log.append(conversation, "user", "Convert 10 miles").id
    answer = log.append(conversation, "assistant", "16 km").id
    log.append(conversation, "user", "ok")
    done = queue.enqueue(conversation)
    assert done is not None and queue.enqueue(conversation) is None
    Outcomes(store).record(answer, "thumbs_down", False, "show the formula")
    again = queue.enqueue(conversation, reason="outcome")
    assert again is not None and again.reason == "outcome"
    assert (again.first_episode_id, again.last_episode_id) == (question, answer)
    assert [s.text for s in Outcomes(store).of_job(again.id)] == ["show the formula"]
    assert queue.enqueue(conversation) is None  # the signal was taken


def test_at_most_three_lessons_in_their_own_block_which_stays_byte_identical() -> None:
    def item(label: str, score: float, memory_id: int) -> events.Recalled:
        return events.Recalled(label, f"{label} {memory_id}", score, 0.0, memory_id=memory_id)

    items = [
        item("fact", 0.9, 1),
        *(item("lesson", s, i) for i, s in enumerate([0.2, 0.8, 0.5, 0.9], 2)),
    ]
    kept = prompt.best_lessons(items)
    assert [i.memory_id for i in kept] == [1, 3, 4, 5]
    block = prompt.memory_block(kept, "en")
    assert block == prompt.memory_block(list(kept), "en")
    facts, guidance = block.split(prompt.BLOCK_CLOSE + "\n")
    assert "fact 1" in facts and "lesson" not in facts
    assert guidance.startswith(prompt.BLOCK_OPEN) and GUIDANCE in guidance
    assert prompt.memory_block([item("fact", 1, 1)], "zh_CN").count(prompt.BLOCK_OPEN) == 1


def test_engram_learn_runs_the_queue_now_and_prints_what_changed(
    embedder: embed.FastEmbedder,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["learn"]) == 0
    assert "Nothing to learn" in capsys.readouterr().out
    store = MemoryStore.open(paths.database_path(), embedder)
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation().id
    log.append(conversation, "user", "How far is a half marathon?")
    answer = log.append(conversation, "assistant", "13.1 miles").id
    Outcomes(store).record(answer, "thumbs_down", False, "in kilometres please")
    queue = JobQueue(store.conn)
    job = queue.enqueue(conversation, reason="outcome")
    assert job is not None
    queue.fail(job, "the large model was busy")  # waiting for its backoff: learn runs it anyway
    store.conn.close()
    distiller = ScriptedModel(_lesson_when_asked)
    monkeypatch.setattr(distiller_backends, "from_settings", lambda *a: ScriptedSource(distiller))
    assert main(["learn"]) == 0
    said = capsys.readouterr()
    assert f"job {job.id} (outcome): done" in said.out
    assert "added    #1 lesson: In kilometres please" in said.out  # what the user said
    assert "in kilometres please" in distiller.calls[0][1][-1]["content"]


def test_engram_learn_says_once_why_it_cannot_learn_and_runs_no_job(
    embedder: embed.FastEmbedder,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = MemoryStore.open(paths.database_path(), embedder)
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation().id
    log.append(conversation, "user", "I moved to Lisbon.")
    queue = JobQueue(store.conn)
    job = queue.enqueue(conversation, reason="idle")
    assert job is not None
    store.conn.close()
    # The default large model is the 135M starter: too small to learn from.
    assert main(["learn"]) == 2
    said = capsys.readouterr()
    assert said.err.count("Learning starts with a larger model") == 1
    assert "job " not in said.out
    check = MemoryStore.open(paths.database_path(), embedder)
    try:
        assert [j.id for j in JobQueue(check.conn).jobs("queued")] == [job.id]  # still waiting
    finally:
        check.conn.close()


def _plan_answer(step: int) -> Callable[[list[dict[str, str]]], dict[str, Any]]:
    def answer(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "memories": [],
            "summary": "",
            "plan": {"goal": "Learn Spanish", "steps": STEPS, "current_step": step},
        }

    return answer


STEPS = ["Finish the Duolingo basics", "Watch a series with subtitles", "Talk with a tutor"]


def test_a_later_message_advances_the_plan_in_place_and_finishes_it(store: MemoryStore) -> None:
    queue = JobQueue(store.conn)
    log = EpisodeLog(store.conn)
    chat = KmChat()
    recall = Recall(store, chat.count_tokens)
    assistant = Assistant(log, chat, recall=recall)
    conversation = log.new_conversation().id

    def distill_with(step: int, said: str) -> ScriptedModel:
        log.append(conversation, "user", said)
        log.append(conversation, "assistant", "Well done.")
        job = queue.enqueue(conversation)
        assert job is not None and queue.claim() is not None
        model = ScriptedModel(_plan_answer(step))
        assert run_job(job, store, queue, ScriptedSource(model), CancelToken()).outcome == "done"
        return model

    distill_with(0, "My plan to learn Spanish: Duolingo basics, a series, then a tutor.")
    [plan] = store.memories(kinds=["plan"])
    assert plan.meta["plan"]["current_step"] == 0
    asked = distill_with(1, "I finished the Duolingo basics!")
    assert "The user's active plan:" in asked.calls[0][1][-1]["content"]
    [advanced] = store.memories(kinds=["plan"])
    assert advanced.id == plan.id  # updated in place, not dropped as a duplicate
    assert advanced.meta["plan"] == {"goal": "Learn Spanish", "steps": STEPS, "current_step": 1}
    assert "Currently on step 2" in advanced.content
    shown = recall.plan()
    assert shown is not None and "should do next: Watch a series with subtitles" in shown.content

    list(assistant.turn(conversation, "What should I do today?"))  # the plan guides it: a use
    used = store.get(plan.id)
    assert used is not None and used.last_used_at is not None and used.use_count == 1

    distill_with(3, "I had my tutor session, I'm done with the plan.")
    finished = store.get(plan.id)
    assert finished is not None and finished.status == "archived"
    assert finished.meta["plan"]["done"] is True and recall.plan() is None


def test_plans_the_user_lists_stay_as_said_and_apart(store: MemoryStore) -> None:
    """In Chinese every text sits near every other for the embedder: the running plan was
    judged against the IELTS one and never stored, and "涨完是多少？" (after the rise) let the
    distiller move the IELTS plan on. Another goal is another plan; only the user's words move
    a plan."""
    queue, log = JobQueue(store.conn), EpisodeLog(store.conn)

    def distill(said: str, step: int) -> None:
        conversation = log.new_conversation().id
        log.append(conversation, "user", said)
        log.append(conversation, "assistant", "好的。")
        job = queue.enqueue(conversation)
        assert job is not None and queue.claim() is not None
        goal = {"goal": "备考雅思", "steps": IELTS, "current_step": step}
        model = ScriptedModel(lambda _messages: {"memories": [], "summary": "", "plan": goal})
        assert run_job(job, store, queue, ScriptedSource(model), CancelToken()).outcome == "done"

    distill("我在备考雅思。计划：1）背完核心词汇，2）每天做一套听力，3）每周写两篇作文。"
            "我已经背完核心词汇了。", 1)  # fmt: skip
    distill(
        "我在准备半程马拉松。计划：第一周每次跑5公里，第二周每次8公里，第三周比赛。这周是第一周。",
        1,
    )
    distill("我的房租每月3200元，要涨4.5%，涨完是多少？", 2)  # the model moves IELTS on
    plans = {p.meta["plan"]["goal"]: p.meta["plan"] for p in store.memories(kinds=["plan"])}
    assert plans == {
        "备考雅思": {"goal": "备考雅思", "steps": IELTS, "current_step": 1},
        "准备半程马拉松": {
            "goal": "准备半程马拉松",
            "steps": ["第一周每次跑5公里", "第二周每次8公里", "第三周比赛"],
            "current_step": 0,
        },
    }
    distill("雅思进度：听力我已经每天练了一个月，这一步算完成了。", 0)
    [ielts] = [p for p in store.memories(kinds=["plan"]) if p.meta["plan"]["goal"] == "备考雅思"]
    assert ielts.meta["plan"]["current_step"] == 2


IELTS = ["背完核心词汇", "每天做一套听力", "每周写两篇作文"]


def test_the_answer_gets_the_plan_its_message_names(store: MemoryStore) -> None:
    def plan(goal: str, steps: list[str], step: int) -> int:
        spec = {"goal": goal, "steps": steps, "current_step": step}
        text = plan_text(goal, steps, step, "en")
        return store.add(text, "plan", origin="local", meta={"plan": spec}).id

    spanish = plan("Learning Spanish", SPANISH, 2)
    running = plan("Training for a 10 km race", ["week 1 run 3 km", "week 2 run 5 km"], 0)
    recall = Recall(store, lambda text: len(text.split()))
    for message, expected, shown_id in (
        ("Remind me, what's my next step with Spanish?", "next: have a 30-minute", spanish),
        ("How far should I run this week?", "should do next: week 1 run 3 km", running),
        ("What should I do today?", "week 1 run 3 km", running),  # names neither: the newest
    ):
        shown = recall.plan(message)
        assert shown is not None and expected in shown.content, message
        assert shown.memory_id == shown_id
    # a message that lists a plan of its own is answered with that one
    assert recall.plan("I'm learning Italian. My plan: 1) an app, 2) a film, 3) a tutor.") is None


SPANISH = [
    "finish the Duolingo basics",
    "watch one Spanish series with subtitles",
    "have a 30-minute conversation with a tutor",
]


def test_a_plan_is_given_in_the_system_part_only_never_as_a_note(store: MemoryStore) -> None:
    """Another plan matched "step" in "Remind me, what's my next step with Spanish?" and went
    into the notes beside the plan the message names."""
    spec = {"goal": "Learning Spanish", "steps": SPANISH, "current_step": 2}
    store.add(plan_text("Learning Spanish", SPANISH, 2, "en"), "plan", origin="local",
              meta={"plan": spec})  # fmt: skip
    running = ["week 1 run 3 km", "week 2 run 5 km"]
    store.add(plan_text("Training for a 10 km race", running, 0, "en"), "plan", origin="local",
              meta={"plan": {"goal": "Training for a 10 km race", "steps": running}})  # fmt: skip
    aside = store.add("The user's Spanish teacher is called Lucia.", origin="local")
    chat = KmChat()
    assistant = Assistant(EpisodeLog(store.conn), chat, recall=Recall(store, chat.count_tokens))
    parts = assistant.prepare("Remind me, what's my next step with Spanish?", []).parts
    assert "should do next: have a 30-minute conversation with a tutor" in parts.system
    assert aside.content in parts.block  # the other memories are still recalled
    assert "10 km" not in parts.block + parts.system
    # a message that lists a plan of its own gets no plan, and still none as a note
    parts = assistant.prepare("I'm learning Italian. My plan: 1) an app, 2) a tutor.", []).parts
    assert "Steps:" not in parts.block + parts.system


SIGN = "Sign messages you write for me with 'Best regards, Mia'. Mia is my name."
BULLETS = "When you list things, use bullet points starting with '- ', one per line, no numbering."


def test_a_lessons_example_comes_where_its_situation_or_its_words_came_back(
    store: MemoryStore,
) -> None:
    """Given the letter the sign-off lesson shows (the lesson's words at 0.33 from the
    question), the 0.5B said it had no access to the user's Spanish plan."""
    letter = ("Write a short message to my landlord saying the heating is broken.",
              "Dear landlord,\nThe heating is broken.\nBest regards, Mia")  # fmt: skip
    energy = ("List three ways to save energy at home.", "- Turn off lights\n- Insulate")
    for words, (asked, shown) in ((SIGN, letter), (BULLETS, energy)):
        example = {"asked": asked, "answer": shown}
        store.add(words, "lesson", origin="local",
                  meta={SITUATIONS: [asked], EXAMPLE: example})  # fmt: skip
    recall = Recall(store, lambda text: len(text.split()))

    def given(message: str) -> dict[str, bool]:
        found = recall.recall(message, 500)
        return {i.content: i.example is not None for i in found if i.label == "lesson"}

    # the lesson is told where its words are near, but its answer is not shown
    assert given("Remind me, what's my next step with Spanish?") == {SIGN: False}
    # a message that shares a word with it ("write") or is near its question gets the example
    assert given("Write a short thank-you note to my dentist for fitting me in.")[SIGN]
    assert given("What are the main benefits of regular exercise?") == {BULLETS: True}


@pytest.mark.slow
def test_the_starter_model_learns_from_a_correction_end_to_end(
    store: MemoryStore, starter_models: Path
) -> None:
    """Real small and large model (the 135M starter as both): a correction in the chat queues a
    job that carries it, the grammar-constrained distiller finishes it, and whatever it wrote
    is traced to that conversation; a later turn's prompt keeps lessons in the guidance block."""
    from engram.assistant.learning.distiller_backends import LocalDistiller
    from engram.models.background import LazyModel
    from engram.models.local import LocalModel

    model = LocalModel(starter_models / SMOL, n_ctx=2048, state_cache_mb=0)
    try:
        queue = JobQueue(store.conn)
        assistant = Assistant(
            EpisodeLog(store.conn),
            model,
            max_answer_tokens=32,
            recall=Recall(store, model.count_tokens),
            scheduler=Scheduler(queue, settings=lambda: tiny.settings(consolidate_every_turns=50)),
        )
        first = next(
            e for e in assistant.turn(0, "How long is a half marathon?") if isinstance(e, Finished)
        )
        conversation = Outcomes(store).conversation_of(first.episode_id)
        assert conversation is not None
        list(assistant.turn(conversation, "No, that's wrong: give distances in kilometres."))
        [job] = queue.jobs("queued")
        assert job.reason == "correction"
        assert [s.kind for s in Outcomes(store).of_job(job.id)] == ["correction"]
        claimed = queue.claim()
        assert claimed is not None
        source = LocalDistiller(LazyModel(lambda: model, float("inf")))
        done = run_job(claimed, store, queue, source, CancelToken(), limits=tiny.LIMITS)
        assert done.outcome == "done"
        for memory in store.memories(statuses=None, limit=1000):
            assert memory.conversation_id == conversation
        events = list(assistant.turn(0, "How long is the Golden Gate Bridge?"))
        block = next(e for e in events if isinstance(e, Recalling)).prompt.block
        lessons = [m.content for m in store.memories(kinds=["lesson"])]
        for lesson in lessons:  # a lesson is never framed as a fact
            if lesson in block:
                assert block.index(GUIDANCE) < block.index(lesson)
        assert any(isinstance(e, Finished) for e in events)
    finally:
        model.close()


@pytest.mark.slow
def test_engram_chat_sends_thumbs_on_the_last_answer(
    starter_models: Path, engram_home: Path
) -> None:
    said = "/bad\nHow long is a marathon?\n/bad give it in km\n/good\n"
    result = _engram("chat", stdin=said, env_home=engram_home)
    assert result.returncode == 0, result.stderr
    assert "[no answer to judge yet in this chat]" in result.stdout
    assert result.stdout.count("[noted: Engram learns from it]") == 2
    [(answer,)] = _db_rows("SELECT id FROM episodes WHERE role = 'assistant'")
    signals = _db_rows("SELECT answer_episode_id, kind, text, positive FROM signals ORDER BY id")
    assert signals == [(answer, "thumbs_down", "give it in km", 0), (answer, "thumbs_up", None, 1)]
    assert ("outcome",) in _db_rows("SELECT reason FROM consolidation_jobs")
    users = _db_rows("SELECT content FROM episodes WHERE role = 'user'")
    assert users == [("How long is a marathon?",)]  # the commands never reached the model


def test_the_examples_of_the_best_lessons_are_given_while_they_fit() -> None:
    def lesson(score: float, answer: str) -> Recalled:
        return Recalled("lesson", f"lesson {score}", score, 0.0, example=(f"asked {score}", answer))

    items = [
        lesson(0.5, "short answer"),
        Recalled("fact", "The user has a dog.", 0.9, 0.0),
        lesson(0.9, "a longer answer of seven words here"),
        lesson(0.7, "word " * 300),
    ]
    shown = prompt.examples(items, lambda text: len(text.split()), budget=14)
    assert [m["content"] for m in shown] == [
        "asked 0.9", "a longer answer of seven words here", "asked 0.5", "short answer",
    ]  # fmt: skip
    assert [m["role"] for m in shown] == ["user", "assistant", "user", "assistant"]
    assert prompt.examples(items[1:2], len) == ()
