"""Consolidation: triggers, the persisted queue, distill parsing, reconciliation, the worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tiny
from engram.assistant.events import Status
from engram.assistant.intent import read
from engram.assistant.learning import (
    distill,
    distiller_backends,
    grounding,
    hygiene,
    proposals,
    reconcile,
)
from engram.assistant.learning.consolidation import ConsolidationWorker, Result, run_job
from engram.assistant.learning.distiller_backends import DistillerSource, LocalDistiller
from engram.assistant.learning.redact import RedactingModel
from engram.assistant.learning.scheduler import Scheduler
from engram.core import paths, prompts
from engram.core.cancel import CancelToken
from engram.core.errors import ModelLoadError, StoreError
from engram.core.messages import Message
from engram.core.settings import CloudSettings
from engram.memory import embed, kinds
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import MAX_ATTEMPTS, Job, JobQueue, backoff
from engram.memory.store import MemoryStore
from engram.memory.text import text_language
from engram.models.background import ForegroundGate
from engram.models.local import StructuredOutputError
from test_consolidation_support import (
    ScriptedModel,
    ScriptedSource,
    chat,
    memories_answer,
    minilm,
)
from waiting import wait_until


@pytest.fixture(scope="module")
def embedder(starter_models: Path) -> embed.FastEmbedder:
    return minilm(starter_models)


@pytest.fixture
def store(embedder: embed.FastEmbedder) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(paths.database_path(), embedder)
    yield opened
    opened.conn.close()


def run_once(
    store: MemoryStore, source: DistillerSource, base_backoff: float = 30.0
) -> list[Status]:
    """Run the worker until the queue has nothing due, on this test's database file."""
    statuses: list[Status] = []
    worker = ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        source,
        on_status=statuses.append,
        poll=0.05,
        base_backoff=base_backoff,
    )
    worker.start()
    queue = JobQueue(store.conn)
    deadline = time.monotonic() + 30
    # Due first: a job claimed between the two reads is running by the second (read the other
    # way round, a job claimed in between was neither and the worker was stopped mid-job).
    while _due(queue) or queue.counts().get("running", 0):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    worker.stop()
    assert not worker.is_alive()
    return statuses


def _due(queue: JobQueue) -> bool:
    due = queue.next_due()
    return due is not None and due <= time.time()


# -- triggers ------------------------------------------------------------------------------------


def test_scheduler_queues_every_n_turns_without_overlap(store: MemoryStore) -> None:
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation()
    woken: list[int] = []
    scheduler = Scheduler(
        JobQueue(store.conn),
        lambda: tiny.settings(consolidate_every_turns=3),
        lambda: woken.append(1),
    )
    triggers = []
    for i in range(7):
        user = log.append(conversation.id, "user", f"message {i}")
        triggers.append(scheduler.on_user_turn(conversation.id, user.id, read(user.content)))
        log.append(conversation.id, "assistant", f"answer {i}")
    fired = [t for t in triggers if t is not None]
    assert [triggers.index(t) for t in fired] == [2, 5]
    first, second = (t.job for t in fired)
    episodes = log.episodes(conversation.id)
    assert first.first_episode_id == episodes[0].id
    assert first.last_episode_id == episodes[4].id  # the third user message
    assert second.first_episode_id == episodes[5].id  # the answer to it comes next
    assert second.last_episode_id == episodes[10].id
    assert len(woken) == 2
    # Nothing new: no job. App exit persists the rest (the last answer and message).
    assert scheduler.on_idle(conversation.id, second.last_episode_id) is None
    exit_jobs = scheduler.on_exit()
    assert [(t.reason, t.job.first_episode_id, t.job.last_episode_id) for t in exit_jobs] == [
        ("exit", episodes[11].id, episodes[-1].id)
    ]
    assert scheduler.on_exit() == []


