"""Consolidation with the real starter model: grammar-constrained distill and reconcile, no
duplicates on a second run, and the foreground chat keeps answering while a job runs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.assistant.events import Status
from engram.assistant.learning import proposals, reconcile
from engram.assistant.learning.consolidation import ConsolidationWorker
from engram.assistant.learning.distiller_backends import LocalDistiller
from engram.core import paths
from engram.memory.jobs import JobQueue
from engram.memory.kinds import KINDS
from engram.memory.store import MemoryStore
from engram.models.background import ForegroundGate, LazyModel, thread_plan
from engram.models.local import LocalModel
from test_consolidation_support import chat, minilm
from waiting import wait_until

SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
TURNS = [
    ("Hi! My name is Lena and I live in Berlin.", "Nice to meet you, Lena!"),
    ("Actually, I moved to Munich last month for a new job.", "Congratulations on the move!"),
    ("I prefer tea to coffee, and please keep answers short.", "Got it."),
]


@pytest.fixture(scope="module")
def models(starter_models: Path) -> Iterator[tuple[LocalModel, LocalModel, ForegroundGate]]:
    gate = ForegroundGate()
    plan = thread_plan()
    path = starter_models / SMOL
    fg = LocalModel(path, n_ctx=2048, n_threads=plan.foreground, gate=gate, state_cache_mb=0)
    bg = LocalModel(
        path, n_ctx=2048, n_threads=plan.background, gate=gate, background=True, n_batch=64,
        state_cache_mb=0,
    )  # fmt: skip
    yield fg, bg, gate
    fg.close()
    bg.close()


class _Kept:
    """The module's background model, never closed by the worker's idle release."""

    def __init__(self, model: LocalModel) -> None:
        self.model = model

    def __call__(self) -> LocalModel:
        return self.model


def worker_for(store: MemoryStore, bg: LocalModel, gate: ForegroundGate, statuses: list[Status]):  # type: ignore[no-untyped-def]
    lazy: LazyModel[LocalModel] = LazyModel(_Kept(bg), idle_seconds=3600)
    return ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        LocalDistiller(lazy),
        gate=gate,
        on_status=statuses.append,
        poll=0.05,
        limits=tiny.LIMITS,
    )


@pytest.mark.slow
def test_the_starter_model_distills_reconciles_and_a_rerun_adds_nothing(
    models: tuple[LocalModel, LocalModel, ForegroundGate], starter_models: Path
) -> None:
    fg, bg, gate = models
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    old = store.add("The user lives in Berlin.", "profile", origin="local")
    ids = chat(store, TURNS)
    queue = JobQueue(store.conn)
    job = queue.enqueue(1)
    assert job is not None
    statuses: list[Status] = []
    worker = worker_for(store, bg, gate, statuses)
    worker.start()
    try:
        wait_until(lambda: any(s.state == "distilling" for s in statuses), timeout=60)
        # The foreground answers while the job runs; the background waits on the gate.
        answer = "".join(fg.stream_chat([{"role": "user", "content": "Say hello."}], 24))
        wait_until(lambda: worker.jobs_done == 1 or statuses[-1].state == "failed", timeout=120)
    finally:
        worker.stop()
    assert answer.strip()
    assert gate.paused_seconds > 0
    done = queue.get(job.id)
    assert done is not None and done.status == "done", statuses[-1]
    written = [m for m in store.memories(statuses=None) if m.id != old.id]
    for memory in written:
        assert memory.kind in KINDS and memory.content.strip()
        assert {s.episode_id for s in store.sources(memory.id)} <= set(ids)

    # The same episodes distilled again. The second prompt shows the plan the first run wrote,
    # so the 135M model may word things differently: what it already knows is kept as it was
    # (a plan may be advanced in place), and nothing is written twice.
    before = {m.id: m.content for m in store.memories(statuses=None)}
    store.conn.execute("UPDATE consolidation_jobs SET status = 'queued' WHERE id = ?", (job.id,))
    worker = worker_for(store, bg, gate, statuses)
    worker.start()
    try:
        wait_until(lambda: worker.jobs_done == 1 or statuses[-1].state == "failed", timeout=120)
    finally:
        worker.stop()
    after = {m.id: m for m in store.memories(statuses=None)}
    for memory_id, content in before.items():
        assert after[memory_id].kind == "plan" or after[memory_id].content == content
    active = [m.content.casefold() for m in after.values() if m.status == "active"]
    assert len(active) == len(set(active))
    store.conn.close()


@pytest.mark.slow
def test_the_starter_model_gives_a_valid_reconcile_decision(
    models: tuple[LocalModel, LocalModel, ForegroundGate], starter_models: Path
) -> None:
    _, bg, _ = models
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    ids = chat(store, [("I moved to Munich.", "Nice!")])
    berlin = store.add("The user lives in Berlin.", "profile", origin="local")
    store.add("The user likes hiking in the Alps.", "preference", origin="local")
    candidate = proposals.Candidate("profile", "The user moved to Munich.", 0.8, (ids[0],))
    stop = threading.Event()
    model = LocalDistiller(LazyModel(_Kept(bg), 3600)).acquire(stop.is_set)
    decision = reconcile.decide(store, model, candidate, "en")
    assert decision.action in reconcile.ACTIONS
    assert decision.target_id in (None, berlin.id) or decision.action == "skip"
    before = {m.id: m.content for m in store.memories(statuses=None)}
    written = reconcile.apply(
        store, decision, candidate, origin="local", conversation_id=1, job_id=1
    )
    after = {m.id: m.content for m in store.memories(statuses=None)}
    # Whichever action the 135M model picks, applying it does exactly that action.
    if decision.action == "skip":
        assert written is None and after == before
    else:
        assert written is not None and after[written.id] == written.content
        assert ids[0] in [s.episode_id for s in store.sources(written.id)]
    store.conn.close()
