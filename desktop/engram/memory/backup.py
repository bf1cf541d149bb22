"""Rotating backups of the database with SQLite's online backup API, and restoring one.

A backup is written page by page (``apsw.Connection.backup``) while Engram keeps working, into
``engram-<time>.sqlite3.part`` in the backups folder; only a finished copy is renamed to
``engram-<time>.sqlite3`` (after an fsync), so a backup killed halfway is never listed and never
replaces a good one. The newest ``keep`` backups are kept. :class:`AutoBackup` runs one on its
own thread when the newest is older than the settings' interval.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import apsw

from engram.core import log, priority
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, StoreBusyError, StoreCorruptError, StoreError, tr
from engram.memory import db, faults, opened, pause

_log = log.get("memory.backup")
PREFIX = "engram-"
SUFFIX = ".sqlite3"
PART = ".part"
PAGES_PER_STEP = 256  # copied between checks for cancel (about 1 MB at 4 KB pages)


def folder_of(database: Path) -> Path:
    """Where the backups of ``database`` go: a ``backups`` folder next to it."""
    return database.parent / "backups"


def remove_all(folder: Path) -> int:
    """Delete every backup (finished or not) in ``folder``; return how many finished ones."""
    count = len(listed(folder))
    for path in folder.glob(f"{PREFIX}*{SUFFIX}*") if folder.is_dir() else ():
        path.unlink(missing_ok=True)
    return count


def listed(folder: Path) -> list[Path]:
    """The finished backups in ``folder``, newest first (half-written ones are not listed)."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.glob(f"{PREFIX}*{SUFFIX}") if p.is_file()]
    return sorted(found, key=lambda p: p.name, reverse=True)


def due(folder: Path, every_hours: float, now: float | None = None) -> bool:
    """True when no backup is newer than ``every_hours``."""
    newest = listed(folder)
    if not newest:
        return True
    age = (now if now is not None else time.time()) - newest[0].stat().st_mtime
    return age >= every_hours * 3600