def test_remember_and_corrections_queue_at_once(store: MemoryStore) -> None:
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation()
    scheduler = Scheduler(JobQueue(store.conn), lambda: tiny.settings(consolidate_every_turns=50))
    first = log.append(conversation.id, "user", "记住：我对花生过敏")
    trigger = scheduler.on_user_turn(conversation.id, first.id, read(first.content))
    assert trigger is not None and trigger.reason == "remember"
    log.append(conversation.id, "assistant", "好的，我记住了。")
    fix = log.append(conversation.id, "user", "No, that's wrong: I said peanuts, not walnuts.")
    trigger = scheduler.on_user_turn(conversation.id, fix.id, read(fix.content))
    assert trigger is not None and trigger.reason == "correction"
    assert trigger.job.last_episode_id == fix.id
    answer = log.append(conversation.id, "assistant", "Sorry: peanuts, noted.")
    idle = scheduler.on_idle(conversation.id)
    assert idle is not None and idle.reason == "idle"
    assert (idle.job.first_episode_id, idle.job.last_episode_id) == (answer.id, answer.id)
    assert len(JobQueue(store.conn).jobs()) == 3
    # Whether anything may be learned (the pause) is the application's rule: test_app.py.


# -- the queue -----------------------------------------------------------------------------------


def test_failures_back_off_exponentially_then_park_with_the_error(store: MemoryStore) -> None:
    chat(store, [("hello", "hi")])
    queue = JobQueue(store.conn, base_backoff=10)
    job = queue.enqueue(1)
    assert job is not None
    now = 1000.0
    waits = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        claimed = queue.claim(now=now + 10**6 * attempt)
        assert claimed is not None and claimed.attempts == attempt
        failed = queue.fail(claimed, f"boom {attempt}", now=now)
        waits.append(failed.next_attempt_at - now)
    assert waits[:4] == [10, 20, 40, 80]
    parked = queue.get(job.id)
    assert parked is not None and parked.status == "parked" and parked.last_error == "boom 5"
    assert queue.claim(now=now + 10**9) is None
    assert queue.retry_parked() == 1
    assert queue.claim() is not None
    assert backoff(30, 30.0) == 3600.0


def test_a_job_left_running_is_requeued_and_defer_keeps_its_attempts(store: MemoryStore) -> None:
    chat(store, [("hello", "hi")])
    queue = JobQueue(store.conn)
    assert queue.enqueue(1) is not None
    job = queue.claim()
    assert job is not None and job.status == "running"
    assert JobQueue(store.conn).recover() == 1
    again = queue.claim()
    assert again is not None and again.attempts == 2
    queue.defer(again, "no model", 60)
    after = queue.get(again.id)
    assert after is not None
    assert (after.status, after.attempts, after.last_error) == ("queued", 1, "no model")
    assert queue.claim() is None  # not due for a minute


# -- distill output ------------------------------------------------------------------------------


def test_parse_drops_invented_ids_and_garbage_and_keeps_summary_and_plan(
    store: MemoryStore,
) -> None:
    turns = [
        ("I want to run a marathon in May. I run 10 km now.", "Great goal!"),
        ("How often should I train?", "Four times a week."),
        ("Good, I start on Monday.", "Good luck!"),
    ]  # three messages of the user's: a conversation whose summary is kept (SUMMARY_AFTER)
    ids = chat(store, turns)
    episodes = EpisodeLog(store.conn).episodes(1)
    raw = {
        "memories": [
            {"kind": "plan", "content": "The user trains for a marathon in May.", "importance": 5,
             "episodes": [ids[0], 99999]},
            {"kind": "fact", "content": "string", "importance": 3, "episodes": [ids[0]]},
            {"kind": "fact", "content": "   ", "importance": 3, "episodes": []},
            {"kind": "fact", "content": "aaaaaaaaaa", "importance": 3, "episodes": []},
            {"kind": "fact", "content": "The user runs 10 km now.", "importance": 3,
             "episodes": [424242]},
        ],
        "summary": "The user talked about marathon training.",
        "plan": {"goal": "Run a marathon in May", "steps": ["10 km", "half marathon", "full"],
                 "current_step": 7},
    }  # fmt: skip
    result = proposals.parse(raw, episodes, "en")
    contents = {c.kind: c for c in result.candidates}
    assert [c.kind for c in result.candidates] == ["plan", "fact", "summary", "plan"]
    assert result.candidates[0].episode_ids == (ids[0],)
    assert contents["fact"].content == "The user runs 10 km now."
    assert contents["fact"].episode_ids == tuple(ids)  # only invented ids: the whole job
    assert result.dropped == 5  # 3 garbage contents + 2 invented ids
    plan = result.candidates[-1]
    assert plan.meta["plan"]["current_step"] == 2
    assert "Currently on step 3" in plan.content


