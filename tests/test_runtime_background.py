"""The background role: foreground priority on real models, thread plan, lazy load and release."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.models.background import ForegroundGate, LazyModel, thread_plan
from engram.models.local import LocalModel
from waiting import wait_until

SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
STORY = [{"role": "user", "content": "Write a very long story about a lighthouse keeper."}]


@pytest.fixture(scope="module")
def gguf_path(starter_models: Path) -> Path:
    return starter_models / SMOL


@pytest.fixture(scope="module")
def pair(gguf_path: Path) -> Iterator[tuple[LocalModel, LocalModel, ForegroundGate]]:
    gate = ForegroundGate()
    plan = thread_plan()
    fg = LocalModel(gguf_path, n_ctx=2048, n_threads=plan.foreground, gate=gate, state_cache_mb=0)
    bg = LocalModel(
        gguf_path,
        n_ctx=2048,
        n_threads=plan.background,
        gate=gate,
        background=True,
        n_batch=64,
        state_cache_mb=0,
    )
    yield fg, bg, gate
    fg.close()
    bg.close()


class BackgroundRun:
    """A background generation in its own thread, counting the pieces as they arrive."""

    def __init__(self, model: LocalModel, messages: list[dict[str, str]]) -> None:
        self.pieces = 0
        self.stop = threading.Event()
        self.progress = threading.Condition()
        self.thread = threading.Thread(target=self._run, args=(model, messages))
        self.thread.start()

    def _run(self, model: LocalModel, messages: list[dict[str, str]]) -> None:
        for _piece in model.stream_chat(messages, max_tokens=1500, cancelled=self.stop.is_set):
            with self.progress:
                self.pieces += 1
                self.progress.notify_all()

    def wait_for(self, count: int, timeout: float = 30) -> None:
        with self.progress:
            assert self.progress.wait_for(lambda: self.pieces >= count, timeout)

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(10)


def test_background_generation_pauses_while_the_foreground_runs(pair) -> None:  # type: ignore[no-untyped-def]
    fg, bg, gate = pair
    run = BackgroundRun(bg, STORY)
    try:
        run.wait_for(5)
        before, paused = run.pieces, gate.paused_seconds
        answer = "".join(
            fg.stream_chat([{"role": "user", "content": "Count to ten."}], max_tokens=40)
        )
        during = run.pieces - before
        assert answer.strip()
        assert during <= 1  # at most the token already being computed when we started
        run.wait_for(run.pieces + 3)  # and it resumes afterwards
        assert gate.paused_seconds > paused  # it waited at the gate (bench/runtime.py: how long)
    finally:
        run.finish()
    assert not run.thread.is_alive()


@pytest.mark.slow
def test_background_prompt_evaluation_yields_and_resumes(pair) -> None:  # type: ignore[no-untyped-def]
    _fg, bg, gate = pair
    long = [{"role": "user", "content": "Summarize: " + "the tide comes in and goes out. " * 50}]
    with gate.foreground():
        run = BackgroundRun(bg, long)
        wait_until(lambda: gate.waiting == 1)  # it aborted its prompt evaluation and waits
        assert run.pieces == 0
    try:
        run.wait_for(2)
        assert bg.last_stats is not None and bg.last_stats.first_token_s is not None
    finally:
        run.finish()


def test_gate_wait_returns_when_released_or_cancelled() -> None:
    gate = ForegroundGate()
    gate.wait_idle()  # free: returns at once
    released = threading.Event()
    with gate.foreground():
        assert gate.busy
        waiter = threading.Thread(target=lambda: (gate.wait_idle(), released.set()))
        waiter.start()
        assert not released.wait(0.1)
        cancelled = threading.Event()
        gate.wait_idle(cancelled=lambda: True)  # a cancelled wait does not block
        assert not cancelled.is_set()
    assert released.wait(5)
    waiter.join(5)
    assert not gate.busy


@pytest.mark.parametrize(
    ("logical", "physical"), [(1, 1), (2, 1), (2, 2), (4, 2), (8, 4), (16, 16)]
)
def test_thread_plan_never_oversubscribes(logical: int, physical: int) -> None:
    plan = thread_plan(logical, physical)
    assert plan.foreground >= 1 and plan.background >= 1
    assert plan.foreground <= physical
    assert plan.foreground + plan.background <= max(logical, 2)


def test_lazy_model_loads_on_demand_and_releases_after_idle(gguf_path: Path) -> None:
    now = [0.0]
    lazy = LazyModel(lambda: LocalModel(gguf_path, n_ctx=512, state_cache_mb=0), 60, lambda: now[0])
    assert not lazy.loaded and lazy.idle_remaining() == 0
    first = lazy.get()
    assert lazy.loaded and lazy.loads == 1
    now[0] = 30
    assert not lazy.release_if_idle() and lazy.idle_remaining() == 30
    assert lazy.get() is first  # use restarts the idle clock
    now[0] = 89
    assert not lazy.release_if_idle()
    now[0] = 91
    assert lazy.release_if_idle()
    assert first.closed and not lazy.loaded
    again = lazy.get()
    assert lazy.loads == 2 and again is not first
    assert "".join(again.stream_chat([{"role": "user", "content": "Hi"}], max_tokens=4)).strip()
    lazy.release()
    assert again.closed
