"""SQLite failures on a real file become the store's known problems; anything else stays a bug."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import apsw
import numpy as np
import pytest

from engram.cli.main import main
from engram.core import paths
from engram.core.errors import (
    StoreBusyError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreReadOnlyError,
)
from engram.memory import db, embed, faults
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from test_memory_store import embedder  # noqa: F401  (shared fixture)


@pytest.fixture
def path(engram_home: Path) -> Path:
    created = paths.database_path()
    conn = db.connect(created)
    log = EpisodeLog(conn)
    chat = log.new_conversation("kept")
    for i in range(40):
        log.append(chat.id, "user", f"Message {i} about the green bicycle. " * 20)
    conn.close()
    return created


def test_every_connection_waits_for_a_lock_before_reporting_busy(path: Path) -> None:
    conn = db.connect(path)
    assert db.scalar(conn, "PRAGMA busy_timeout") == db.BUSY_TIMEOUT_MS
    conn.close()


def test_a_write_lock_held_by_another_connection_is_reported_busy(path: Path) -> None:
    conn, other = db.connect(path), db.connect(path)
    conn.set_busy_timeout(20)
    other.execute("BEGIN IMMEDIATE")
    log, queue = EpisodeLog(conn), JobQueue(conn)
    with pytest.raises(StoreBusyError) as caught:
        log.new_conversation("blocked")
    assert str(path) in caught.value.message and "other Engram" in caught.value.hint
    with pytest.raises(StoreBusyError):
        queue.enqueue(log.conversations()[0].id)
    assert not conn.in_transaction
    other.execute("ROLLBACK")
    assert log.new_conversation("after").title == "after"
    assert queue.enqueue(log.conversations()[-1].id) is not None
    conn.close()
    other.close()


def test_a_read_only_connection_is_reported_read_only(path: Path) -> None:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    with pytest.raises(StoreReadOnlyError) as caught:
        EpisodeLog(conn).new_conversation("cannot")
    assert "nothing was changed" in caught.value.message and "writable" in caught.value.hint
    assert [c.title for c in EpisodeLog(conn).conversations()] == ["kept"]
    conn.close()


def test_a_read_only_file_can_still_be_searched(embedder: embed.FastEmbedder) -> None:  # noqa: F811
    store = MemoryStore.open(paths.database_path(), embedder)
    kept = store.add("The user's bicycle is green.")
    store.conn.close()
    conn = db.connect(paths.database_path())
    conn.execute("PRAGMA query_only = ON")  # what a read-only file allows
    read_only = MemoryStore(conn, embedder)
    assert read_only.search("What colour is the bicycle?", k=1)[0].memory.id == kept.id
    with pytest.raises(StoreReadOnlyError):
        read_only.add("The user's car is red.")
    conn.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not bind root")
def test_a_read_only_folder_and_file_are_reported_read_only(path: Path) -> None:
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        with pytest.raises(StoreReadOnlyError):
            EpisodeLog(db.connect(path)).new_conversation("cannot")
    finally:
        path.parent.chmod(0o755)
        path.chmod(0o644)


def test_a_damaged_page_is_reported_corrupt_and_can_be_moved_aside(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = db.connect(path)
    page_size = db.scalar(conn, "PRAGMA page_size")
    root = db.scalar(conn, "SELECT rootpage FROM sqlite_schema WHERE name = 'episodes'")
    chat = EpisodeLog(conn).conversations()[0].id
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xa5" * page_size)
    conn = db.connect(path)
    with pytest.raises(StoreCorruptError) as caught:
        EpisodeLog(conn).episodes(chat)
    assert "damaged" in caught.value.message and "reset-damaged" in caught.value.hint
    conn.close()
    damaged = path.read_bytes()
    assert main(["memory", "reset-damaged"]) == 0
    assert "moved the damaged database" in capsys.readouterr().out
    moved = list(path.parent.glob("engram.damaged-*.sqlite3"))
    assert len(moved) == 1 and moved[0].read_bytes() == damaged
    fresh = EpisodeLog(db.connect(path))  # what was readable is kept: not one of its messages
    assert [c.title for c in fresh.conversations()] == ["kept"] and fresh.episodes(chat) == []


def test_a_damaged_vector_page_makes_searches_report_corrupt(
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    store = MemoryStore.open(paths.database_path(), embedder)
    vectors = np.random.default_rng(0).standard_normal((300, embedder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.add_many([f"Fact number {i}." for i in range(300)], vectors=vectors)
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    said = [log.append(chat, "user", f"Message number {i}.").id for i in range(300)]
    assert store.index is not None
    with db.transaction(store.conn):
        store.index.put("episodes", said, vectors)
    # The first leaf of each vector table: a full scan reads it, MAX(id) does not.
    leaves = [
        db.scalar(
            store.conn,
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path LIMIT 1",
            (f"vectors_{space}_g1",),
        )
        for space in ("memories", "episodes")
    ]
    page_size = db.scalar(store.conn, "PRAGMA page_size")
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.conn.close()
    with paths.database_path().open("r+b") as handle:
        for page in leaves:
            handle.seek((page - 1) * page_size)
            handle.write(b"\xa5" * page_size)
    store = MemoryStore.open(paths.database_path(), embedder)
    with pytest.raises(StoreCorruptError):
        store.search("fact", vector=vectors[:1])
    with pytest.raises(StoreCorruptError):
        EpisodeIndex(store.space).search("message", vector=vectors[:1], mode="vector")
    store.conn.close()


def test_a_full_disk_is_reported_full_and_rolled_back(path: Path) -> None:
    conn = db.connect(path)
    log = EpisodeLog(conn)
    chat = log.conversations()[0].id
    before = len(log.episodes(chat))
    conn.execute(f"PRAGMA max_page_count = {db.scalar(conn, 'PRAGMA page_count')}")
    with pytest.raises(StoreFullError) as caught:
        log.append(chat, "user", "a long message " * 5000)
    assert "full" in caught.value.message and "disk space" in caught.value.hint
    assert len(log.episodes(chat)) == before and not conn.in_transaction
    conn.close()


def test_a_mistake_in_a_statement_is_a_bug_and_stays_one(path: Path) -> None:
    conn = db.connect(path)
    with pytest.raises(apsw.SQLError):
        db.rows(conn, "SELECT no_such_column FROM episodes")
    with pytest.raises(apsw.ConstraintError), db.transaction(conn):
        conn.execute(
            "INSERT INTO episodes(conversation_id, turn_index, role, content,"
            " created_at) VALUES (1, 0, 'nobody', 'x', 0)"
        )
    conn.close()


@pytest.mark.parametrize(
    ("exc", "os_errno", "kind"),
    [
        (apsw.LockedError("locked"), 0, StoreBusyError),
        (apsw.IOError("disk I/O error"), errno.ENOSPC, StoreFullError),
        (apsw.IOError("disk I/O error"), errno.EROFS, StoreReadOnlyError),
        (apsw.CantOpenError("unable to open"), errno.EACCES, StoreReadOnlyError),
        (apsw.NotADBError("file is not a database"), 0, StoreCorruptError),
        (apsw.IOError("disk I/O error"), errno.EIO, StoreError),
    ],
)
def test_the_operating_system_error_decides_between_kinds(
    exc: apsw.Error, os_errno: int, kind: type[StoreError]
) -> None:
    known = faults.classify(exc, "/data/engram.sqlite3", os_errno)
    assert type(known) is kind
    assert faults.classify(apsw.MisuseError("misuse"), "/data/engram.sqlite3") is None