def test_language_follows_the_user_and_prompts_exist_for_both() -> None:
    def ep(role: str, text: str) -> distill.Episode:
        return distill.Episode(1, 1, 0, role, text, 0.0, None, "complete")

    assert distill.detect_language([ep("user", "我下个月搬去上海"), ep("assistant", "Okay")]) == (
        "zh_CN"
    )
    assert distill.detect_language([ep("user", "I love 饺子"), ep("assistant", "好的")]) == "en"
    for language in ("en", "zh_CN"):
        assert distill.messages([ep("user", "hi")], language)[0]["content"]
        assert prompts.text("reconcile", language)
    assert "当前在第 2 步" in proposals.plan_text("跑马拉松", ["五公里", "半马"], 1, "zh_CN")
    # A plan reads in the language of its goal, whatever language the job was in.
    episodes = [ep("user", "我想在五月跑完马拉松。")]
    goal = {"goal": "Run a marathon in May", "steps": ["10 km", "full"], "current_step": 0}
    found = proposals.parse({"memories": [], "summary": "", "plan": goal}, episodes, "zh_CN")
    assert [c.content for c in found.candidates] == [
        "The user's goal: Run a marathon in May. Steps: 1. 10 km; 2. full. Currently on step 1."
    ]


# -- reconciliation ------------------------------------------------------------------------------


def cand(content: str, kind: str = "fact", ids: tuple[int, ...] = ()) -> proposals.Candidate:
    return proposals.Candidate(kind, content, 0.8, ids)


def test_reconcile_decides_add_skip_supersede_update(store: MemoryStore) -> None:
    ids = chat(store, [("I moved to Shanghai", "Nice"), ("I now have two cats", "Lovely")])
    beijing = store.add("The user lives in Beijing.", "profile", origin="local")
    cats = store.add("The user has a cat called Mimi.", "fact", origin="local")
    replies = iter(
        [
            {"decision": "supersede", "target_id": beijing.id, "content": ""},
            {"decision": "update", "target_id": cats.id,
             "content": "The user has two cats, one called Mimi."},
            {"decision": "update", "target_id": 987654, "content": "overwrite something"},
        ]
    )  # fmt: skip
    model = ScriptedModel(memories_answer(), lambda _m: next(replies))
    new = reconcile.decide(store, model, cand("The user is allergic to peanuts."), "en")
    same = reconcile.decide(store, model, cand("the user lives in beijing"), "en")
    near = reconcile.decide(store, model, cand("The user lives in Beijing!"), "en")
    moved = reconcile.decide(store, model, cand("The user moved to Shanghai.", "profile"), "en")
    more = reconcile.decide(store, model, cand("The user has two cats."), "en")
    bogus = reconcile.decide(store, model, cand("The user also has a dog called Rex."), "en")
    assert (same.action, same.target_id, same.why) == ("skip", beijing.id, "same text")
    assert (near.action, near.target_id) == ("skip", beijing.id)
    assert (moved.action, moved.target_id) == ("supersede", beijing.id)
    assert (more.action, more.target_id) == ("update", cats.id)
    assert bogus.action == "add" and "unknown" in bogus.why
    assert (new.action, new.why) == ("add", "new")
    asked = [messages[-1]["content"] for kind, messages in model.calls if kind == "reconcile"]
    assert len(asked) == 3  # the guard answered the duplicates, nothing related to peanuts
    assert "The user lives in Beijing." in asked[-3]

    written = reconcile.apply(
        store, moved, cand("The user moved to Shanghai.", "profile", (ids[0],)),
        origin="local", conversation_id=1, job_id=7,
    )  # fmt: skip
    assert written is not None
    old = store.get(beijing.id)
    assert old is not None and old.status == "superseded" and old.superseded_by == written.id
    assert [s.episode_id for s in store.sources(written.id)] == [ids[0]]
    assert written.meta["job"] == 7
    updated = reconcile.apply(
        store, more, cand("The user has two cats.", "fact", (ids[2],)),
        origin="local", conversation_id=1, job_id=7,
    )  # fmt: skip
    assert updated is not None and updated.id == cats.id
    assert updated.content == "The user has two cats, one called Mimi."
    assert [s.episode_id for s in store.sources(cats.id)] == [ids[2]]
    assert store.search("Shanghai", k=3)[0].content == "The user moved to Shanghai."


