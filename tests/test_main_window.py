"""The main window driven like a user would, with the real starter model on its own thread."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import apsw
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, Qt, Slot
from PySide6.QtGui import QEnterEvent, QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox, QInputDialog, QLabel
from pytestqt.exceptions import TimeoutError
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import LoadedModels, MemoryState
from engram.assistant.events import Forgotten, Learned, Status, Token, Truncated
from engram.core import paths, settings
from engram.memory import db, pause
from engram.memory.episodes import EpisodeLog
from engram.models import catalogue, hardware
from engram.ui import toast
from engram.ui.main_window import MainWindow
from engram.ui.plan_panel import PLAN_WIDTH
from engram.ui.prompt_dialog import PromptDialog
from engram.ui.settings_dialog import SettingsDialog

LOAD_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 60_000
STOP_TOKENS = 16  # tokens already on their way to the window when Stop is clicked, at most


def _open(
    qtbot: QtBot,
    prefs: settings.Settings | settings.SettingsStore | None = None,
    wait_loaded: bool = True,
    models: LoadedModels | None = None,
) -> MainWindow:
    window = MainWindow(prefs or tiny.settings(), models)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    if wait_loaded:
        qtbot.waitUntil(lambda: window.turns.ready, timeout=LOAD_TIMEOUT_MS)
    return window


@pytest.fixture
def window(qtbot: QtBot, loaded_models: LoadedModels) -> Iterator[MainWindow]:
    win = _open(qtbot, models=loaded_models)
    yield win
    win.close()


def _stored() -> list[tuple[str, str, str]]:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return conn.execute("SELECT role, content, status FROM episodes ORDER BY id").fetchall()
    finally:
        conn.close()


def _collect(window: MainWindow, kind: type) -> list[str]:
    """The text of every ``kind`` event (Token, Truncated) the worker emits from now on."""
    found: list[str] = []
    window.worker.turn_event.connect(
        lambda e: found.append(e.text) if isinstance(e, kind) else None
    )
    return found


def _type_and_enter(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.composer.setFocus()
    qtbot.keyClicks(window.composer, text)
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)


@pytest.mark.slow
def test_enter_sends_and_the_answer_streams_into_the_window(
    qtbot: QtBot, window: MainWindow
) -> None:
    tokens = _collect(window, Token)
    shown: list[str] = []
    _type_and_enter(qtbot, window, "What is the capital of France?")
    assert window.composer.toPlainText() == ""
    qtbot.waitUntil(lambda: window.turns.busy, timeout=5_000)
    qtbot.waitUntil(
        lambda: shown.append(window.chat.bubbles()[-1].text) or not window.turns.busy,
        timeout=ANSWER_TIMEOUT_MS,
    )
    bubbles = window.chat.bubbles()
    assert [b.role for b in bubbles] == ["user", "assistant"]
    answer = bubbles[-1].text
    assert answer.strip() and answer == "".join(tokens)
    assert len(tokens) > 1  # streamed, not delivered at once
    assert len({s for s in shown if s}) > 1  # the bubble grew while streaming
    assert _stored() == [
        ("user", "What is the capital of France?", "complete"),
        ("assistant", answer, "complete"),
    ]


def test_shift_enter_is_a_newline_and_blank_messages_are_not_sent(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.composer.setFocus()
    qtbot.keyClick(window.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.composer, "   ")
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)
    assert not window.turns.busy
    assert window.chat.bubbles() == []
    assert "\n" in window.composer.toPlainText()
    assert _stored() == []


@pytest.mark.slow
def test_stop_ends_a_running_answer_within_a_few_tokens(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    # How fast, in seconds, is bench/ui.py's business (stop latency).
    window = _open(qtbot, tiny.settings(max_answer_tokens=3000), models=loaded_models)
    tokens = _collect(window, Token)
    _type_and_enter(qtbot, window, "Write a very long story about a dragon and a knight.")
    qtbot.waitUntil(lambda: len(tokens) >= 5, timeout=ANSWER_TIMEOUT_MS)
    with qtbot.waitSignal(window.worker.busy_changed, timeout=5_000):
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
        at_stop = len(tokens)
    assert len(tokens) - at_stop < STOP_TOKENS  # of 3000 allowed: the stop was observed
    stored = _stored()
    assert stored[-1][0] == "assistant" and stored[-1][2] == "cancelled"
    assert stored[-1][1] == window.chat.bubbles()[-1].text != ""
    qtbot.waitUntil(lambda: window.chat.bubbles()[-1].marker.text() == "Stopped", timeout=5_000)
    window.close()
    reopened = _open(qtbot, wait_loaded=False, models=loaded_models)
    assert reopened.chat.bubbles()[-1].marker.text() == "Stopped"  # from the stored status
    reopened.close()


@pytest.mark.slow
def test_escape_stops_too(qtbot: QtBot, loaded_models: LoadedModels) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=3000), models=loaded_models)
    tokens = _collect(window, Token)
    _type_and_enter(qtbot, window, "Write a very long story about a dragon and a knight.")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=ANSWER_TIMEOUT_MS)
    with qtbot.waitSignal(window.worker.busy_changed, timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert _stored()[-1][2] == "cancelled"
    window.close()


@pytest.mark.slow
def test_restart_shows_the_conversation_again(qtbot: QtBot, loaded_models: LoadedModels) -> None:
    first = _open(qtbot, tiny.settings(max_answer_tokens=16), models=loaded_models)
    _type_and_enter(qtbot, first, "Hello there")
    qtbot.waitUntil(lambda: len(_stored()) == 2, timeout=ANSWER_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not first.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = first.chat.bubbles()[-1].text
    first.close()
    second = _open(qtbot, wait_loaded=False, models=loaded_models)
    assert [(b.role, b.text) for b in second.chat.bubbles()] == [
        ("user", "Hello there"),
        ("assistant", answer),
    ]
    qtbot.waitUntil(lambda: second.turns.ready, timeout=LOAD_TIMEOUT_MS)
    second.close()


@pytest.mark.slow
def test_closing_mid_answer_keeps_the_text_and_stops_the_thread(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=3000), models=loaded_models)
    tokens = _collect(window, Token)
    _type_and_enter(qtbot, window, "Write a very long poem about the sea.")
    qtbot.waitUntil(lambda: len(tokens) >= 3, timeout=ANSWER_TIMEOUT_MS)
    window.close()
    assert not window._thread.isRunning()
    role, content, status = _stored()[-1]
    assert (role, status) == ("assistant", "cancelled")
    assert content.startswith("".join(tokens[:3]))


@pytest.mark.slow
def test_a_huge_paste_is_accepted_and_truncated_with_a_notice(
    qtbot: QtBot, starter_models: Path
) -> None:
    # A small context keeps the prompt evaluation (about 250 tokens/s here) short.
    window = _open(qtbot, tiny.settings(context_size=1024, max_answer_tokens=16))
    notices = _collect(window, Truncated)
    huge = "The quick brown fox jumps over the lazy dog. " * 23_000  # about 1 MB
    window.composer.setPlainText(huge)
    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.turns.busy, timeout=5_000)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    assert notices and "too long" in notices[0]
    assert window.notice.isVisible() and "too long" in window.notice.text()
    stored = _stored()
    assert stored[0] == ("user", huge, "complete")  # nothing lost
    assert stored[1][0] == "assistant"
    window.close()


def test_missing_model_still_opens_the_window_and_says_how_to_fix_it(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "empty-models"))
    window = _open(qtbot, wait_loaded=False)
    qtbot.waitUntil(window.notice.isVisible, timeout=LOAD_TIMEOUT_MS)
    assert "SmolLM2-135M-Instruct.Q4_1.gguf is missing" in window.notice.text()
    assert f"engram models download {tiny.MODEL}" in window.notice.text()
    assert not window.send_button.isEnabled()
    window.close()


def test_corrupt_model_file_is_named(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, starter_models: Path
) -> None:
    models = tmp_path / "models"
    target = models / "smollm2-135m-instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"GGUF" + b"\x07" * 4096)  # right magic, wrong everything else
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(models))
    window = _open(qtbot, wait_loaded=False)
    qtbot.waitUntil(window.notice.isVisible, timeout=LOAD_TIMEOUT_MS)
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in window.notice.text()
    assert f"engram models download {tiny.MODEL}" in window.notice.text()
    window.close()


def _seed_memory(content: str) -> int:
    from engram.assistant.session import embedder_for
    from engram.memory import db
    from engram.memory.store import MemoryStore

    conn = db.connect(paths.database_path())
    try:
        store = MemoryStore(conn, embedder_for(tiny.settings()))
        return store.add(content, "fact", origin="local").id  # learned: recalled when relevant
    finally:
        conn.close()


def _feedback(memory_id: int) -> int:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return int(
            conn.execute("SELECT feedback FROM memories WHERE id = ?", (memory_id,)).fetchall()[0][
                0
            ]
        )
    finally:
        conn.close()


def _seed_answer_given(memory_id: int) -> int:
    """A stored chat whose answer was given ``memory_id``; returns the answer's id."""
    from engram.memory.injections import Injections

    conn = db.connect(paths.database_path())
    try:
        log = EpisodeLog(conn)
        chat = log.new_conversation("Bikes").id
        log.append(chat, "user", "What bike do I ride?")
        answer = log.append(chat, "assistant", "A red Brompton.").id
        Injections(conn).record(answer, [(memory_id, 1.0)])
        return answer
    finally:
        conn.close()


