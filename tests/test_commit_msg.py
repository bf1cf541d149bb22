"""The commit habit's two checks, run on a throw-away repository: the commit-msg hook
(installer/commit_msg_check.py) and CI's check over a change's commits (installer/check_commits.sh)
accept subjects of up to 72 characters and refuse a 73-character one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSTALLER = Path(__file__).resolve().parents[1] / "installer"
HOOK = INSTALLER / "commit_msg_check.py"
CHECK_COMMITS = INSTALLER / "check_commits.sh"

GOOD = "Move the evaluation log out of the README"
AT_LIMIT = "A" * 71 + "z"  # 72 characters
TOO_LONG = "A" * 72 + "z"  # 73 characters

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    config = ["user.name=Test", "user.email=test@example.invalid", "commit.gpgsign=false"]
    options = [part for item in config for part in ("-c", item)]
    result = subprocess.run(
        ["git", *options, "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def commit(repo: Path, subject: str, body: str = "") -> None:
    message = subject + (f"\n\n{body}" if body else "")
    git(repo, "commit", "--allow-empty", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    commit(path, "Start the repository")
    return path


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A command whose exit status the test reads, with PYTHON set for check_commits.sh."""
    environment = {**os.environ, "PYTHON": sys.executable, **env}
    return subprocess.run(
        args, cwd=cwd, env=environment, capture_output=True, text=True, check=False
    )


def hook(message_file: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, str(HOOK), str(message_file)], message_file.parent)


def check_commits(repo: Path, *base: str) -> subprocess.CompletedProcess[str]:
    # No cut-off: the throw-away repository has none of Engram's history.
    return run(["bash", str(CHECK_COMMITS), *base], repo, ENGRAM_COMMITS_CUTOFF="")


@pytest.mark.parametrize(
    "message",
    [
        GOOD,
        AT_LIMIT,
        f"{GOOD}\n\nThe body may be as long as it needs to be: {'x' * 200}.\n",
        f"# Please enter the commit message for your changes.\n\n{GOOD}\n",
        "把评估日志从自述文件移到 docs/lab-log.md",
        f'Merge branch "{TOO_LONG}"',
        f'Revert "{TOO_LONG}"',
        f"fixup! {TOO_LONG}",
        f"squash! {TOO_LONG}",
    ],
)
def test_the_hook_accepts_short_subjects_and_the_ones_git_writes(
    tmp_path: Path, message: str
) -> None:
    message_file = tmp_path / "COMMIT_EDITMSG"
    message_file.write_text(message, encoding="utf-8")
    result = hook(message_file)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (TOO_LONG, "73 characters"),
        (f"{TOO_LONG}\n\nA body does not make a long subject short.", "73 characters"),
        ("Move the evaluation log out of the README.", "period"),
    ],
)
def test_the_hook_refuses_a_long_subject_or_a_final_period(
    tmp_path: Path, message: str, reason: str
) -> None:
    message_file = tmp_path / "COMMIT_EDITMSG"
    message_file.write_text(message, encoding="utf-8")
    result = hook(message_file)
    assert result.returncode == 1
    assert reason in result.stderr


def test_the_hook_refuses_a_long_subject_in_a_real_commit(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    installed = hooks / "commit-msg"
    installed.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HOOK}" "$1"\n', encoding="utf-8")
    installed.chmod(0o755)
    base = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    base += ["-c", "commit.gpgsign=false", "-c", f"core.hooksPath={hooks}"]
    refused = run([*base, "commit", "--allow-empty", "-m", TOO_LONG], repo)
    assert refused.returncode != 0
    assert "73 characters" in refused.stderr
    accepted = run([*base, "commit", "--allow-empty", "-m", AT_LIMIT], repo)
    assert accepted.returncode == 0, accepted.stderr
    assert git(repo, "log", "-1", "--format=%s") == AT_LIMIT


def test_check_commits_accepts_a_change_of_short_subjects(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, GOOD, "What moved and why, at any length.")
    commit(repo, AT_LIMIT)
    commit(repo, f"fixup! {TOO_LONG}")
    result = check_commits(repo, base)
    assert result.returncode == 0, result.stdout
    assert "3 commit subjects checked" in result.stdout


def test_check_commits_prints_each_long_subject_and_fails(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, GOOD)
    commit(repo, TOO_LONG)
    long_hash = git(repo, "rev-parse", "HEAD")
    commit(repo, AT_LIMIT)
    result = check_commits(repo, base)
    assert result.returncode == 1
    assert TOO_LONG in result.stdout
    assert long_hash[:10] in result.stdout
    assert GOOD not in result.stdout
    assert "1 of 3 commit subjects" in result.stdout


def test_check_commits_leaves_out_what_came_before_the_base(repo: Path) -> None:
    commit(repo, TOO_LONG)  # history written before the habit
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, GOOD)
    assert check_commits(repo, base).returncode == 0
    assert check_commits(repo).returncode == 1  # the whole history, without a base


def test_check_commits_keeps_to_its_cut_off(repo: Path) -> None:
    commit(repo, TOO_LONG)
    cut_off = git(repo, "rev-parse", "HEAD")
    commit(repo, GOOD)
    result = run(["bash", str(CHECK_COMMITS)], repo, ENGRAM_COMMITS_CUTOFF=cut_off)
    assert result.returncode == 0, result.stdout
    assert "1 commit subjects checked" in result.stdout


def test_check_commits_passes_outside_a_git_checkout(tmp_path: Path) -> None:
    plain = tmp_path / "unpacked-archive"
    plain.mkdir()
    result = run(["bash", str(CHECK_COMMITS)], plain, GIT_CEILING_DIRECTORIES=str(tmp_path))
    assert result.returncode == 0
    assert "not a git checkout" in result.stdout
