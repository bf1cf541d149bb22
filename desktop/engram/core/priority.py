"""CPU priority of Engram's background threads: learning, downloads, backups and catching up
vectors wait for a core; the window and the answering model never do.

On a 2-core laptop the answering model takes one core, and a consolidation job, a download's
hashing or a backup's copy would otherwise share the other with the window's event loop, which
then waits its turn for tens of milliseconds. A background thread calls :func:`lower_this_thread`
once, first thing; the threads it starts (llama.cpp's workers for the large model) inherit it.
"""

from __future__ import annotations

import os
import sys
import threading

from engram.core import log

_log = log.get("core.priority")

BACKGROUND_NICE = 10  # Linux: a nice-10 thread gets ~1/10 of a core that a nice-0 thread wants


def lower_this_thread() -> bool:
    """Give the calling thread background priority; False where the platform has no per-thread
    priority this can set (the thread then runs as before)."""
    try:
        if sys.platform.startswith("linux"):
            # Linux keeps a nice value per thread; the process's other threads keep theirs.
            tid = threading.get_native_id()
            nice = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(19, max(nice, BACKGROUND_NICE)))
            return True
        darwin_thread = getattr(os, "PRIO_DARWIN_THREAD", None)
        darwin_background = getattr(os, "PRIO_DARWIN_BG", None)
        if darwin_thread is not None and darwin_background is not None:
            os.setpriority(darwin_thread, 0, darwin_background)  # macOS: this thread only
            return True
    except OSError as exc:  # a sandbox may refuse it; the work runs at normal priority
        _log.info("background priority not set: %s", type(exc).__name__)
    return False