def test_this_is_wrong_on_a_chip_is_a_memory_wrong_signal_on_its_answer(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    bike = _seed_memory("The user's bike is a red Brompton.")
    answer = _seed_answer_given(bike)
    window = _open(qtbot, models=loaded_models)  # the stored chat, its answer's chips
    bubble = window.chat.bubbles()[-1]
    qtbot.waitUntil(lambda: bubble.chips is not None, timeout=5_000)
    assert bubble.chips is not None
    chip = bubble.chips.buttons[0]
    wrong = next(a for a in chip.menu().actions() if a.text() == "This is wrong")
    wrong.trigger()
    qtbot.waitUntil(lambda: _signals() != [], timeout=5_000)
    assert _signals() == [(answer, "memory_wrong", "The user's bike is a red Brompton.")]
    assert _feedback(bike) == -1 and chip.objectName() == "chip_wrong"
    thanks = "Thanks: Engram will learn from this."  # as for a thumb
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == thanks, timeout=5_000)
    window.close()


@pytest.mark.slow
def test_answers_show_their_memories_as_chips_and_wrong_gives_feedback(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    dog = _seed_memory("The user's dog is called Biscuit.")
    window = _open(qtbot, tiny.settings(max_answer_tokens=32), models=loaded_models)
    _type_and_enter(qtbot, window, "What is my dog called?")
    qtbot.waitUntil(lambda: window.turns.busy, timeout=5_000)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = window.chat.bubbles()[-1]
    assert answer.chips is not None
    assert [item.memory_id for item in answer.chips.items] == [dog]
    chip = answer.chips.buttons[0]
    assert "Biscuit" in chip.toolTip()
    live = chip.objectName()  # "chip_used" when the answer repeats the memory, else "chip"
    wrong = next(a for a in chip.menu().actions() if a.text() == "This is wrong")
    wrong.trigger()
    qtbot.waitUntil(lambda: _feedback(dog) == -1, timeout=5_000)
    assert chip.objectName() == "chip_wrong"
    assert [kind for _answer, kind, _text in _signals()] == ["memory_wrong"]
    window.close()

    reopened = _open(qtbot, models=loaded_models)
    old_answer = reopened.chat.bubbles()[-1]
    qtbot.waitUntil(lambda: old_answer.chips is not None, timeout=5_000)
    assert old_answer.chips is not None
    assert [item.memory_id for item in old_answer.chips.items] == [dog]
    assert old_answer.chips.buttons[0].objectName() == live  # used or not, as when it was new
    reopened.close()


@pytest.mark.slow
def test_sidebar_lists_searches_switches_renames_and_deletes(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=16), models=loaded_models)
    for text in ("Tell me about Hangzhou", "Name a colour"):
        window.new_conversation()
        _answer(qtbot, window, text)
    assert window.sidebar.titles() == ["Name a colour", "Tell me about Hangzhou"]
    assert window.sidebar.list.item(0).text() == "Today"  # the heading above them

    window.sidebar.search.setText("hangzhou")
    qtbot.waitUntil(lambda: len(window.sidebar.chat_items()) == 1, timeout=5_000)
    hangzhou = window.sidebar.chat_items()[0]
    qtbot.mouseClick(
        window.sidebar.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=window.sidebar.list.visualItemRect(hangzhou).center(),
    )
    assert window.chat.bubbles()[0].text == "Tell me about Hangzhou"
    shown = window.conversation_id

    window.sidebar.rename_requested.emit(shown, "Travel")
    window.sidebar.search.clear()
    qtbot.waitUntil(lambda: "Travel" in window.sidebar.titles(), timeout=5_000)
    window.sidebar.delete_requested.emit(shown)
    qtbot.waitUntil(lambda: len(window.sidebar.chat_items()) == 1, timeout=5_000)
    assert window.conversation_id == 0 and window.chat.bubbles() == []
    assert [r for r in _stored() if r[1] == "Tell me about Hangzhou"] == []
    window.close()


