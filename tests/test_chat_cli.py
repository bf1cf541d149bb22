"""``engram chat`` and the other terminal entry points, run as a user would run them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import apsw

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


def test_piped_question_prints_an_answer_and_stores_both_episodes(
    starter_models: Path, engram_home: Path
) -> None:
    result = _engram(
        "chat", stdin="What is the capital of France?\n\nName one colour.\n", env_home=engram_home
    )
    assert result.returncode == 0, result.stderr
    answers = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(answers) >= 2
    conn = apsw.Connection(str(paths.database_path()))
    stored = conn.execute("SELECT role, content FROM episodes ORDER BY id").fetchall()
    roles = [role for role, _ in stored]
    assert roles == ["user", "assistant", "user", "assistant"]  # the blank line was not sent
    assert stored[0][1] == "What is the capital of France?"
    assert all(content.strip() for _, content in stored)


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
    assert "engram models fetch-starter" in result.stderr


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
