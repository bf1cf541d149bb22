"""The house pattern for a worker object on its own QThread, and the UI thread's GIL share."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, QThread

# Seconds a thread may hold the GIL while another waits for it (CPython's default is 5 ms).
UI_SWITCH_INTERVAL = 0.001


def favour_ui_thread() -> None:
    """Let the UI thread take the GIL within ~1 ms when worker threads are busy in Python.

    A download, the token loop and a consolidation job each run Python between their C calls;
    with the default 5 ms interval the UI thread can lose the hand-over to them many times in a
    row, and the window froze for 50-75 ms during a fast download (bench/ui.py). At 1 ms the
    longest stall stays near 20 ms and token throughput does not drop.
    """
    sys.setswitchinterval(UI_SWITCH_INTERVAL)


def worker_thread(owner: QObject, worker: QObject, name: str) -> QThread:
    """A named QThread (not started yet) that ``worker`` lives on and is deleted with.

    Connect the worker's signals, then ``start()`` the thread; every slot of the worker then
    runs there, one call at a time.
    """
    thread = QThread(owner)
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.finished.connect(worker.deleteLater)
    return thread