def test_answers_render_markdown_with_highlighted_code_and_a_copy_link(
    qtbot: QtBot, window: MainWindow
) -> None:
    bubble = window.chat.add(
        "assistant",
        "# Plan\n\n- **one**\n\n```python\nprint('hi')\n```\n\n<b>raw</b>\n\n"
        "![a cat](file:///home/user/secret.png) ![](javascript:alert(1))",
    )
    html = bubble.label.text()
    assert "<h1>Plan</h1>" in html and "<strong>one</strong>" in html
    assert "&lt;b&gt;raw&lt;/b&gt;" in html  # raw HTML from a model is shown, never rendered
    assert "<img" not in html and "a cat" in html  # an image is its description, never loaded
    assert "color:" in html  # the code block is highlighted
    assert bubble.code_blocks == ["print('hi')\n"]
    bubble.label.linkActivated.emit("copy:0")
    assert QGuiApplication.clipboard().text() == "print('hi')\n"
    user = window.chat.add("user", "**not markdown**")
    assert user.label.textFormat() == Qt.TextFormat.PlainText


@pytest.mark.slow
def test_regenerate_and_edit_replace_the_latest_turn(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QInputDialog

    window = _open(qtbot, tiny.settings(max_answer_tokens=16), models=loaded_models)
    _answer(qtbot, window, "Name a fruit")
    answer = window.chat.bubbles()[-1]
    assert answer.episode_id and answer.prompt is not None
    assert answer.prompt.tokens["user"] > 0

    _answer_after(qtbot, window, lambda: answer.action.emit("regenerate", answer))
    assert [role for role, _c, _s in _stored()] == ["user", "assistant"]
    assert _stored()[0][1] == "Name a fruit"

    monkeypatch.setattr(
        QInputDialog, "getMultiLineText", lambda *a, **k: ("Name a vegetable", True)
    )
    user = window.chat.bubbles()[0]
    _answer_after(qtbot, window, lambda: user.action.emit("edit", user))
    assert _stored()[0][:2] == ("user", "Name a vegetable")
    assert len(_stored()) == 2
    assert [b.role for b in window.chat.bubbles()] == ["user", "assistant"]
    window.close()


@pytest.mark.slow
def test_settings_open_with_ctrl_comma_and_saving_restarts_the_assistant(
    qtbot: QtBot, window: MainWindow
) -> None:
    qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.answer_tokens.setValue(64)
    with qtbot.waitSignal(window.worker.loaded, timeout=LOAD_TIMEOUT_MS):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=LOAD_TIMEOUT_MS)
    assert window.settings.current.max_answer_tokens == 64
    assert window.worker.app.session is not None
    assert window.worker.app.session.assistant.max_answer_tokens == 64
    _type_and_enter(qtbot, window, "Hi")
    qtbot.waitUntil(lambda: window.turns.busy, timeout=5_000)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    assert [role for role, _c, _s in _stored()] == ["user", "assistant"]