def backup(source: Path, folder: Path, keep: int, cancel: CancelToken | None = None) -> Path | None:
    """Copy the database ``source`` into ``folder``, keep the newest ``keep``; return the copy.

    None when cancelled (nothing is left behind). The live database is only read.
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for stale in folder.glob(f"{PREFIX}*{SUFFIX}{PART}*"):  # a backup killed halfway (+ journal)
        stale.unlink(missing_ok=True)
    now = time.time_ns()  # one reading: names sort as the backups were made, even across a second
    seconds, fraction = divmod(now, 1_000_000_000)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(seconds)) + f"-{fraction:09d}"
    final = folder / f"{PREFIX}{stamp}{SUFFIX}"
    part = final.with_name(final.name + PART)
    started = time.monotonic()
    live = db.connect(source, migrate=False)
    try:
        copied = _copy(live, part, cancel)
    finally:
        live.close()
    if not copied:
        return None
    os.replace(part, final)
    _fsync_folder(folder)
    removed = _rotate(folder, keep)
    _log.info(
        "backup written: %d bytes in %.2f s, %d old removed",
        final.stat().st_size,
        time.monotonic() - started,
        removed,
    )
    return final


def _copy(live: apsw.Connection, part: Path, cancel: CancelToken | None) -> bool:
    fd = os.open(part, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    os.close(fd)
    target = apsw.Connection(str(part))
    finished = False
    try:
        with faults.classified(target):
            with target.backup("main", live, "main") as step:
                while not step.done and not (cancel is not None and cancel()):
                    step.step(PAGES_PER_STEP)
                finished = step.done
            if finished:
                target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    finally:
        target.close()
        if not finished:
            part.unlink(missing_ok=True)
    if finished:
        with part.open("rb+") as handle:
            os.fsync(handle.fileno())
    return finished


def _rotate(folder: Path, keep: int) -> int:
    old = listed(folder)[max(1, keep) :]
    for path in old:
        path.unlink(missing_ok=True)
    return len(old)


def _fsync_folder(folder: Path) -> None:
    if os.name == "posix":
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def restore(backup_file: Path, database: Path) -> Path | None:
    """Replace ``database`` by ``backup_file`` (checked first); return where the old one went.

    The current database is moved aside (never deleted). Refused, with nothing changed, while
    another process has the database open (what it wrote next would land in no file; the
    message names it when it is an Engram window or command); a process that opens the
    database meanwhile waits until the restore is done (:mod:`engram.memory.opened`).
    """
    with opened.restoring(database):
        return _restore(backup_file, database)


def _restore(backup_file: Path, database: Path) -> Path | None:
    if found := opened.others(database):
        raise _in_use(database, found)
    if not backup_file.is_file():
        raise InputError(
            tr("There is no backup {path}."),
            tr("List the backups with `engram memory restore --list`."),
            path=backup_file,
        )
    check = apsw.Connection(str(backup_file), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        if db.scalar(check, "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'migrations'") != 1:
            raise StoreCorruptError(
                tr("{path} is not an Engram backup."),
                tr("Choose one of the files `engram memory restore --list` shows."),
                path=backup_file,
            )
        db.verify(check)
    finally:
        check.close()
    paused = _paused_in(database)
    moved = _move_aside(database) if database.exists() else None
    part = database.with_name(database.name + PART)
    source = apsw.Connection(str(backup_file), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        _copy(source, part, None)
    finally:
        source.close()
    os.replace(part, database)
    _fsync_folder(database.parent)
    if paused is not None:  # a restore brings memories back, not the pause of the backup's day
        conn = db.connect(database)
        try:
            pause.set_paused(conn, paused)
        finally:
            conn.close()
    return moved


def _paused_in(database: Path) -> bool | None:
    """Whether memory is paused in ``database`` (None: not said, or no database yet)."""
    if not database.exists():
        return None
    conn = db.connect(database, migrate=False)
    try:
        if db.scalar(conn, "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'meta'") != 1:
            return None
        return pause.said(conn)
    finally:
        conn.close()


def _in_use(database: Path, found: list[opened.Opener]) -> StoreBusyError:
    """What to close before a restore: the one process named when it is Engram's."""
    other = found[0] if len(found) == 1 else None
    if other is not None and other.kind == opened.WINDOW:
        return StoreBusyError(
            tr("The database {path} is open in an Engram window (process {pid}); nothing was "
               "restored."),
            tr("Close that window, then run the restore again."),
            path=database,
            pid=other.pid,
        )  # fmt: skip
    if other is not None and other.kind:
        return StoreBusyError(
            tr("The database {path} is open in `engram {command}` (process {pid}); nothing was "
               "restored."),
            tr("End it (a chat ends with /quit or Ctrl+D), then run the restore again."),
            path=database,
            command=other.kind,
            pid=other.pid,
        )  # fmt: skip
    return StoreBusyError(
        tr("The database {path} is in use by another Engram; nothing was restored."),
        tr("Close every Engram window and command, then restore again."),
        path=database,
    )


def _move_aside(database: Path) -> Path:
    """Fold the WAL in and move the database to ``engram.before-restore-<time>.sqlite3``."""
    conn = db.connect(database, migrate=False)
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0][0]
    finally:
        conn.close()
    if busy:  # a reader that did not say it has the file open (an older Engram)
        raise _in_use(database, [])
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = database.with_name(f"{database.stem}.before-restore-{stamp}{database.suffix}")
    os.replace(database, target)
    for side in ("-wal", "-shm"):
        Path(str(database) + side).unlink(missing_ok=True)
    return target


class AutoBackup:
    """One backup on its own thread when the newest is older than ``every_hours``.

    ``close()`` cancels a backup in progress (its half-written file is removed) and waits.
    """

    def __init__(self, database: Path, folder: Path, every_hours: float, keep: int) -> None:
        self.cancel = CancelToken()
        self.result: Path | None = None
        self.problem: StoreError | None = None
        self._thread: threading.Thread | None = None
        if keep > 0 and due(folder, every_hours):
            self._thread = threading.Thread(
                target=self._run, args=(database, folder, keep), name="engram-backup", daemon=True
            )
            self._thread.start()

    def _run(self, database: Path, folder: Path, keep: int) -> None:
        priority.lower_this_thread()
        try:
            self.result = backup(database, folder, keep, self.cancel)
        except StoreError as exc:
            self.problem = exc
            _log.warning("automatic backup failed: %s", type(exc).__name__)
        except OSError as exc:
            _log.warning("automatic backup failed: %s", type(exc).__name__)

    def wait(self) -> Path | None:
        """Let a backup in progress finish; return it (None when none was due or it failed)."""
        if self._thread is not None:
            self._thread.join()
        return self.result

    def close(self) -> None:
        self.cancel.cancel()
        if self._thread is not None:
            self._thread.join()
