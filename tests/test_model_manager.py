"""The model manager over real HTTP (the local hub stand-in), real files and its worker thread."""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant import model_admin
from engram.core import settings
from engram.evaluation import tasks
from engram.evaluation.app import dataset_path
from engram.models import catalogue, hardware
from engram.models.catalogue import Pair
from engram.models.download import Options, Progress
from engram.ui.labels import human_bytes
from engram.ui.memory_effect import MemoryEffectDialog
from engram.ui.model_manager import ModelManager
from engram.ui.model_rows import COLUMNS, DISK_COLUMN, LANGUAGES_COLUMN, SIZE_COLUMN
from hub_server import HubServer
from test_model_admin import link_installed

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

REPO = "engram-test/tiny-GGUF"
MB = 1024 * 1024
GB = hardware.GB
WAIT_MS = 15_000
USER_CATALOGUE = """schema_version = 1
""" + "".join(
    f"""
[[model]]
id = "{model_id}"
name = "Tiny {model_id}"
roles = ["{role}"]
format = "{fmt}"
ram_gb = 0.1
size_gb = 0.01
hf = {{ repo = "{REPO}", revision = "main" }}

[[model.files]]
path = "{model_id}.{fmt}"
"""
    for model_id, role, fmt in (
        ("tiny-a", "small", "gguf"),
        ("tiny-b", "large", "gguf"),
        ("tiny-emb", "embedding", "onnx"),
    )
)


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The local hub, a private models folder and a user catalogue of three tiny hub models."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    catalogue.user_path().parent.mkdir(parents=True, exist_ok=True)
    server = HubServer(lifetime=60).start()
    catalogue.user_path().write_text(USER_CATALOGUE, encoding="utf-8")
    yield server
    server.stop()


@pytest.fixture
def manager(qtbot: QtBot, hub: HubServer) -> Iterator[ModelManager]:
    prefs = tiny.settings(hf_endpoint=hub.url, small_model="qwen2.5-0.5b-instruct")
    options = Options.from_settings(prefs, timeout=5.0, retries=1, backoff=0.01, report_every=0.0)
    window = ModelManager(prefs, options)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.close()


def _state(window: ModelManager, model_id: str, column: int = DISK_COLUMN) -> str:
    row = list(window.rows).index(model_id)
    item = window.table.item(row, column)
    return item.text() if item else ""


def _publish(hub: HubServer, model_id: str, size: int, ext: str = "gguf") -> bytes:
    content = random.Random(model_id).randbytes(size)
    hub.add(REPO, f"{model_id}.{ext}", content)
    return content


def test_download_shows_progress_installs_and_deletes(
    qtbot: QtBot, manager: ModelManager, hub: HubServer
) -> None:
    content = _publish(hub, "tiny-a", 3 * MB)
    seen: list[Progress] = []
    manager.worker.progress.connect(seen.append)
    assert _state(manager, "tiny-a") == "not installed"
    assert _state(manager, "tiny-a", SIZE_COLUMN) == "~10 MB"  # the catalogue's estimate

    with qtbot.waitSignal(manager.changed, timeout=WAIT_MS):
        qtbot.mouseClick(manager.rows["tiny-a"].download_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: _state(manager, "tiny-a").startswith("installed"))
    assert _state(manager, "tiny-a") == "installed"
    assert _state(manager, "tiny-a", SIZE_COLUMN) == "3.1 MB"  # what it takes on the disk
    entry = catalogue.load().get("tiny-a")
    assert entry.main_file().read_bytes() == content
    dones = [p.done for p in seen]
    assert len(seen) > 1 and dones == sorted(dones) and 0 < dones[1] < dones[-1] == len(content)
    assert manager.rows["tiny-a"].use_small.isEnabled()

    said = answer_box("Remove")
    with qtbot.waitSignal(manager.changed, timeout=WAIT_MS):
        qtbot.mouseClick(manager.rows["tiny-a"].delete_button, Qt.MouseButton.LeftButton)
    assert said and "Tiny tiny-a" in said[0]
    assert not entry.folder().exists()
    assert _state(manager, "tiny-a") == "not installed"


def answer_box(click: str) -> list[str]:
    """Answer the next message box with its button ``click`` (else close it); returns a list
    that gets the box's text."""
    said: list[str] = []

    def answer(tries: int = 50) -> None:
        shown = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
        box = next((w for w in shown if isinstance(w, QMessageBox)), None)
        if box is None:
            if tries:
                QTimer.singleShot(20, lambda: answer(tries - 1))
            return
        said.append(box.text())
        button = next((b for b in box.buttons() if b.text().replace("&", "") == click), None)
        if button is None:
            box.reject()
        else:
            button.click()

    QTimer.singleShot(0, answer)
    return said


