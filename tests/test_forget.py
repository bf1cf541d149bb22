"""Forgetting in the chat ("forget that", "忘掉这个"): archived at once, then undone or deleted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import tiny
from engram.assistant import forget
from engram.assistant.events import Finished, Remembered, TurnEvent
from engram.assistant.session import LoadedModels, Session, open_session


@pytest.fixture
def session(loaded_models: LoadedModels) -> Iterator[Session]:
    opened = open_session(tiny.settings(max_answer_tokens=16), models=loaded_models)
    assert opened.store is not None, opened.memory_problem
    yield opened
    opened.close()


@pytest.mark.parametrize(
    "text",
    ["forget that", "Forget that.", "please forget it", "forget about that!", "忘掉这个",
     "忘记这个。", "请忘掉它", "忘了吧"],
)  # fmt: skip
def test_forget_requests_are_recognised_in_both_languages(text: str) -> None:
    assert forget.is_request(text)


@pytest.mark.parametrize(
    "text",
    ["forget that I said I like tea, I love it", "How do I forget a wifi network?",
     "我忘了密码怎么办", "don't forget that"],
)  # fmt: skip
def test_messages_that_only_mention_forgetting_are_not_requests(text: str) -> None:
    assert not forget.is_request(text)


def _turn(
    session: Session, mentioned: forget.LastMentioned, chat: int, text: str
) -> list[TurnEvent]:
    events = list(session.assistant.turn(chat, text))
    for event in events:
        mentioned.see(event)
    return events


@pytest.mark.slow
def test_forget_that_archives_what_was_just_remembered_undo_brings_it_back(
    session: Session,
) -> None:
    assert session.store is not None and session.assistant.recall is not None
    mentioned = forget.LastMentioned()
    events = _turn(session, mentioned, 0, "remember this: my locker code is 4711")
    remembered = next(e for e in events if isinstance(e, Remembered))
    chat = session.assistant.log.conversations()[0].id
    found = mentioned.forget(chat, session.assistant.log, session.assistant.recall)
    assert found == forget.Forgotten(remembered.memory_id, "my locker code is 4711")
    memory = session.store.get(remembered.memory_id)
    assert memory is not None and memory.status == "archived"
    assert session.store.memories() == []  # never recalled while archived

    forget.undo(session.store, found)
    memory = session.store.get(remembered.memory_id)
    assert memory is not None and memory.status == "active"

    found = mentioned.forget(chat, session.assistant.log, session.assistant.recall)
    assert found is None  # already forgotten once: "that" is no longer this memory
    again = forget.Forgotten(remembered.memory_id, memory.content)
    session.store.update(again.memory_id, status="archived")
    forget.purge(session.store, [again])
    assert session.store.get(remembered.memory_id) is None  # deleted for good


@pytest.mark.slow
def test_after_an_answer_forget_that_means_the_memory_it_used(session: Session) -> None:
    assert session.store is not None and session.assistant.recall is not None
    bike = session.store.add("The user's bike is a red Brompton.", "fact").id
    mentioned = forget.LastMentioned()
    _turn(session, mentioned, 0, "remember this: I like green tea")
    chat = session.assistant.log.conversations()[0].id
    events = _turn(session, mentioned, chat, "What bike do I ride, my red Brompton?")
    finished = next(e for e in events if isinstance(e, Finished))
    assert bike in [item.memory_id for item in finished.recalled]
    target = mentioned.target(chat, session.assistant.log, session.assistant.recall)
    assert target == bike  # the answer came after the tea: "that" is what the answer was given
    found = mentioned.forget(chat, session.assistant.log, session.assistant.recall)
    assert found is not None and found.memory_id == bike
