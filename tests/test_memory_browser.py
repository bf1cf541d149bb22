"""The memory browser driven with a real store, real embeddings and its worker thread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.remembering import USER_IMPORTANCE
from engram.assistant.session import embedder_for
from engram.core import paths, settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.records import Provenance
from engram.memory.store import MemoryStore
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.memory_model import PAGE

WAIT_MS = 15_000


@pytest.fixture
def store(starter_models: Path) -> Iterator[MemoryStore]:
    conn = db.connect(paths.database_path())
    yield MemoryStore(conn, embedder_for(tiny.settings()))
    conn.close()


@pytest.fixture
def seeded(store: MemoryStore) -> dict[str, int]:
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("Pets")
    said = log.append(chat.id, "user", "My dog is called Biscuit.")
    dog = store.add("The user's dog is called Biscuit.", "fact", source_episodes=[said.id])
    trip = store.add("用户上周去了杭州旅行。", "fact")
    old = store.add("The user lives in Beijing.", "fact")
    new = store.supersede(old.id, "The user moved to Shanghai.")
    return {"dog": dog.id, "trip": trip.id, "old": old.id, "new": new.id, "chat": chat.id}


@pytest.fixture
def browser(qtbot: QtBot, seeded: dict[str, int]) -> Iterator[MemoryBrowser]:
    window = MemoryBrowser(tiny.settings())
    qtbot.addWidget(window)
    window.show()
    yield window
    window.close()


def _type_with_input_method(widget: QWidget, text: str) -> None:
    """Commit text the way a Chinese input method does (QTest cannot type non-Latin keys)."""
    widget.setFocus()
    event = QInputMethodEvent()
    event.setCommitString(text)
    QApplication.sendEvent(widget, event)


def _shown(browser: MemoryBrowser) -> list[int]:
    return [m.id for m in browser.model.rows]


def _select(browser: MemoryBrowser, memory_id: int) -> None:
    row = next(i for i, memory in enumerate(browser.model.rows) if memory.id == memory_id)
    browser.table.selectRow(row)  # as a click on its row does
    assert browser.current() is not None and browser.current().id == memory_id  # type: ignore[union-attr]


def test_filters_and_search_in_both_languages(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int]
) -> None:
    assert set(_shown(browser)) == {seeded["dog"], seeded["trip"], seeded["new"]}
    browser.status.setCurrentIndex(browser.status.findData("superseded"))
    assert _shown(browser) == [seeded["old"]]
    browser.status.setCurrentIndex(browser.status.findData("active"))

    _type_with_input_method(browser.search, "杭州")
    qtbot.waitUntil(lambda: _shown(browser)[:1] == [seeded["trip"]], timeout=WAIT_MS)
    browser.search.clear()
    qtbot.keyClicks(browser.search, "What is my pet's name?")
    qtbot.waitUntil(lambda: _shown(browser)[:1] == [seeded["dog"]], timeout=WAIT_MS)


def test_edit_pin_restore_and_delete(
    qtbot: QtBot,
    browser: MemoryBrowser,
    seeded: dict[str, int],
    store: MemoryStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _select(browser, seeded["dog"])
    browser.editor.setPlainText("The user's dog is called Biscuit; he is a beagle.")
    qtbot.mouseClick(browser.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "beagle" in store.get(seeded["dog"]).content, timeout=WAIT_MS)  # type: ignore[union-attr]

    qtbot.waitUntil(lambda: browser.current() is not None, timeout=WAIT_MS)
    qtbot.mouseClick(browser.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.get(seeded["dog"]).pinned, timeout=WAIT_MS)  # type: ignore[union-attr]

    browser.status.setCurrentIndex(browser.status.findData("superseded"))
    _select(browser, seeded["old"])
    qtbot.mouseClick(browser.restore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.get(seeded["old"]).status == "active", timeout=WAIT_MS)  # type: ignore[union-attr]

    browser.status.setCurrentIndex(browser.status.findData("active"))
    _select(browser, seeded["trip"])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(browser.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.get(seeded["trip"]) is None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: seeded["trip"] not in _shown(browser), timeout=WAIT_MS)


def test_after_delete_the_editor_is_empty_and_its_buttons_are_off(
    qtbot: QtBot,
    browser: MemoryBrowser,
    seeded: dict[str, int],
    store: MemoryStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _select(browser, seeded["trip"])
    assert browser.editor.toPlainText() == "用户上周去了杭州旅行。"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(browser.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: seeded["trip"] not in _shown(browser), timeout=WAIT_MS)
    assert store.get(seeded["trip"]) is None
    assert browser.current() is None
    assert browser.editor.toPlainText() == ""  # the deleted text is gone from the window too
    for button in (browser.save_button, browser.pin_button, browser.delete_button):
        assert not button.isEnabled()
    assert not browser.editor.isEnabled()

    _select(browser, seeded["dog"])  # a search that leaves the shown memory out: the same
    assert browser.save_button.isEnabled()
    _type_with_input_method(browser.search, "杭州")
    qtbot.waitUntil(lambda: browser.current() is None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: browser.editor.toPlainText() == "", timeout=WAIT_MS)
    assert not browser.save_button.isEnabled()


def test_add_memory_keeps_the_users_words_and_shows_them_at_once(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int], store: MemoryStore
) -> None:
    browser.kind.setCurrentIndex(browser.kind.findData("lesson"))  # a filter that hides it
    browser.search.setText("dog")
    said = "Bullet points, not numbered lists, please."

    def write_it() -> None:
        dialog = browser.add_dialog
        assert not dialog.add_button.isEnabled()  # nothing written yet
        qtbot.keyClicks(dialog.editor, said)
        dialog.choose("preference")
        qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, write_it)
    browser.add_action.trigger()
    qtbot.waitUntil(lambda: browser.current() is not None, timeout=WAIT_MS)
    added = browser.current()
    assert added is not None and added.content == said
    stored = store.get(added.id)
    assert stored is not None and stored.kind == "preference" and stored.origin == "user"
    assert stored.importance == USER_IMPORTANCE and stored.status == "active"
    assert added.id in _shown(browser) and seeded["dog"] in _shown(browser)  # the whole list
    assert browser.search.text() == ""
    assert browser.editor.toPlainText() == said and browser.save_button.isEnabled()

    def cancel() -> None:  # the dialog opened next
        browser.add_dialog.reject()

    QTimer.singleShot(0, cancel)  # Cancel adds nothing
    browser.add_action.trigger()
    assert len(store.memories(statuses=None)) == 5


def test_the_details_say_who_wrote_the_memory_last(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int], store: MemoryStore
) -> None:
    _select(browser, seeded["dog"])
    assert "Last written: Unknown" in browser.details.text()  # the seeding store did not say
    browser.editor.setPlainText("The user's dog is called Biscuit; he is nine.")
    qtbot.mouseClick(browser.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "nine" in store.get(seeded["dog"]).content, timeout=WAIT_MS)  # type: ignore[union-attr]
    assert [(w.change, w.via) for w in store.writes(seeded["dog"])][-1] == ("content", "user")
    # The browser reloads after the save and shows the memory again, now written by the user.
    qtbot.waitUntil(lambda: "Last written: You" in browser.details.text(), timeout=WAIT_MS)
    assert browser.current().id == seeded["dog"]  # type: ignore[union-attr]


def test_the_history_shows_engrams_change_and_undo_puts_the_users_words_back(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int], store: MemoryStore
) -> None:
    mine = store.get(seeded["dog"]).content
    rewritten = "The user has a dog named Biscuit who likes long walks."
    with store.writing(Provenance("distiller", model="qwen2.5-1.5b-instruct")):
        store.update(seeded["dog"], rewritten)
    browser.refresh()
    _select(browser, seeded["dog"])
    history = browser.history.widget().findChildren(QLabel)
    newest = history[0].text()
    assert "Engram's learning (qwen2.5-1.5b-instruct)" in newest and mine in newest
    assert len(browser.history.undo_buttons) == 1

    qtbot.mouseClick(browser.history.undo_buttons[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.get(seeded["dog"]).content == mine, timeout=WAIT_MS)
    assert [(w.via, w.before) for w in store.writes(seeded["dog"])][-1] == ("user", rewritten)
    qtbot.waitUntil(lambda: browser.editor.toPlainText() == mine, timeout=WAIT_MS)
    newest = browser.history.widget().findChildren(QLabel)[0].text()
    assert newest.splitlines()[0].endswith("(undo)") and rewritten in newest
    assert "You" in newest and not browser.history.undo_buttons  # nothing of Engram's left to undo


def test_undoing_a_replacement_from_the_new_memory_brings_the_old_one_back(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int], store: MemoryStore
) -> None:
    old = store.add("The user works as a nurse.", origin="local")
    with store.writing(Provenance("distiller", model="qwen2.5-1.5b-instruct")):
        new = store.supersede(old.id, "The user works as a teacher.", origin="local")
    browser.refresh()
    _select(browser, new.id)
    assert any(
        old.content in label.text() for label in browser.history.widget().findChildren(QLabel)
    )
    (undo,) = browser.history.undo_buttons
    qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: store.get(old.id).status == "active", timeout=WAIT_MS)
    assert store.get(new.id).status == "archived"
    qtbot.waitUntil(lambda: browser.editor.toPlainText() == old.content, timeout=WAIT_MS)


def test_provenance_jumps_to_the_chat(
    qtbot: QtBot, browser: MemoryBrowser, seeded: dict[str, int]
) -> None:
    _select(browser, seeded["dog"])
    qtbot.waitUntil(lambda: browser.sources.count() == 1, timeout=WAIT_MS)
    item = browser.sources.item(0)
    assert "My dog is called Biscuit." in item.text()
    with qtbot.waitSignal(browser.open_conversation, timeout=WAIT_MS) as opened:
        browser.sources.itemDoubleClicked.emit(item)
    assert opened.args == [seeded["chat"]]


def test_export_forget_import_round_trip(
    qtbot: QtBot, browser: MemoryBrowser, store: MemoryStore, tmp_path: Path
) -> None:
    jsonl = tmp_path / "memories.jsonl"
    markdown = tmp_path / "memories.md"
    browser.export_requested.emit(str(jsonl), "jsonl")
    browser.export_requested.emit(str(markdown), "markdown")
    qtbot.waitUntil(lambda: jsonl.exists() and markdown.exists(), timeout=WAIT_MS)
    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert sum(1 for line in lines if line["type"] == "memory") == 4
    assert "杭州" in markdown.read_text(encoding="utf-8")

    memories, chats, messages = browser.forget_summary()
    assert (memories, chats, messages) == (4, 1, 1)
    browser.forget_requested.emit(False)
    qtbot.waitUntil(lambda: browser.model.rowCount() == 0, timeout=WAIT_MS)
    assert store.memories(statuses=None) == []
    assert browser.forget_summary() == (0, 1, 1)  # the chat stays unless asked

    browser.import_requested.emit(str(jsonl))
    qtbot.waitUntil(lambda: len(store.memories(statuses=None)) == 4, timeout=WAIT_MS)


def test_a_failed_import_is_reported_and_changes_nothing(
    qtbot: QtBot,
    browser: MemoryBrowser,
    store: MemoryStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "engram-memories", "version": 1}\n{not json\n', encoding="utf-8")
    browser.import_requested.emit(str(bad))
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    assert shown[0].startswith("Line 2 of the import file is invalid")
    assert len(store.memories(statuses=None)) == 4


def test_pause_memory_is_saved(browser: MemoryBrowser) -> None:
    browser.pause_action.trigger()
    assert settings.load().memory_paused is True
    browser.pause_action.trigger()
    assert settings.load().memory_paused is False


def test_large_stores_are_fetched_a_page_at_a_time(
    qtbot: QtBot, store: MemoryStore, starter_models: Path
) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((PAGE * 3, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.add_many([f"Synthetic memory number {i}" for i in range(PAGE * 3)], vectors=vectors)
    window = MemoryBrowser(tiny.settings())
    qtbot.addWidget(window)
    assert window.model.rowCount() == PAGE
    assert window.model.canFetchMore()
    window.model.fetchMore()
    assert window.model.rowCount() == 2 * PAGE
    window.close()


EMPTY = {"en": "No memories yet", "zh_CN": "还没有记忆"}


def test_an_empty_browser_says_what_memories_are_and_how_to_add_one(
    qtbot: QtBot, ui_language: str, store: MemoryStore
) -> None:
    window = MemoryBrowser(tiny.settings(language=ui_language))
    qtbot.addWidget(window)
    window.show()
    assert window.empty_state.isVisible() and not window.table.isVisible()
    assert EMPTY[ui_language] in window.empty_state.text()
    assert ("remember this:" if ui_language == "en" else "记住") in window.empty_state.text()
    store.add("The user's cat is called Miso.", "fact")
    window.refresh()
    assert window.table.isVisible() and not window.empty_state.isVisible()
    window.close()


def test_the_table_and_its_sources_follow_the_dark_theme(
    qtbot: QtBot, seeded: dict[str, int]
) -> None:
    from engram.ui import theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = (app.palette(), app.styleSheet())
    theme.apply(app, "dark")
    try:
        window = MemoryBrowser(tiny.settings(theme="dark"))
        qtbot.addWidget(window)
        window.resize(1100, 700)
        window.show()
        qtbot.waitExposed(window)
        for view in (window.table, window.sources):
            image = view.viewport().grab().toImage()
            corner = image.pixelColor(image.width() - 3, image.height() - 3)
            assert corner.lightness() < 80, (view.accessibleName(), corner.name())
        window.close()
    finally:
        app.setPalette(before[0])
        app.setStyleSheet(before[1])


def test_a_lesson_shows_its_record_and_a_retired_one_can_be_restored(
    qtbot: QtBot, store: MemoryStore
) -> None:
    from engram.memory.injections import Injections
    from engram.memory.outcomes import Outcomes

    log = EpisodeLog(store.conn)
    chat = log.new_conversation("Runs").id
    lesson = store.add(
        "When asked for distances, give km, because the user thinks in km.", "lesson"
    )
    outcomes = Outcomes(store)
    for n, kind in enumerate(("thumbs_up", "thumbs_down", "thumbs_down", "thumbs_down")):
        log.append(chat, "user", f"How far is run {n}?")
        answer = log.append(chat, "assistant", f"{n} miles").id
        Injections(store.conn).record(answer, [(lesson.id, 0.9)])
        outcomes.record(answer, kind, kind == "thumbs_up")
    retired = store.get(lesson.id)
    assert retired is not None and retired.status == "archived"  # hurt 3, helped 1
    window = MemoryBrowser(tiny.settings())
    qtbot.addWidget(window)
    window.show()
    window.status.setCurrentIndex(window.status.findData(None))  # any status
    window.select_memory(lesson.id)
    details = window.details.text()
    assert "Given to 4 answers · helped 1 · hurt 3" in details and "Retired" in details
    assert window.restore_button.isEnabled()
    with qtbot.waitSignal(window.worker.changed, timeout=10_000):
        window.restore_button.click()
    qtbot.waitUntil(lambda: (store.get(lesson.id) or retired).status == "active")
    window.close()


def test_a_source_answer_shows_its_words_without_the_markdown_around_them(
    qtbot: QtBot, store: MemoryStore
) -> None:
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("学习计划")
    answer = log.append(
        chat.id,
        "assistant",
        "这周可以这样安排：\n\n1. **周一**：读完*梯度下降*这一章\n2. `fit()` 见 [文档](http://x)"
        "\n\n<b>raw</b>",
    )
    plan = store.add("循序渐进学习机器学习。", "plan", source_episodes=[answer.id])
    window = MemoryBrowser(tiny.settings())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: plan.id in _shown(window), timeout=WAIT_MS)
    _select(window, plan.id)
    qtbot.waitUntil(lambda: window.sources.count() == 1, timeout=WAIT_MS)
    item = window.sources.item(0)
    assert item.text().splitlines() == [
        "Engram: 这周可以这样安排：",
        "1. 周一：读完梯度下降这一章",
        "2. fit() 见 文档",
        "<b>raw</b>",  # typed HTML is text, shown as typed
    ]
    assert "周一：读完梯度下降这一章" in item.toolTip() and "**" not in item.toolTip()
    assert "&lt;b&gt;raw&lt;/b&gt;" in item.toolTip()  # the tooltip shows the tags too
    window.close()
