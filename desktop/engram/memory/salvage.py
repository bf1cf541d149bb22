"""Copy what is still readable of a damaged database into a fresh one, row by row.

apsw has no ``.recover``; a damaged page breaks any cursor that walks onto it. So each table is
read in rowid ranges: a range that fails is split in halves down to single rows, and a row that
cannot be read is counted as lost. Rows are written to a fresh file made by the current
migrations (its triggers rebuild the full-text indexes), and rows whose parent was lost (an
episode of a lost conversation) are dropped at the end with ``PRAGMA foreign_key_check``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import apsw

from engram.core import log
from engram.memory import db, migrations

_log = log.get("memory.salvage")
_CHUNK = 512
# Rowid ranges probed past the last row found when the largest rowid cannot be read.
_EMPTY_CHUNKS_TO_STOP = 16
# Tables made again by the fresh file's migrations and triggers, never copied.
_SKIPPED = ("migrations", "sqlite_")


@dataclass
class Salvaged:
    """How many rows of each table were copied and how many could not be read."""

    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)

    @property
    def total_copied(self) -> int:
        return sum(self.copied.values())

    @property
    def total_lost(self) -> int:
        return sum(self.lost.values())


def salvage(damaged: Path, fresh: Path) -> Salvaged:
    """Copy every readable row of ``damaged`` (left untouched) into the new file ``fresh``."""
    source = apsw.Connection(str(damaged), flags=apsw.SQLITE_OPEN_READONLY)
    target = db.connect(fresh)
    result = Salvaged()
    try:
        generation = _copy_meta(source, target)
        if generation is not None:
            with db.transaction(target):
                migrations.create_vector_tables(target, generation)
        target.execute("PRAGMA foreign_keys=OFF")
        for table in _tables(source, target):
            columns = _shared_columns(source, target, table)
            copied, lost = _copy_table(source, target, table, columns)
            result.copied[table], result.lost[table] = copied, lost
        result.lost["orphans"] = _drop_orphans(target)
        target.execute("PRAGMA foreign_keys=ON")
    finally:
        source.close()
        target.close()
    _log.info("salvaged %d rows, lost %d", result.total_copied, result.total_lost)
    return result


def _copy_meta(source: apsw.Connection, target: apsw.Connection) -> int | None:
    """Keep the embedding model, vector generation and next memory id; return the generation."""
    try:
        found = {str(k): v for k, v in source.execute("SELECT key, value FROM meta")}
    except apsw.Error:
        return None
    with db.transaction(target):
        for key, value in found.items():
            target.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
    generation = found.get("vector_generation")
    return int(generation) if generation is not None and str(generation).isdigit() else None


def _tables(source: apsw.Connection, target: apsw.Connection) -> list[str]:
    """Plain tables both files have (no full-text shadow tables, meta or migrations)."""

    def names(conn: apsw.Connection) -> list[str]:
        sql = "SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY rootpage"
        return [
            name
            for name, text in conn.execute(sql)
            if not name.startswith(_SKIPPED)
            and name != "meta"
            and "VIRTUAL" not in (text or "").upper()
            and "_fts" not in name
        ]

    try:
        have = set(names(source))
    except apsw.Error:
        return []
    return [name for name in names(target) if name in have]


def _shared_columns(source: apsw.Connection, target: apsw.Connection, table: str) -> list[str]:
    def columns(conn: apsw.Connection) -> list[str]:
        return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]

    have = set(columns(source))
    return [c for c in columns(target) if c in have]


def _copy_table(
    source: apsw.Connection, target: apsw.Connection, table: str, columns: list[str]
) -> tuple[int, int]:
    listed = ", ".join(f'"{c}"' for c in columns)
    insert = f'INSERT OR IGNORE INTO "{table}"({listed}) VALUES ({", ".join("?" * len(columns))})'
    select = f'SELECT {listed} FROM "{table}" WHERE rowid BETWEEN ? AND ?'
    copied = lost = 0
    top = _largest_rowid(source, table)
    with db.transaction(target):
        start, empty = 0, 0
        while (top is not None and start <= top) or (top is None and empty < _EMPTY_CHUNKS_TO_STOP):
            found, missing = _read(source, select, start, start + _CHUNK - 1)
            for row in found:
                target.execute(insert, row)
            copied, lost = copied + len(found), lost + missing
            empty = 0 if found else empty + 1
            start += _CHUNK
    return copied, lost


def _largest_rowid(source: apsw.Connection, table: str) -> int | None:
    try:
        value = source.execute(f'SELECT MAX(rowid) FROM "{table}"').fetchall()[0][0]
    except apsw.Error:
        return None
    return int(value) if value is not None else -1


def _read(
    source: apsw.Connection, select: str, low: int, high: int
) -> tuple[list[tuple[object, ...]], int]:
    """The readable rows with rowids in [low, high], and how many could not be read."""
    try:
        return [tuple(row) for row in source.execute(select, (low, high))], 0
    except apsw.Error:
        if low == high:
            return [], 1
    middle = (low + high) // 2
    first, lost_first = _read(source, select, low, middle)
    second, lost_second = _read(source, select, middle + 1, high)
    return first + second, lost_first + lost_second


def _drop_orphans(target: apsw.Connection) -> int:
    """Delete rows whose parent row was lost; return how many."""
    dropped = 0
    with db.transaction(target):
        for table, rowid, _parent, _fk in target.execute("PRAGMA foreign_key_check").fetchall():
            if rowid is not None:
                target.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
                dropped += 1
    return dropped
