"""Terminal commands answer bad output paths and a closed pipe with a message, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.core.atomic import atomic_write


def _engram(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engram", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
        check=False,
    )


def _refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"engram: {message}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 2  # the message and its hint


@pytest.mark.slow
def test_an_output_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept", encoding="utf-8")
    data = Path(__file__).parent / "data" / "hard_locomo.json"
    _refused(
        _engram("eval", str(data), "--retrieval-only", "--out", str(afile)),
        f"{afile} is a file, not a folder.",
    )
    _refused(_engram("screenshots", str(afile)), f"{afile} is a file, not a folder.")
    assert afile.read_text(encoding="utf-8") == "kept"


@pytest.mark.slow
def test_memory_export_to_a_folder_or_into_a_missing_one_is_refused_without_a_stray_file(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    _refused(_engram("memory", "export", str(folder)), f"{folder} is a folder, not a file.")
    missing = tmp_path / "missing" / "x.jsonl"
    _refused(
        _engram("memory", "export", str(missing)),
        f"The folder {missing.parent} does not exist.",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["engram-home", "folder"]
    assert list(folder.iterdir()) == []
    done = _engram("memory", "export", str(folder / "x.jsonl"))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in folder.iterdir()] == ["x.jsonl"]


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "work" / "target"
    (target / "inside").mkdir(parents=True)  # a non-empty folder cannot be replaced by a file
    with pytest.raises(OSError), atomic_write(target) as handle:
        handle.write("text")
    assert [p.name for p in target.parent.iterdir()] == ["target"]


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "engram", "models", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # `engram models list | head -0`: the pipe is gone before the output
    with process.stderr:
        errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert errors == ""
