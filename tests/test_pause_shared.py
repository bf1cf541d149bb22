"""Pausing memory is a fact in the database (issue 28, item 3): every process that opens the file
honours a pause made in another one at once, the window or chat already open included (it was a
flag each process read from its settings when it started, so a running chat kept learning)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engram.assistant.app import PAUSED, Engram, LoadedModels, MemoryState
from engram.assistant.events import NotRemembered, Remembered, TurnStarted
from engram.core import paths, settings
from engram.core.cancel import CancelToken
from engram.memory import db, pause
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue


def _engram(*args: str) -> subprocess.CompletedProcess[str]:
    """A real ``engram`` process on this test's home (ENGRAM_HOME from the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "engram", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ.copy(),
    )


@pytest.fixture
def opened(loaded_models: LoadedModels) -> Iterator[list[Engram]]:
    apps: list[Engram] = []
    yield apps
    for app in apps:
        app.close()


def _open(apps: list[Engram], loaded_models: LoadedModels) -> Engram:
    """An Engram as a window or ``engram chat`` starts it: with the settings file as it is now."""
    prefs = replace(settings.load(), max_answer_tokens=8, consolidate_every_turns=50)
    app = Engram(
        prefs,
        models=loaded_models,
        on_status=lambda _status: None,
    )
    app.open()
    apps.append(app)
    return app


@pytest.mark.slow
def test_a_pause_made_by_another_process_holds_in_the_open_chat_and_every_new_one(
    engram_home: Path, loaded_models: LoadedModels, opened: list[Engram]
) -> None:
    window = _open(opened, loaded_models)
    assert window.memory == MemoryState("on")
    said = list(window.send(0, "remember this: my bike is red", CancelToken()))
    assert any(isinstance(e, Remembered) for e in said)
    chat = next(e for e in said if isinstance(e, TurnStarted)).conversation_id

    paused = _engram("memory", "pause")  # another process, while the chat is open
    assert paused.returncode == 0, paused.stderr
    # the open chat follows at once, and knows the pause was made elsewhere (the window says so)
    assert window.memory == MemoryState("paused", elsewhere=True)
    said = list(window.send(chat, "remember this: my locker code is 4711", CancelToken()))
    assert [e for e in said if isinstance(e, NotRemembered)] == [NotRemembered(PAUSED)]
    assert all(e.excluded for e in window.chats.messages(chat) if "4711" in e.content)
    assert window.learning.learn_now(chat) == PAUSED

    second = _open(opened, loaded_models)  # a second window or engram chat
    assert second.memory.mode == "paused"
    status = _engram("memory", "status")
    assert "memory is paused" in status.stdout

    learned = _engram("learn")  # engram learn runs no job while paused, and says why
    assert learned.returncode == 2
    assert "Memory is paused" in learned.stderr and "engram memory resume" in learned.stderr
    assert "Traceback" not in learned.stderr

    resumed = _engram("memory", "resume")
    assert resumed.returncode == 0, resumed.stderr
    assert window.memory == MemoryState("on") and second.memory.mode == "on"


def test_no_learning_job_is_claimed_while_paused_in_any_connection(engram_home: Path) -> None:
    path = paths.database_path()
    writer, other = db.connect(path), db.connect(path)
    try:
        log = EpisodeLog(writer)
        chat = log.new_conversation("kept").id
        first = log.append(chat, "user", "I grow tomatoes on my balcony.")
        queue = JobQueue(writer)
        assert queue.enqueue(chat, first.id, first.id) is not None
        assert not pause.paused(other) and pause.paused(other, default=True)  # never said yet
        pause.set_paused(other, True)
        assert JobQueue(writer).claim() is None  # the job waits
        assert [j.status for j in queue.jobs()] == ["queued"]
        pause.set_paused(other, False)
        claimed = JobQueue(writer).claim()
        assert claimed is not None and claimed.status == "running"
    finally:
        writer.close()
        other.close()
