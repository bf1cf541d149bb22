"""Every schema change of the database file, in order, and the vector tables of each generation.

``MIGRATIONS`` is append-only: a migration's name is recorded in the ``migrations`` table when it is
applied, so names are permanent and an applied migration is never edited (its DDL is written out
literally, not built from constants that may change). Each runs in its own transaction. A file
that records a migration this list does not hold was written by a newer Engram and is refused.

Vector tables are per embedding model: ``vectors_<space>_g<generation>`` holds one generation's
vectors for ``memories``, ``episodes`` or ``situations`` (what a memory applies to). Migration
0005 creates the file's current generation (0016 its situations' table);
re-embedding with another model (``memory.reembed``) creates the next one with
``create_vector_tables`` and drops the old one with ``drop_vector_tables`` (both in
:mod:`.generations`), so this package is the one place that defines the schema.

Full-text rows are kept in step with their base rows by triggers, so every insert, update and
delete changes both in the same transaction. The FTS5 tables are contentless (the text lives
only in the base table) and use ``secure-delete`` so deleted words leave the index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import apsw

from engram.core import log
from engram.core.errors import StoreError, tr
from engram.memory.migrations import chats, memories, search, signals
from engram.memory.migrations.generations import (
    BUMP_VECTOR_VERSION,
    VECTOR_SPACES,
    create_vector_tables,
    drop_older_generations,
    drop_vector_tables,
    vector_table,
)

__all__ = [
    "BUMP_VECTOR_VERSION",
    "MIGRATIONS",
    "VECTOR_SPACES",
    "Migration",
    "apply",
    "create_vector_tables",
    "drop_older_generations",
    "drop_vector_tables",
    "vector_table",
]

_log = log.get("memory.migrations")

Migration = tuple[str, Callable[[apsw.Connection], None]]

# The steps live in modules by what they shape (chats, memories, search, signals); their order
# is this list's.
MIGRATIONS: tuple[Migration, ...] = (
    ("0001_conversations_episodes", chats.conversations_episodes),
    ("0002_memories", memories.memories),
    ("0003_fulltext", search.fulltext),
    ("0004_memory_browse_indexes", memories.memory_browse_indexes),
    ("0005_vector_tables", search.vector_tables),
    ("0006_excluded_episodes", chats.excluded_episodes),
    ("0007_temporary_conversations", chats.temporary_conversations),
    ("0008_memory_ids_never_reused", memories.memory_ids_never_reused),
    ("0009_tool_episodes", chats.tool_episodes),
    ("0010_episode_context", chats.episode_context),
    ("0011_outcome_signals", signals.outcome_signals),
    ("0012_signals_outlive_answers", signals.signals_outlive_answers),
    ("0013_memory_writes", memories.memory_writes),
    ("0014_writes_keep_the_earlier_text", memories.writes_keep_the_earlier_text),
    ("0015_saved_memories_index", memories.saved_memories_index),
    ("0016_situations", memories.situations),
    ("0017_situations_fulltext", search.situations_fulltext),
    ("0018_tombstones", memories.tombstones),
    ("0019_everything_given", signals.everything_given),
    ("0020_tool_step_columns", chats.tool_step_columns),
    ("0021_earlier_answers", chats.earlier_answers),
)


def apply(
    conn: apsw.Connection, path: Path | None = None, migrations: Sequence[Migration] = MIGRATIONS
) -> list[str]:
    """Apply the missing migrations in order, each in its own transaction; return their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations ( name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    applied = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    unknown = applied - {name for name, _ in migrations}
    if unknown:
        raise StoreError(
            tr(
                "The database {path} was written by a newer Engram "
                "(it has migrations {migrations} this version does not know)."
            ),
            tr("Update Engram to open it; this version will not touch it."),
            path=path or "",
            migrations=sorted(unknown),
        )
    done = []
    for name, fn in migrations:
        if name in applied:
            continue
        # Another process opening the same new file (a window and ``engram chat`` started
        # together) may have applied it since: asked again under the write lock.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            fn(conn)
            conn.execute(
                "INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (name, time.time())
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        _log.info("applied migration %s", name)
        done.append(name)
    return done
