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
from pathlib import Path

import pytest

from engram.assistant.chats import open_chats
from engram.core import paths
from engram.memory import db, migrations
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
    conn = db.connect(paths.database_path())
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


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
