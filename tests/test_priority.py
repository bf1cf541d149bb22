"""Background threads wait for a core; the thread that lowered itself is the only one that does."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from engram.core import priority

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice")


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_lowered_thread_and_the_threads_it_starts_run_niced_the_others_do_not() -> None:
    before = _nice()
    seen: dict[str, int] = {}

    def child() -> None:
        seen["child"] = _nice()

    def background() -> None:
        seen["lowered"] = priority.lower_this_thread()
        seen["background"] = _nice()
        started = threading.Thread(target=child)  # as llama.cpp starts its workers
        started.start()
        started.join()
        priority.lower_this_thread()  # twice does not lower it further
        seen["again"] = _nice()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()

    assert seen["lowered"] is True
    assert seen["background"] == min(19, max(before, priority.BACKGROUND_NICE))
    assert seen["child"] == seen["background"] == seen["again"]
    assert _nice() == before  # the caller (the window's thread) keeps its priority