# -- the worker ----------------------------------------------------------------------------------


def test_worker_distills_a_job_once_and_a_second_run_creates_no_duplicates(
    store: MemoryStore,
) -> None:
    ids = chat(
        store,
        [("I'm a nurse and I work night shifts.", "That sounds demanding."),
         ("Please answer me in short sentences.", "Sure."),
         ("Tonight is my last shift this week.", "Enjoy the days off.")],
    )  # fmt: skip
    model = ScriptedModel(
        memories_answer(
            ("profile", "The user is a nurse who works night shifts."),
            ("preference", "The user wants short answers."),
            summary="The user talked about night shifts and asked for short answers.",
        )
    )
    queue = JobQueue(store.conn)
    job = queue.enqueue(1)
    assert job is not None
    statuses = run_once(store, ScriptedSource(model))
    done = queue.get(job.id)
    assert done is not None and (done.status, done.attempts) == ("done", 1)
    memories = store.memories()
    assert sorted(m.kind for m in memories) == ["preference", "profile", "summary"]
    assert all(m.origin == "local" and m.meta["job"] == job.id for m in memories)
    summary = next(m for m in memories if m.kind == "summary")
    assert [s.episode_id for s in store.sources(summary.id)] == ids
    assert {s.state for s in statuses} >= {"distilling", "idle"}
    assert statuses[-1].queued == 0

    # The same episodes again (a retried job after a crash): nothing new is written.
    assert queue.enqueue(1) is None
    store.conn.execute("UPDATE consolidation_jobs SET status = 'queued' WHERE id = ?", (job.id,))
    run_once(store, ScriptedSource(model))
    assert len(store.memories(statuses=None)) == 3


def test_missing_or_failing_distiller_keeps_the_job_and_says_why(store: MemoryStore) -> None:
    chat(store, [("I have a meeting on Friday.", "Noted.")])
    queue = JobQueue(store.conn)
    job = queue.enqueue(1)
    assert job is not None
    statuses: list[Status] = []
    worker = ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        LocalDistiller(None), on_status=statuses.append, poll=0.05,
    )  # fmt: skip
    worker.start()
    wait_until(lambda: any(s.state == "failed" for s in statuses))
    worker.stop()
    failed = next(s for s in statuses if s.state == "failed")
    assert failed.error is not None and "No large model" in failed.error.message
    assert failed.model == "not configured"
    assert failed.queued == 1
    waiting = queue.get(job.id)
    assert waiting is not None and (waiting.status, waiting.attempts) == ("queued", 0)

    # A model that fails to load: the job waits without using up attempts.
    store.conn.execute("UPDATE consolidation_jobs SET next_attempt_at = 0")
    error = ModelLoadError("bad.gguf could not be loaded", "Download it again.")
    statuses = run_once(store, ScriptedSource(None, error))
    waiting = queue.get(job.id)
    assert waiting is not None and (waiting.status, waiting.attempts) == ("queued", 0)
    assert statuses[-1].state == "failed" and "bad.gguf" in str(statuses[-1].error)

    # A model that answers garbage: counted, retried with backoff, parked after five attempts.
    broken = ScriptedModel(memories_answer(), fail=StructuredOutputError("no valid answer"))
    for _ in range(MAX_ATTEMPTS):
        store.conn.execute("UPDATE consolidation_jobs SET next_attempt_at = 0")
        run_once(store, ScriptedSource(broken), base_backoff=60)
    parked = queue.get(job.id)
    assert parked is not None and (parked.status, parked.attempts) == ("parked", MAX_ATTEMPTS)
    assert parked.last_error == "no valid answer"
    assert store.memories() == []
    assert len(EpisodeLog(store.conn).episodes(1)) == 2  # nothing lost


