"""Finding GGUF models on the hub beyond the catalogue: the search module over real HTTP (the
local hub stand-in) and the model manager's "Find on the hub" page driven with pytest-qt."""

from __future__ import annotations

import itertools
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

import tiny
from engram.core import settings
from engram.core.errors import DownloadError
from engram.models import catalogue, download, files, gguf_import, hardware, hub_search
from engram.models.download import Options
from engram.ui.model_manager import ModelManager
from hub_server import COMMIT, HubServer

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

WAIT_MS = 15_000
LONG = "TheBloke-Enterprise-Labs/Qwen2.5-Coder-14B-Instruct-abliterated-uncensored-GGUF"
MODEL_FILE = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The local hub with three GGUF repositories (one split model, one projector) and one
    without GGUF files, and a private models folder."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    server = HubServer(lifetime=60).start()
    server.add(
        "bartowski/SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q8_0.gguf", b"8" * 3000
    )
    server.add(
        "bartowski/SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q4_K_M.gguf", b"4" * 2000
    )
    server.add("bartowski/SmolLM2-135M-Instruct-GGUF", "mmproj-SmolLM2-f16.gguf", b"p" * 500)
    server.add("bartowski/SmolLM2-135M-Instruct-GGUF", "README.md", b"# card")
    server.add("unsloth/SmolLM2-1.7B-GGUF", "big-Q4_K_M-00001-of-00002.gguf", b"a" * 4000)
    server.add("unsloth/SmolLM2-1.7B-GGUF", "big-Q4_K_M-00002-of-00002.gguf", b"b" * 1000)
    server.add("HuggingFaceTB/SmolLM2-135M-Instruct", "model.safetensors", b"s" * 100)
    server.add(LONG, "Qwen2.5-Coder-14B-Instruct-abliterated-uncensored-Q4_K_M.gguf", b"q" * 100)
    server.popularity = {
        "bartowski/SmolLM2-135M-Instruct-GGUF": (52_310, 12),
        "unsloth/SmolLM2-1.7B-GGUF": (1_204_077, 87),
        "HuggingFaceTB/SmolLM2-135M-Instruct": (9_000_000, 500),
    }
    yield server
    server.stop()


def _options(hub: HubServer, timeout: float = 5.0) -> Options:
    return Options(endpoint=hub.url, timeout=timeout, retries=1, backoff=0.01, report_every=0.0)


def _closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


# -- the module ------------------------------------------------------------------------------


def test_search_finds_gguf_repositories_most_downloaded_first(hub: HubServer) -> None:
    hits = hub_search.search("smollm2", _options(hub))
    assert [h.repo for h in hits] == [
        "unsloth/SmolLM2-1.7B-GGUF",
        "bartowski/SmolLM2-135M-Instruct-GGUF",
    ]  # the repository without a .gguf file is not a result
    assert (hits[0].downloads, hits[0].likes) == (1_204_077, 87)
    asked = hub.api_gets()[0].path
    assert "filter=gguf" in asked and "search=smollm2" in asked


def test_files_lists_models_with_sizes_split_parts_as_one(hub: HubServer) -> None:
    listed = hub_search.files("bartowski/SmolLM2-135M-Instruct-GGUF", _options(hub))
    assert [(f.name, f.size, f.quantization) for f in listed] == [
        ("SmolLM2-135M-Instruct-Q4_K_M.gguf", 2000, "Q4_K_M"),
        ("SmolLM2-135M-Instruct-Q8_0.gguf", 3000, "Q8_0"),
    ]  # no projector, no README
    assert listed[0].revision == COMMIT and listed[0].parts[0].sha256 is not None
    (split,) = hub_search.files("unsloth/SmolLM2-1.7B-GGUF", _options(hub))
    assert split.size == 5000 and len(split.parts) == 2 and split.label == "big-Q4_K_M.gguf"


def test_an_empty_search_is_an_empty_list(hub: HubServer) -> None:
    assert hub_search.search("no such model anywhere", _options(hub)) == []


def test_a_chosen_file_is_added_downloaded_verified_and_can_be_chosen(
    hub: HubServer, starter_models: Path
) -> None:
    content = (starter_models / MODEL_FILE).read_bytes()  # a real GGUF
    hub.add("someone/SmolLM2-135M-GGUF", "SmolLM2-135M-Instruct.Q4_1.gguf", content)
    (choice,) = hub_search.files("someone/SmolLM2-135M-GGUF", _options(hub))
    entry = hub_search.register(choice)
    assert entry.id == "hub-someone-smollm2-135m-instruct.q4_1"
    assert entry.hf_repo == "someone/SmolLM2-135M-GGUF" and entry.hf_revision == COMMIT
    assert entry.files[0].sha256 is not None and entry.files[0].size == len(content)
    assert hub_search.register(choice) == entry  # chosen again: the same entry, not a second

    download.download(entry, options=_options(hub))

    assert hardware.installed(entry)
    files.verify(entry, deep=True)  # raises when a file is missing or its sha256 differs
    assert gguf_import.read(entry.main_file()).architecture == "llama"
    settings.SettingsStore(tiny.settings()).choose_models(small=entry.id)
    assert settings.load().small_model == entry.id
    gguf_import.forget(entry.id)
    assert entry.id not in {e.id for e in catalogue.load().models}


def test_an_unreachable_hub_says_so(tmp_path: Path) -> None:
    with pytest.raises(DownloadError) as caught:
        hub_search.search("qwen", Options(endpoint=_closed_port(), timeout=2.0))
    assert caught.value.template == "Cannot reach the model hub at {url} ({error})."
    assert "mirror" in caught.value.hint


