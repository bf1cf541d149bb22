"""A new user's first minutes in the real window, scripted (run by ``tests/test_walkthrough.py``
in a subprocess on Xvfb with ``QT_QPA_PLATFORM=xcb``; usable by hand on any X display).

``python tests/walkthrough_driver.py OUT`` starts Engram as ``engram`` does (``ui.app.run``) in
the data folder ``ENGRAM_HOME`` names, with the models of ``ENGRAM_MODELS_DIR``, in the language
the environment says (``LANG``), and walks through it like a new user: the welcome panel while
the window settles, the model manager, the memory browser (Add memory), a fact remembered, a
fact said, a question answered while the answer streams, its chips, Bad, Regenerate, a new chat,
the chat opened again, a memory deleted. Each step takes a screenshot of the whole screen into
OUT (``NN-step.png``) and writes what the window showed, read from its widgets, to
``OUT/report.json`` (rewritten after every step, so a step that hangs leaves the others). The
test asserts on the report; this script only looks and clicks.

No learning job runs here (the 1.5B would take minutes): the jobs the chat queues stay in the
queue (``JobQueue.claim`` finds none in this process), and the status bar's step and the
learning toast are fed a scripted status through the worker's own signal (about a real
memory). Everything else is the app as it ships.
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QRect, Qt, QTimer
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget

from engram.core import prompts

READY_S = 240.0  # the first start on a loaded 2-core machine: the models load, speed measured
ANSWER_S = 180.0
SETTLE_S = 8.0  # the welcome panel is watched this long after the model is ready
SAMPLE_MS = 200
EFFECT_S = 60.0  # "What does memory add?": its first step with a share, and its Cancel

# What the user writes, in their own words, per language: a fact to remember, a fact only said,
# a question that needs the remembered fact, a memory added by hand, why an answer was bad.
WORDS = {
    "en": {
        "remember": "Remember this: my son Tom is 9 and plays the violin.",
        "said": "My sister Ana lives in Porto and teaches chemistry.",
        "ask": "How old is Tom, what does he play, and where does my sister live?",
        "added": "I am allergic to peanuts.",
        "bad": "It did not say which instrument.",
    },
    "zh_CN": {
        "remember": "记住：我儿子小明今年九岁，在学小提琴。",
        "said": "我姐姐住在成都，是一名化学老师。",
        "ask": "小明几岁、学什么乐器？我姐姐住在哪里？",
        "added": "我对花生过敏。",
        "bad": "没有说他学什么乐器。",
    },
}


class Walk:
    """The steps, the report and the screenshots of one walkthrough."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.language = prompts.for_setting("system")  # as the window resolves it
        self.words = WORDS[self.language]
        self.started = time.monotonic()
        self.report: dict[str, Any] = {"language": self.language, "steps": {}, "shots": []}
        self.step_name = ""
        self.window: Any = None
        self.samples: list[dict[str, Any]] = []
        self._sampler = QTimer()
        self._sampler.setInterval(SAMPLE_MS)
        self._sampler.timeout.connect(self._sample_welcome)

    # -- helpers -------------------------------------------------------------------------

    def now(self) -> float:
        return round(time.monotonic() - self.started, 2)

    def facts(self, **facts: Any) -> None:
        """What this step saw, kept in the report."""
        self.report["steps"].setdefault(self.step_name, {}).update(facts)
        self.save_report()

    def save_report(self) -> None:
        path = self.out / "report.json"
        path.write_text(json.dumps(self.report, ensure_ascii=False, indent=1), encoding="utf-8")

    def shot(self, name: str) -> None:
        """The whole screen as the user sees it (every window and dialog on it)."""
        spin(300)
        number = len(self.report["shots"]) + 1
        path = self.out / f"{number:02d}-{name}.png"
        screen = QGuiApplication.primaryScreen()
        screen.grabWindow(0).save(str(path))
        self.report["shots"].append(path.name)
        self.save_report()

    def wait(self, condition: Callable[[], bool], seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {seconds:.0f} s for {what}")
            spin(50)

    def modal(self, action: Callable[[], object], handle: Callable[[Any], None]) -> bool:
        """Run ``action``, which opens a modal dialog and waits for it; ``handle`` gets the
        dialog once it is on screen (to look at it and answer it). Whether it came."""
        came: list[QWidget] = []
        poll = QTimer()
        poll.setInterval(50)

        def look() -> None:
            dialog = QApplication.activeModalWidget()
            if dialog is not None and dialog.isVisible() and not came:
                came.append(dialog)
                poll.stop()
                spin(300)  # drawn on the screen
                handle(dialog)

        poll.timeout.connect(look)
        poll.start()
        action()
        poll.stop()
        return bool(came)

    @staticmethod
    def fits(widget: QWidget) -> dict[str, Any]:
        """Where a window is, and whether it is inside its screen's available area."""
        frame, screen = widget.frameGeometry(), widget.screen().availableGeometry()
        return {"frame": _rect(frame), "screen": _rect(screen), "inside": screen.contains(frame)}

    def opened(self, button: QWidget, which: Callable[[], Any], what: str) -> Any:
        """Click a status bar button and wait for the window it opens (returned)."""
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        self.wait(lambda: which() is not None and which().isVisible(), 10, what)
        spin(500)
        return which()

    def models(self) -> Any:
        window = self.window
        return self.opened(window.status.models_button, lambda: window.windows.model_manager,
                           "the model manager")  # fmt: skip

    def memories(self) -> Any:
        window = self.window
        return self.opened(window.status.memories_button, lambda: window.memory_browser,
                           "the memory browser")  # fmt: skip

    def send(self, text: str) -> None:
        window = self.window
        self.wait(window.send_button.isEnabled, ANSWER_S, "Send to be enabled")
        window.composer.setPlainText(text)
        QTest.mouseClick(window.send_button, Qt.MouseButton.LeftButton)

    def answered(self) -> Any:
        """Wait for the running answer to end; the answer's bubble."""
        window = self.window
        self.wait(lambda: not window.turns.busy, ANSWER_S, "the answer to end")
        spin(300)  # its chips and numbers are laid out
        return window.chat.latest("assistant")

    # -- the steps -----------------------------------------------------------------------

    def run(self) -> None:
        """Every step in turn; the first that fails ends the walk (the report says where)."""
        steps = (
            self.first_start, self.model_manager, self.memory_browser, self.remember,
            self.new_chat, self.ask, self.mark_bad, self.regenerate, self.reopen,
            self.delete_memory, self.learning_result, self.models_again, self.memory_effect,
        )  # fmt: skip
        try:
            for step in steps:
                self.step_name = step.__name__
                self.facts(started_at=self.now())
                step()
        except Exception as exc:  # the report says what failed; the test fails on it
            self.report["error"] = {
                "step": self.step_name,
                "what": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
            self.shot(f"failed-{self.step_name}")
        finally:
            self._sampler.stop()
            self.report["seconds"] = self.now()
            self.save_report()
            if self.window is not None:
                self.window.close()

    def _sample_welcome(self) -> None:
        welcome = self.window.welcome
        self.samples.append({
            "t": self.now(), "ready": self.window.turns.ready,
            "panel": welcome.isVisible(), "checking": welcome.checking.isVisible(),
            "offer": welcome.offer_label.text() if welcome.offer_label.isVisible() else "",
            "button": welcome.offer_button.text() if welcome.offer_button.isVisible() else "",
            "answering": welcome.answering.text() if welcome.answering.isVisible() else "",
        })  # fmt: skip

    def first_start(self) -> None:
        """The window as a new user meets it; the welcome panel watched while it settles."""
        self.window = window = _main_window()
        self._sampler.start()
        self._sample_welcome()
        self.facts(shown_at=self.now(), main_window=self.fits(window))
        self.shot("first-start")
        self.wait(lambda: window.turns.ready, READY_S, "the model to load")
        self.facts(ready_at=self.now(), model_state=window.model_state.text())
        self.shot("model-ready")
        spin(int(SETTLE_S * 1000))
        self._sampler.stop()
        welcome = window.welcome
        self.facts(
            welcome=self.samples,
            demo=welcome.demo.text() if welcome.demo.isVisible() else "",
            learning=welcome.learning.text() if welcome.learning.isVisible() else "",
            status_note=window.status.learning_state.text(),
        )
        self.shot("welcome-settled")

    def model_manager(self) -> None:
        """Models, from the status bar: the recommendation, Use this pair, Remove."""
        window = self.window
        manager = self.models()
        self.wait(lambda: bool(manager.rows), 30, "the catalogue rows")
        from engram.assistant import model_admin

        rows = {}
        for model_id, row in manager.rows.items():
            installed = model_admin.installed(row.entry)
            rows[model_id] = {
                "name": row.entry.name, "installed": installed,
                "remove_shown": row.delete_button.isVisibleTo(manager),
                "remove_enabled": row.delete_button.isEnabled(),
            }  # fmt: skip
        prefs = window.settings.current
        self.facts(
            window=self.fits(manager),
            machine=manager.machine_label.text(),
            pair=manager.pair_label.text(),
            pair_button={
                "text": manager.pair_button.text(),
                "enabled": manager.pair_button.isEnabled(),
                "shown": manager.pair_button.isVisibleTo(manager),
                "tip": manager.pair_button.toolTip(),
            },
            in_use={"small": prefs.small_model, "large": prefs.large_model,
                    "embedding": prefs.embedding_model},
            rows=rows,
        )  # fmt: skip
        self.shot("model-manager")
        manager.close()

    def memory_browser(self) -> None:
        """Memories, from the status bar: empty at first; Add memory in the user's words."""
        browser = self.memories()
        self.facts(window=self.fits(browser), empty_state=browser.empty_state.isVisible())
        self.shot("memories-empty")
        text = self.words["added"]

        def add(dialog: Any) -> None:
            self.facts(
                add_dialog=type(dialog).__name__, add_enabled_empty=dialog.add_button.isEnabled()
            )
            dialog.editor.setPlainText(text)
            self.shot("add-memory")
            dialog.add_button.click()

        came = self.modal(browser.add_action.trigger, add)
        self.wait(lambda: browser.current() is not None, 20, "the added memory to be selected")
        memory = browser.current()
        self.facts(dialog_came=came, added={"id": memory.id, "content": memory.content,
                   "kind": memory.kind}, editor=browser.editor.toPlainText(),
                   rows=browser.model.rowCount())  # fmt: skip
        self.report["added_id"] = memory.id
        self.shot("memory-added")
        browser.close()

    def remember(self) -> None:
        """A fact the user asks Engram to remember (kept at once, said in a toast), and one
        only said, in the first chat."""
        window = self.window
        self.send(self.words["remember"])
        answer = self.answered()
        self.facts(notice=window.notice.text(), notice_shown=window.notice.isVisible(),
                   answer=answer.text)  # fmt: skip
        self.shot("remembered")
        self.send(self.words["said"])
        said = self.answered()
        self.facts(said_answer=said.text, said_chips=_chips(said),
                   stats=window.header.stats.text())  # fmt: skip

    def new_chat(self) -> None:
        """New chat: empty, with nothing of the last chat's answer in the header."""
        window = self.window
        header = window.header
        self.facts(stats_before=header.stats.text(), chat=window.conversation_id)
        QTest.mouseClick(window.sidebar.new_button, Qt.MouseButton.LeftButton)
        spin(800)
        self.facts(
            bubbles=len(window.chat.bubbles()), stats=header.stats.text(),
            stats_shown=header.stats.isVisible(), stats_tip=header.stats.toolTip(),
            welcome=window.welcome.isVisible(), chat_after=window.conversation_id,
        )  # fmt: skip
        self._sample_welcome()  # the recommendation once answers were timed here
        self.facts(welcome_now=self.samples[-1])
        self.shot("new-chat")

    def ask(self) -> None:
        """A question in the new chat that needs both facts of the first one: the answer
        streams, then its chips show what it was given (the remembered fact a memory, the
        fact only said an earlier message)."""
        window = self.window
        self.send(self.words["ask"])
        lengths: list[int] = []
        mid_shot = False
        deadline = time.monotonic() + ANSWER_S
        while window.turns.busy and time.monotonic() < deadline:
            streamed = window.chat.streamed_text()
            if not lengths or len(streamed) != lengths[-1]:
                lengths.append(len(streamed))
            if len(streamed) > 20 and not mid_shot:
                mid_shot = True
                self.shot("answer-streaming")
            spin(40)
        answer = self.answered()
        self.facts(streamed_lengths=lengths, answer=answer.text, chips=_chips(answer),
                   stats=window.header.stats.text(), episode=answer.episode_id,
                   chat=window.conversation_id)  # fmt: skip
        self.shot("answer-chips")

    def mark_bad(self) -> None:
        """Bad on the answer: it asks what was wrong (optional), then says thanks."""
        window = self.window
        answer = window.chat.latest("assistant")
        QTest.mouseMove(answer)  # the pointer over the answer shows its buttons
        spin(300)
        if not answer.actions_row.isVisible():
            answer.actions_row.show()  # no window manager may mean no pointer events
        self.facts(buttons_shown=answer.actions_row.isVisible())
        reason = self.words["bad"]

        def say(dialog: Any) -> None:
            self.facts(asked=dialog.windowTitle())
            dialog.setTextValue(reason)
            self.shot("bad-why")
            dialog.accept()

        bad = answer.buttons["thumbs_down"]
        came = self.modal(lambda: QTest.mouseClick(bad, Qt.MouseButton.LeftButton), say)
        spin(1500)  # the worker notes the verdict and says so
        self.facts(
            dialog_came=came, vote=answer.vote,
            bad_checked=bad.isChecked(), good_checked=answer.buttons["thumbs_up"].isChecked(),
            status_message=window.status.currentMessage(),
            offered=_buttons_in(answer),
            ask_large=[b.text() for b in answer.findChildren(QPushButton, "ask_large_offer")
                       if b.isVisibleTo(answer)],
        )  # fmt: skip
        self.shot("marked-bad")

    def regenerate(self) -> None:
        """Regenerate the bad answer, the pointer left where it clicked: a new answer whose
        thumbs are not pressed, and none of them under the pointer (it would look pressed)."""
        window = self.window
        old = window.chat.latest("assistant")
        old_text = old.text
        regenerate = old.buttons["regenerate"]
        QTest.mouseMove(regenerate)
        spin(200)
        at = QCursor.pos()

        def under_pointer(bubble: Any) -> list[str]:
            """The thumbs under the pointer, the row shown as while the pointer is over it."""
            bubble.actions_row.show()
            spin(200)
            thumbs = [bubble.buttons[name] for name in ("thumbs_up", "thumbs_down")]
            return [b.text() for b in thumbs
                    if b.rect().contains(b.mapFromGlobal(at))]  # fmt: skip

        QTest.mouseClick(regenerate, Qt.MouseButton.LeftButton)
        self.wait(lambda: window.chat.answering() is not None, 10, "the new answer")
        writing = under_pointer(window.chat.answering())  # while it is written
        new = self.answered()
        under = writing + under_pointer(new)
        texts = [b.text for b in window.chat.bubbles() if b.role == "assistant"]
        position = new.versions.position.text()
        new.actions_row.show()
        QTest.mouseClick(new.versions.back, Qt.MouseButton.LeftButton)  # the earlier answer
        spin(200)
        self.shot("earlier-answer")
        back = {"shown": new.shown_text(), "marker": new.marker.text(),
                "position": new.versions.position.text()}  # fmt: skip
        QTest.mouseClick(new.versions.forward, Qt.MouseButton.LeftButton)
        spin(100)
        self.facts(
            earlier=[a.content for a in new.earlier], position=position, back=back,
            forward_shown=new.shown_text(),
        )  # fmt: skip
        self.facts(
            old_text=old_text, new_text=new.text, replaced=new is not old,
            thumbs_under_pointer=under, vote=new.vote,
            good_checked=new.buttons["thumbs_up"].isChecked(),
            bad_checked=new.buttons["thumbs_down"].isChecked(),
            answers_on_screen=len(texts), old_text_on_screen=old_text in texts,
            chips=_chips(new), episode=new.episode_id, offered=_buttons_in(new),
        )  # fmt: skip
        self.shot("regenerated")

    def reopen(self) -> None:
        """The chat opened again (from a new chat) shows the same chips as the live answer."""
        window = self.window
        live = _chips(window.chat.latest("assistant"))
        chat_id = window.conversation_id
        header = window.header
        QTest.mouseClick(window.sidebar.new_button, Qt.MouseButton.LeftButton)
        spin(800)
        self.facts(stats_new_chat=header.stats.text())
        window.open_conversation(chat_id)

        def reopened_chips() -> bool:
            answer = window.chat.latest("assistant")
            return answer is not None and answer.chips is not None

        self.wait(reopened_chips, 20, "the reopened answer's chips")
        spin(300)
        reopened = window.chat.latest("assistant")
        self.facts(live_chips=live, reopened_chips=_chips(reopened),
                   reopened_earlier=[a.content for a in reopened.earlier])  # fmt: skip
        self.shot("reopened")

    def delete_memory(self) -> None:
        """Delete the memory added by hand: the browser clears its text and turns its buttons
        off."""
        browser = self.memories()
        self.wait(lambda: browser.model.rowCount() > 0, 20, "the memories")
        added = self.report["added_id"]
        rows = [m.id for m in browser.model.rows]
        browser.table.selectRow(rows.index(added))
        spin(300)
        self.facts(before={"editor": browser.editor.toPlainText(), "rows": len(rows),
                           "kinds": sorted({m.kind for m in browser.model.rows})})  # fmt: skip
        self.shot("memory-selected")

        def confirm(box: Any) -> None:
            self.shot("delete-confirm")
            box.button(QMessageBox.StandardButton.Yes).click()

        came = self.modal(lambda: QTest.mouseClick(browser.delete_button,
                                                   Qt.MouseButton.LeftButton), confirm)  # fmt: skip
        self.wait(lambda: added not in [m.id for m in browser.model.rows], 20, "the deletion")
        spin(300)
        self.facts(
            dialog_came=came, rows=browser.model.rowCount(),
            editor=browser.editor.toPlainText(), editor_enabled=browser.editor.isEnabled(),
            save=browser.save_button.isEnabled(), pin=browser.pin_button.isEnabled(),
            delete=browser.delete_button.isEnabled(),
        )  # fmt: skip
        self.shot("memory-deleted")
        browser.close()

    def learning_result(self) -> None:
        """The status bar follows learning's steps, and its result stays, whole, with Undo.
        Scripted: the worker's own signal carries what a job would report (no 1.5B job runs
        here), about a real memory and a job the chat really queued."""
        from engram.assistant.events import Learned, Status, Step
        from engram.core import paths
        from engram.memory import db
        from engram.memory.jobs import JobQueue

        window = self.window
        memory = next(c for c in _chips(window.chat.latest("assistant")) if c["memory_id"])
        conn = db.connect(paths.database_path())
        try:
            job = JobQueue(conn).jobs()[0]
        finally:
            conn.close()
        learned = Learned(memory["memory_id"], "update", memory["content"], job_id=job.id)
        window.worker.learning_status.emit(Status(
            "distilling", 0.4, queued=1, model="loaded", job_id=job.id,
            step=Step("checking", 2, 3, chat=1, chats=2),
        ))  # fmt: skip
        spin(300)
        self.facts(step_text=window.status.learning_state.text())
        self.shot("learning-step")
        window.worker.learning_status.emit(Status("idle", model="loaded", learned=(learned,)))
        spin(7000)  # longer than a passing toast
        label = window.notice.label
        self.facts(toast=window.notice.text(), toast_shown=window.notice.isVisible(),
                   toast_links=re.findall(r'href="([^"]+)"', label.text()),
                   toast_buttons=_buttons_in(window.notice))  # fmt: skip
        self.shot("learning-result")
        label.linkActivated.emit("undo_learning")  # its Undo link clicked
        spin(2000)
        self.facts(after_undo=window.notice.text() if window.notice.isVisible() else "",
                   status_after_undo=window.status.currentMessage())  # fmt: skip
        self.shot("learning-undone")

    def models_again(self) -> None:
        """The model manager at the end: the recommendation after a few answers."""
        manager = self.models()
        self.facts(machine=manager.machine_label.text(), pair=manager.pair_label.text(),
                   pair_enabled=manager.pair_button.isEnabled())  # fmt: skip
        self.shot("models-again")
        manager.close()

    def memory_effect(self) -> None:
        """What does memory add?, from the model manager: the short check starts here with a
        progress bar, and Cancel stops it (the whole check takes minutes)."""
        from engram.ui.memory_effect import MemoryEffectDialog

        manager = self.models()
        QTest.mouseClick(manager.measure_button, Qt.MouseButton.LeftButton)

        def dialog() -> Any:
            return manager.findChild(MemoryEffectDialog)

        self.wait(lambda: dialog() is not None and dialog().isVisible(), 10, "the dialog")
        spin(300)
        effect = dialog()
        self.facts(window=self.fits(effect), title=effect.windowTitle(),
                   buttons=_buttons_in(effect))  # fmt: skip
        self.shot("memory-effect")
        QTest.mouseClick(effect.start_button, Qt.MouseButton.LeftButton)
        said = [effect.status.text()]
        deadline = time.monotonic() + EFFECT_S
        while effect.bar.maximum() == 0 and time.monotonic() < deadline:  # busy, no share yet
            spin(200)
            if effect.status.text() != said[-1]:
                said.append(effect.status.text())
        self.facts(running=effect.running(), bar=effect.bar.isVisible(),
                   bar_range=[effect.bar.minimum(), effect.bar.maximum()], said=said,
                   buttons_running=_buttons_in(effect))  # fmt: skip
        self.shot("memory-effect-running")
        QTest.mouseClick(effect.cancel_button, Qt.MouseButton.LeftButton)
        self.wait(lambda: not effect.running(), EFFECT_S, "the check to stop")
        spin(300)
        self.facts(stopped=effect.status.text(), chart=effect.chart.isVisible(),
                   buttons_stopped=_buttons_in(effect))  # fmt: skip
        self.shot("memory-effect-cancelled")
        effect.close()
        manager.close()


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def _chips(bubble: Any) -> list[dict[str, Any]]:
    """The chips under an answer as the user sees them."""
    if bubble is None or bubble.chips is None:
        return []
    chips = bubble.chips
    return [
        {
            "text": button.text(), "style": button.objectName(),
            "earlier": bool(button.property("earlier")), "menu": button.menu() is not None,
            "tip": button.toolTip(), "memory_id": item.memory_id,
            "episode_id": item.episode_id, "content": item.content, "kind": item.label,
            "folded": [source.content for source in item.folded],
        }
        for item, button in zip(chips.items, chips.buttons, strict=True)
    ]  # fmt: skip


def _buttons_in(widget: QWidget) -> list[str]:
    """The texts of the buttons a user can see in ``widget``."""
    from PySide6.QtWidgets import QAbstractButton

    return [b.text() for b in widget.findChildren(QAbstractButton)
            if b.isVisibleTo(widget) and b.text()]  # fmt: skip


def _main_window() -> Any:
    from engram.ui.main_window import MainWindow

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow):
            return widget
    raise RuntimeError("no main window")


def spin(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds. Widgets the window let go of (``deleteLater``)
    go first, as they would when its click returned to the main loop: a nested loop leaves them
    on screen."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    from engram.memory.jobs import JobQueue

    # No learning job runs (the 1.5B would take minutes): each is queued as the app queues it
    # and stays there; the data folder is thrown away after the walk.
    JobQueue.claim = lambda _queue, now=None: None
    app = QApplication([sys.argv[0]])
    walk = Walk(out)
    QTimer.singleShot(0, walk.run)  # once the window is shown, as ``engram`` shows it
    from engram.ui import app as engram_app

    code = engram_app.run([])
    del app
    return 1 if "error" in walk.report else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