@pytest.mark.slow
def test_ask_the_large_model_marks_the_answer(qtbot: QtBot, loaded_models: LoadedModels) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=16), models=loaded_models)
    window.composer.setFocus()
    qtbot.keyClicks(window.composer, "Say hello")
    ask_large = Qt.KeyboardModifier.ControlModifier
    _answer_after(
        qtbot, window, lambda: qtbot.keyClick(window.composer, Qt.Key.Key_Return, ask_large)
    )
    answer = window.chat.bubbles()[-1]
    captions = [w.text() for w in answer.findChildren(QLabel) if w.objectName() == "bubble_caption"]
    assert captions == []  # small and large are the same file here: nothing to tell
    assert _stored()[-1][0] == "assistant"
    window.close()


def test_the_model_manager_opens_from_the_main_window(qtbot: QtBot, window: MainWindow) -> None:
    manager = window.show_models()
    assert manager.isVisible()
    assert "smollm2-135m-instruct" in manager.rows
    assert window.show_models() is manager  # raised, not opened twice
    window.close()
    assert not manager.isVisible()


@pytest.mark.slow
def test_the_status_bar_follows_learning_and_the_large_model(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    prefs = tiny.settings(learn_with_small_models=True, max_answer_tokens=16)
    window = _open(qtbot, prefs, models=loaded_models)
    seen: list[tuple[str, str, str]] = []  # (state, learning label, large-model label)

    class Watcher(QObject):
        """On the UI thread, after the window's own slot: the labels show this status."""

        @Slot(object)
        def on_status(self, status: Status) -> None:
            seen.append(
                (status.state, window.learning_state.full_text(), window.large_state.text())
            )

    watcher = Watcher()
    window.worker.learning_status.connect(watcher.on_status)
    qtbot.waitUntil(lambda: window.large_state.text() == "Large model: not loaded")
    _type_and_enter(qtbot, window, "My sister Anna moved to Lisbon and teaches piano there.")
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: any(s == "distilling" for s, _, _ in seen) and seen[-1][0] == "idle",
        timeout=120_000,
    )
    assert ("distilling", "Learning… 0% · loading the model", "Large model: loading") in seen
    progress = [text for state, text, _ in seen if state == "distilling"]
    assert any(" · reading the chat" in text for text in progress)
    assert progress[-1] == "Learning… 100% · saving"
    assert seen[-1][1:] == ("Memory up to date", "Large model: loaded")
    assert not window.retry_button.isVisible()
    window.close()


def _answer(qtbot: QtBot, window: MainWindow, text: str) -> None:
    _answer_after(qtbot, window, lambda: _type_and_enter(qtbot, window, text))


def _answer_after(qtbot: QtBot, window: MainWindow, action: Callable[[], object]) -> None:
    """Do what starts an answer and wait until it has ended (a short one may end before a
    check for its start would run)."""
    with qtbot.waitSignal(window.worker.busy_changed, check_params_cb=lambda busy: not busy,
                          timeout=ANSWER_TIMEOUT_MS):  # fmt: skip
        action()
    # The worker says so from its thread; the window hears it once its queued slot has run.
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)


@pytest.mark.slow
def test_remembered_is_a_passing_toast_and_remember_says_when_it_will_learn(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 600_000)  # however slow the answer, still showing
    window = _open(qtbot, tiny.settings(max_answer_tokens=8), models=loaded_models)
    _answer(qtbot, window, "remember this: my cat is called Miso")
    assert window.notice.isVisible() and window.notice.kind == "toast"
    assert window.notice.text() == "Remembered: my cat is called Miso"
    assert window.notice.close_button.isVisible()

    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)  # all of it is queued
    qtbot.waitUntil(lambda: window.notice.text().startswith("Nothing new to learn"))
    _answer(qtbot, window, "Which season comes after winter?")
    window.worker.learning_status.disconnect(window.show_learning)  # the tiny model cannot learn
    window.show_learning(Status("distilling", 0.4, queued=1))
    qtbot.mouseClick(window.remember_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "when the current lesson is done" in window.notice.text())
    assert window.notice.kind == "toast"
    window.new_conversation()
    assert not window.notice.isVisible()  # a toast does not follow the user to another chat
    window.close()


