"""A model found with a hub search is registered before its file exists (a 4096-token context
and English as guesses); once downloaded and verified, its entry takes the context length and
languages from the file's GGUF header, whether the terminal or the window's queue fetched it.
Real HTTP against the local hub stand-in on 127.0.0.1."""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.cli.main import main
from engram.core import settings
from engram.models import catalogue, download, download_queue, gguf_import, hub_search
from engram.models.catalogue import ModelEntry
from engram.models.download import Options
from hub_server import HubServer

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

MODEL_FILE = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The local hub, set as the mirror in Settings, and a private models folder."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    server = HubServer(lifetime=60).start()
    settings.save(tiny.settings(hf_endpoint=server.url))
    yield server
    server.stop()


def _registered(hub: HubServer, repo: str, name: str, content: bytes) -> ModelEntry:
    """Publish ``content`` as ``repo/name`` and add it as a search would."""
    hub.add(repo, name, content)
    (choice,) = hub_search.files(repo, _options(hub))
    entry = hub_search.register(choice)
    assert (entry.context_length, entry.languages) == (4096, ("en",))  # the guesses
    return entry


def _options(hub: HubServer) -> Options:
    return Options(endpoint=hub.url, timeout=5.0, retries=1, backoff=0.01, report_every=0.0)


def _header(arch: str, context: int, languages: list[str]) -> bytes:
    """A GGUF with only a header: architecture, context length and languages, no tensors."""

    def text(value: str) -> bytes:
        data = value.encode("utf-8")
        return struct.pack("<Q", len(data)) + data

    pairs = [
        text("general.architecture") + struct.pack("<I", 8) + text(arch),
        text(f"{arch}.context_length") + struct.pack("<II", 4, context),
        text("general.languages")
        + struct.pack("<IIQ", 9, 8, len(languages))
        + b"".join(text(code) for code in languages),
    ]
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs)) + b"".join(pairs)


def test_the_terminal_download_takes_the_context_length_from_the_header(
    hub: HubServer, starter_models: Path
) -> None:
    content = (starter_models / MODEL_FILE).read_bytes()  # the tests' tiny model, a real GGUF
    entry = _registered(hub, "someone/SmolLM2-135M-GGUF", "SmolLM2-135M.Q4_1.gguf", content)

    assert main(["models", "download", entry.id]) == 0

    header = gguf_import.read(entry.main_file())
    assert header.context_length == 8192  # the tiny model's own, not the guess
    now = catalogue.load().get(entry.id)
    assert now.context_length == header.context_length
    assert now.languages == header.languages == ("en",)
    assert (now.hf_repo, now.files) == (entry.hf_repo, entry.files)  # the rest as it was


def test_the_download_queue_takes_the_languages_from_the_header(hub: HubServer) -> None:
    content = _header("qwen2", 32768, ["en", "zh", "English", "ZH"])
    entry = _registered(hub, "someone/Multi-GGUF", "multi-Q4_K_M.gguf", content)

    with download_queue.DownloadQueue(_options(hub)) as queue:  # as the window's worker does
        job = queue.submit(entry)
        assert job.wait(30) and job.error is None

    now = catalogue.load().get(entry.id)
    assert now.context_length == 32768
    assert now.languages == ("en", "zh")  # codes only, once each


def test_an_unreadable_file_keeps_the_guesses_and_says_why(
    hub: HubServer, caplog: pytest.LogCaptureFixture
) -> None:
    entry = _registered(hub, "someone/Broken-GGUF", "broken-Q4_0.gguf", b"not a gguf " * 300)
    before = catalogue.imported_path().read_bytes()

    with caplog.at_level(logging.WARNING, logger="engram.models.import"):
        download.download(entry, options=_options(hub))  # downloaded and verified: sha256 matches

    assert entry.main_file().is_file()
    now = catalogue.load().get(entry.id)
    assert (now.context_length, now.languages) == (4096, ("en",))
    assert catalogue.imported_path().read_bytes() == before
    assert any(entry.id in r.getMessage() and "GGUF" in r.getMessage() for r in caplog.records)


def test_a_registry_that_cannot_be_written_stays_whole(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    content = _header("llama", 16384, ["fr"])
    entry = _registered(hub, "someone/Full-Disk-GGUF", "full-Q8_0.gguf", content)
    entry.folder().mkdir(parents=True)
    entry.main_file().write_bytes(content)  # in place, as a finished download leaves it
    before = catalogue.imported_path().read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    with (
        monkeypatch.context() as patch,
        caplog.at_level(logging.WARNING, logger="engram.models.import"),
    ):
        patch.setattr(os, "fsync", disk_full)
        assert gguf_import.update_from_header(entry) == entry

    assert catalogue.imported_path().read_bytes() == before
    assert [p.name for p in catalogue.imported_path().parent.iterdir() if ".tmp" in p.name] == []
    assert any("No space left" in r.getMessage() for r in caplog.records)
    assert gguf_import.update_from_header(entry).context_length == 16384  # once it can be


def test_models_not_found_on_the_hub_are_left_alone(starter_models: Path) -> None:
    shipped = catalogue.load().get(tiny.MODEL)
    assert gguf_import.update_from_header(shipped) is shipped
    assert not catalogue.imported_path().exists()
