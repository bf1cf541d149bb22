"""Backups: rotating copies made with SQLite's backup API, restore, and a kill in the middle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from engram.cli.main import main
from engram.core import paths
from engram.core.errors import InputError, StoreCorruptError
from engram.memory import backup, db, opened
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from test_consolidation_support import minilm


def _fill(path: Path, messages: int = 300) -> None:
    conn = db.connect(path)
    log = EpisodeLog(conn)
    chat = log.new_conversation("kept").id
    for i in range(messages):
        log.append(chat, "user", f"Message {i} about the blue canoe. " * 10)
    conn.close()


def _count(path: Path) -> int:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        db.verify(conn)
        return int(db.scalar(conn, "SELECT COUNT(*) FROM episodes"))
    finally:
        conn.close()


@pytest.mark.slow
def test_a_backup_restores_what_was_deleted_and_keeps_the_replaced_file(
    starter_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = paths.database_path()
    store = MemoryStore.open(path, minilm(starter_models))
    kept = store.add("The user's bike lock code is 2468.")
    assert main(["memory", "backup"]) == 0
    made = backup.listed(backup.folder_of(path))
    assert len(made) == 1 and made[0].stat().st_mode & 0o777 == 0o600
    store.delete(kept.id)
    store.conn.close()
    assert main(["memory", "restore"]) == 0
    assert "the database it replaced is kept as" in capsys.readouterr().out
    restored = MemoryStore.open(path, minilm(starter_models))
    assert [m.content for m in restored.memories()] == [kept.content]
    assert restored.search("bike lock")[0].memory.id == kept.id  # vectors and full text came back
    restored.conn.close()
    aside = list(path.parent.glob("engram.before-restore-*.sqlite3"))
    assert len(aside) == 1 and _count(aside[0]) == 0


def test_only_the_newest_backups_are_kept_and_half_written_ones_are_not_listed(
    engram_home: Path,
) -> None:
    path = paths.database_path()
    _fill(path, 20)
    folder = backup.folder_of(path)
    folder.mkdir(parents=True)
    stale = folder / "engram-20000101-000000-000000000.sqlite3.part"
    stale.write_bytes(b"half")
    made = [backup.backup(path, folder, keep=3) for _ in range(5)]
    assert backup.listed(folder) == sorted(made, key=lambda p: p.name, reverse=True)[:3]  # type: ignore[arg-type, return-value]
    assert not stale.exists() and sorted(folder.iterdir()) == sorted(backup.listed(folder))
    assert all(_count(p) == 20 for p in backup.listed(folder))


def test_a_backup_made_just_after_a_second_began_is_listed_as_the_newest(
    engram_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = paths.database_path()
    _fill(path, messages=5)
    folder = backup.folder_of(path)
    clock = iter([1_700_000_000_999_000_000, 1_700_000_001_000_500_000])
    monkeypatch.setattr(backup.time, "time_ns", lambda: next(clock))
    backup.backup(path, folder, keep=1)
    second = backup.backup(path, folder, keep=1)
    assert second is not None and backup.listed(folder) == [second]


def test_a_cancelled_backup_leaves_nothing(engram_home: Path) -> None:
    path = paths.database_path()
    _fill(path)
    folder = backup.folder_of(path)
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 2

    original = backup.PAGES_PER_STEP
    backup.PAGES_PER_STEP = 1
    try:
        assert backup.backup(path, folder, keep=3, cancel=cancel) is None  # type: ignore[arg-type]
    finally:
        backup.PAGES_PER_STEP = original
    assert list(folder.iterdir()) == []


def test_restore_refuses_what_is_not_a_good_engram_backup(engram_home: Path) -> None:
    path = paths.database_path()
    _fill(path, 5)
    other = engram_home / "other.sqlite3"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE notes(x)")
    conn.close()
    with pytest.raises(StoreCorruptError, match="not an Engram backup"):
        backup.restore(other, path)
    with pytest.raises(InputError):
        backup.restore(engram_home / "missing.sqlite3", path)
    damaged = backup.backup(path, backup.folder_of(path), keep=2)
    assert damaged is not None
    size = damaged.stat().st_size
    with damaged.open("r+b") as handle:
        handle.seek(size - 4096)
        handle.write(b"\xa5" * 4096)
    with pytest.raises(StoreCorruptError):
        backup.restore(damaged, path)
    assert _count(path) == 5  # the database was not touched


def test_an_automatic_backup_runs_once_when_due_and_on_its_own_thread(engram_home: Path) -> None:
    path = paths.database_path()
    _fill(path, 10)
    folder = backup.folder_of(path)
    first = backup.AutoBackup(path, folder, every_hours=24, keep=7)
    made = first.wait()
    first.close()
    assert made is not None and backup.listed(folder) == [made]
    second = backup.AutoBackup(path, folder, every_hours=24, keep=7)  # not due yet
    second.close()
    assert second.result is None and len(backup.listed(folder)) == 1
    off = backup.AutoBackup(path, folder, every_hours=0, keep=0)
    off.close()
    assert off.result is None


def test_forgetting_everything_removes_the_backups(starter_models: Path) -> None:
    path = paths.database_path()
    store = MemoryStore.open(path, minilm(starter_models))
    store.add("The user's passport number is X1234567.")
    backup.backup(path, backup.folder_of(path), keep=3)
    store.forget_all(episodes=True)
    assert list(backup.folder_of(path).iterdir()) == []
    store.conn.close()


KILLED_BACKUP = """
import sys, time
from pathlib import Path
from engram.memory import backup
backup.PAGES_PER_STEP = 1
def slow() -> bool:
    print("step", flush=True)
    time.sleep(0.01)
    return False
