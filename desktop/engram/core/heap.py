"""Keeping the garbage collector's full passes short once Engram has started."""

from __future__ import annotations

import gc
import threading

_settled = threading.Event()


def settle() -> bool:
    """Move every object alive now (imported modules, loaded models' Python side) out of the
    collector's reach, once per process; True the first time.

    After start-up the heap holds about 80,000 such objects, and a full collection scanning them
    paused a turn for 20-35 ms at random (bench/turn.py). Frozen objects are still freed when
    their last reference goes; only cycles among them would wait for the process to end. Call it
    when start-up is over, from the app's entry points, not from library code.
    """
    if _settled.is_set():
        return False
    _settled.set()
    gc.collect()  # start-up's own garbage goes first
    gc.freeze()
    return True
