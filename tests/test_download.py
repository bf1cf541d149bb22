"""Downloads over real HTTP from a local hub stand-in: progress, resume, cancel, faults, queue."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.core import priority
from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError
from engram.models import download, download_queue, fetching, hardware
from engram.models.catalogue import ModelEntry, ModelFile
from engram.models.download_queue import JobState
from hub_server import HubServer

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

REPO = "engram-test/tiny-GGUF"
MB = 1024 * 1024


def _blob(size: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(size)


def _entry(
    model_id: str = "tiny", name: str = "tiny.gguf", sha256: str | None = None
) -> ModelEntry:
    return ModelEntry(
        id=model_id,
        name=f"Tiny {model_id}",
        roles=("small",),
        format="gguf",
        files=(ModelFile(path=name, sha256=sha256),),
        hf_repo=REPO,
    )


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(folder))
    return folder


@pytest.fixture
def hub(models_dir: Path) -> Iterator[HubServer]:
    server = HubServer(lifetime=60).start()
    yield server
    server.stop()


def _options(hub: HubServer, **overrides: object) -> download.Options:
    settings = tiny.settings(hf_endpoint=hub.url + "/")
    defaults: dict[str, object] = {
        "timeout": 5.0,
        "retries": 2,
        "backoff": 0.01,
        "report_every": 0.0,
    }
    return download.Options.from_settings(settings, **{**defaults, **overrides})


def test_full_download_reports_progress_and_installs_verified_file(hub: HubServer) -> None:
    content = _blob(3 * MB)
    hub.add(REPO, "tiny.gguf", content)
    events: list[fetching.Progress] = []
    entry = _entry()

    written = download.download(entry, events.append, options=_options(hub))

    assert written == [entry.folder() / "tiny.gguf"]
    assert written[0].read_bytes() == content
    assert [p.name for p in entry.folder().iterdir()] == ["tiny.gguf"]  # no partial left
    dones = [e.done for e in events]
    assert dones == sorted(dones) and dones[-1] == len(content)
    assert all(e.total == len(content) for e in events)
    assert events[-1].speed > 0 and events[-1].eta == 0
    assert len(events) > 10
    head = hub.heads()
    assert head and head[0].path == f"/{REPO}/resolve/main/tiny.gguf"


def test_present_file_is_not_fetched_again(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    entry = _entry()
    download.download(entry, options=_options(hub))
    assert download.download(entry, options=_options(hub)) == []
    assert len(hub.cdn_gets()) == 1


def test_cut_off_download_resumes_without_refetching(hub: HubServer) -> None:
    content = _blob(3 * MB)
    hub.add(REPO, "tiny.gguf", content)
    hub.faults.cut_after.append(MB)

    written = download.download(_entry(), options=_options(hub))

    assert written[0].read_bytes() == content
    gets = hub.cdn_gets()
    assert [g.range for g in gets] == [None, f"bytes={MB}-"]
    assert gets[1].status == 206
    assert hub.bytes_served() == len(content)


def test_cancel_keeps_partial_and_next_download_resumes(hub: HubServer) -> None:
    content = _blob(4 * MB)
    hub.add(REPO, "tiny.gguf", content)
    entry = _entry()
    token = CancelToken()

    def cancel_after_a_megabyte(p: fetching.Progress) -> None:
        if p.done >= MB:
            token.cancel()

    with pytest.raises(fetching.DownloadCancelledError):
        download.download(entry, cancel_after_a_megabyte, token, _options(hub))
    part = entry.folder() / ".tiny.gguf.part"
    kept = part.stat().st_size
    assert MB <= kept < len(content)
    assert not (entry.folder() / "tiny.gguf").exists()

    download.download(entry, options=_options(hub))

    assert (entry.folder() / "tiny.gguf").read_bytes() == content
    resumed = hub.cdn_gets()[-1]
    assert resumed.range == f"bytes={kept}-"
    assert resumed.body_bytes == len(content) - kept
    assert not part.exists()


def test_partial_of_a_changed_remote_file_is_discarded(hub: HubServer) -> None:
    entry = _entry()
    entry.folder().mkdir(parents=True)
    (entry.folder() / ".tiny.gguf.part").write_bytes(b"stale bytes from another version")
    (entry.folder() / ".tiny.gguf.json").write_text('{"etag": "old", "size": 5}')
    content = _blob(MB)
    hub.add(REPO, "tiny.gguf", content)

    download.download(entry, options=_options(hub))

    assert (entry.folder() / "tiny.gguf").read_bytes() == content
    assert hub.cdn_gets()[0].range is None


def test_content_not_matching_lfs_sha256_is_rejected_and_removed(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    hub.advertised_sha[(REPO, "tiny.gguf")] = hashlib.sha256(b"something else").hexdigest()
    entry = _entry()

    with pytest.raises(DownloadError, match="failed verification") as caught:
        download.download(entry, options=_options(hub))

    assert "deleted" in caught.value.message and caught.value.hint
    assert list(entry.folder().iterdir()) == []


def test_catalogue_sha256_wins_over_hub_metadata(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    entry = _entry(sha256="0" * 64)
    with pytest.raises(DownloadError, match="sha256"):
        download.download(entry, options=_options(hub))
    assert not (entry.folder() / "tiny.gguf").exists()


def test_not_enough_disk_space_refuses_before_fetching(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    monkeypatch.setattr(hardware, "free_disk_bytes", lambda path: 10 * MB)

    with pytest.raises(DownloadError, match="more disk space") as caught:
        download.download(_entry(), options=_options(hub))

    assert "Free some space" in caught.value.hint
    assert hub.cdn_gets() == []


def test_server_errors_are_retried(hub: HubServer) -> None:
    content = _blob(MB)
    hub.add(REPO, "tiny.gguf", content)
    hub.faults.head_status += [503]
    hub.faults.cdn_status += [502]

    written = download.download(_entry(), options=_options(hub))

    assert written[0].read_bytes() == content
    assert [s.status for s in hub.heads()] == [503, 302]


def test_persistent_server_error_gives_clear_message(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    hub.faults.head_status += [500, 500, 500]

    with pytest.raises(DownloadError, match=r"after 3 attempts.*HTTP 500") as caught:
        download.download(_entry(), options=_options(hub))
    assert "resumes" in caught.value.hint


def test_missing_file_is_a_clear_404(hub: HubServer) -> None:
    with pytest.raises(DownloadError, match="HTTP 404") as caught:
        download.download(_entry(name="nope.gguf"), options=_options(hub))
    assert "not on the hub" in caught.value.hint
    assert len(hub.heads()) == 1  # not retried


def test_timeout_is_retried_then_resumes(hub: HubServer) -> None:
    content = _blob(MB)
    hub.add(REPO, "tiny.gguf", content)
    hub.faults.stall.append(5.0)

    written = download.download(_entry(), options=_options(hub, timeout=0.3))

    assert written[0].read_bytes() == content
    gets = hub.cdn_gets()  # the stalled request never answered in time, the retry did
    assert [g.stalled for g in gets] == [True, False] and gets[1].range is None


def test_persistent_timeouts_give_clear_message(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(MB))
    hub.faults.stall += [5.0, 5.0]

    with pytest.raises(DownloadError, match="ReadTimeout"):
        download.download(_entry(), options=_options(hub, timeout=0.2, retries=1))


def test_entry_without_hub_source_is_refused() -> None:
    entry = ModelEntry("x", "X", ("small",), "gguf", (ModelFile("x.gguf"),))
    with pytest.raises(DownloadError, match="no download source"):
        download.download(entry)


def test_disable_xet_setting_reaches_huggingface_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_DISABLE_XET", raising=False)
    options = download.Options.from_settings(tiny.settings(disable_xet=True))
    download.hub_module(options)
    assert os.environ["HF_HUB_DISABLE_XET"] == "1"


def test_queue_runs_jobs_in_order_and_cancels_one(hub: HubServer) -> None:
    hub.add(REPO, "a.gguf", _blob(2 * MB, 1))
    hub.add(REPO, "b.gguf", _blob(MB, 2))
    hub.add(REPO, "c.gguf", _blob(MB, 3))
    hub.faults.stall.append(0.5)  # holds the first job while the others are queued
    finished: list[str] = []
    order_lock = threading.Lock()

    def note(job: download_queue.Job) -> None:
        with order_lock:
            finished.append(job.entry.id)

    with download_queue.DownloadQueue(_options(hub)) as queue:
        a = queue.submit(_entry("a", "a.gguf"), finished=note)
        b = queue.submit(_entry("b", "b.gguf"), finished=note)
        c = queue.submit(_entry("c", "c.gguf"), finished=note)
        b.cancel()
        assert c.wait(20) and a.wait(0)

    assert (a.state, b.state, c.state) == (JobState.DONE, JobState.CANCELLED, JobState.DONE)
    assert finished == ["a", "b", "c"]
    assert isinstance(b.error, fetching.DownloadCancelledError)
    assert (_entry("c", "c.gguf").folder() / "c.gguf").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice")
def test_downloads_run_at_background_priority(hub: HubServer) -> None:
    """Hashing a large file must not take the core the window's event loop needs."""
    hub.add(REPO, "tiny.gguf", _blob(MB))
    nice: list[int] = []

    def note(job: download_queue.Job) -> None:
        nice.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    with download_queue.DownloadQueue(_options(hub)) as queue:
        job = queue.submit(_entry("tiny", "tiny.gguf"), finished=note)
        assert job.wait(20) and job.state is JobState.DONE

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert nice == [min(19, max(before, priority.BACKGROUND_NICE))]


