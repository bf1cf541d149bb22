"""Chips tell the truth: one chip per memory (the earlier message it was made from is folded into
it), an earlier message that looks and reads unlike a memory, "used" only when the answer agrees
with what it was given, and the same chips under an answer live and when its chat is opened
again (both come from one function: ``Assistant.chips``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import Engram, LoadedModels
from engram.assistant.events import Cancelled, Event, Finished, Recalled, Remembered
from engram.assistant.turn import utilization
from engram.core.cancel import CancelToken
from engram.ui.chips import MemoryChips
from engram.ui.main_window import MainWindow
from test_live_switches import _zh
from test_tools import ScriptedModel

LILY = "My daughter Lily is 7 and loves dinosaurs."
ASKED = "What could my daughter Lily and I do this weekend?"
ANSWER = "Lily is 7 and loves dinosaurs, so take her to the natural history museum."
STEPS = ["Read the chapter on tides", "Watch the tide tables", "Write a summary"]
PLAN = {"plan": {"goal": "Learn how tides work", "steps": STEPS, "current_step": 1}}


# -- "used": only when the answer agrees -------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "answer", "agrees"),
    [
        ("The user lives in Lyon.", "You live in Paris, not in Lyon.", False),
        ("The user lives in Lyon.", "You live in Paris, so the Louvre is close by.", False),
        ("The user lives in Lyon.", "Since you live in Lyon, walk up to Fourvière.", True),
        ("The user's daughter Lily is 7 and loves dinosaurs.",
         "Your daughter Lily is 9 and loves horses, so try a riding school.", False),
        ("The user's daughter Lily is 7 and loves dinosaurs.", ANSWER, True),
        ("The user's daughter Lily is 7 and loves dinosaurs.",
         "At seven, Lily would love the dinosaur hall; kids of 6 to 8 can dig for fossils.", True),
        ("The user is allergic to peanuts.",
         "You're not allergic to peanuts, so the satay is fine.", False),
        ("The user is allergic to peanuts.",
         "Since you're allergic to peanuts, skip the satay and don't eat the peanut sauce.",
         True),
        ("The user does not eat meat.", "You eat meat, so try the steak frites.", False),
        ("The user does not eat meat.", "As you don't eat meat, try the lentil soup.", True),
        ("The user's class is at 9:00 on Saturday.",
         "Your class starts at 9 on Saturday, so leave by 8:30.", True),
        # The first-run walkthrough's answer to "周六上午几点上课？" with the right memory given.
        ("用户周六上午九点上小提琴课。",
         "周一上午两点上课，周二上午两点上课，周三上午两点上课。", False),
        ("用户周六上午九点上小提琴课。", "你周六上午九点上小提琴课，别迟到。", True),
        ("用户对花生过敏。", "你对花生不过敏，可以放心吃。", False),
        ("用户对花生过敏。", "你对花生过敏，所以别吃沙爹酱。", True),
    ],
)  # fmt: skip
def test_a_memory_is_used_only_when_the_answer_agrees_with_it(
    memory: str, answer: str, agrees: bool
) -> None:
    item = Recalled("fact", memory, 1.0, 0.0, memory_id=1)
    assert utilization.used(answer, [item]) == ([item] if agrees else [])
    assert utilization.agrees(answer, memory) is agrees


def test_an_answer_that_says_nothing_of_a_memory_does_not_use_it() -> None:
    dog = Recalled("fact", "The user's dog is called Biscuit.", 1.0, 0.0, memory_id=1)
    assert utilization.used("Photosynthesis turns light into sugar.", [dog]) == []
    assert not utilization.agrees("Photosynthesis turns light into sugar.", dog.content)


# -- the same chips, live and reopened --------------------------------------------------------


@pytest.fixture
def open_app(loaded_models: LoadedModels) -> Iterator[Callable[[list[str]], Engram]]:
    """An Engram whose answers are ``replies`` in order (no tools)."""
    opened: list[Engram] = []

    def make(replies: list[str]) -> Engram:
        app = Engram(
            tiny.settings(max_answer_tokens=64, consolidate_every_turns=50),
            models=loaded_models,
            on_status=lambda _status: None,
        )
        app.open()
        opened.append(app)
        assert app.session is not None
        app.session.assistant.model = ScriptedModel(replies)  # type: ignore[assignment]
        app.session.assistant.tools = None
        return app

    yield make
    for app in opened:
        app.close()


def _send(
    app: Engram, conversation_id: int, text: str, cancel: CancelToken | None = None
) -> list[Event]:
    return list(app.send(conversation_id, text, cancel or CancelToken()))


def _chips(shown: tuple[Recalled, ...] | list[Recalled], used: Any) -> list[tuple[Any, ...]]:
    """What a chip shows: its kind, text and memory or message, what is folded into it, and
    whether it is marked used."""
    used_ids = {(u.memory_id, u.episode_id) for u in used}
    return [
        (
            c.label,
            c.content,
            c.memory_id,
            c.episode_id,
            tuple((f.episode_id, f.content) for f in c.folded),
            (c.memory_id, c.episode_id) in used_ids,
        )
        for c in shown
    ]


def _remember_lily_and_plan(app: Engram) -> tuple[int, int, int]:
    """ "remember this:" said in a chat of its own, and a plan: (the message, the memory made
    from it, the plan)."""
    said = _send(app, 0, f"remember this: {LILY}")
    remembered = next(e for e in said if isinstance(e, Remembered))
    assert app.session is not None and app.session.store is not None
    store = app.session.store
    message = store.sources(remembered.memory_id)[0].episode_id
    assert message is not None
    plan = store.add("Learn how tides work", "plan", origin="local", meta=PLAN).id
    return message, remembered.memory_id, plan


def test_the_chips_of_an_answer_are_the_same_live_and_reopened_one_per_memory(
    open_app: Callable[[list[str]], Engram],
) -> None:
    app = open_app([ANSWER])
    message, lily, plan = _remember_lily_and_plan(app)

    finished = next(e for e in _send(app, 0, ASKED) if isinstance(e, Finished))
    live = _chips(finished.recalled, finished.used)
    # One chip per memory: the earlier message the memory was made from is folded into the
    # memory's chip, not a chip of its own; the plan the answer followed comes first.
    assert [(c[0], c[2]) for c in live] == [("plan", plan), ("fact", lily)]
    assert live[1][4] == ((message, f"remember this: {LILY}"),)
    assert [c[5] for c in live] == [True, True]  # the answer says what the memory says
    assert not any(c[3] == message for c in live)

    reopened = app.memories.recalled([finished.episode_id])[finished.episode_id]
    assert _chips(*reopened) == live


def test_a_stopped_answer_shows_the_same_chips_live_and_reopened(
    open_app: Callable[[list[str]], Engram],
) -> None:
    stop = CancelToken()

    class Stopping(ScriptedModel):
        def stream_chat(self, *args: Any, **kwargs: Any) -> Iterator[str]:
            said = ""
            for piece in super().stream_chat(*args, **kwargs):
                said += piece
                yield piece
                if "dinosaurs" in said:  # the user presses Stop here
                    stop.cancel()

    app = open_app([])
    assert app.session is not None
    _remember_lily_and_plan(app)
    app.session.assistant.model = Stopping([ANSWER])  # type: ignore[assignment]
    cancelled = next(e for e in _send(app, 0, ASKED, stop) if isinstance(e, Cancelled))
    live = _chips(cancelled.recalled, cancelled.used)
    assert [c[0] for c in live] == ["plan", "fact"]
    reopened = app.memories.recalled([cancelled.episode_id])[cancelled.episode_id]
    assert _chips(*reopened) == live


def test_the_window_shows_the_same_chips_live_and_when_the_chat_is_opened_again(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = MainWindow(tiny.settings(max_answer_tokens=64), loaded_models)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=30_000)
    session = window.worker.app.session
    assert session is not None and session.store is not None
    session.assistant.model = ScriptedModel([ANSWER])  # type: ignore[assignment]
    session.assistant.tools = None
    session.store.add("Learn how tides work", "plan", origin="local", meta=PLAN)
    window.submit(f"remember this: {LILY}")
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=30_000)
    window.new_conversation()  # asked in another chat: the message is recalled there
    window.submit(ASKED)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=30_000)
    answer = window.chat.bubbles()[-1]
    assert answer.chips is not None
    live = _shown(answer.chips)
    assert [name for name, _text, _tip in live] == ["chip_plan", "chip_used"]
    chat = window.conversation_id

    window.new_conversation()
    window.open_conversation(chat)
    again = window.chat.bubbles()[-1]
    qtbot.waitUntil(lambda: again.chips is not None, timeout=5_000)
    assert again.chips is not None
    assert _shown(again.chips) == live
    window.close()


def _shown(chips: MemoryChips) -> list[tuple[str, str, str]]:
    return [(b.objectName(), b.text(), b.toolTip()) for b in chips.buttons]


# -- an earlier message is not a memory --------------------------------------------------------


def test_an_earlier_message_looks_and_reads_unlike_a_memory(qtbot: QtBot, ui_language: str) -> None:
    said = Recalled("message", "I moved to Lyon last spring.", 0.8, 0.0, episode_id=7, role="user")
    source = Recalled("message", f"remember this: {LILY}", 0.8, 0.0, episode_id=3, role="user")
    lily = Recalled("fact", LILY, 1.0, 0.0, memory_id=5, folded=(source,))
    chips = MemoryChips([lily, said], [lily])
    qtbot.addWidget(chips)
    memory, message = chips.buttons

    def zh(text: str) -> str:
        return _zh("MemoryChips", text) if ui_language == "zh_CN" else text

    # The memory's chip says what it was made from; the message's chip is a quote.
    kind = _zh("Labels", "Fact") if ui_language == "zh_CN" else "Fact"
    assert memory.toolTip().startswith(f"<b>{kind}</b>")
    assert memory.property("earlier") is not True
    assert zh("Made from your earlier message:") in memory.toolTip()
    assert f"remember this: {LILY}" in memory.toolTip()
    assert message.property("earlier") is True
    assert message.text().startswith("“") and message.text().endswith("”")
    assert message.toolTip().startswith(f"<b>{zh('An earlier message')}</b>")
    assert zh("given, not used") in message.toolTip()
    assert message.accessibleName().startswith(zh("Earlier message: {text}").split("{")[0])
    assert message.menu() is None  # no memory to open or to mark wrong