def test_memory_updated_toast_names_what_was_learned_and_manage_shows_only_those(
    qtbot: QtBot, window: MainWindow
) -> None:
    cat = _seed_memory("The user's cat is called Miso.")
    _seed_memory("The user plays the cello.")  # older, not part of this lesson
    city = _seed_memory("The user lives in Lyon.")
    learned = (Learned(cat, "add", "The user's cat is called Miso."),
               Learned(city, "update", "The user lives in Lyon."))  # fmt: skip
    window.worker.learning_status.emit(Status("idle", learned=learned))
    text = window.notice.text()
    assert window.notice.isVisible() and window.notice.kind == "toast"
    assert text.startswith("Memory updated: 1 new, 1 changed")
    assert "+ The user's cat is called Miso." in text and "~ The user lives in Lyon." in text
    window.notice.label.linkActivated.emit("manage")
    browser = window.memory_browser
    assert browser is not None and browser.isVisible()
    shown = [browser.model.memory(row) for row in range(browser.model.rowCount())]
    assert [m.id for m in shown if m is not None] == [cat, city]


LILY = (
    "The user's daughter Lily turns seven in May; for her party the user recommends bringing "
    "a new favourite toy or a book about dinosaurs, which she loves."
)
GARDEN = " ".join(
    f"In spring {n} the user planted tomatoes, basil and beans along the south fence"
    for n in range(2020, 2026)
)


def test_what_learning_wrote_stays_until_read_and_is_named_whole(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 50)
    lily, garden = _seed_memory(LILY), _seed_memory(GARDEN)
    learned = (Learned(lily, "add", LILY), Learned(garden, "add", GARDEN))
    window.worker.learning_status.emit(Status("idle", learned=learned))
    text = window.notice.text()
    assert text.startswith("Memory updated: 2 new, 0 changed")
    assert text.splitlines()[1:] == [f"+ {LILY}", f"+ {GARDEN}"]  # each whole, wrapped

    qtbot.wait(300)  # six toast lifetimes: it waits to be read
    assert window.notice.isVisible() and window.notice.text() == text
    window.notices.toast("Thanks: Engram will learn from this.")  # a passing toast over it
    assert window.notice.text().startswith("Thanks")
    qtbot.waitUntil(lambda: window.notice.text() == text, timeout=2_000)  # back once it passed
    window.new_conversation()  # another chat: what learning wrote is not about the chat
    assert window.notice.isVisible() and window.notice.text() == text
    window.notice.label.linkActivated.emit("manage")  # read
    assert not window.notice.isVisible()
    browser = window.memory_browser
    assert browser is not None and {m.id for m in browser.model.rows} == {lily, garden}
    browser.close()


def test_forgot_keeps_its_undo_until_closed_or_the_chat_changes(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 50)
    purged: list[bool] = []
    window.notices.purge_forgotten_requested.connect(lambda: purged.append(True))
    lily = _seed_memory(LILY)
    window.notices.forgotten(Forgotten(lily, LILY))
    qtbot.wait(300)
    assert window.notice.isVisible() and window.notice.text() == f"Forgot: {LILY}"
    assert '<a href="undo">' in window.notice.label.text() and not purged
    with qtbot.waitSignal(window.notices.undo_forget_requested, timeout=1_000) as undone:
        window.notice.label.linkActivated.emit("undo")
    assert undone.args == [Forgotten(lily, LILY)]
    assert window.notice.text() == "Brought back."
    qtbot.waitUntil(lambda: not window.notice.isVisible(), timeout=2_000)  # that one passes
    assert not purged

    window.notices.forgotten(Forgotten(lily, LILY))
    window.new_conversation()  # the undo goes with its chat: deleted for good
    assert not window.notice.isVisible() and purged == [True]