def test_closing_the_queue_cancels_the_running_job(hub: HubServer) -> None:
    hub.add(REPO, "tiny.gguf", _blob(4 * MB))
    started = threading.Event()

    def on_progress(p: fetching.Progress) -> None:
        if p.done > 0:
            started.set()

    queue = download_queue.DownloadQueue(_options(hub))
    job = queue.submit(_entry(), on_progress)
    assert started.wait(10)
    queue.close(timeout=10)
    assert job.state in (JobState.CANCELLED, JobState.DONE)
    with pytest.raises(DownloadError, match="closed"):
        queue.submit(_entry())


def test_network_loss_keeps_partial_for_the_next_run(hub: HubServer) -> None:
    content = _blob(3 * MB)
    hub.add(REPO, "tiny.gguf", content)
    hub.faults.cut_after += [MB]
    entry = _entry()

    with pytest.raises(DownloadError, match=r"ended early|RemoteProtocolError") as caught:
        download.download(entry, options=_options(hub, retries=0))
    assert "resumes where it stopped" in caught.value.hint
    assert (entry.folder() / ".tiny.gguf.part").stat().st_size == MB

    download.download(entry, options=_options(hub))
    assert (entry.folder() / "tiny.gguf").read_bytes() == content
    assert hub.bytes_served() == len(content)