def test_a_job_still_in_a_model_call_after_stop_reports_to_no_one(store: MemoryStore) -> None:
    """Closing the window stops learning and then deletes the object its statuses go to; a
    model call that outlives the wait must not report to it afterwards (under load, Qt said
    "Signal source has been deleted" from the learning thread)."""
    chat(store, [("I have a meeting on Friday.", "Noted.")])
    assert JobQueue(store.conn).enqueue(1) is not None
    inside, release = threading.Event(), threading.Event()

    def slow_call(messages: list[Message]) -> dict[str, Any]:
        inside.set()
        release.wait(30)  # a model call that does not look at the cancel
        return memories_answer()(messages)

    statuses: list[Status] = []
    worker = ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        ScriptedSource(ScriptedModel(slow_call)), on_status=statuses.append, poll=0.05,
    )  # fmt: skip
    worker.start()
    assert inside.wait(30)
    worker.stop(timeout=0.1)
    assert worker.is_alive()  # still inside the call
    told = len(statuses)
    release.set()
    worker.join(30)
    assert not worker.is_alive() and len(statuses) == told


def _claimed(store: MemoryStore, user: str, answer: str) -> tuple[JobQueue, Job]:
    """A one-turn conversation queued as a job and claimed, as the runner would."""
    chat(store, [(user, answer)])
    queue = JobQueue(store.conn)
    assert queue.enqueue(1) is not None
    job = queue.claim()
    assert job is not None
    return queue, job


def test_run_job_is_one_call_that_settles_the_job_without_a_thread(store: MemoryStore) -> None:
    queue, job = _claimed(store, "My cat is called Miso.", "Nice name.")
    stop = CancelToken()
    stop.cancel()  # asked to stop before it began: the job goes back, untouched
    model = ScriptedModel(memories_answer(("fact", "The user's cat is called Miso.")))
    assert run_job(job, store, queue, ScriptedSource(model), stop) == Result("stopped")
    back = queue.get(job.id)
    assert back is not None and (back.status, back.attempts) == ("queued", 0)
    assert store.memories() == []

    job = queue.claim()
    assert job is not None
    steps: list[tuple[str, float]] = []
    result = run_job(
        job, store, queue, ScriptedSource(model), CancelToken(),
        lambda phase, fraction, _model, _step: steps.append((phase, fraction)),
    )  # fmt: skip
    assert result.outcome == "done" and result.problem is None
    assert [m.content for m in store.memories()] == ["The user's cat is called Miso."]
    assert [(w.memory_id, w.action) for w in result.learned] == [(store.memories()[0].id, "add")]
    assert steps[-1] == ("distilling", 1.0)
    fractions = [fraction for _phase, fraction in steps]
    assert fractions == sorted(fractions)
    settled = queue.get(job.id)
    assert settled is not None and settled.status == "done"


def test_run_job_turns_a_bug_into_a_failed_attempt_with_the_error(store: MemoryStore) -> None:
    queue, job = _claimed(store, "I live in Lyon.", "Okay.")
    source = ScriptedSource(None, RuntimeError("a bug in the distiller"))
    result = run_job(job, store, queue, source, CancelToken())
    assert result.outcome == "failed" and result.problem is not None
    assert "a bug in the distiller" in result.problem.message
    failed = queue.get(job.id)
    assert failed is not None and failed.attempts == 1 and failed.status == "queued"
    assert failed.last_error is not None and "internal error" in failed.last_error