def _signals() -> list[tuple[int, str, str | None]]:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return conn.execute(
            "SELECT answer_episode_id, kind, text FROM signals ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_hover_buttons_copy_and_thumb_an_answer_cut_at_its_limit_with_its_numbers(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=4), models=loaded_models)
    _answer(qtbot, window, "Write a very long story about a dragon and a knight.")
    answer = window.chat.bubbles()[-1]
    assert answer.marker.isVisible()
    assert answer.marker.text() == "Cut at the answer length limit (4 tokens)"
    numbers = window.answer_stats.full_text()
    assert "tokens/s" in numbers and "of 4,096" in numbers
    assert numbers in window.answer_stats.toolTip()

    # The pointer leaves and enters the answer as the window system reports it (a synthetic
    # move on the offscreen platform may land on another test's window left open beside it).
    QCoreApplication.sendEvent(answer, QEvent(QEvent.Type.Leave))
    assert not answer.actions_row.isVisible()
    centre = QPointF(answer.rect().center())
    inside = QPointF(answer.mapToGlobal(answer.rect().center()))
    QCoreApplication.sendEvent(answer, QEnterEvent(centre, centre, inside))
    assert answer.actions_row.isVisible()
    assert set(answer.buttons) == {"copy", "regenerate", "thumbs_up", "thumbs_down", "prompt"}
    assert answer.buttons["prompt"].isVisible()
    qtbot.mouseClick(answer.buttons["copy"], Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == answer.text
    user = window.chat.bubbles()[0]
    assert set(user.buttons) == {"copy", "edit"}

    qtbot.mouseClick(answer.buttons["thumbs_up"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(_signals()) == 1, timeout=5_000)
    monkeypatch.setattr(QInputDialog, "getText", lambda *_args, **_kw: ("too short", True))
    qtbot.mouseClick(answer.buttons["thumbs_down"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(_signals()) == 2, timeout=5_000)
    assert _signals() == [
        (answer.episode_id, "thumbs_up", None),
        (answer.episode_id, "thumbs_down", "too short"),
    ]
    assert answer.buttons["thumbs_down"].isChecked() and not answer.buttons["thumbs_up"].isChecked()

    exported = window.export_chat(str(paths.data_dir() / "chat.md"))
    assert exported is not None
    text = exported.read_text(encoding="utf-8")
    assert text.startswith("# Write a very long story")
    assert "**You**\n\nWrite a very long story about a dragon and a knight." in text
    assert f"**Engram**\n\n{answer.text.strip()}" in text
    window.close()


def test_the_answer_that_replaces_a_regenerated_one_starts_with_its_thumbs_unpressed(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=4), models=loaded_models)
    _answer(qtbot, window, "Name a colour.")
    first = window.chat.bubbles()[-1]
    qtbot.mouseMove(first)
    qtbot.waitUntil(first.actions_row.isVisible, timeout=2_000)
    qtbot.mouseClick(first.buttons["thumbs_up"], Qt.MouseButton.LeftButton)
    assert first.buttons["thumbs_up"].isChecked()
    regenerate = first.buttons["regenerate"]
    clicked_at = regenerate.geometry().center()  # where the pointer stays, in the row

    with qtbot.waitSignal(window.worker.busy_changed, check_params_cb=lambda busy: not busy,
                          timeout=ANSWER_TIMEOUT_MS):  # fmt: skip
        qtbot.mouseClick(regenerate, Qt.MouseButton.LeftButton)
        assert window.turns.busy
        answer = window.chat.bubbles()[-1]
        assert answer is not first
        answer.actions_row.show()  # the pointer is over the new answer while it is written
        QCoreApplication.processEvents()
        for name in ("thumbs_up", "thumbs_down"):
            button = answer.buttons[name]
            assert not button.isChecked()
            assert not button.geometry().contains(clicked_at)  # not hovered: never looks pressed
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = window.chat.bubbles()[-1]
    assert answer.vote == 0
    assert not answer.buttons["thumbs_up"].isChecked()
    assert not answer.buttons["thumbs_down"].isChecked()
    window.close()


def test_the_header_switches_between_installed_models_and_names_a_separate_large_one(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    conn = db.connect(paths.database_path())
    log = EpisodeLog(conn)
    chat = log.new_conversation("Earlier").id
    log.append(chat, "user", "Explain tides")
    log.append(chat, "assistant", "The moon pulls the sea.", model="large")
    conn.close()
    store = settings.SettingsStore(tiny.settings(large_model="qwen2.5-3b-instruct"))
    window = _open(qtbot, store, models=loaded_models)
    captions = [
        w.text()
        for w in window.chat.bubbles()[-1].findChildren(QLabel)
        if w.objectName() == "bubble_caption"
    ]
    assert captions == ["Answered by the large model"]  # another file than the small model
    small, large = window.header.combos["small"], window.header.combos["large"]
    qtbot.waitUntil(lambda: small.count() > 0, timeout=5_000)
    installed = [e.id for e in catalogue.load().for_role("small") if hardware.installed(e)]
    assert [small.itemData(i) for i in range(small.count())] == installed
    assert "smollm2-135m-instruct" in installed
    assert large.currentText() == "qwen2.5-3b-instruct (not installed)"
    index = large.findData("smollm2-135m-instruct")
    large.setCurrentIndex(index)
    large.activated.emit(index)
    assert store.current.large_model == "smollm2-135m-instruct"
    window.close()


def test_tool_calls_show_as_folded_blocks_and_permission_is_asked_inside_the_chat(
    qtbot: QtBot, window: MainWindow
) -> None:
    # A scripted model makes the exact calls (the starter model's own calls are tested in
    # test_tools_turn.py); the window, its worker thread and the tool loop are real.
    from engram.assistant.tools import loop
    from engram.assistant.tools.base import Tool
    from test_tools import ECHO, TEXT, ScriptedModel, _echo, _registry

    guarded = Tool("guarded", "Needs a yes.", "需要同意。", TEXT, _echo, needs_permission=True)
    session = window.worker.app.session
    assert session is not None and session.assistant.tools is not None
    permissions = session.assistant.tools.permissions  # asks in the window, saves the choices
    session.assistant.model = ScriptedModel(  # type: ignore[assignment]
        [
            '{"tool": "guarded", "arguments": {"text": "hi"}}',
            '{"tool": "echo", "arguments": {"text": "again"}}',
            "Done.",
        ]
    )
    session.assistant.tools = loop.Toolbox(_registry(guarded, ECHO), permissions)
    _type_and_enter(qtbot, window, "Use the guarded tool, then echo")
    qtbot.waitUntil(lambda: bool(window._pending_prompts), timeout=ANSWER_TIMEOUT_MS)
    prompt = window._pending_prompts[0]
    assert "guarded" in prompt.question.text()
    assert window.turns.busy  # the answer waits for the user, no dialog
    qtbot.mouseClick(prompt.buttons["always"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    answer = window.chat.bubbles()[-1]
    assert answer.text == "Done."
    assert [(b.name, b.result) for b in answer.tool_blocks] == [
        ("guarded", "echo: hi"),
        ("echo", "echo: again"),
    ]
    block = answer.tool_blocks[0]
    assert block.header.text().startswith("Tool: guarded · ") and block.header.text().endswith(" s")
    assert not block.body.isVisible()
    qtbot.mouseClick(block.header, Qt.MouseButton.LeftButton)
    assert block.body.isVisible() and '"text": "hi"' in block.body.text()
    assert window.settings.current.tools.permissions == {"guarded": "always"}

    window.new_conversation()
    window.open_conversation(window.sidebar.chat_items()[0].data(Qt.ItemDataRole.UserRole))
    stored = window.chat.bubbles()[-1]
    assert [b.role for b in window.chat.bubbles()] == ["user", "assistant"]
    assert [(b.name, b.result) for b in stored.tool_blocks] == [
        ("guarded", "echo: hi"),
        ("echo", "echo: again"),
    ]
    assert answer.prompt is not None
    dialog = PromptDialog(
        answer.prompt, window, [(b.name, b.arguments, b.result) for b in answer.tool_blocks]
    )
    assert "=== Tool call 1: guarded ===" in dialog.view.toPlainText()
    assert "→ echo: again" in dialog.view.toPlainText()


def _status(memory_id: int) -> str | None:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        rows = conn.execute("SELECT status FROM memories WHERE id = ?", (memory_id,)).fetchall()
        return str(rows[0][0]) if rows else None
    finally:
        conn.close()


def _memory_ids() -> list[int]:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return [int(r[0]) for r in conn.execute("SELECT id FROM memories ORDER BY id").fetchall()]
    finally:
        conn.close()


def _say(qtbot: QtBot, window: MainWindow, text: str) -> None:
    """Send ``text`` once the window is idle, and wait until its turn is over."""
    qtbot.waitUntil(lambda: window.turns.ready and not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
    window.submit(text)
    assert window.turns.busy  # accepted
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)


def _wait_notice(qtbot: QtBot, window: MainWindow, start: str) -> None:
    try:
        qtbot.waitUntil(lambda: window.notice.text().startswith(start), timeout=10_000)
    except TimeoutError:
        texts = [b.text for b in window.chat.bubbles()]
        raise AssertionError(f"notice {window.notice.text()!r}, chat {texts}") from None


@pytest.mark.slow
def test_forget_that_in_the_chat_offers_an_undo_and_deletes_when_it_is_gone(
    qtbot: QtBot, loaded_models: LoadedModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toast, "TOAST_MS", 600_000)
    window = _open(qtbot, tiny.settings(max_answer_tokens=8), models=loaded_models)
    _say(qtbot, window, "remember this: my locker code is 4711")
    (code,) = _memory_ids()
    _say(qtbot, window, "forget that")
    _wait_notice(qtbot, window, "Forgot")
    assert window.notice.text() == "Forgot: my locker code is 4711"
    assert _status(code) == "archived"
    assert [b.text for b in window.chat.bubbles()][-1] != "forget that"  # no turn, no bubble
    window.notice.label.linkActivated.emit("undo")
    qtbot.waitUntil(lambda: _status(code) == "active", timeout=5_000)

    _say(qtbot, window, "记住：我的车位是 B12")
    parking = _memory_ids()[-1]
    _say(qtbot, window, "忘掉这个")
    _wait_notice(qtbot, window, "Forgot: 我")
    assert window.notice.text() == "Forgot: 我的车位是 B12"
    qtbot.mouseClick(window.notice.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _status(parking) is None, timeout=5_000)  # deleted for good
    assert _status(code) == "active"
    window.close()


def _conversations() -> list[tuple[int, int]]:
    conn = apsw.Connection(str(paths.database_path()))
    try:
        return conn.execute("SELECT id, temporary FROM conversations ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_a_temporary_chat_is_marked_remembers_nothing_and_is_gone_when_left(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, tiny.settings(max_answer_tokens=8), models=loaded_models)
    qtbot.mouseClick(window.temporary_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.conversation_id != 0, timeout=5_000)
    assert window.temporary_marker.isVisible() and window.temporary_button.isChecked()
    temporary = window.conversation_id
    assert _conversations() == [(temporary, 1)]
    _answer(qtbot, window, "remember this: my PIN is 0000")
    assert window.conversation_id == temporary
    assert _memory_ids() == []
    assert window.notice.text().startswith("This is a temporary chat")

    qtbot.mouseClick(window.temporary_button, Qt.MouseButton.LeftButton)  # off: a normal chat
    assert not window.temporary_marker.isVisible() and window.conversation_id == 0
    qtbot.waitUntil(lambda: _conversations() == [], timeout=5_000)  # deleted with its words
    assert _stored() == []
    window.close()


def _seed_plan() -> int:
    from engram.assistant.session import embedder_for
    from engram.memory.store import MemoryStore

    spec = {"goal": "Run a half marathon", "steps": ["Buy shoes", "Run 5 km", "Run 10 km"],
            "current_step": 0}  # fmt: skip
    conn = db.connect(paths.database_path())
    try:
        store = MemoryStore(conn, embedder_for(tiny.settings()))
        return store.add("The user's goal: Run a half marathon.", "plan", meta={"plan": spec}).id
    finally:
        conn.close()


def _plan_meta(memory_id: int) -> tuple[str, dict[str, object]]:
    import json

    conn = apsw.Connection(str(paths.database_path()))
    try:
        status, meta = conn.execute(
            "SELECT status, meta FROM memories WHERE id = ?", (memory_id,)
        ).fetchall()[0]
        return str(status), json.loads(meta)["plan"]
    finally:
        conn.close()


def test_the_plan_panel_ticks_edits_and_drops_steps_and_a_finished_plan_is_done(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    plan_id = _seed_plan()
    window = _open(qtbot, models=loaded_models)
    panel = window.plan_panel
    assert not panel.isVisible()
    qtbot.mouseClick(window.plan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.plan is not None, timeout=5_000)
    assert panel.isVisible() and panel.goal.text() == "Run a half marathon"
    assert panel.width() >= PLAN_WIDTH * 3 // 4 and window.chat.width() > panel.width()
    assert [panel.steps.item(i).text() for i in range(3)] == ["Buy shoes", "Run 5 km", "Run 10 km"]
    assert panel.steps.item(0).font().bold()  # the current step

    qtbot.mouseClick(panel.tick_button, Qt.MouseButton.LeftButton)
    assert panel.steps.item(1).font().bold() and not panel.steps.item(0).font().bold()
    panel.steps.item(1).setText("Run 5 km without stopping")
    panel.steps.setCurrentRow(2)
    qtbot.mouseClick(panel.drop_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _plan_meta(plan_id)[1]["current_step"] == 1, timeout=5_000)
    assert _plan_meta(plan_id) == (
        "active",
        {"goal": "Run a half marathon", "steps": ["Buy shoes", "Run 5 km without stopping"],
         "current_step": 1},
    )  # fmt: skip

    qtbot.mouseClick(panel.tick_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _plan_meta(plan_id)[0] == "archived", timeout=5_000)
    assert _plan_meta(plan_id)[1]["done"] is True
    qtbot.waitUntil(lambda: panel.plan is None, timeout=5_000)
    assert panel.empty.isVisible()
    window.close()


def test_at_900_px_ten_chips_the_header_and_the_sidebar_all_fit(
    qtbot: QtBot, window: MainWindow
) -> None:
    import time

    from engram.assistant.events import Recalled

    window.resize(900, 700)
    window.chat.add("user", "What do you remember about my projects and my week?")
    answer = window.chat.add("assistant", "Here is what I know.")
    items = [
        Recalled("fact", f"Memory {i}: a long and winding subject", 1.0, time.time(), i)
        for i in range(1, 11)
    ]
    window.chat.attach_chips(answer, items)
    qtbot.wait(100)
    assert window._splitter.sizes()[0] >= 200  # the header does not squeeze the sidebar
    assert not window.chat.horizontalScrollBar().isVisible()
    viewport = window.chat.viewport()
    assert answer.chips is not None
    for widget in [*answer.chips.buttons, *window.chat.bubbles()]:
        left = widget.mapTo(viewport, QPoint(0, 0)).x()
        assert left >= 0 and left + widget.width() <= viewport.width()
    header = window.header
    assert header.geometry().right() <= window.centralWidget().width()


def test_a_large_model_too_small_to_learn_is_said_once_without_a_retry(
    window: MainWindow,
) -> None:
    from engram.core.errors import EngramError, tr

    problem = EngramError(tr("Learning starts with a larger model."), tr("Choose one.")).problem
    window.show_learning(Status("failed", queued=2, model="too small", error=problem))
    assert window.welcome.learning_note.full_text() == "Learning starts with a larger model"
    assert window.welcome.learning_note.isVisible()
    assert window.learning_state.text() == ""
    assert window.large_state.text() == ""
    assert not window.retry_button.isVisible()
    # Any other failure still says what happened and offers a retry.
    window.show_learning(Status("failed", model="loaded", error=problem))
    assert window.learning_state.text().startswith("Learning paused: ")
    assert window.retry_button.isVisible()


def test_a_pause_made_elsewhere_shows_when_the_user_comes_back_to_the_window(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``engram memory pause`` in a terminal (here: another connection to the file): back in
    the window, it says so and its settings follow; its own pause says nothing more."""
    monkeypatch.setattr(toast, "TOAST_MS", 600_000)
    elsewhere = apsw.Connection(str(paths.database_path()))
    try:
        pause.set_paused(elsewhere, True)
        QCoreApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
        qtbot.waitUntil(lambda: window.settings.current.memory_paused, timeout=5_000)
        assert window.notice.kind == "toast" and "paused elsewhere" in window.notice.text()
        # the worker follows the window's settings: then the pause is the window's own too
        qtbot.waitUntil(lambda: window._memory == MemoryState("paused"), timeout=5_000)
        window.notice.dismiss()
        pause.set_paused(elsewhere, False)
        QCoreApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
        qtbot.waitUntil(lambda: not window.settings.current.memory_paused, timeout=5_000)
        assert "resumed elsewhere" in window.notice.text()
        qtbot.waitUntil(lambda: window._memory == MemoryState("on"), timeout=5_000)
        window.notice.dismiss()
        window.settings.update(memory_paused=True)  # the window's own pause
        qtbot.waitUntil(lambda: pause.paused(elsewhere), timeout=5_000)
        QCoreApplication.sendEvent(window, QEvent(QEvent.Type.ActivationChange))
        qtbot.wait(300)
        assert not window.notice.isVisible(), window.notice.text()
    finally:
        elsewhere.close()
