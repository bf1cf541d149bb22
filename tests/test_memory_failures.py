"""Bad input and broken environments: damaged files, a full disk, bad vectors, odd text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engram.cli.main import main
from engram.core import paths
from engram.core.errors import InputError, StoreError
from engram.memory import db
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from test_memory_store import embedder, store  # noqa: F401  (shared fixtures)


def test_a_damaged_file_is_reported_kept_and_can_be_moved_aside(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = paths.database_path()
    garbage = b"this is not a database, just some bytes\x00\xff" * 200
    path.write_bytes(garbage)
    with pytest.raises(StoreError) as caught:
        db.connect(path)
    assert "damaged" in caught.value.message and "reset-damaged" in caught.value.hint
    assert path.read_bytes() == garbage
    assert main(["memory", "reset-damaged"]) == 0
    moved = list(path.parent.glob("engram.damaged-*.sqlite3"))
    assert len(moved) == 1 and moved[0].read_bytes() == garbage
    assert db.scalar(db.connect(path), "SELECT COUNT(*) FROM memories") == 0
    assert "moved the damaged database" in capsys.readouterr().out


def test_a_file_from_a_newer_version_is_refused_untouched() -> None:
    path = paths.database_path()
    conn = db.connect(path)
    conn.execute("INSERT INTO migrations(name, applied_at) VALUES ('9999_future', 0)")
    conn.close()
    with pytest.raises(StoreError, match="newer Engram"):
        db.connect(path)


def test_a_full_disk_rolls_back_and_the_store_stays_usable(store: MemoryStore) -> None:  # noqa: F811
    store.add("The user likes sailing.")
    pages = db.scalar(store.conn, "PRAGMA page_count")
    store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    big = [f"Memory {i}: " + "lorem ipsum dolor sit amet " * 100 for i in range(50)]
    vectors = np.random.default_rng(0).standard_normal((50, 384)).astype(np.float32)
    with pytest.raises(StoreError, match="nothing was changed") as caught:
        store.add_many(big, vectors=vectors)
    assert "disk space" in caught.value.hint
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM memories") == 1
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    assert len(store.add_many(big[:3], vectors=vectors[:3])) == 3
    assert store.search("sailing", k=1)[0].content == "The user likes sailing."
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_bad_vectors_are_rejected_before_anything_is_written(store: MemoryStore) -> None:  # noqa: F811
    with pytest.raises(InputError, match="384 dimensions"):
        store.add("Wrong size.", vector=np.ones((1, 100), dtype=np.float32))
    nan = np.ones((1, 384), dtype=np.float32)
    nan[0, 3] = np.nan
    with pytest.raises(InputError, match="NaN"):
        store.add("Not a number.", vector=nan)
    with pytest.raises(InputError, match="zeros"):
        store.add_many(["Zero."], vectors=np.zeros((1, 384), dtype=np.float32))
    with pytest.raises(InputError):
        store.search("anything", vector=np.ones(12, dtype=np.float32))
    assert store.memories() == []
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_empty_huge_and_invalid_memories_get_clear_errors(store: MemoryStore) -> None:  # noqa: F811
    for bad in ("", "   \n"):
        with pytest.raises(InputError, match="empty"):
            store.add(bad)
    with pytest.raises(InputError, match="too long"):
        store.add("x" * 1_000_000)
    with pytest.raises(InputError, match="memory kind"):
        store.add("Fine text.", kind="rumour")
    with pytest.raises(InputError, match="between 0 and 1"):
        store.add("Fine text.", importance=3)
    with pytest.raises(InputError, match="no memory #99"):
        store.pin(99)
    with pytest.raises(InputError, match="Feedback"):
        store.feedback(store.add("Fine text.").id, 5)
    assert store.search("") == []


def test_a_one_megabyte_episode_is_indexed_and_searchable(store: MemoryStore) -> None:  # noqa: F811
    log = EpisodeLog(store.conn)
    conv = log.new_conversation()
    huge = log.append(conv.id, "user", "pasted log line with kumquat " * 35_000 + " 结尾")
    assert len(huge.content) > 1_000_000
    index = EpisodeIndex(store.space)
    assert index.index_new() == 1
    assert index.search("kumquat", k=1)[0].episode.id == huge.id
    assert index.search("结尾", k=1, mode="text")[0].episode.id == huge.id


def test_a_store_on_a_read_only_file_reports_instead_of_crashing(
    store: MemoryStore,  # noqa: F811
) -> None:
    store.conn.execute("PRAGMA query_only = ON")
    with pytest.raises(StoreError, match="nothing was changed"):
        store.add("Cannot be written.")
    store.conn.execute("PRAGMA query_only = OFF")
    assert store.add("Can be written.").id > 0
    assert Path(store.conn.filename).exists()


def test_nested_transactions_commit_together_and_roll_back_their_own_part(
    engram_home: Path,
) -> None:
    conn = db.connect(paths.database_path())
    log = EpisodeLog(conn)
    chat = log.new_conversation("outer")
    with db.transaction(conn):
        log.append(chat.id, "user", "kept")
        try:
            with db.transaction(conn):
                log.append(chat.id, "user", "undone")
                raise RuntimeError("inner failure")
        except RuntimeError:
            pass
        log.append(chat.id, "user", "also kept")
    assert [e.content for e in log.episodes(chat.id)] == ["kept", "also kept"]

    try:
        with db.transaction(conn):
            log.append(chat.id, "user", "outer rolled back")
            raise RuntimeError("outer failure")
    except RuntimeError:
        pass
    assert [e.content for e in log.episodes(chat.id)] == ["kept", "also kept"]
    assert not conn.in_transaction
    conn.close()
