"""``engram chat`` and the other terminal entry points, run as a user would run them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

import tiny
from engram import __version__
from engram.core import paths


def _engram(*args: str, stdin: str = "", env_home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ENGRAM_HOME": str(env_home)}
    return subprocess.run(
        [sys.executable, "-m", "engram", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_piped_question_prints_an_answer_and_stores_both_episodes(
    starter_models: Path, engram_home: Path
) -> None:
    result = _engram(
        "chat", stdin="What is the capital of France?\n\nName one colour.\n", env_home=engram_home
    )
    assert result.returncode == 0, result.stderr
    answers = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(answers) >= 2
    # The starter's large model is too small to learn from: said once, with what to do, and
    # the learning jobs that wait for a larger model print nothing into the chat.
    assert result.stderr.count("Learning starts with a larger model") == 1
    assert "Install a large model of at least 1B parameters" in result.stderr
    assert "WARNING" not in result.stderr
    conn = apsw.Connection(str(paths.database_path()))
    stored = conn.execute("SELECT role, content FROM episodes ORDER BY id").fetchall()
    roles = [role for role, _ in stored]
    assert roles == ["user", "assistant", "user", "assistant"]  # the blank line was not sent
    assert stored[0][1] == "What is the capital of France?"
    assert all(content.strip() for _, content in stored)
    # What is printed is the answers and nothing else (a note about "forget that" was printed
    # for every event the chat did not show).
    said = {
        line for role, content in stored if role == "assistant" for line in content.splitlines()
    }
    assert {line for line in result.stdout.splitlines() if line.strip()} <= said, result.stdout


def test_version_and_help_list_the_commands(engram_home: Path) -> None:
    assert _engram("--version", env_home=engram_home).stdout.strip() == f"engram {__version__}"
    help_text = _engram("--help", env_home=engram_home).stdout
    for command in ("gui", "chat", "models"):
        assert command in help_text


def test_missing_model_is_a_clear_error_not_a_traceback(tmp_path: Path, engram_home: Path) -> None:
    env = {
        **os.environ,
        "ENGRAM_HOME": str(engram_home),
        "ENGRAM_MODELS_DIR": str(tmp_path / "none"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "engram", "chat"],
        input="hello\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "SmolLM2-135M-Instruct.Q4_1.gguf is missing" in result.stderr
    assert "engram models download smollm2-135m-instruct" in result.stderr


@pytest.mark.slow
def test_the_desktop_app_starts_shows_its_window_and_exits_cleanly(
    starter_models: Path, engram_home: Path
) -> None:
    env = {**os.environ, "ENGRAM_HOME": str(engram_home), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-m", "engram", "gui", "--quit-after", "1500"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert (engram_home / "data" / "engram.sqlite3").exists()


def _db_rows(sql: str) -> list[tuple[object, ...]]:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_commands_are_handled_locally_and_chats_are_titled_listed_and_resumed(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    said = (
        "/remember my bike is blue\nforget that\n/undo\n/remember my car is green\n/forget\n"
        "/remember I live in Oslo\nWhat colour is the sky?\n/help\n/quit\nNever sent.\n"
    )
    result = _engram("chat", stdin=said, env_home=engram_home)
    assert result.returncode == 0, result.stderr
    # "forget that" and /forget archive with an undo, as in the window; what stays forgotten
    # is deleted when the chat ends.
    assert "[forgot: my bike is blue]" in result.stdout
    assert "[brought back: my bike is blue]" in result.stdout
    assert "[forgot: my car is green]" in result.stdout
    assert "Commands (never sent to the model)" in result.stdout
    memories = _db_rows("SELECT content, origin FROM memories ORDER BY id")
    assert memories == [("my bike is blue", "user"), ("I live in Oslo", "user")]
    users = _db_rows("SELECT content FROM episodes WHERE role = 'user'")
    remembered = [(f"/remember {it}",) for it in ("my bike is blue", "my car is green")]
    assert users == [*remembered, ("/remember I live in Oslo",), ("What colour is the sky?",)]
    assert _db_rows("SELECT id, title FROM conversations") == [(1, "my bike is blue")]
    # /remember records where the memory came from, as "remember this:" does.
    assert _db_rows(
        "SELECT e.content FROM memory_sources s JOIN episodes e ON e.id = s.episode_id"
        " JOIN memories m ON m.id = s.memory_id WHERE m.content = 'I live in Oslo'"
    ) == [("/remember I live in Oslo",)]

    listed = _engram("chat", "--list", env_home=engram_home)
    assert listed.returncode == 0
    assert "my bike is blue" in listed.stdout and "--resume ID" in listed.stdout

    resumed = _engram("chat", "--resume", "1", stdin="Thanks.\n", env_home=engram_home)
    assert resumed.returncode == 0, resumed.stderr
    assert _db_rows("SELECT conversation_id, COUNT(*) FROM episodes GROUP BY 1") == [(1, 7)]
    # On a terminal, the resumed chat shows its earlier messages before the prompt.
    out, _err = _on_a_terminal(b"/quit\n", "--resume", "1")
    assert "you> /remember I live in Oslo\nyou> What colour is the sky?\nengram> " in out
    assert "you> Thanks." in out

    unknown = _engram("chat", "--resume", "999", stdin="Hello?\n", env_home=engram_home)
    assert unknown.returncode == 2
    assert "There is no chat 999" in unknown.stderr and "engram chat --list" in unknown.stderr
    assert _db_rows("SELECT COUNT(*) FROM conversations") == [(1,)]  # no new chat was started


def test_forget_right_after_undo_forgets_the_memory_brought_back(
    starter_models: Path, engram_home: Path
) -> None:
    said = "/remember my bike is blue\n/forget\n/undo\n/forget\n/undo\nforget that\n"
    result = _engram("chat", stdin=said, env_home=engram_home)
    assert result.returncode == 0, result.stderr
    assert "nothing to forget" not in result.stdout
    lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert lines == [
        "[remembered: my bike is blue]",
        "[forgot: my bike is blue] (/undo brings it back)",
        "[brought back: my bike is blue]",
        "[forgot: my bike is blue] (/undo brings it back)",  # "that" is what the undo brought
        "[brought back: my bike is blue]",
        "[forgot: my bike is blue] (/undo brings it back)",  # the message means the same
    ]
    assert _db_rows("SELECT COUNT(*) FROM memories") == [(0,)]  # forgotten when the chat ended


def _on_a_terminal(typed: bytes, *args: str) -> tuple[str, str]:
    """``engram chat ARGS`` with a terminal as its input (ENGRAM_HOME from the environment)."""
    import pty

    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "engram", "chat", *args],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        os.close(terminal)
        os.write(controller, typed)
        out, err = process.communicate(timeout=120)
    os.close(controller)
    assert process.returncode == 0, err
    return out, err


def test_an_interactive_chat_has_a_banner_and_never_sends_an_unknown_command(
    starter_models: Path, engram_home: Path
) -> None:
    out, _err = _on_a_terminal(b"/bogus\n/new\n/quit\n")
    assert "Type /help for commands" in out
    assert "unknown command '/bogus'" in out and "[new chat]" in out
    assert _db_rows("SELECT COUNT(*) FROM episodes") == [(0,)]


@pytest.mark.slow
def test_memory_commands_say_when_there_is_nothing(starter_models: Path, engram_home: Path) -> None:
    listed = _engram("memory", "list", env_home=engram_home)
    assert listed.returncode == 0 and "No memories yet" in listed.stdout
    assert "remember this:" in listed.stdout
    found = _engram("memory", "search", "violin", env_home=engram_home)
    assert found.returncode == 0 and "No memories yet" in found.stdout


def test_models_list_marks_the_models_in_use_and_remove_refuses_a_missing_one(
    starter_models: Path, engram_home: Path
) -> None:
    listed = _engram("models", "list", env_home=engram_home).stdout.splitlines()
    starter = next(line for line in listed if line.startswith("smollm2-135m-instruct "))
    assert "* small+large" in starter
    assert not any("*" in line for line in listed if line.startswith("qwen3-4b "))
    removed = _engram("models", "remove", "qwen3-4b", env_home=engram_home)
    assert removed.returncode == 2
    assert "qwen3-4b is not installed" in removed.stderr and "Removed" not in removed.stdout


@pytest.mark.slow
def test_ctrl_c_stops_the_answer_keeps_it_as_cancelled_and_the_chat_goes_on(
    starter_models: Path, engram_home: Path
) -> None:
    env = {**os.environ, "ENGRAM_HOME": str(engram_home)}
    process = subprocess.Popen(
        [sys.executable, "-m", "engram", "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"Write a very long story about a dragon, at least 2000 words.\n")
    process.stdin.flush()
    assert process.stdout.read(1)  # the answer streams
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(b"Name one colour.\n", timeout=300)
    assert process.returncode == 0, err
    assert b"[stopped]" in out
    assert b"Traceback" not in err and b"Exception ignored" not in err
    rows = _db_rows("SELECT role, status FROM episodes ORDER BY id")
    assert rows[:2] == [("user", "complete"), ("assistant", "cancelled")]
    assert [role for role, _ in rows] == ["user", "assistant", "user", "assistant"]


@pytest.mark.slow
def test_a_line_that_is_not_utf8_is_named_and_the_next_lines_are_still_answered(
    starter_models: Path, engram_home: Path
) -> None:
    env = {**os.environ, "ENGRAM_HOME": str(engram_home)}
    result = subprocess.run(
        [sys.executable, "-m", "engram", "chat"],
        input=b"Say hi.\n\xff bad\nName one colour.\n",
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1  # one line was not sent
    assert b"engram: line 2 is not UTF-8 text" in result.stderr
    assert b"Traceback" not in result.stderr
    users = _db_rows("SELECT content FROM episodes WHERE role = 'user' ORDER BY id")
    assert users == [("Say hi.",), ("Name one colour.",)]
    assert _db_rows("SELECT COUNT(*) FROM episodes WHERE role = 'assistant'") == [(2,)]


# Every connection of the chat sees a disk with no free page left (SQLite's max_page_count: a
# write that needs a new page fails as on a full disk); what fits in the pages there still fits.
FULL_DISK_CHAT = r"""
import sys
from engram.memory import db