def test_remove_is_offered_for_every_installed_model_and_says_when_it_is_in_use(
    qtbot: QtBot, hub: HubServer, starter_models: Path
) -> None:
    """Issue 48: installed models had no Remove (a starter model none at all), and a model in
    use was deleted without a word."""
    cat = catalogue.load()
    starter = cat.get(tiny.EMBEDDER)
    link_installed(starter, starter_models)
    mine = cat.get("tiny-a")
    mine.main_file().parent.mkdir(parents=True, exist_ok=True)
    mine.main_file().write_bytes(b"GGUF" + bytes(4096))
    store = settings.SettingsStore(tiny.settings(small_model="tiny-a", embedding_model="tiny-emb"))
    window = ModelManager(store)
    qtbot.addWidget(window)
    window.show()
    for model_id in (starter.id, mine.id):
        button = window.rows[model_id].delete_button
        assert button.isVisible() and button.isEnabled() and button.text() == "Remove"

    said = answer_box("Remove")  # a starter model, not in use
    with qtbot.waitSignal(window.changed, timeout=WAIT_MS):
        qtbot.mouseClick(window.rows[starter.id].delete_button, Qt.MouseButton.LeftButton)
    assert starter.name in said[0] and "in use" not in said[0]
    assert not starter.folder().exists() and _state(window, starter.id) == "not installed"
    assert window.rows[starter.id].download_button.isVisible()  # the list follows

    said = answer_box("Cancel")  # the model that answers: the box says so
    qtbot.mouseClick(window.rows[mine.id].delete_button, Qt.MouseButton.LeftButton)
    assert "answers with it" in said[0], said
    assert hardware.installed(mine)  # cancelled: kept
    said = answer_box("Remove")
    with qtbot.waitSignal(window.changed, timeout=WAIT_MS):
        qtbot.mouseClick(window.rows[mine.id].delete_button, Qt.MouseButton.LeftButton)
    assert not mine.folder().exists() and _state(window, mine.id) == "not installed"
    window.close()


def test_cancel_midway_then_resume(qtbot: QtBot, manager: ModelManager, hub: HubServer) -> None:
    content = _publish(hub, "tiny-b", 3 * MB)
    hub.faults.pause_after.append(MB)  # the server stalls after 1 MB until cancelled
    row = manager.rows["tiny-b"]
    qtbot.mouseClick(row.download_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: manager.rows["tiny-b"].progress.value() >= 333, timeout=WAIT_MS)
    assert "MB" in manager.rows["tiny-b"].progress.text()
    assert manager.rows["tiny-b"].cancel_button.isVisible()

    qtbot.mouseClick(manager.rows["tiny-b"].cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _state(manager, "tiny-b").startswith("partly downloaded"))
    resume = manager.rows["tiny-b"].download_button
    assert resume.isVisible() and resume.text() == "Resume"

    with qtbot.waitSignal(manager.changed, timeout=WAIT_MS):
        qtbot.mouseClick(resume, Qt.MouseButton.LeftButton)
    assert catalogue.load().get("tiny-b").main_file().read_bytes() == content
    assert hub.cdn_gets()[-1].range == f"bytes={MB}-"


