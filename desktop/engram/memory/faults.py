"""The one place that turns SQLite errors into the store's known problems.

Like qutebrowser's ``misc/sql.py``: every connection's reads and writes go through
:func:`classified` (``db.transaction``, ``db.rows``/``one``/``scalar`` and ``db.connect`` use it,
and :func:`reported` wraps the searches that read with their own cursors), which maps

- ``BusyError``/``LockedError`` to :class:`StoreBusyError` (another Engram holds the file),
- ``FullError`` or an I/O error with ``ENOSPC``/``EDQUOT`` to :class:`StoreFullError`,
- ``ReadOnlyError``/``PermissionsError`` or a failed open or I/O with ``EACCES``/``EPERM``/
  ``EROFS`` to :class:`StoreReadOnlyError`,
- ``CorruptError``/``NotADBError`` to :class:`StoreCorruptError` (offer ``reset-damaged``),
- any other I/O or open failure to a plain :class:`StoreError` naming the file,

and re-raises anything else unchanged: it is a bug (a wrong statement, a misused connection).
The log gets the kind and the SQLite error's class, never the text of a row.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import apsw

from engram.core import log
from engram.core.errors import (
    StoreBusyError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreReadOnlyError,
    tr,
)

_log = log.get("memory.faults")
_P = ParamSpec("_P")
_R = TypeVar("_R")
_FULL = {errno.ENOSPC, errno.EDQUOT}
_DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}


def classify(exc: apsw.Error, path: Path | str, os_errno: int = 0) -> StoreError | None:
    """The known problem behind ``exc`` on the file ``path``, or None when it is a bug.

    ``os_errno`` is the operating system's error of the failed call, when SQLite kept it.
    """
    error = str(exc)
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return StoreBusyError(
            tr("The database {path} is in use by another Engram and stayed locked ({error})."),
            tr("Close the other Engram window or command, then try again."),
            path=path,
            error=error,
        )
    if isinstance(exc, apsw.FullError) or (isinstance(exc, apsw.IOError) and os_errno in _FULL):
        return StoreFullError(
            tr("The disk holding {path} is full ({error}); nothing was changed."),
            tr("Free some disk space and try again."),
            path=path,
            error=error,
        )
    if isinstance(exc, apsw.ReadOnlyError | apsw.PermissionsError) or (
        isinstance(exc, apsw.IOError | apsw.CantOpenError) and os_errno in _DENIED
    ):
        return StoreReadOnlyError(
            tr("Engram cannot write to the database {path} ({error}); nothing was changed."),
            tr(
                "Check that the file and its folder are writable by you and not on a "
                "read-only disk, then try again."
            ),
            path=path,
            error=error,
        )
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return corrupt(path, error)
    if isinstance(exc, apsw.IOError):
        return StoreError(
            tr("The disk failed while Engram used the database {path} ({error})."),
            tr("Check the disk and its free space, then try again."),
            path=path,
            error=error,
        )
    if isinstance(exc, apsw.CantOpenError):
        return StoreError(
            tr("Cannot open the database {path} ({error})."),
            tr("Check that the folder exists and is writable."),
            path=path,
            error=error,
        )
    return None


def corrupt(path: Path | str, error: str) -> StoreCorruptError:
    """The file at ``path`` is damaged (``error`` says where) or is not an Engram database."""
    return StoreCorruptError(
        tr("The database {path} is damaged or is not an Engram database ({error})."),
        tr(
            "Engram has not changed it. Move it aside to start with a fresh one "
            "(`engram memory reset-damaged`), or restore it from a backup."
        ),
        path=path,
        error=error,
    )


@contextmanager
def classified(conn: apsw.Connection) -> Iterator[None]:
    """Run a read or write on ``conn``; a known SQLite failure becomes its StoreError."""
    try:
        yield
    except apsw.ConnectionClosedError:
        raise  # a bug of the caller's, not a fault of the file (which it can no longer name)
    except apsw.Error as exc:
        _raise_known(exc, conn.filename, conn.system_errno)
        raise


class _OnConnection(Protocol):
    @property
    def conn(self) -> apsw.Connection: ...


_S = TypeVar("_S", bound=_OnConnection)


def reported(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """Run a whole method of a class on ``self.conn`` inside :func:`classified`.

    For entry points whose reads go to the connection directly (searches scan vector and
    full-text tables with their own cursors).
    """

    @functools.wraps(method)
    def run(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with classified(self.conn):
            return method(self, *args, **kwargs)

    return run


@contextmanager
def opening(path: Path) -> Iterator[None]:
    """Open ``path``; a known failure (before a connection exists to ask) becomes StoreError."""
    try:
        yield
    except apsw.Error as exc:
        _raise_known(exc, path, _access_errno(path))
        raise


def _raise_known(exc: apsw.Error, path: Path | str, os_errno: int) -> None:
    known = classify(exc, path, os_errno)
    if known is not None:
        _log.warning("database %s: %s", type(known).__name__, type(exc).__name__)
        raise known from exc


def _access_errno(path: Path) -> int:
    """EACCES when the file or its folder cannot be written by this process, else 0."""
    writable = os.access(path, os.W_OK) if path.exists() else os.access(path.parent, os.W_OK)
    return 0 if writable else errno.EACCES