# -- hygiene -------------------------------------------------------------------------------------


def test_hygiene_decays_expires_merges_caps_and_retires_reversibly(store: MemoryStore) -> None:
    now = time.time()
    old = now - 400 * 86400
    lesson = store.add("Answer the user in metric units.", "lesson", origin="local")
    store.feedback(lesson.id, -1)
    store.feedback(lesson.id, -1)
    plan = store.add("The user's goal: learn Rust.", "plan", origin="local")
    fading = store.add("The user once visited Oslo.", "fact", importance=0.8, origin="local")
    pinned = store.add("The user is allergic to penicillin.", "fact", pinned=True, origin="user")
    twins = store.add_many(["The user drives a red Volvo.", "The user drives a red Volvo"])
    weak = store.add("The user saw a film on Sunday.", "fact", importance=0.1, origin="local")
    store.conn.execute(
        "UPDATE memories SET created_at = ? WHERE id IN (?, ?)", (old, plan.id, pinned.id)
    )
    store.conn.execute(  # unused for 170 days past the grace period: importance 0.8 -> ~0.22
        "UPDATE memories SET created_at = ? WHERE id = ?", (now - 200 * 86400, fading.id)
    )
    policy = hygiene.Policy(caps={**kinds.caps(), "fact": 3})
    report = hygiene.run(store, policy, now=now)
    status = {m.id: m for m in store.memories(statuses=None)}
    assert status[lesson.id].status == "archived"
    assert status[plan.id].status == "archived" and status[plan.id].meta["archived"] == "expired"
    assert status[fading.id].status == "active" and 0.2 < status[fading.id].importance < 0.25
    assert status[pinned.id].importance == 0.5 and status[pinned.id].status == "active"
    assert sorted(status[t].status for t in twins) == ["active", "archived"]
    assert status[weak.id].status == "archived"  # over the cap of 3 facts, the weakest
    assert (report.retired, report.expired, report.decayed, report.merged, report.capped) == (
        1, 1, 1, 1, 1
    )  # fmt: skip
    # A second pass at the same moment changes nothing (decay does not compound).
    assert hygiene.run(store, policy, now=now) == hygiene.Report()
    assert len(store.memories(statuses=None)) == 7  # archived, never deleted


def test_a_decision_that_changes_nothing_is_a_skip_and_loops_are_garbage(
    store: MemoryStore,
) -> None:
    nurse = store.add("Lena works as a nurse.", "profile", origin="local")
    model = ScriptedModel(
        memories_answer(),
        lambda _m: {
            "decision": "supersede",
            "target_id": nurse.id,
            "content": "lena works as a nurse",
        },
    )
    decision = reconcile.decide(store, model, cand("Lena is a nurse at night.", "profile"), "en")
    assert (decision.action, decision.target_id) == ("skip", nurse.id)
    assert grounding.is_garbage("I'm a nurse. " * 12)
    assert grounding.is_garbage("用户的目标：" + ".1" * 30)
    assert not grounding.is_garbage("The user is a nurse and works night shifts in Berlin.")


def test_a_rerun_does_not_resurrect_what_the_first_run_superseded(store: MemoryStore) -> None:
    chat(store, [("I'm Lena, a nurse.", "Hi Lena."), ("I work nights now.", "Noted.")])

    def supersede_first_shown(messages: list[dict[str, str]]) -> dict[str, object]:
        shown = int(messages[-1]["content"].split("EXISTING:\n[", 1)[1].split("]", 1)[0])
        return {"decision": "supersede", "target_id": shown, "content": ""}

    model = ScriptedModel(
        memories_answer(
            ("profile", "Lena works as a nurse."),
            ("profile", "Lena works as a nurse on night shifts."),
        ),
        supersede_first_shown,
    )
    queue = JobQueue(store.conn)
    job = queue.enqueue(1)
    assert job is not None
    run_once(store, ScriptedSource(model))
    first = {m.id: (m.status, m.content) for m in store.memories(statuses=None)}
    assert sorted(first.values()) == [
        ("active", "Lena works as a nurse on night shifts."),
        ("superseded", "Lena works as a nurse."),
    ]
    asked = len(model.calls)
    store.conn.execute("UPDATE consolidation_jobs SET status = 'queued' WHERE id = ?", (job.id,))
    run_once(store, ScriptedSource(model))
    assert {m.id: (m.status, m.content) for m in store.memories(statuses=None)} == first
    # both candidates were seen before; only the user's words of the change, which replaced
    # nothing, are asked about again
    assert [kind for kind, _ in model.calls[asked:]] == ["distill", "untrue"]