backup.backup(Path(sys.argv[1]), Path(sys.argv[2]), keep=3, cancel=slow)
print("finished", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("steps_before_kill", [1, 5, 40])
def test_a_backup_killed_halfway_leaves_the_last_backup_and_the_database_intact(
    engram_home: Path, steps_before_kill: int
) -> None:
    path = paths.database_path()
    _fill(path)
    folder = backup.folder_of(path)
    previous = backup.backup(path, folder, keep=3)
    assert previous is not None
    before = previous.read_bytes()
    conn = db.connect(path)  # the app keeps writing while the backup runs
    log = EpisodeLog(conn)
    chat = log.conversations()[0].id
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BACKUP, str(path), str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(engram_home)},
    )
    assert child.stdout is not None
    for _ in range(steps_before_kill):
        assert child.stdout.readline() == "step\n"
        log.append(chat, "user", "Written during the backup.")
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert backup.listed(folder) == [previous] and previous.read_bytes() == before
    assert _count(previous) == 300
    assert _count(path) == 300 + steps_before_kill  # every reported write is there
    conn.close()
    time.sleep(0.01)  # distinct backup names
    newest = backup.backup(path, folder, keep=3)  # the next one cleans up and completes
    assert newest is not None and _count(newest) == 300 + steps_before_kill
    assert sorted(folder.iterdir()) == sorted(backup.listed(folder))


HOLDS_OPEN = """
import sys, time
from pathlib import Path
from engram.memory import db
conn = db.connect(Path(sys.argv[1]))
print("open", flush=True)
time.sleep(600)
"""


def _holding_open(path: Path, engram_home: Path) -> subprocess.Popen[str]:
    """Another process (as an Engram window or ``engram chat`` would) with the database open."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDS_OPEN, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(engram_home)},
    )
    assert child.stdout is not None and child.stdout.readline() == "open\n"
    return child


def test_restore_refuses_while_another_process_has_the_database_open_and_changes_nothing(
    engram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = paths.database_path()
    _fill(path, 5)
    made = backup.backup(path, backup.folder_of(path), keep=3)
    assert made is not None
    _fill(path, 2)  # written after the backup: restoring would lose it
    child = _holding_open(path, engram_home)
    try:
        before = path.read_bytes()
        capsys.readouterr()
        assert main(["memory", "restore"]) == 2
        err = capsys.readouterr().err
        assert "is in use by another Engram; nothing was restored" in err
        assert "Close every Engram window and command, then restore again." in err
        assert "Traceback" not in err
        assert path.read_bytes() == before and _count(path) == 7
        assert not list(path.parent.glob("*.before-restore-*"))
    finally:
        os.kill(child.pid, signal.SIGKILL)  # its lock goes with it, however it ends
        child.wait(timeout=30)
        assert child.stdout is not None
        child.stdout.close()
    assert main(["memory", "restore", str(made)]) == 0
    assert _count(path) == 5
    assert list((path.parent / opened.FOLDER).glob(f"{path.name}.{child.pid}.lock")) == []