opened = db.connect


def connect(*args, **kwargs):
    conn = opened(*args, **kwargs)
    conn.execute(f"PRAGMA max_page_count = {db.scalar(conn, 'PRAGMA page_count')}")
    return conn


db.connect = connect
from engram.cli.main import main

sys.exit(main(["chat"]))
"""


@pytest.mark.slow
def test_a_full_disk_says_why_a_line_was_not_saved_and_the_chat_goes_on(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    assert _engram("chat", "--list", env_home=engram_home).returncode == 0  # the database
    too_long = "My long story goes on and on. " * 2000  # needs pages the disk no longer has
    result = subprocess.run(
        [sys.executable, "-c", FULL_DISK_CHAT],
        input=f"{too_long}\n/help\nName one colour.\n",
        capture_output=True,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(engram_home)},
        timeout=300,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    said = result.stderr.splitlines()
    full = [line for line in said if line.startswith("engram: line 1 was not answered:")]
    assert len(full) == 1 and "full" in full[0] and "Free some disk space" in full[0], said
    assert "/remember TEXT" in result.stdout  # the next lines were read: /help answered
    answer = result.stdout.split("leave (or Ctrl+D)")[-1]  # after the end of /help
    assert answer.strip(), result.stdout  # and the question after it was answered


@pytest.mark.slow
def test_show_memories_prints_each_recalled_item_with_its_kind(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    first = _engram("chat", stdin="My dog is called Biscuit.\n", env_home=engram_home)
    assert first.returncode == 0, first.stderr
    later = _engram(
        "chat", "--show-memories", stdin="What is my dog Biscuit called?\n", env_home=engram_home
    )
    assert later.returncode == 0, later.stderr
    recalled = [line for line in later.stdout.splitlines() if line.startswith("[recalled")]
    # the kind in the bracket, the text as it was said (the prompt's bullet is not shown)
    assert "[recalled message] My dog is called Biscuit." in recalled
