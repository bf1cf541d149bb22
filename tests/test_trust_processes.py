"""Temporary chats, pause and restore across real processes (issue 28, items 3, 4 and 5).

Every test here runs ``engram`` as a user would, in processes of its own: a chat that is
killed, a chat that stays open while another command pauses memory or restores a backup.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import tiny
from engram.assistant.app import PAUSED, Engram, LoadedModels, MemoryState
from engram.assistant.chats import open_chats
from engram.assistant.events import NotRemembered
from engram.cli.main import main
from engram.core import paths, settings
from engram.core.cancel import CancelToken
from engram.memory import backup, db, migrations, opened, pause
from engram.memory.episodes import EpisodeLog
from waiting import wait_until

SECRET = "quokka4711zebra"  # one word, found in no other text


def _engram(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A real ``engram`` command on this test's home, run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "engram", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=300,
        check=False,
    )


def _rows(sql: str, *params: object) -> list[tuple[object, ...]]:
    with closing(db.connect(paths.database_path())) as conn:
        return conn.execute(sql, params).fetchall()


@pytest.fixture
def chat_process(engram_home: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """``engram chat`` processes started by a test, killed at its end whatever happened."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=60)


def _chat(started: list[subprocess.Popen[str]], *args: str) -> subprocess.Popen[str]:
    """``engram chat`` reading its lines from a pipe the test keeps open."""
    process = subprocess.Popen(
        [sys.executable, "-m", "engram", "chat", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    started.append(process)
    return process


def _say(process: subprocess.Popen[str], line: str, answers: int) -> None:
    """Send a line and wait until the chat has stored its ``answers``-th answer."""
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    sql = "SELECT COUNT(*) FROM episodes WHERE role = 'assistant' AND status = 'complete'"

    def answered() -> bool:
        assert process.poll() is None, process.communicate()
        return paths.database_path().exists() and _rows(sql)[0][0] >= answers

    wait_until(answered, timeout=300)


_MATCH = "SELECT COUNT(*) FROM episodes_fts WHERE episodes_fts MATCH ?"


def _vectors() -> set[object]:
    """The ids of the messages that have a vector."""
    found = _rows("SELECT value FROM meta WHERE key = 'vector_generation'")
    table = migrations.vector_table("episodes", int(str(found[0][0])) if found else 1)
    return {row[0] for row in _rows(f"SELECT id FROM {table}")}


def _on_disk() -> bytes:
    """Every byte Engram's database keeps on disk: the file, its WAL and shared memory."""
    database = paths.database_path()
    sides = [database, *(Path(str(database) + side) for side in ("-wal", "-shm"))]
    return b"".join(path.read_bytes() for path in sides if path.exists())


# -- item 4: a temporary chat left by a crash ------------------------------------------------


@pytest.mark.slow
def test_a_killed_temporary_chat_is_never_listed_and_gone_from_the_file_at_the_next_start(
    chat_process: list[subprocess.Popen[str]],
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    conn = db.connect(paths.database_path())
    try:  # a chat of the user's, to keep
        log = EpisodeLog(conn)
        kept = log.new_conversation("colours").id
        log.append(kept, "user", "Name a colour.")
        log.append(kept, "assistant", "Blue.")
    finally:
        conn.close()
    temporary = _chat(chat_process, "--temporary")
    _say(temporary, f"my locker code is {SECRET}, keep it secret", answers=2)
    _say(temporary, "Name a fruit.", answers=3)  # this turn embeds the message before
    left = _rows("SELECT id FROM conversations WHERE temporary = 1")
    assert len(left) == 1
    secret = _rows("SELECT id FROM episodes WHERE content LIKE ?", f"%{SECRET}%")
    assert _vectors() >= {secret[0][0]}  # its words are in the vectors and the text index
    assert _rows(_MATCH, SECRET)[0][0] >= 1  # the message (and the next, as its context)
    temporary.send_signal(signal.SIGKILL)  # a crash: none of its own clean-up runs
    temporary.communicate(timeout=60)
    assert temporary.returncode == -signal.SIGKILL
    said = "SELECT COUNT(*) FROM episodes WHERE content LIKE ?"
    assert _rows(said, f"%{SECRET}%") == [(1,)]  # still in the file: nothing has started yet

    # before anything scrubs it, no front end shows or exports it
    listed = _engram("chat", "--list")
    assert listed.returncode == 0 and SECRET not in listed.stdout
    with open_chats() as chats:
        shown = [c.id for c in chats.listed()]
        assert len(shown) == 1 and left[0][0] not in shown
        assert chats.search(SECRET) == [] and [c.id for c in chats.search("")] == shown
    exported = _engram("memory", "export", "--episodes")
    assert exported.returncode == 0 and SECRET not in exported.stdout
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [line["id"] for line in lines if line["type"] == "conversation"] == shown
    found = _engram("memory", "search", "--episodes", SECRET)
    assert SECRET not in found.stdout

    started = _engram("chat", stdin="")  # the next start, that says nothing
    assert started.returncode == 0, started.stderr
    assert _rows("SELECT COUNT(*) FROM conversations WHERE temporary = 1") == [(0,)]
    assert _rows(said, f"%{SECRET}%") == [(0,)]
    assert _rows(_MATCH, SECRET) == [(0,)]
    episodes = {row[0] for row in _rows("SELECT id FROM episodes")}
    assert len(episodes) == 2  # the kept chat's question and answer
    assert _vectors() <= episodes  # no vector of a deleted message is left
    assert SECRET.encode() not in _on_disk()  # not in a freed page, an index page or the WAL


# -- item 5: a restore while another process has the database open ---------------------------


@pytest.mark.slow
def test_a_restore_names_the_open_chat_changes_nothing_and_works_once_it_has_ended(
    chat_process: list[subprocess.Popen[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    chat = _chat(chat_process)
    _say(chat, "Name a colour.", answers=1)
    made = backup.backup(paths.database_path(), backup.folder_of(paths.database_path()), 3)
    assert made is not None
    _say(chat, "Name a fruit.", answers=2)  # written after the backup: a restore would drop it
    before = _rows("SELECT id, content FROM episodes ORDER BY id")
    capsys.readouterr()
    assert main(["memory", "restore"]) == 2
    err = capsys.readouterr().err
    assert f"is open in `engram chat` (process {chat.pid}); nothing was restored" in err
    assert "End it (a chat ends with /quit or Ctrl+D), then run the restore again." in err
    assert "Traceback" not in err
    assert not list(paths.database_path().parent.glob("*.before-restore-*"))
    _say(chat, "Name a tree.", answers=3)  # the chat goes on in the same file
    assert _rows("SELECT id, content FROM episodes ORDER BY id")[: len(before)] == before
    _, ended = chat.communicate("", timeout=120)  # the user ends the chat
    assert chat.returncode == 0, ended
    assert main(["memory", "restore"]) == 0
    assert len(_rows("SELECT id FROM episodes")) == 2  # the backup's question and answer


WRITES = """
import sys
from pathlib import Path
from engram.memory import db
conn = db.connect(Path(sys.argv[1]))
conn.execute("INSERT INTO meta(key, value) VALUES ('opened during the restore', 'kept')")
conn.close()
"""


def test_a_process_that_opens_the_database_during_a_restore_writes_into_the_restored_file(
    engram_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = paths.database_path()
    db.connect(path).close()
    made = backup.backup(path, backup.folder_of(path), 3)
    assert made is not None
    copy = backup._copy
    children: list[subprocess.Popen[str]] = []

    def another_opens_meanwhile(source: Any, target: Path, cancel: Any) -> bool:
        """The restore has moved the file aside: another Engram starts and writes."""
        child = subprocess.Popen([sys.executable, "-c", WRITES, str(path)], env=os.environ.copy())
        children.append(child)
        # it says it has the file open, then finds the restore and waits for its end
        wait_until(lambda: any((path.parent / opened.FOLDER).glob(f"*.{child.pid}*.lock")))
        assert child.poll() is None
        return copy(source, target, cancel)

    monkeypatch.setattr(backup, "_copy", another_opens_meanwhile)
    moved = backup.restore(made, path)
    assert children[0].wait(timeout=120) == 0
    assert moved is not None
    written = "SELECT value FROM meta WHERE key = 'opened during the restore'"
    assert _rows(written) == [("kept",)]  # in the database, not in a file no one reads


class _AppliedMeanwhile(list[migrations.Migration]):
    """The migrations, read by one connection just after another one applied them all (a
    window and ``engram chat`` opening a new file at the same moment)."""

    def __init__(self, other: Any) -> None:
        super().__init__(migrations.MIGRATIONS)
        self.other: Any = other

    def __iter__(self) -> Iterator[migrations.Migration]:
        if self.other is not None:
            migrations.apply(self.other)
            self.other = None
        return super().__iter__()


def test_two_processes_opening_a_new_database_at_once_both_open_it(engram_home: Path) -> None:
    path = paths.database_path()
    first, second = db.connect(path, migrate=False), db.connect(path, migrate=False)
    try:
        applied = migrations.apply(second, path, _AppliedMeanwhile(first))
        assert applied == []  # all applied by the other: none twice ("table already exists")
        names = [row[0] for row in first.execute("SELECT name FROM migrations ORDER BY name")]
        assert names == sorted(name for name, _ in migrations.MIGRATIONS)
    finally:
        first.close()
        second.close()


# -- item 3: a pause made elsewhere holds --------------------------------------------------------


@pytest.mark.slow
def test_a_pause_made_elsewhere_holds_when_an_open_window_reloads_its_models(
    engram_home: Path, loaded_models: LoadedModels
) -> None:
    prefs = replace(settings.load(), max_answer_tokens=8, consolidate_every_turns=50)
    window = Engram(prefs, models=loaded_models, on_status=lambda _status: None)
    window.open()
    try:
        paused = _engram("memory", "pause")  # another process, while the window is open
        assert paused.returncode == 0, paused.stderr
        # paused, by another process than these settings say (the window tells the user)
        assert window.memory == MemoryState("paused", elsewhere=True)
        # the window's settings are from before the pause: a change that reloads its session
        bigger = replace(prefs, memory_budget_tokens=prefs.memory_budget_tokens + 100)
        assert window.apply_settings(bigger)
        window.open()
        # it resumed memory for every process
        assert window.memory == MemoryState("paused", elsewhere=True)
        said = list(window.send(0, "remember this: my locker code is 4711", CancelToken()))
        assert [e for e in said if isinstance(e, NotRemembered)] == [NotRemembered(PAUSED)]
        late = Engram(prefs, models=loaded_models, on_status=lambda _status: None)
        late.open()  # another window started with settings read before the pause
        assert late.memory == MemoryState("paused", elsewhere=True)
        late.close()
        assert "memory is paused" in _engram("memory", "status").stdout
    finally:
        window.close()


@pytest.mark.slow
def test_an_open_terminal_chat_says_a_pause_made_elsewhere_and_learns_nothing_meanwhile(
    chat_process: list[subprocess.Popen[str]],
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    chat = _chat(chat_process)
    _say(chat, "I grow tomatoes on my balcony.", answers=1)
    assert _engram("memory", "pause").returncode == 0  # in another terminal
    _say(chat, "My locker code is 4711.", answers=2)  # the open chat's next line
    assert _engram("memory", "resume").returncode == 0
    _say(chat, "I also grow basil.", answers=3)
    _, err = chat.communicate("", timeout=120)
    assert chat.returncode == 0, err
    paused = f"engram: {PAUSED.message} {PAUSED.hint}"
    assert err.count(paused) == 1 and err.index(paused) < err.index("Memory is on again")
    said = "SELECT content, excluded FROM episodes WHERE role = 'user' ORDER BY id"
    assert _rows(said) == [
        ("I grow tomatoes on my balcony.", 0),
        ("My locker code is 4711.", 1),  # never learned, never recalled in another chat
        ("I also grow basil.", 0),
    ]
    assert "4711" not in " ".join(str(r[0]) for r in _rows("SELECT content FROM memories"))


def test_a_restore_brings_memories_back_but_keeps_memory_paused(engram_home: Path) -> None:
    path = paths.database_path()
    with closing(db.connect(path)) as conn:
        pause.set_paused(conn, False)
    made = backup.backup(path, backup.folder_of(path), 3)
    assert made is not None
    with closing(db.connect(path)) as conn:
        pause.set_paused(conn, True)  # paused after the backup
    backup.restore(made, path)
    with closing(db.connect(path)) as conn:
        assert pause.paused(conn)
