"""Full-text search in Chinese and English, episode search, and deletion that leaves no trace."""

from __future__ import annotations

from pathlib import Path

from engram.memory import db
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.search import Filters, text_candidates
from engram.memory.store import MemoryStore
from engram.memory.text import fts_match, index_text, query_terms
from test_memory_store import embedder, store  # noqa: F401  (shared fixtures)


def test_chinese_words_are_found_without_spaces(store: MemoryStore) -> None:  # noqa: F811
    trip = store.add("我上周去了杭州")
    store.add("我喜欢喝绿茶", kind="preference")
    store.add("The user went to Hamburg last week.")
    for query in ("杭州", "杭州好玩吗？", "州"):
        hits = text_candidates(store.conn, "memories", query, 10, Filters())
        assert hits[:1] == [trip.id], query
    assert store.search("我上周去了哪里", k=1)[0].memory.id == trip.id
    assert text_candidates(store.conn, "memories", "北京", 10, Filters()) == []


def test_english_search_stems_words_and_ignores_stopwords(store: MemoryStore) -> None:  # noqa: F811
    run = store.add("The user goes running every morning before work.")
    store.add("The user likes the colour green.")
    assert text_candidates(store.conn, "memories", "did he run?", 10, Filters()) == [run.id]
    assert query_terms("What is THE plan for 周末?") == ["plan", "周末"]
    assert fts_match(['say "hi"']) == '"say ""hi"""'
    assert index_text("去杭州ok") == " 去 杭 州 去杭 杭州 ok"


def test_episode_search_finds_raw_messages_in_both_languages(store: MemoryStore) -> None:  # noqa: F811
    log = EpisodeLog(store.conn)
    conv = log.new_conversation()
    other = log.new_conversation()
    hz = log.append(conv.id, "user", "我上周去了杭州，西湖很漂亮。")
    bike = log.append(conv.id, "user", "My bike got a flat tyre on the way to the office.")
    log.append(other.id, "user", "Bicycles are great for commuting.")
    index = EpisodeIndex(store.space)
    assert index.index_new() == 3 and index.index_new() == 0
    assert index.search("杭州", k=1)[0].episode.id == hz.id
    hits = index.search("bicycle problem", k=2, filters=Filters(conversation_id=conv.id))
    assert hits[0].episode.id == bike.id and all(h.episode.conversation_id == conv.id for h in hits)
    assert [h.episode.id for h in index.search("tyre", mode="text")] == [bike.id]


def _raw(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


def test_deleted_text_leaves_the_file_and_the_wal(store: MemoryStore) -> None:  # noqa: F811
    path = Path(store.conn.filename)
    secret = "Zanzibarquux password hint is 紫禁城秘密"
    keep = store.add("The user has a cat called Miso.")
    gone = store.add(secret)
    for i in range(30):  # enough rows that the FTS index has real segments
        store.add(f"Filler memory {i} about gardening and tomatoes number {i}.")
    assert secret.encode() in _raw(path) or b"Zanzibarquux" in _raw(path)
    store.delete(gone.id)
    raw = _raw(path)
    for needle in ("Zanzibarquux", "zanzibarquux", "紫禁城", "禁城秘"):
        assert needle.encode() not in raw, needle
    assert store.get(gone.id) is None and store.get(keep.id) is not None
    assert store.search("Zanzibarquux password") == [] or all(
        h.memory.id != gone.id for h in store.search("Zanzibarquux password")
    )
    assert (
        db.scalar(store.conn, "SELECT COUNT(*) FROM vectors_memories_g1 WHERE id = ?", (gone.id,))
        == 0
    )


def test_forget_all_removes_every_memory_and_optionally_conversations(store: MemoryStore) -> None:  # noqa: F811
    log = EpisodeLog(store.conn)
    conv = log.new_conversation()
    log.append(conv.id, "user", "Remember that my locker code is Quokkabanana.")
    store.add("The user's locker code is Quokkabanana.")
    assert store.counts() == (1, 1, 1)
    assert store.forget_all() == 1
    assert store.memories() == [] and b"Quokkabanana" in _raw(Path(store.conn.filename))
    store.forget_all(episodes=True)
    assert b"Quokkabanana" not in _raw(Path(store.conn.filename))
    assert store.counts() == (0, 0, 0)
