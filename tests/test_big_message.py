"""A 5 MB message (issue 28, item 10): every step of a turn that scans its text for words reads
its opening only, and the search terms of a text are worked out once a turn, however many steps
ask for them (a pasted 5 MB message was tokenised whole four times a turn)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.memory import text
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from test_consolidation_support import minilm
from test_lessons import KmChat


class _Reading:
    """Stands for the word pattern of :mod:`engram.memory.text` and notes what it reads."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.read: list[str] = []

    def findall(self, said: str) -> list[str]:
        self.read.append(said)
        return self.pattern.findall(said)


@pytest.fixture
def reading(monkeypatch: pytest.MonkeyPatch) -> _Reading:
    spy = _Reading(text._WORD)
    monkeypatch.setattr(text, "_WORD", spy)
    text._terms.cache_clear()
    return spy


@pytest.mark.slow
def test_a_five_megabyte_message_is_read_for_its_terms_once_and_only_its_opening(
    starter_models: Path, reading: _Reading
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    assistant = Assistant(
        EpisodeLog(store.conn), KmChat(), recall=Recall(store, lambda said: len(said) // 4)
    )
    chat = assistant.new_conversation("load")
    store.add("The user walks to the harbour every morning.", "fact")
    message = "harbour walk " + "lorem ipsum dolor sit amet " * 200_000 + " zeppelin"
    list(assistant.turn(chat, message, CancelToken()))
    heads = [said for said in reading.read if message.startswith(said)]
    assert heads == [message[: text.QUERY_CHARS]]  # once, and only its opening
    assert all(len(said) <= text.QUERY_CHARS for said in reading.read)
    stored = EpisodeLog(store.conn).episodes(chat)[0]
    assert stored.content == message  # kept whole, and found by a word at its end
    assert text.query_terms("zeppelin") == ["zeppelin"]
    assert EpisodeLog(store.conn).search_conversations("zeppelin")[0].id == chat
    store.conn.close()
