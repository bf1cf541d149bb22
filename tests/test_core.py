"""Paths, settings and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engram.core import paths, settings
from engram.core.errors import ModelFileError


def test_engram_home_moves_every_path(engram_home: Path) -> None:
    assert paths.database_path().is_relative_to(engram_home)
    assert paths.settings_path().is_relative_to(engram_home)
    assert paths.logs_dir().is_relative_to(engram_home)


def test_settings_round_trip_and_atomic_write(engram_home: Path) -> None:
    cloud = settings.CloudSettings(base_url="http://127.0.0.1:9/v1")
    prefs = settings.Settings(threads=3, language="zh_CN", cloud=cloud)
    settings.save(prefs)
    loaded = settings.load()
    assert loaded == prefs
    assert not list(paths.config_dir().glob("*.tmp"))


def test_damaged_settings_are_kept_aside_and_defaults_used(engram_home: Path) -> None:
    paths.settings_path().write_text("{not json", encoding="utf-8")
    assert settings.load() == settings.Settings()
    assert paths.settings_path().with_suffix(".damaged.json").read_text() == "{not json"


def test_wrongly_typed_and_unknown_settings_fall_back_per_field(engram_home: Path) -> None:
    data = {"version": 1, "threads": "many", "context_size": 2048, "bogus": 1}
    paths.settings_path().write_text(json.dumps(data), encoding="utf-8")
    loaded = settings.load()
    assert loaded.threads == settings.Settings().threads
    assert loaded.context_size == 2048


def test_error_text_has_message_and_hint() -> None:
    err = ModelFileError("Model x.gguf is missing.", "Run `engram models fetch-starter`.")
    assert str(err) == "Model x.gguf is missing.\nRun `engram models fetch-starter`."


def test_settling_the_heap_freezes_what_start_up_made_once() -> None:
    # In a child process: freezing is process-wide and must not touch the test session's heap.
    code = (
        "import gc\n"
        "from engram.core import heap\n"
        "assert gc.get_freeze_count() == 0\n"
        "assert heap.settle() and gc.get_freeze_count() > 1000\n"
        "frozen = gc.get_freeze_count()\n"
        "extra = [[] for _ in range(100)]\n"
        "assert not heap.settle() and gc.get_freeze_count() == frozen\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_damaged_settings_in_a_folder_that_cannot_be_written_give_the_defaults(
    engram_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths.settings_path().write_text("{not json", encoding="utf-8")

    def read_only(*_args: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(settings.os, "replace", read_only)
    assert settings.load() == settings.Settings()
    assert paths.settings_path().read_text(encoding="utf-8") == "{not json"
