"""The real-model lane (``-m real``): the offline starter pair, Qwen2.5-Coder 0.5B answering and
1.5B learning, run by llama.cpp on this CPU. Each test asserts behaviour, not wording: a call made
through the family's own format, plain questions answered in text, Chinese answered in Chinese,
a short conversation distilled into valid memories, a correction turned into a lesson.

The models are fetched by ``installer/test.sh`` (from the hub or the package index) into the
tests' models folder; ``.ci/run`` runs this lane with the rest of the suite."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import pytest
from pytestqt.qtbot import QtBot

from engram.assistant.app import LoadedModels
from engram.assistant.events import Finished, ToolCalled, ToolResult, TurnEvent
from engram.assistant.learning import distill, proposals
from engram.assistant.session import Session, open_session
from engram.assistant.tools import builtins, loop
from engram.assistant.tools.base import ToolContext
from engram.assistant.turn import prompt
from engram.core.settings import Settings
from engram.memory import kinds
from engram.memory.episodes import Episode, Role
from engram.models.local import LocalModel

pytestmark = [pytest.mark.real, pytest.mark.slow]
SMALL, LARGE = Settings().small_model, Settings().large_model
_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def session(coder: LoadedModels) -> Iterator[Session]:
    """A session on the real small model, answering deterministically, with the built-in tools
    that need no folder."""
    opened = open_session(
        Settings(temperature=0.0, max_answer_tokens=96), small=coder.small, embedder=coder.embedder
    )
    assert opened.store is not None, opened.memory_problem
    toolbox = loop.Toolbox(builtins.registry(disabled={"files_list", "files_search", "files_read"}))
    toolbox.context = ToolContext(store=opened.store)
    opened.assistant.tools = toolbox
    yield opened
    opened.close()


def _turn(session: Session, text: str) -> tuple[list[TurnEvent], Finished]:
    events = list(session.assistant.turn(0, text))
    finished = [e for e in events if isinstance(e, Finished)]
    assert len(finished) == 1, events
    return events, finished[0]


@pytest.mark.parametrize(
    ("question", "tool", "found"),
    [
        ("What is a 15% tip on a bill of 80 euros?", "calculator", "12"),
        ("What is the square root of 7569?", "calculator", "87"),
        ("Calculate (45 + 55) * 12 / 4.", "calculator", "300"),  # the call from the user's words
        ("12 乘以 7 等于多少？", "calculator", "84"),
        ("What day of the week is 2027-03-14?", "datetime", "Sunday"),
    ],
)
def test_the_small_model_calls_a_tool_in_its_own_format_and_answers_in_words(
    session: Session, question: str, tool: str, found: str
) -> None:
    events, finished = _turn(session, question)
    called = [e for e in events if isinstance(e, ToolCalled)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [c.name for c in called][:1] == [tool] and not results[0].is_error
    assert found in results[0].text
    assert "{" not in finished.text and "tool_call" not in finished.text
    assert finished.text.strip()


@pytest.mark.parametrize(
    ("question", "check"),
    [
        ("What is the capital of France?", lambda text: "Paris" in text),
        ("用一句话介绍杭州。", lambda text: len(_CJK.findall(text)) >= 5),
        ("Write a Python function that adds two numbers.", lambda text: "def " in text),
    ],
)
def test_plain_questions_are_answered_as_text_without_a_call(
    session: Session, question: str, check: Callable[[str], bool]
) -> None:
    events, finished = _turn(session, question)
    assert not [e for e in events if isinstance(e, ToolCalled)]
    assert not finished.text.lstrip().startswith(("{", "<"))  # no call, no made-up markup
    assert check(finished.text), finished.text


@pytest.mark.parametrize(
    "statement",
    [
        "I don't wear clothing made from animal products like leather, wool, or silk.",
        "I prefer to adopt pets from shelters rather than purchasing from breeders.",
        "我每周六上午十点上小提琴课。",
    ],
)
def test_a_statement_about_the_user_is_not_answered_with_the_rules(
    session: Session, statement: str
) -> None:
    """The real 0.5B recited its system part ("Engram remembers earlier conversations…") to most
    statements a user made about themselves, or restated them as "Engram prefers…". A canned
    acknowledgement in the system part ("Got it, I'll keep that in mind.") stopped that but was
    then given as the answer to questions that came with notes; the rules are short instead."""
    _events, finished = _turn(session, statement)
    said = finished.text.strip()
    assert said and not said.startswith("Engram")
    system = prompt.system_part("zh" if _CJK.search(statement) else "en")
    for line in filter(None, system.splitlines()):
        assert line[:40] not in said  # no sentence of the system part is repeated


@pytest.mark.parametrize("question", ["Got the time?", "你知道现在是几点吗？"])
def test_asking_the_time_in_words_no_rule_knows_answers_from_the_clock(
    coder: LoadedModels, question: str
) -> None:
    """With the default multilingual encoder the message's meaning routes it to the clock
    (assistant/reading/requests.py); the cue rules alone offer no tool for these."""
    from engram.assistant.session import embedder_of
    from engram.models import catalogue, starter

    entry = catalogue.load().get("use-multilingual-v3")
    starter.fetch([entry], report=lambda _line: None)
    opened = open_session(
        Settings(temperature=0.0, max_answer_tokens=96, embedding_model=entry.id),
        small=coder.small,
        embedder=embedder_of(entry),
    )
    try:
        toolbox = loop.Toolbox(
            builtins.registry(disabled={"files_list", "files_search", "files_read"})
        )
        assert toolbox.route(question).allowed == frozenset()  # the rules alone
        opened.assistant.tools = toolbox
        events, finished = _turn(opened, question)
    finally:
        opened.close()
    called = [e for e in events if isinstance(e, ToolCalled)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [c.name for c in called][:1] == ["datetime"] and not results[0].is_error
    assert finished.text.strip() and "{" not in finished.text


def _episodes(*said: tuple[Role, str]) -> list[Episode]:
    now = time.time()
    return [
        Episode(i + 1, 1, i, role, text, now + i, None, "complete")
        for i, (role, text) in enumerate(said)
    ]


def test_the_large_model_distills_a_conversation_into_valid_memories(
    coder_large: LocalModel,
) -> None:
    episodes = _episodes(
        ("user", "I live in Hangzhou and I work as a nurse on night shifts."),
        ("assistant", "Thanks for telling me. Night shifts can be tiring."),
        ("user", "I'm vegetarian, so please never suggest meat dishes."),
        ("assistant", "Understood, I will only suggest vegetarian dishes."),
    )
    result, _raw = distill.distill(coder_large, episodes)
    assert result.candidates, "the 1.5B model distilled nothing"
    ids = {e.id for e in episodes}
    for candidate in result.candidates:
        assert candidate.kind in kinds.KINDS and candidate.content.strip()
        assert set(candidate.episode_ids) <= ids
    text = " ".join(c.content.lower() for c in result.candidates)
    assert "vegetarian" in text or "meat" in text


def test_a_correction_becomes_a_lesson_in_the_users_words_where_it_was_asked(
    coder_large: LocalModel,
) -> None:
    episodes = _episodes(
        ("user", "How far is it from Paris to Lyon?"),
        ("assistant", "It is about 290 miles from Paris to Lyon."),
        ("user", "No, that's wrong for me: always give distances in kilometres, not miles."),
        ("assistant", "Sorry! It is about 465 kilometres."),
    )
    correction = proposals.Outcome(2, "correction", episodes[2].content)
    result, _raw = distill.distill(coder_large, episodes, outcomes=[correction])
    lessons = [c for c in result.candidates if c.kind == "lesson"]
    assert [c.content for c in lessons] == ["Always give distances in kilometres, not miles."]
    assert "How far is it from Paris to Lyon?" in lessons[0].applies_to


def test_the_window_shows_a_real_tool_call_folded_and_the_answer_in_words(
    qtbot: QtBot, coder: LoadedModels
) -> None:
    """The whole path as a user meets it: the window on the starter pair, a question typed and
    sent, the calculator's call folded into the answer, the answer in words, no raw call."""
    from PySide6.QtCore import Qt

    from engram.ui.main_window import MainWindow

    window = MainWindow(Settings(temperature=0.0, max_answer_tokens=96), models=coder)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.turns.ready, timeout=120_000)
    window.composer.setFocus()
    qtbot.keyClicks(window.composer, "What is 17.5% of 240?")
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.turns.busy, timeout=10_000)
    qtbot.waitUntil(lambda: not window.turns.busy, timeout=180_000)
    answer = window.chat.bubbles()[-1]
    assert [(b.name, "42" in b.result) for b in answer.tool_blocks] == [("calculator", True)]
    assert "42" in answer.text and "{" not in answer.text and "tool_call" not in answer.text
    window.close()