def test_a_hub_error_says_which(hub: HubServer) -> None:
    hub.faults.api_status = [500]
    with pytest.raises(DownloadError) as caught:
        hub_search.search("qwen", _options(hub))
    assert caught.value.message.endswith("answered HTTP 500.")
    assert "try again in a few minutes" in caught.value.hint
    with pytest.raises(DownloadError, match="not on the hub"):
        hub_search.files("nobody/nothing", _options(hub))


def test_a_hub_that_does_not_answer_times_out(hub: HubServer) -> None:
    hub.faults.api_stall = [5.0]
    started = time.monotonic()
    with pytest.raises(DownloadError, match="did not answer within 1 s"):
        hub_search.search("qwen", _options(hub, timeout=1.0))
    assert time.monotonic() - started < 4


# -- the window ------------------------------------------------------------------------------


@pytest.fixture
def window(qtbot: QtBot, hub: HubServer) -> Iterator[ModelManager]:
    prefs = tiny.settings(hf_endpoint=hub.url)
    manager = ModelManager(prefs, _options(hub, timeout=1.0))
    qtbot.addWidget(manager)
    manager.show()
    qtbot.mouseClick(manager.find_button, Qt.MouseButton.LeftButton)
    assert manager.pages.currentWidget() is manager.hub
    yield manager
    manager.close()


def _search(qtbot: QtBot, manager: ModelManager, text: str) -> None:
    manager.hub.field.setText(text)
    qtbot.mouseClick(manager.hub.search_button, Qt.MouseButton.LeftButton)


def test_the_window_searches_lists_files_downloads_and_uses_one(
    qtbot: QtBot, window: ModelManager, hub: HubServer, starter_models: Path
) -> None:
    content = (starter_models / MODEL_FILE).read_bytes()
    hub.add("bartowski/SmolLM2-135M-Instruct-GGUF", "SmolLM2-135M-Instruct-Q4_1.gguf", content)
    page = window.hub
    _search(qtbot, window, "SmolLM2")
    qtbot.waitUntil(lambda: page.repos.rowCount() == 2, timeout=WAIT_MS)
    assert page.repos.item(0, 0).text() == "unsloth/SmolLM2-1.7B-GGUF"
    assert page.repos.item(0, 1).text() == "1,204,077"
    assert "2 repositories" in page.status.text()

    page.repos.selectRow(1)
    qtbot.waitUntil(lambda: page.file_table.rowCount() == 3, timeout=WAIT_MS)
    names = [page.file_table.item(r, 0).text() for r in range(3)]
    sizes = [page.file_table.item(r, 1).text() for r in range(3)]
    assert names[-1] == "SmolLM2-135M-Instruct-Q4_1.gguf" and sizes[:2] == ["2 KB", "3 KB"]

    with qtbot.waitSignal(window.worker.finished, timeout=WAIT_MS):
        qtbot.mouseClick(page.file_buttons[2], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.use_small.isVisible, timeout=WAIT_MS)
    model_id = "hub-bartowski-smollm2-135m-instruct-q4_1"
    assert model_id in window.rows  # in the catalogue table too
    assert catalogue.load().get(model_id).main_file().read_bytes() == content
    assert catalogue.load().get(model_id).context_length == 8192  # from the header, not 4096
    assert "is downloaded" in page.done_label.text()

    with qtbot.waitSignal(window.changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.use_small, Qt.MouseButton.LeftButton)
    assert settings.load().small_model == model_id


def test_an_empty_result_says_so(qtbot: QtBot, window: ModelManager) -> None:
    _search(qtbot, window, "zzz-nothing")
    qtbot.waitUntil(lambda: "No GGUF model" in window.hub.status.text(), timeout=WAIT_MS)
    assert window.hub.repos.rowCount() == 0


def test_a_hub_error_shows_its_message(qtbot: QtBot, window: ModelManager, hub: HubServer) -> None:
    hub.faults.api_status = [500]
    _search(qtbot, window, "smollm2")
    qtbot.waitUntil(lambda: "HTTP 500" in window.hub.status.text(), timeout=WAIT_MS)
    assert "try again in a few minutes" in window.hub.status.text()
    assert not window.notice.isVisible()  # the page says it, where the user looked


def test_a_silent_hub_times_out_while_the_window_stays_responsive(
    qtbot: QtBot, window: ModelManager, hub: HubServer
) -> None:
    hub.faults.api_stall = [5.0]
    ticks: list[float] = []
    timer = QTimer(window)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    _search(qtbot, window, "smollm2")
    assert "Searching" in window.hub.status.text()
    qtbot.waitUntil(lambda: "did not answer" in window.hub.status.text(), timeout=WAIT_MS)
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) > 20 and max(gaps) < 0.5  # the event loop kept running


def test_an_unreachable_hub_shows_its_message(qtbot: QtBot, hub: HubServer) -> None:
    manager = ModelManager(tiny.settings(), Options(endpoint=_closed_port(), timeout=2.0))
    qtbot.addWidget(manager)
    manager.show()
    _search(qtbot, manager, "qwen")
    qtbot.waitUntil(lambda: "Cannot reach" in manager.hub.status.text(), timeout=WAIT_MS)
    assert "mirror" in manager.hub.status.text()
    manager.close()


def test_long_repository_names_are_whole_in_the_tooltip(qtbot: QtBot, window: ModelManager) -> None:
    _search(qtbot, window, "abliterated")
    qtbot.waitUntil(lambda: window.hub.repos.rowCount() == 1, timeout=WAIT_MS)
    assert window.hub.repos.item(0, 0).toolTip() == LONG
    assert not window.hub.repos.horizontalScrollBar().isVisible()
