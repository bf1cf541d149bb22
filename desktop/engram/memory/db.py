"""Opening the SQLite file (apsw + sqlite-vec, pragmas, migrations), queries and transactions.

apsw bundles its own SQLite and can load extensions on every platform, unlike the ``sqlite3``
module of many pyenv and macOS Pythons. One connection per thread; WAL lets readers and the one
writer work side by side. Every function here reports a known SQLite failure as the StoreError
``memory.faults`` classifies it as.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from engram.core import log
from engram.core.errors import StoreError, tr
from engram.memory import faults, migrations, opened

_log = log.get("memory.db")
Row = dict[str, Any]
# How long a write waits for another connection's write lock before it is reported as busy.
BUSY_TIMEOUT_MS = 10_000


def connect(path: Path, migrate: bool = True) -> apsw.Connection:
    """Open (creating if needed) the database file, ready for use on the calling thread."""
    import sqlite_vec

    path.parent.mkdir(parents=True, exist_ok=True)
    with faults.opening(path):
        conn = apsw.Connection(str(path))
    with faults.classified(conn):
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        _refuse_foreign(conn, path)
    opened.hold(path)  # only for a database of Engram's: a refused file gets nothing beside it
    try:
        replaced = opened.wait_for_restore(path)
    except BaseException:
        conn.close()
        raise
    if replaced:  # a restore replaced the file meanwhile: open the restored one
        conn.close()
        return connect(path, migrate)
    with faults.classified(conn):
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.create_scalar_function("engram_fts", _fts_text, 1, deterministic=True)
        if migrate:
            migrations.apply(conn, path)
    return conn


def _refuse_foreign(conn: apsw.Connection, path: Path) -> None:
    """A file with tables but no Engram migrations belongs to another program: leave it as is.

    Checked before any pragma, so not even its journal mode is changed.
    """
    tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
    if tables and "migrations" not in tables:
        conn.close()
        raise StoreError(
            tr("{path} is a database of another program ({count} tables), not Engram's."),
            tr(
                "Engram has not changed it. Move it elsewhere, or point ENGRAM_HOME at another "
                "folder, then start Engram again."
            ),
            path=path,
            count=len(tables),
        )


def verify(conn: apsw.Connection) -> None:
    """Read every page (``PRAGMA quick_check``); StoreCorruptError names the first problem."""
    found = [str(row["quick_check"]) for row in rows(conn, "PRAGMA quick_check")]
    if found != ["ok"]:
        raise faults.corrupt(conn.filename, found[0])


def _fts_text(*values: Any) -> str:
    from engram.memory.text import index_text

    value = values[0] if values else None
    return index_text(value if isinstance(value, str) else "")


def quarantine(path: Path) -> Path:
    """Move a damaged database (and its WAL files) aside, keeping it; return the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.damaged-{stamp}{path.suffix}")
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        side = Path(str(path) + suffix)
        if side.exists():
            os.replace(side, Path(str(target) + suffix))
    return target


def rows(conn: apsw.Connection, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Row]:
    """Run a query and return its rows as dicts keyed by column name."""
    result = []
    names: list[str] | None = None
    with faults.classified(conn):
        cursor = conn.execute(sql, params)
        for values in cursor:
            if names is None:
                names = [d[0] for d in cursor.get_description()]
            result.append(dict(zip(names, values, strict=True)))
    return result


def one(conn: apsw.Connection, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Row | None:
    """The first row of a query as a dict, or None."""
    found = rows(conn, sql, params)
    return found[0] if found else None


def scalar(conn: apsw.Connection, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
    """The first column of the first row, or None."""
    with faults.classified(conn):
        for values in conn.execute(sql, params):
            return values[0]
    return None


@contextmanager
def transaction(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    """A short write transaction (``BEGIN IMMEDIATE``) that rolls back on any error.

    Inside another transaction it is a savepoint: an error undoes only its own part, and the
    outer transaction decides whether everything is committed together. A known SQLite failure
    (busy, full, read-only, corrupt) leaves as its StoreError, after the rollback.
    """
    with faults.classified(conn), _transaction(conn):
        yield conn


@contextmanager
def _transaction(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    if conn.in_transaction:
        conn.execute("SAVEPOINT engram_nested")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO engram_nested; RELEASE engram_nested")
            raise
        conn.execute("RELEASE engram_nested")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (a full disk, an I/O error)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
