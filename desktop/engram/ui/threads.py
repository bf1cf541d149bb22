"""The house pattern for a worker object living on its own QThread."""

from __future__ import annotations

from PySide6.QtCore import QObject, QThread


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
