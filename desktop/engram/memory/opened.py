"""Which processes have a database open, and a restore that no process can write across.

Each process that opens a database holds a lock in ``open/`` beside it until it ends, however it
ends (the operating system lets go of it, ``core.held``); the lock's name says which process it
is and what it runs (a window, ``engram chat`` …), so a restore can say what to close. A restore
holds ``open/<name>.restoring.lock`` while it replaces the file: it starts only when no other
process has the database open, and a process that opens the database meanwhile waits until the
restore is done, then opens the restored file (it would have written into the file the restore
moved aside). Each side says it is there before it looks for the other, so one of them always
sees the other.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engram.core import log
from engram.core.errors import StoreBusyError, tr
from engram.core.held import Held

_log = log.get("memory.opened")
FOLDER = "open"
# How long an opening waits for a restore in progress (a restore copies the whole file).
RESTORE_WAIT_S = 120.0
# How long a restore tries to take its lock while openings look at it.
TAKE_WAIT_S = 2.0
_POLL_S = 0.05
WINDOW = "window"
_held: dict[tuple[int, Path], Held] = {}
_restoring: set[Path] = set()  # the databases this process is restoring


@dataclass(frozen=True)
class Opener:
    """Another process that has the database open: its id and what it runs (:data:`WINDOW`, an
    ``engram`` command such as ``chat`` or ``learn``, or "" when it is not Engram's)."""

    pid: int
    kind: str


def kind(argv: list[str]) -> str:
    """What a process started with ``argv`` runs: :data:`WINDOW`, the ``engram`` command, or ""
    for a program that is not ``engram`` (only a command's name is kept, never its words)."""
    program = Path(argv[0]) if argv else Path()
    engram = program.name.lower() in ("engram", "engram.exe") or (
        program.name == "__main__.py" and program.parent.name == "engram"
    )
    if not engram:
        return ""
    words = [a for a in argv[1:] if not a.startswith("-")]
    if not words or words[0] in ("gui", "app"):
        return WINDOW
    return words[0] if re.fullmatch(r"[a-z]{1,20}", words[0]) else ""


def _lock(path: Path, pid: int, what: str) -> Path:
    return path.parent / FOLDER / f"{path.name}.{pid}{'.' + what if what else ''}.lock"


def _restore_lock(path: Path) -> Path:
    return path.parent / FOLDER / f"{path.name}.restoring.lock"


def hold(path: Path) -> None:
    """Say that this process has ``path`` open, until it ends. Nothing is said when the folder
    cannot be written (a read-only data folder opens all the same)."""
    key = (os.getpid(), path.resolve())
    if key in _held:
        return
    try:
        held = Held.take(_lock(path, key[0], kind(sys.argv)))
    except OSError as exc:
        _log.debug("cannot say the database is open here: %s", type(exc).__name__)
        return
    if held is not None:
        _held[key] = held


def others(path: Path) -> list[Opener]:
    """The other processes that have the database ``path`` open right now (the locks of
    processes that ended are removed)."""
    folder = path.parent / FOLDER
    own = _lock(path, os.getpid(), kind(sys.argv)).name
    prefix, found = f"{path.name}.", []
    for lock in sorted(folder.iterdir()) if folder.is_dir() else ():
        pid, _, what = lock.name.removeprefix(prefix).removesuffix(".lock").partition(".")
        if lock.name == own or not lock.name.startswith(prefix) or not pid.isdigit():
            continue
        try:
            held = Held.take(lock)
        except OSError:  # a folder that cannot be written: who holds it cannot be told
            held = None
        if held is None:
            found.append(Opener(int(pid), what))
        else:
            held.release(remove=True)
    return found


@contextmanager
def restoring(path: Path) -> Iterator[None]:
    """Hold off every process that opens ``path`` until the block ends (StoreBusyError when
    another restore runs)."""
    held = _take_restore_lock(path)
    _restoring.add(path.resolve())
    try:
        yield
    finally:
        _restoring.discard(path.resolve())
        if held is not None:
            held.release()  # the file stays: removing it could let two restores lock two files


def _take_restore_lock(path: Path) -> Held | None:
    """The restore lock, or None when its folder cannot be written (nor can the database be:
    the restore then fails as it would without the lock)."""
    deadline = time.monotonic() + TAKE_WAIT_S
    while True:
        try:
            held = Held.take(_restore_lock(path))
        except OSError as exc:
            _log.debug("cannot hold the restore lock: %s", type(exc).__name__)
            return None
        if held is not None:
            return held
        if time.monotonic() > deadline:  # an opening only looks at it for a moment
            raise StoreBusyError(
                tr("The database {path} is being restored from a backup."),
                tr("Try again when the restore is done."),
                path=path,
            )
        time.sleep(_POLL_S)


def wait_for_restore(path: Path) -> bool:
    """Wait while another process restores ``path``; True when one did (the caller opens the
    file again: it was replaced), False when none runs. Call after :func:`hold`."""
    if path.resolve() in _restoring or not _restore_lock(path).exists():
        return False
    deadline, waited = time.monotonic() + RESTORE_WAIT_S, False
    while True:
        try:
            held = Held.take(_restore_lock(path))
        except OSError:  # a folder that cannot be written: no restore can run in it
            return False
        if held is not None:
            held.release()
            return waited
        if time.monotonic() > deadline:
            raise StoreBusyError(
                tr("The database {path} is being restored from a backup."),
                tr("Try again when the restore is done."),
                path=path,
            )
        waited = True
        time.sleep(_POLL_S)
