"""A read-only data and config folder, on a real read-only filesystem: every command works or
says why in words, never a traceback; the log is off for the run, said once on stderr."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Bind-mounts the folder over itself read-only in a private mount namespace (so only the command
# sees it read-only, and nothing is left mounted), then runs the command.
READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"'


def _can_mount_privately() -> bool:
    if shutil.which("unshare") is None:
        return False
    tried = subprocess.run(
        ["unshare", "--map-root-user", "--mount", "true"], capture_output=True, check=False
    )
    return tried.returncode == 0


def _engram(home: Path, *args: str, read_only: bool) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "engram", *args]
    if read_only:
        command = ["unshare", "--map-root-user", "--mount", "sh", "-c", READ_ONLY, "sh",
                   str(home), *command]  # fmt: skip
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(home)},
        timeout=120,
        check=False,
    )


@pytest.mark.slow  # a process per command
@pytest.mark.skipif(not _can_mount_privately(), reason="no private mount namespace (unshare -rm)")
def test_every_command_works_or_says_why_on_a_read_only_filesystem(engram_home: Path) -> None:
    made = _engram(engram_home, "memory", "list", read_only=False)  # the folders and the database
    assert made.returncode == 0, made.stderr
    (engram_home / "data").chmod(0o755)  # modes to fix at start, on a disk that refuses it
    (engram_home / "config").chmod(0o755)
    probe = _engram(engram_home, "tools", "add-mcp", "x", "--", "true", read_only=True)
    assert "Read-only file system" in probe.stderr  # the disk is read-only indeed
    runs = {
        ("models", "list"): 0,
        ("tools", "list"): 0,
        ("tools", "folders", "list"): 0,
        ("memory", "list"): 2,
        ("chat", "--list"): 2,
        ("tools", "add-mcp", "x", "--", "true"): 2,
    }
    for args, status in runs.items():
        ran = _engram(engram_home, *args, read_only=True)
        assert "Traceback" not in ran.stderr and "Errno" not in ran.stderr, (args, ran.stderr)
        assert ran.returncode == status, (args, ran.stderr)
        said = ran.stderr.splitlines()
        assert said[0].startswith("engram: the log is off for this run: cannot write"), args
        assert sum("the log is off" in line for line in said) == 1, args
        if status:  # the reason, and what to do
            assert "writable" in said[-1] or "writable" in said[-2], (args, ran.stderr)
    assert oct((engram_home / "data").stat().st_mode & 0o777) == "0o755"  # left as it was


FULL_LOG = r"""
import resource
from engram.core import log, paths

root = log.setup()
log.get("test").info("before the disk is full")
size = (paths.logs_dir() / "engram.log").stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))  # the log's disk takes nothing more
for i in range(3):
    log.get("test").info("record %d", i)
print("went on")
"""


def test_a_log_that_can_no_longer_be_written_is_said_once_and_the_command_goes_on(
    engram_home: Path,
) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", FULL_LOG], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0 and ran.stdout == "went on\n", ran.stderr
    assert "Traceback" not in ran.stderr and "Logging error" not in ran.stderr, ran.stderr
    said = ran.stderr.splitlines()
    assert len(said) == 1 and said[0].startswith("engram: the log is off for this run"), said
    assert "engram.log (File too large)" in said[0], said