def test_partial_left_by_a_crash_is_resumed(hub: HubServer) -> None:
    content = _blob(2 * MB)
    sha = hub.add(REPO, "tiny.gguf", content)
    entry = _entry()
    entry.folder().mkdir(parents=True)
    (entry.folder() / ".tiny.gguf.part").write_bytes(content[: MB + 123])
    state = {"etag": sha, "size": len(content)}
    (entry.folder() / ".tiny.gguf.json").write_text(json.dumps(state))

    download.download(entry, options=_options(hub))

    assert (entry.folder() / "tiny.gguf").read_bytes() == content
    assert [g.range for g in hub.cdn_gets()] == [f"bytes={MB + 123}-"]


def test_cancel_interrupts_a_stalled_connection(hub: HubServer) -> None:
    content = _blob(2 * MB)
    hub.add(REPO, "tiny.gguf", content)
    hub.faults.pause_after.append(MB // 2)  # then the server goes silent for 10 s
    receiving = threading.Event()

    def on_progress(p: fetching.Progress) -> None:
        if p.done >= MB // 2:
            receiving.set()

    with download_queue.DownloadQueue(_options(hub, timeout=30.0)) as queue:
        job = queue.submit(_entry(), on_progress)
        assert receiving.wait(10)
        job.cancel()
        assert job.wait(3), "cancel must not wait for the read timeout"

    assert job.state == JobState.CANCELLED
    assert (_entry().folder() / ".tiny.gguf.part").stat().st_size == MB // 2


def test_hub_offline_mode_is_a_clear_error(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(DownloadError, match="offline mode") as caught:
        download.download(_entry(), options=_options(hub))
    assert "HF_HUB_OFFLINE" in caught.value.hint
    assert hub.requests() == []
