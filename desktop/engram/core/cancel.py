"""The one cancellation token: cancel() from any thread; the work polls, waits or hooks on it."""

from __future__ import annotations

import threading
from collections.abc import Callable


class CancelToken:
    """Asks running work to stop: turns, prefetch, downloads, consolidation, the eval.

    The work polls it (``token()`` or ``token.cancelled``; the token is itself a
    ``Callable[[], bool]``, the form the models and the turn take), sleeps on it
    (:meth:`wait`), or registers a hook that interrupts a blocking call (:meth:`on_cancel`,
    e.g. hanging up a stalled connection).
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._hooks: list[Callable[[], None]] = []

    def cancel(self) -> None:
        self._event.set()
        with self._lock:
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def __call__(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Sleep up to ``timeout`` seconds (None: until cancelled); True when cancelled."""
        return self._event.wait(timeout)

    def on_cancel(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Run ``hook`` when cancelled (now, if already); returns a function that unregisters it."""
        with self._lock:
            self._hooks.append(hook)
        if self.cancelled:
            hook()

        def remove() -> None:
            with self._lock:
                if hook in self._hooks:
                    self._hooks.remove(hook)

        return remove
