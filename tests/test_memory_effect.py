""" "What does memory add?" run in the window: the short check with the tiny model, on the dialog's
worker thread, in a temporary folder; its chart, and Cancel."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import tiny
from engram.core import paths
from engram.ui.memory_effect import MemoryEffectDialog

FOLDER = "engram-memory-effect-*"  # the check's own (the embedder's cache may sit beside it)
CHECK_MS = 600_000  # the tiny model answers two tasks twice and learns from two


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder, watched: the check's folder is made there."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.slow  # a whole short check with learning jobs: most of a minute
def test_the_short_check_runs_with_the_tiny_model_and_shows_a_chart(
    qtbot: QtBot, temp: Path
) -> None:
    dialog = MemoryEffectDialog(tiny.settings(), "engram eval tasks-en", tests=1)
    qtbot.addWidget(dialog)
    dialog.show()
    assert "engram eval tasks-en" in dialog.about.text()  # the full measurement, named
    seen: set[str] = set()

    def measured() -> bool:
        seen.add(dialog.status.text())
        return dialog.effect is not None

    dialog.start_button.click()
    qtbot.waitUntil(measured, timeout=CHECK_MS)
    effect = dialog.effect
    assert effect is not None
    # the first test of the shipped English set, with the task that teaches it: one test and
    # one teaching task per condition
    assert effect.kinds == ["units"]
    assert effect.passed("none")[1] == effect.passed("lessons")[1] == 1
    assert {
        "Loading your models…",
        "Teaching task 1 of 1, without memory",
        "Test 1 of 1, without memory",
        "Teaching task 1 of 1, with memory: answering, then learning",
        "Test 1 of 1, with memory",
    } <= seen
    assert dialog.chart.isVisible() and dialog.meaning.isVisible()
    assert [label for label, _kind in dialog.chart.groups()] == ["all", "units"]
    without, learned = effect.passed("none")[0], effect.passed("lessons")[0]
    assert f"passed {learned} of 1 tests, and {without} without memory" in dialog.meaning.text()
    image = dialog.chart.grab().toImage()
    background = image.pixelColor(0, 0)
    drawn = {
        image.pixelColor(x, y).name()
        for x in range(0, image.width(), 3)
        for y in range(0, image.height(), 3)
    }
    assert len(drawn - {background.name()}) > 3  # the axis, the labels, the legend's swatches
    assert dialog.thread_ is None and dialog.start_button.text() == "Run again"
    assert not list(temp.glob(FOLDER))  # its temporary folder is gone
    assert not paths.database_path().exists()  # the user's memory was never opened


def test_cancel_stops_the_check_and_leaves_no_thread_and_no_folder(
    qtbot: QtBot, temp: Path
) -> None:
    dialog = MemoryEffectDialog(tiny.settings(), "engram eval tasks-en", tests=1)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start_button.click()
    qtbot.waitUntil(lambda: "without memory" in dialog.status.text(), timeout=CHECK_MS)
    assert list(temp.glob(FOLDER))  # it works in a folder of its own
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: dialog.status.text() == "Stopped. Nothing was kept.", timeout=60_000)
    assert dialog.effect is None and not dialog.chart.isVisible()
    assert dialog.thread_ is None and dialog.start_button.isVisible()
    assert not list(temp.glob(FOLDER))
    assert not paths.database_path().exists()


def test_closing_the_dialog_while_it_runs_stops_the_check(qtbot: QtBot, temp: Path) -> None:
    dialog = MemoryEffectDialog(tiny.settings(), "engram eval tasks-en", tests=1)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start_button.click()
    qtbot.waitUntil(lambda: "without memory" in dialog.status.text(), timeout=CHECK_MS)
    thread = dialog.thread_
    assert thread is not None
    dialog.close()  # waits for its thread: the autouse fixture fails on one left running
    assert not thread.isRunning()
    assert not list(temp.glob(FOLDER))