def test_sha_mismatch_shows_error_and_leaves_no_file(
    qtbot: QtBot, manager: ModelManager, hub: HubServer
) -> None:
    _publish(hub, "tiny-a", MB)
    hub.advertised_sha[(REPO, "tiny-a.gguf")] = "0" * 64
    qtbot.mouseClick(manager.rows["tiny-a"].download_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(manager.notice.isVisible, timeout=WAIT_MS)
    assert "failed verification" in manager.notice.text()
    assert "Try again" in manager.notice.text()  # the hint
    folder = catalogue.load().get("tiny-a").folder()
    assert not folder.exists() or list(folder.iterdir()) == []
    assert _state(manager, "tiny-a") == "not installed"


def test_pair_downloads_then_becomes_the_chosen_models(
    qtbot: QtBot, manager: ModelManager, hub: HubServer
) -> None:
    for model_id, ext in (("tiny-a", "gguf"), ("tiny-b", "gguf"), ("tiny-emb", "onnx")):
        _publish(hub, model_id, 256 * 1024, ext)
    manager.download_pair(Pair(1.0, "tiny-a", "tiny-b", "tiny-emb", "test"))
    qtbot.waitUntil(lambda: settings.load().embedding_model == "tiny-emb", timeout=WAIT_MS)
    saved = settings.load()
    assert (saved.small_model, saved.large_model) == ("tiny-a", "tiny-b")


def test_recommended_pair_is_shown(manager: ModelManager) -> None:
    pair = hardware.recommend(catalogue.load(), hardware.probe(gpu=False))
    assert pair is not None
    assert pair.reason in manager.pair_label.text()
    assert catalogue.load().get(pair.large).name in manager.pair_label.text()
    assert manager.pair_button.isVisible()


def test_use_this_pair_is_off_and_says_why_when_it_is_the_pair_in_use(
    qtbot: QtBot, starter_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 48: "Use this pair" on the pair in use said it was switching models."""
    pair = Pair(1.0, tiny.MODEL, tiny.MODEL, tiny.EMBEDDER, "The tests' tiny pair.")

    def offer(cat: catalogue.Catalogue, machine: hardware.Machine) -> hardware.Offer:
        chosen = hardware.pair_models(cat, pair)  # installed: nothing to download
        return hardware.Offer(pair, chosen, (), hardware.pair_fit(cat, pair, machine))

    monkeypatch.setattr(model_admin, "offer", offer)
    store = settings.SettingsStore(tiny.settings(language="en", embedding_model=tiny.EMBEDDER))
    window = ModelManager(store)
    qtbot.addWidget(window)
    window.show()
    button = window.pair_button
    assert button.isVisible() and button.text() == "Use this pair"
    assert not button.isEnabled()
    assert "pair in use" in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # a click does nothing
    assert "switches" not in window.status_label.text()

    store.update(large_model="qwen2.5-coder-1.5b-instruct")  # chosen elsewhere: another pair
    qtbot.waitUntil(button.isEnabled)
    assert "pair in use" not in button.toolTip()
    with qtbot.waitSignal(window.changed, timeout=WAIT_MS):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert store.current.large_model == tiny.MODEL
    assert "switches" in window.status_label.text()
    qtbot.waitUntil(lambda: not button.isEnabled())  # the pair in use again
    window.close()


def test_dropped_gguf_is_imported_and_can_be_chosen(
    qtbot: QtBot, manager: ModelManager, starter_models: Path, tmp_path: Path
) -> None:
    original = starter_models / "smollm2-135m-instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    copy = tmp_path / "My-Model.gguf"
    try:
        os.link(original, copy)
    except OSError:
        shutil.copyfile(original, copy)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(copy))])
    drop = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(manager.changed, timeout=WAIT_MS):
        manager.dropEvent(drop)

    assert "local-my-model" in manager.rows
    entry = catalogue.load().get("local-my-model")
    assert entry.main_file().is_file() and entry.imported_from == str(copy.resolve())
    assert _state(manager, "local-my-model").startswith("installed")

    manager.table.scrollToBottom()  # the imported model's row is the last one
    with qtbot.waitSignal(manager.changed, timeout=WAIT_MS):
        qtbot.mouseClick(manager.rows["local-my-model"].use_small, Qt.MouseButton.LeftButton)
    assert settings.load().small_model == "local-my-model"


def test_import_of_a_damaged_file_shows_the_problem(
    qtbot: QtBot, manager: ModelManager, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf file at all")
    manager.import_files([str(bad)])
    qtbot.waitUntil(manager.notice.isVisible, timeout=WAIT_MS)
    assert "broken.gguf" in manager.notice.text()
    assert not any(r.startswith("local-broken") for r in manager.rows)


def test_every_action_is_visible_at_the_default_size_and_the_pair_says_its_cost(
    qtbot: QtBot, ui_language: str, starter_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = model_admin.probe

    def quick(gpu: bool = True) -> hardware.Machine:  # the 16 GB pair, not installed here
        machine = probe(gpu=gpu)
        return dataclasses.replace(machine, ram_total=16 * GB, decode_bytes_per_s=200 * GB)

    monkeypatch.setattr(model_admin, "probe", quick)
    window = ModelManager(tiny.settings(language=ui_language))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    table = window.table
    assert not table.horizontalScrollBar().isVisible()
    viewport = table.viewport().rect()
    shown = 0
    for row in window.rows.values():
        for button in (row.download_button, row.use_small, row.use_large):
            if button.isVisible():
                shown += 1
                corner = button.mapTo(table.viewport(), button.rect().bottomRight())
                assert viewport.right() >= corner.x(), (row.entry.id, button.text())
    assert shown >= len(window.rows)  # every row offers at least one action
    offer = hardware.offer(catalogue.load(), quick(gpu=False))
    assert offer is not None and offer.missing
    gigabytes = human_bytes(offer.download_bytes)
    minutes = round(offer.download_seconds() / 60)
    text = window.pair_button.text()
    assert gigabytes in text and str(minutes) in text
    assert ("min" if ui_language == "en" else "分钟") in text
    assert ("Download and use" if ui_language == "en" else "下载") in text
    window.close()


def test_every_starter_model_lists_the_exact_size_of_its_installed_files(
    starter_models: Path,
) -> None:
    for entry in catalogue.load().models:
        if not entry.starter:
            continue
        assert all(f.size is not None for f in entry.files), entry.id
        installed = sum((entry.folder() / f.path).stat().st_size for f in entry.files)
        assert entry.download_bytes() == installed, entry.id


def test_every_cell_is_readable_at_the_default_size(
    qtbot: QtBot, ui_language: str, starter_models: Path
) -> None:
    """Each cell's whole text shows in the cell (wrapped, not cut) or in its tooltip; sizes
    read like people write them."""
    window = ModelManager(tiny.settings(language=ui_language))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    table = window.table
    metrics = table.fontMetrics()
    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    cut: list[str] = []
    for row, entry in enumerate(r.entry for r in window.rows.values()):
        full = {LANGUAGES_COLUMN: ", ".join(entry.languages)}
        for column in range(len(COLUMNS) - 1):
            item = table.item(row, column)
            assert item is not None
            text = full.get(column, item.text())
            room = table.visualItemRect(item).adjusted(margin, 0, -margin, 0)
            wrapped = metrics.boundingRect(room, Qt.TextFlag.TextWordWrap, item.text())
            fits = text in item.text() and wrapped.height() <= room.height()
            fits = fits and wrapped.width() <= room.width()
            if not fits:
                cut.append(item.text())
                assert text in item.toolTip(), (entry.id, column, item.text())
        size = table.item(row, SIZE_COLUMN).text()  # type: ignore[union-attr]
        assert ".0 " not in size, size
        if hardware.installed(entry):
            assert not size.startswith("~"), (entry.id, size)  # installed: the size on disk
    assert cut  # long language lists are shortened here, the tooltip has them
    viewport = table.viewport().rect()
    for row in window.rows.values():
        for button in (row.download_button, row.delete_button, row.use_small, row.use_large):
            if button.isVisible():
                top = button.mapTo(table.viewport(), button.rect().topLeft())
                corner = button.mapTo(table.viewport(), button.rect().bottomRight())
                # Never cut at the side; rows below the fold scroll into view whole.
                assert corner.x() <= viewport.right(), (row.entry.id, button.text())
                if top.y() < viewport.bottom() - table.verticalHeader().defaultSectionSize():
                    assert viewport.contains(corner), (row.entry.id, button.text())
    window.close()


def test_the_actions_line_up_and_offer_only_what_can_be_done(
    qtbot: QtBot, starter_models: Path
) -> None:
    window = ModelManager(tiny.settings(language="en"))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    viewport = window.table.viewport()
    for name in ("use_small", "use_large"):
        places = {
            getattr(row, name).mapTo(viewport, getattr(row, name).rect().topLeft()).x()
            for row in window.rows.values()
            if name.removeprefix("use_") in row.entry.roles
        }
        assert len(places) == 1, (name, places)  # the same column on every row
    for row in window.rows.values():
        installed = hardware.installed(row.entry)
        assert row.delete_button.isVisible() == installed
        assert row.download_button.isVisible() == (not installed)
    window.close()


def test_the_manager_offers_to_measure_what_memory_adds_with_the_chosen_models(
    qtbot: QtBot, manager: ModelManager
) -> None:
    command = manager.measure_command()
    words = command.split()
    assert words[:2] == ["engram", "eval"] and "--out" in words
    assert words[words.index("--small") + 1] == "qwen2.5-0.5b-instruct"
    assert words[words.index("--large") + 1] == manager.settings.current.large_model
    assert tasks.is_task_file(dataset_path(words[2]))  # the shipped set of the user's language
    assert manager.measure_button.isVisible() and manager.measure_button.text()
    manager.measure_button.click()  # the short check, run here (tests/test_memory_effect.py)
    dialog = manager.findChild(MemoryEffectDialog)
    assert dialog is not None and dialog.isVisible() and command in dialog.about.text()
    manager.measure_button.click()
    assert manager.findChildren(MemoryEffectDialog) == [dialog]  # the open one, not another
    dialog.close()
