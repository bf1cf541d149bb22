"""The one way the desktop app runs background work, and the one place its failures are handled.

A :class:`Worker` is a QObject living on its own QThread (:func:`worker_thread`); every slot
runs there, one call at a time, and reports back by queued signals. Each slot is a
:func:`worker_slot`: a known problem (:class:`~engram.core.errors.EngramError`) becomes its
:class:`~engram.core.errors.Problem`, anything else (a bug) a generic problem that points at
the log plus a log entry with the traceback (the exception's type and frames, never its
text); both go to the worker's ``failed`` signal, or to the handler a slot gives
:func:`reporting`. Work is stopped with a :class:`~engram.core.cancel.CancelToken`;
:func:`stop_thread` ends a worker's thread when its window closes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from PySide6.QtCore import QObject, Qt, QThread, Signal, SignalInstance, Slot

from engram.core import log
from engram.core.errors import EngramError, Problem, tr

_log = log.get("ui.threads")
SHUTDOWN_WAIT_MS = 10_000
F = TypeVar("F", bound=Callable[..., Any])
W = TypeVar("W", bound="Worker")


def unexpected_problem() -> Problem:
    """What the user is told about a bug: something went wrong, and where the details are."""
    return Problem(
        tr("Something went wrong; the details are in the log."),
        tr("The log is {path}. Your conversations are saved."),
        path=log.log_file(),
    )


@contextmanager
def reporting(action: str, report: Callable[[Problem], object]) -> Iterator[None]:
    """Run the block; hand its failure to ``report`` as a Problem instead of raising it (a bug
    as :func:`unexpected_problem`)."""
    try:
        yield
    except EngramError as exc:
        _log.warning("%s failed: %s", action, type(exc).__name__)
        report(exc.problem)
    except Exception as exc:
        log.unexpected(action, exc)
        report(unexpected_problem())


class Worker(QObject):
    """Base of the Qt workers: lives on its own thread; slots report failures by ``failed``."""

    failed = Signal(object)  # Problem: a slot failed; the window translates and shows it

    def close(self) -> None:
        """Free what the worker owns (on its thread, before the thread ends)."""

    @Slot()
    def shutdown(self) -> None:
        """Free what the worker owns and end its thread."""
        with reporting(f"{type(self).__name__}.shutdown", self.failed.emit):
            self.close()
        QThread.currentThread().quit()


def worker_slot(*types: type) -> Callable[[F], F]:
    """``@Slot(*types)`` whose failures go to the worker's ``failed`` signal (see
    :func:`reporting`)."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(self: Worker, *args: Any) -> Any:
            with reporting(f"{type(self).__name__}.{method.__name__}", self.failed.emit):
                return method(self, *args)
            return None

        return cast(F, Slot(*types)(run))

    return decorate


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


def start_worker(
    owner: QObject,
    worker: W,
    name: str,
    wiring: tuple[tuple[SignalInstance, Callable[..., object]], ...],
) -> tuple[W, QThread]:
    """Start ``worker`` on a new thread named ``name`` (deleted with ``owner``), once each
    ``(signal, slot)`` of ``wiring`` is connected queued: the owner's requests (its shutdown
    signal included) to the worker's slots, the worker's reports (``failed`` too) to the owner's.
    For a worker a window starts on demand, at the first request; end it with :func:`stop_thread`.
    """
    thread = worker_thread(owner, worker, name)
    for signal, slot in wiring:
        signal.connect(slot, Qt.ConnectionType.QueuedConnection)
    thread.start()
    return worker, thread


def stop_thread(thread: QThread, shutdown: SignalInstance) -> None:
    """Ask a worker to shut down (``shutdown`` is connected to its slot) and wait for its thread."""
    if thread.isRunning():
        shutdown.emit()
        if not thread.wait(SHUTDOWN_WAIT_MS):
            _log.error("thread %s did not stop within %d ms", thread.objectName(), SHUTDOWN_WAIT_MS)
