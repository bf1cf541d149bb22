"""Conversation management in the core: list, search (English and Chinese), rename, delete."""

from __future__ import annotations

from pathlib import Path

import apsw

import tiny
from engram.assistant.session import embedder_for
from engram.core import paths
from engram.memory import db
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog, ToolStep
from engram.memory.store import MemoryStore


def _log() -> tuple[apsw.Connection, EpisodeLog]:
    conn = db.connect(paths.database_path())
    return conn, EpisodeLog(conn)


def test_search_finds_titles_and_message_text_in_both_languages() -> None:
    conn, log = _log()
    trip = log.new_conversation("Holiday plans")
    log.append(trip.id, "user", "我上周去了杭州，想再去一次西湖。")
    work = log.new_conversation("Quarterly report")
    log.append(work.id, "user", "Help me outline the revenue section.")
    log.new_conversation("100% done_list")

    assert [c.id for c in log.search_conversations("杭州")] == [trip.id]
    assert [c.id for c in log.search_conversations("revenue")] == [work.id]
    assert [c.id for c in log.search_conversations("holiday")] == [trip.id]
    assert [c.title for c in log.search_conversations("100%")] == ["100% done_list"]
    assert len(log.search_conversations("")) == 3
    conn.close()


def test_the_tools_called_in_a_conversation_are_named_without_its_other_messages() -> None:
    conn, log = _log()
    chat = log.new_conversation("Sums")
    log.append(chat.id, "user", "calculator is what I use; what is 2 + 2?")
    log.append_step(chat.id, ToolStep("calculator", '{"expression": "2 + 2"}', "4"))
    log.append_step(chat.id, ToolStep("memory_search", '{"query": "tax"}', "no match", True))
    log.append_step(chat.id, ToolStep("calculator", '{"expression": "3 * 3"}', "9"))
    other = log.new_conversation("Weather")
    log.append_step(other.id, ToolStep("weather", '{"city": "Oslo"}', "rain"))

    assert log.tools_called(chat.id) == {"calculator", "memory_search"}
    assert log.tools_called(other.id) == {"weather"}
    assert log.tools_called(log.new_conversation("Empty").id) == set()
    # Each step is kept in its columns and, for search and the distiller, as its text.
    steps = [e for e in log.episodes(chat.id) if e.role == "tool"]
    assert steps[1].step == ToolStep("memory_search", '{"query": "tax"}', "no match", True)
    assert steps[1].content == 'memory_search {"query": "tax"}\n→ error: no match'
    assert log.episodes(chat.id)[0].step is None
    conn.close()


def test_rename_and_delete_keep_memories_with_provenance_marked(starter_models: Path) -> None:
    conn, log = _log()
    store = MemoryStore(conn, embedder_for(tiny.settings()))
    chat = log.new_conversation("Pets")
    said = log.append(chat.id, "user", "My dog is called Biscuit.")
    log.append(chat.id, "assistant", "Biscuit is a lovely name.")
    memory = store.add("The user's dog is called Biscuit.", "fact", source_episodes=[said.id])
    index = EpisodeIndex(store.space)
    index.index_new()
    log.rename(chat.id, "Dogs")
    assert log.conversation(chat.id).title == "Dogs"  # type: ignore[union-attr]

    log.delete_conversation(chat.id)
    store.purge()  # what Assistant.delete_conversation does after the delete

    assert log.conversation(chat.id) is None
    assert log.episodes(chat.id) == []
    assert index.search("Biscuit") == []
    assert store.get(memory.id) is not None
    sources = store.sources(memory.id)
    assert len(sources) == 1 and sources[0].source_deleted and sources[0].episode_id is None
    conn.close()
