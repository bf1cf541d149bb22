"""One owner for the settings: the store saves each change and tells its subscribers, windows
follow it, and the worker reopens its session only for the fields that need it."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QThread
from PySide6.QtWidgets import QDialogButtonBox, QLabel
from pytestqt.qtbot import QtBot

from engram.assistant.app import LoadedModels
from engram.assistant.session import needs_reopen
from engram.core import paths, settings
from engram.core.errors import SettingsError
from engram.core.settings import CloudSettings, Settings, SettingsStore
from engram.ui.main_window import MainWindow
from engram.ui.settings_signals import SettingsSignals

LOAD_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 60_000


def _saved() -> dict[str, object]:
    data: dict[str, object] = json.loads(paths.settings_path().read_text(encoding="utf-8"))
    return data


# -- the store, without Qt -------------------------------------------------------------------


def test_settings_are_values_and_a_change_is_saved_then_announced(engram_home: Path) -> None:
    store = SettingsStore.load()
    with pytest.raises(dataclasses.FrozenInstanceError):
        store.current.theme = "dark"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        store.current.cloud.enabled = True  # type: ignore[misc]
    heard: list[tuple[Settings, Settings]] = []
    stop = store.subscribe(lambda old, new: heard.append((old, new)))
    before = store.current
    after = store.update(theme="dark", cloud=CloudSettings(redact_personal_data=False))
    assert store.current is after and after.theme == "dark"
    assert heard == [(before, after)]
    assert _saved()["theme"] == "dark" and _saved()["version"] == settings.SCHEMA_VERSION
    assert settings.load() == after
    store.update(theme="dark")  # no change: nothing saved, nobody told
    assert len(heard) == 1
    stop()
    store.update(theme="light")
    assert len(heard) == 1 and settings.load().theme == "light"


def test_a_change_that_cannot_be_saved_changes_nothing(engram_home: Path) -> None:
    store = SettingsStore(Settings(), engram_home / "blocked" / "settings.json")
    (engram_home / "blocked").mkdir(parents=True)
    (engram_home / "blocked" / "settings.json").mkdir()  # a folder where the file should be
    heard: list[object] = []
    store.subscribe(lambda old, new: heard.append(new))
    with pytest.raises(SettingsError) as raised:
        store.update(memory_paused=True)
    assert "Nothing was changed" in raised.value.message
    assert store.current.memory_paused is False and heard == []


def test_an_editor_applies_only_what_it_changed(engram_home: Path) -> None:
    store = SettingsStore.load()
    shown = store.current  # what a dialog showed when it opened
    store.update(memory_paused=True)  # meanwhile, elsewhere
    edited = dataclasses.replace(shown, max_answer_tokens=64)
    merged = store.merge(shown, edited)
    assert merged.memory_paused is True and merged.max_answer_tokens == 64
    assert settings.load() == merged


def test_changes_from_many_threads_are_all_kept_and_announced_in_order(
    engram_home: Path,
) -> None:
    store = SettingsStore.load()
    heard: list[tuple[Settings, Settings]] = []
    store.subscribe(lambda old, new: heard.append((old, new)))
    fields = ["threads", "context_size", "max_answer_tokens", "memory_budget_tokens"]
    start = threading.Barrier(len(fields))

    def change(name: str) -> None:
        start.wait()
        for value in range(1, 21):
            store.update(**{name: value})

    workers = [threading.Thread(target=change, args=(name,)) for name in fields]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert all(getattr(store.current, name) == 20 for name in fields)
    assert len(heard) == 20 * len(fields)
    assert all(heard[i][1] == heard[i + 1][0] for i in range(len(heard) - 1))
    assert settings.load() == store.current


@pytest.mark.parametrize(
    ("change", "reopens"),
    [
        ({"theme": "dark"}, False),
        ({"language": "zh_CN"}, False),
        ({"memory_paused": True}, False),
        ({"consolidate_every_turns": 9, "consolidate_idle_seconds": 9}, False),
        ({"hf_endpoint": "https://hf-mirror.com", "disable_xet": True}, False),
        ({"small_model": "qwen2.5-0.5b-instruct"}, True),
        ({"large_model": "qwen2.5-0.5b-instruct"}, True),
        ({"context_size": 2048}, True),
        ({"max_answer_tokens": 64}, True),
        ({"cloud": CloudSettings(enabled=True)}, True),
    ],
)
def test_only_what_a_session_reads_at_opening_reopens_it(
    change: dict[str, object], reopens: bool
) -> None:
    assert needs_reopen(Settings(), dataclasses.replace(Settings(), **change)) is reopens


def test_a_model_is_chosen_for_a_role_and_saved(engram_home: Path) -> None:
    store = SettingsStore.load()
    chosen = store.choose_models(large="qwen2.5-0.5b-instruct")
    assert chosen.model_for("large") == "qwen2.5-0.5b-instruct" == settings.load().large_model
    assert chosen.model_for("small") == store.current.small_model  # the others unchanged
    assert [chosen.model_for(role) for role in settings.ROLES] == [
        chosen.small_model,
        chosen.large_model,
        chosen.embedding_model,
    ]


def test_the_qt_signal_arrives_on_the_ui_thread_whichever_thread_changed_the_settings(
    qtbot: QtBot, engram_home: Path
) -> None:
    store = SettingsStore.load()
    signals = SettingsSignals(store)
    arrived: list[tuple[str, bool]] = []
    ui = QThread.currentThread()

    def heard(_old: Settings, new: Settings) -> None:
        arrived.append((new.theme, QThread.currentThread() == ui))

    signals.changed.connect(heard)
    changer = threading.Thread(target=lambda: store.update(theme="dark"))
    changer.start()
    changer.join()
    assert arrived == []  # queued: delivered by the UI thread's event loop
    qtbot.waitUntil(lambda: arrived == [("dark", True)], timeout=5_000)
    signals.close()
    store.update(theme="light")  # no longer listening
    qtbot.wait(50)
    assert arrived == [("dark", True)]


# -- windows and the worker follow the one store ---------------------------------------------


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    # The large model is not installed here; any answer will do.
    settings.save(Settings(large_model="qwen2.5-0.5b-instruct", max_answer_tokens=16))
    win = MainWindow(SettingsStore.load(), loaded_models)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.turns.ready, timeout=LOAD_TIMEOUT_MS)
    yield win
    win.close()


def _session_settings(window: MainWindow) -> Settings:
    session = window.worker.app.session
    assert session is not None
    return session.settings


@pytest.mark.slow
def test_a_model_chosen_in_the_model_manager_is_used_without_a_restart(
    qtbot: QtBot, window: MainWindow
) -> None:
    manager = window.show_models()
    with qtbot.waitSignal(window.worker.loaded, timeout=LOAD_TIMEOUT_MS):
        manager.use("smollm2-135m-instruct", "large")
    qtbot.waitUntil(lambda: window.turns.ready, timeout=LOAD_TIMEOUT_MS)
    assert _session_settings(window).large_model == "smollm2-135m-instruct"
    assert settings.load().large_model == "smollm2-135m-instruct"
    # The large model answers now, in this run (before, only after a restart).
    window.ask_large("Say hello.")
    assert window.turns.busy
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = window.chat.latest("assistant")
    assert answer is not None and answer.text
    captions = [w.text() for w in answer.findChildren(QLabel) if w.objectName() == "bubble_caption"]
    assert captions == ["Answered by the large model"]  # not the small one
    assert not window.notice.isVisible()


def test_open_windows_keep_each_others_saved_changes(qtbot: QtBot, window: MainWindow) -> None:
    browser = window.show_memories()
    dialog = window.show_settings()
    dialog.answer_tokens.setValue(64)
    with qtbot.waitSignal(window.worker.loaded, timeout=LOAD_TIMEOUT_MS):  # a budget: reopens
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    browser.pause_action.trigger()
    for prefs in (settings.load(), window.settings.current):
        assert prefs.max_answer_tokens == 64 and prefs.memory_paused is True
    qtbot.waitUntil(lambda: _session_settings(window).memory_paused, timeout=5_000)
    # The other way round: a dialog opened before the pause does not undo it.
    browser.pause_action.trigger()  # resumed
    dialog = window.show_settings()  # shows "not paused"
    browser.pause_action.trigger()  # paused again
    dialog.idle_seconds.setValue(30)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    for prefs in (settings.load(), window.settings.current):
        assert prefs.memory_paused is True and prefs.consolidate_idle_seconds == 30
        assert prefs.max_answer_tokens == 64
    qtbot.waitUntil(lambda: window._idle.interval() == 30_000, timeout=5_000)
    window.settings.update(memory_paused=False)  # resumed elsewhere: the browser shows it
    qtbot.waitUntil(lambda: not browser.pause_action.isChecked(), timeout=5_000)


def test_appearance_applies_without_reloading_and_a_budget_reloads(
    qtbot: QtBot, window: MainWindow
) -> None:
    loads: list[object] = []
    window.worker.loading.connect(lambda: loads.append(1))
    window.settings.update(theme="dark", language="zh_CN", memory_paused=True)
    qtbot.waitUntil(lambda: _session_settings(window).memory_paused, timeout=5_000)
    session = window.worker.app.session
    assert session is not None and session.assistant.language == "zh_CN"
    assert loads == []
    with qtbot.waitSignal(window.worker.loaded, timeout=LOAD_TIMEOUT_MS):
        window.settings.update(memory_budget_tokens=200)
    assert loads == [1]
    assert window.worker.app.session is not session
    assert _session_settings(window).memory_budget_tokens == 200