def test_a_database_that_cannot_open_stops_the_worker_with_a_status() -> None:
    def damaged() -> MemoryStore:
        raise StoreError("The database is damaged.", "Move it aside.")

    statuses: list[Status] = []
    worker = ConsolidationWorker(damaged, LocalDistiller(None), on_status=statuses.append)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    assert [(s.state, str(s.error)) for s in statuses] == [("failed", "The database is damaged.")]


def test_the_distiller_follows_the_settings(starter_models: Path) -> None:
    never = threading.Event().is_set
    too_small = distiller_backends.from_settings(tiny.settings(), None, lambda: None)
    with pytest.raises(distiller_backends.DistillerUnavailableError, match="Learning starts"):
        too_small.acquire(never)  # the 135M starter as the large model invents memories
    assert too_small.state() == "too small"  # the status bar: "Large model: too small to learn"
    demo = tiny.settings(learn_with_small_models=True)
    local = distiller_backends.from_settings(demo, ForegroundGate(), lambda: None)
    assert isinstance(local, LocalDistiller) and local.state() == "not loaded"
    model = local.acquire(never)
    assert local.state() == "loaded" and hasattr(model, "structured")
    assert local.lazy is not None
    local.lazy.release()
    unknown = distiller_backends.from_settings(
        tiny.settings(large_model="nope"), None, lambda: None
    )
    with pytest.raises(distiller_backends.DistillerUnavailableError, match="nope"):
        unknown.acquire(never)
    cloud = tiny.settings(cloud=CloudSettings(enabled=True))
    with pytest.raises(distiller_backends.DistillerUnavailableError, match="API key"):
        distiller_backends.from_settings(cloud, None, lambda: None).acquire(never)
    cloud = tiny.settings(cloud=CloudSettings(True, "http://127.0.0.1:9/v1", "m"))
    source = distiller_backends.from_settings(cloud, None, lambda: "sk-test", names=["Lena"])
    assert isinstance(source, distiller_backends.CloudDistiller) and source.redact
    assert isinstance(source.acquire(never), RedactingModel)


def test_ordinary_long_sentences_are_not_taken_for_a_loop() -> None:
    """A share of distinct characters called every English sentence over ~95 characters garbage
    and threw lessons, summaries and plans away; a loop is a run repeated in a row."""
    long = (
        "When the user asks how far one city is from another, give the distance in kilometres "
        "first, because they corrected an answer in miles."
    )
    assert not grounding.is_garbage(long)
    assert not grounding.is_garbage(
        "用户每周六上午十点上小提琴课，周日下午练琴两个小时，平时晚上会听古典音乐。"
    )
    assert grounding.is_garbage("哈哈哈哈哈哈哈哈")
    assert grounding.is_garbage("The user said ok ok ok ok ok ok ok ok ok")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("When the user asks how far a place is, give kilometres, because they said so.", ""),
        ("当用户问温度时，用摄氏度回答，因为用户纠正过华氏度。", ""),
        ("The user is interested in distances.", "no situation"),
        ("Give answers in km.", "no situation"),
        ("When the user only asks a question and says nothing about themselves, memories is [].",
         "a sentence of the prompt"),
    ],
)  # fmt: skip
def test_a_lesson_is_kept_by_its_form_and_content(content: str, problem: str) -> None:
    language = "zh_CN" if text_language(content) == "zh_CN" else "en"
    assert grounding.lesson_problem(content, language) == problem
