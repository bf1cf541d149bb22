"""Waiting, bounded, for a condition that another thread or process makes true (no Qt here)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll ``condition`` every 20 ms; fail the test when it is not true within ``timeout``."""
    deadline = time.monotonic() + timeout
    event = threading.Event()
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        event.wait(0.02)
