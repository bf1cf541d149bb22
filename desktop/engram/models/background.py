"""The background role: foreground priority, the CPU thread plan, and the lazily loaded large model.

The foreground (the small model answering the user) enters a :class:`ForegroundGate` while it
evaluates and generates; the background model waits on the gate between tokens, and aborts a
prompt evaluation at the next graph node (resuming later from the last finished batch). The two
models therefore do not compute at the same time, and :func:`thread_plan` keeps their thread
counts within the cores even if they did.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from engram.core import log

_log = log.get("models.background")


class ForegroundGate:
    """Foreground work holds the gate; background work waits for it to be free."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._holders = 0
        self.waiting = 0  # background callers blocked in wait_idle right now
        self.paused_seconds = 0.0  # total time background work spent waiting

    @property
    def busy(self) -> bool:
        """True while foreground work runs (cheap enough for a per-node abort callback)."""
        return self._holders > 0

    @contextmanager
    def foreground(self) -> Iterator[None]:
        """Hold the gate for the duration of a foreground evaluation and generation."""
        with self._cond:
            self._holders += 1
        try:
            yield
        finally:
            with self._cond:
                self._holders -= 1
                self._cond.notify_all()

    def wait_idle(self, cancelled: Callable[[], bool] = lambda: False, poll: float = 0.1) -> None:
        """Block the background until the foreground is done (or ``cancelled()`` turns true)."""
        if not self._holders:
            return
        start = time.monotonic()
        with self._cond:
            self.waiting += 1
            while self._holders and not cancelled():
                self._cond.wait(poll)
            self.waiting -= 1
        self.paused_seconds += time.monotonic() - start


@dataclass(frozen=True)
class ThreadPlan:
    """llama.cpp thread counts per role."""

    foreground: int
    background: int


def thread_plan(logical: int | None = None, physical: int | None = None) -> ThreadPlan:
    """Split the cores between the roles so that together they never oversubscribe them.

    llama.cpp's worker threads spin at barriers: one thread more than the free cores can make
    decoding many times slower, so the foreground takes at most the physical cores minus one (for
    the UI and the database) and the background gets what is left (at least one thread; the
    gate keeps it from running while the foreground works).
    """
    if logical is None:
        import psutil

        logical = os.cpu_count() or 2
        physical = psutil.cpu_count(logical=False) or logical
    physical = min(physical or logical, logical)
    foreground = max(1, min(physical, logical - 1))
    return ThreadPlan(foreground=foreground, background=max(1, logical - 1 - foreground))


class Closeable(Protocol):
    def close(self) -> None: ...


M = TypeVar("M", bound=Closeable)


class LazyModel(Generic[M]):
    """Loads a model when work needs it and releases it after ``idle_seconds`` without use.

    The owner thread (the background worker) calls :meth:`get` for work and
    :meth:`release_if_idle` while it waits for more; no timer thread touches the model.
    """

    def __init__(
        self,
        load: Callable[[], M],
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._load = load
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._model: M | None = None
        self._last_used = clock()
        self.loads = 0

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def get(self) -> M:
        """The model, loading it first if it was released (or never loaded)."""
        if self._model is None:
            self._model = self._load()
            self.loads += 1
            _log.info("background model loaded (load %d)", self.loads)
        self._last_used = self._clock()
        return self._model

    def touch(self) -> None:
        """Record use (call it when a long job finishes so the idle clock starts then)."""
        self._last_used = self._clock()

    def idle_remaining(self) -> float:
        """Seconds until the model is released if nothing uses it (0 when not loaded)."""
        if self._model is None:
            return 0.0
        return max(0.0, self.idle_seconds - (self._clock() - self._last_used))

    def release_if_idle(self) -> bool:
        """Release the model when it has been idle long enough; True if it was released."""
        if self._model is None or self.idle_remaining() > 0:
            return False
        self.release()
        return True

    def release(self) -> None:
        """Free the model now."""
        if self._model is not None:
            self._model.close()
            self._model = None
            _log.info("background model released after %.0f s idle", self.idle_seconds)
