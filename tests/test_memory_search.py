"""Full-text search in Chinese and English, episode search, and deletion that leaves no trace."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engram.memory import db, search, vectors
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.search import Filters, focus, fuse_scores, text_candidates
from engram.memory.store import MemoryStore
from engram.memory.text import fts_match, index_text, query_terms
from test_memory_store import embedder, store  # noqa: F401  (shared fixtures)


def _text(store: MemoryStore, query: str) -> list[int]:  # noqa: F811
    """Memory ids the keyword side finds for ``query``, best first."""
    terms = focus(store.conn, "memories", query).terms
    return [i for i, _ in text_candidates(store.conn, "memories", terms, 10, Filters())]


def test_chinese_words_are_found_without_spaces(store: MemoryStore) -> None:  # noqa: F811
    trip = store.add("我上周去了杭州")
    store.add("我喜欢喝绿茶", kind="preference")
    store.add("The user went to Hamburg last week.")
    for query in ("杭州", "杭州好玩吗？", "州"):
        assert _text(store, query)[:1] == [trip.id], query
    assert store.search("我上周去了哪里", k=1)[0].memory.id == trip.id
    assert _text(store, "北京") == []


def test_english_search_stems_words_and_ignores_stopwords(store: MemoryStore) -> None:  # noqa: F811
    run = store.add("The user goes running every morning before work.")
    store.add("The user likes the colour green.")
    assert _text(store, "did he run?") == [run.id]
    assert query_terms("What is THE plan for 周末?") == ["plan", "周末"]
    assert fts_match(['say "hi"']) == '"say ""hi"""'
    assert index_text("去杭州ok") == " 去 杭 州 去杭 杭州 ok"


def test_a_contractions_pieces_match_nothing(store: MemoryStore) -> None:  # noqa: F811
    kettle = store.add("That's the kettle I don't lend to anyone; it's my grandmother's.")
    for query in ("What's a good name for a parrot?", "Isn't it late? I'm tired, we'd better go."):
        assert _text(store, query) == [], query
    assert _text(store, "Where's the kettle?") == [kettle.id]


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
    # The message before a hit comes with it (the same conversation, the same sitting).
    assert [h.episode.id for h in index.search("tyre", mode="text")] == [bike.id, hz.id]


def test_what_was_said_while_paused_is_never_recalled_in_another_chat(
    store: MemoryStore,  # noqa: F811
) -> None:
    """Paused messages are stored (excluded) and indexed with the rest when a later turn
    catches up; recall in another chat must still pass them by, their own chat keeps them."""
    log = EpisodeLog(store.conn)
    paused = log.new_conversation()
    locker = log.append(paused.id, "user", "My locker code is 4711.", excluded=True)
    later = log.new_conversation()
    log.append(later.id, "user", "I keep my gym things in a locker.")
    index = EpisodeIndex(store.space)
    assert index.index_new() == 2  # indexed like every message
    elsewhere = [h.episode.id for h in index.search("locker code", k=5)]
    assert locker.id not in elsewhere and elsewhere
    for mode in ("vector", "text"):
        assert locker.id not in [h.episode.id for h in index.search("locker code", mode=mode)]
    own = index.search("locker code", k=5, filters=Filters(conversation_id=paused.id))
    assert [h.episode.id for h in own] == [locker.id]


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


def test_score_fusion_rewards_agreement_and_keeps_scores_non_negative() -> None:
    vector = [(1, 0.9), (2, 0.85), (3, 0.5)]
    lexical = [(4, 12.0), (2, 11.0), (5, 1.0)]
    fused = fuse_scores(vector, lexical)
    assert fused[0].id == 2  # second in both lists beats first in one
    assert min(c.score for c in fused) == 0.0
    assert {c.id for c in fused} == {1, 2, 3, 4, 5}
    assert [c.id for c in fuse_scores([], lexical)] == [4, 2, 5]
    assert fused[0].similarity == 0.85 and fused[0].text_rank == 2


def _chat(store: MemoryStore, turns: list[tuple[str, str]], start: float) -> list[int]:  # noqa: F811
    """A conversation of (speaker, text) messages a second apart from ``start``."""
    log = EpisodeLog(store.conn)
    conv = log.new_conversation()
    ids = []
    for n, (speaker, text) in enumerate(turns):
        episode = log.append(conv.id, "user", f"{speaker}: {text}")
        store.conn.execute(
            "UPDATE episodes SET created_at = ? WHERE id = ?", (start + n, episode.id)
        )
        ids.append(episode.id)
    return ids


def test_speaker_names_in_every_message_leave_both_queries(store: MemoryStore) -> None:  # noqa: F811
    topics = ["the weather", "a film", "lunch", "the garden", "a song", "the bus", "work", "tea"]
    turns = [
        (("Caroline", "Melanie")[n % 2], f"Let us talk about {topics[n % 8]} again, {n}.")
        for n in range(240)
    ]
    turns[101] = ("Caroline", "I have been researching adoption agencies for months.")
    ids = _chat(store, turns, 1_700_000_000.0)
    query = "What did Caroline research?"
    found = focus(store.conn, "episodes", query)
    assert "caroline" not in found.terms and "research" in found.terms
    assert found.text == "What did research?"
    # Few rows: a word is never common below MIN_COMMON rows that hold it.
    assert focus(store.conn, "memories", query).text == query
    index = EpisodeIndex(store.space)
    index.index_new()
    hits = index.search(query, k=3)
    assert hits[0].episode.id == ids[101]


def test_a_hits_neighbours_rank_within_k_but_not_across_sittings(store: MemoryStore) -> None:  # noqa: F811
    morning = _chat(
        store,
        [
            ("Ana", "Guess what I bought at the market on Saturday?"),
            ("Ben", "No idea, tell me."),
            ("Ana", "A second-hand cello, it sounds wonderful."),
            ("Ben", "How lovely, will you take lessons?"),
        ],
        1_700_000_000.0,
    )
    index = EpisodeIndex(store.space)
    index.index_new()
    hits = index.search("Which instrument did Ana get?", k=4)
    ids = [h.episode.id for h in hits]
    assert ids[0] == morning[2]
    assert morning[1] in ids and morning[3] in ids  # the turns either side come along
    assert all(h.similarity is not None or h.text_rank is not None for h in hits)
    assert [h.episode.id for h in index.search("lessons", k=4, mode="text")] == [
        morning[3],
        morning[2],
    ]
    # Two hours later is another sitting: the message before it is no longer its neighbour.
    store.conn.execute(
        "UPDATE episodes SET created_at = created_at + 7200 WHERE id = ?", (morning[3],)
    )
    assert [h.episode.id for h in index.search("lessons", k=4, mode="text")] == [morning[3]]


def test_the_keyword_side_reads_the_previous_message_and_forgets_it_with_it(
    store: MemoryStore,  # noqa: F811
) -> None:
    ids = _chat(
        store,
        [("Ana", "Which city is hosting the chess olympiad?"), ("Ben", "Budapest, I think.")],
        1_700_000_000.0,
    )
    terms = focus(store.conn, "episodes", "chess olympiad").terms
    found = text_candidates(store.conn, "episodes", terms, 10, Filters(statuses=None))
    # The answer matches through its question, below the question itself.
    assert [i for i, _ in found] == [ids[0], ids[1]] and found[0][1] > found[1][1]
    with db.transaction(store.conn):  # the question alone is deleted: the answer stays
        store.conn.execute("DELETE FROM episodes WHERE id = ?", (ids[0],))
    assert text_candidates(store.conn, "episodes", terms, 10, Filters(statuses=None)) == []


def test_a_word_that_becomes_common_leaves_the_query_once_the_table_has_grown(
    store: MemoryStore,  # noqa: F811
) -> None:
    start = 1_700_000_000.0
    _chat(store, [("Ana", f"We spoke about topic {n} today.") for n in range(200)], start)
    assert "kayak" in focus(store.conn, "episodes", "Where is the kayak?").terms
    _chat(store, [("Ana", f"The kayak trip, part {n}.") for n in range(100)], start + 10_000)
    found = focus(store.conn, "episodes", "Where is the kayak?")
    assert "kayak" not in found.terms and "kayak" not in found.text


def test_a_turn_embeds_only_the_messages_after_the_newest_vector(
    store: MemoryStore,  # noqa: F811
) -> None:
    ids = _chat(store, [("Ana", f"Message number {n}.") for n in range(6)], 1_700_000_000.0)
    index = EpisodeIndex(store.space)
    assert index.index_new() == 6
    vectors = store.space.index
    assert vectors is not None
    table = f"vectors_episodes_g{vectors.generation}"
    store.conn.execute(f"DELETE FROM {table} WHERE id = ?", (ids[2],))  # a gap below the newest
    new = _chat(store, [("Ana", "One more message.")], 1_700_000_100.0)
    assert index.index_new(newest=True) == 1
    assert set(vectors.get("episodes", [ids[2], *new])) == {new[0]}
    assert index.index_new() == 1  # the full pass (Backfill) fills the gap
    assert set(vectors.get("episodes", [ids[2]])) == {ids[2]}


def test_a_filtered_search_over_many_rows_finds_the_nearest_of_them(
    store: MemoryStore,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past EXACT_ROWS rows of a kind (lowered here), the rows of that kind are searched by
    their codes like the whole table, then rescored exactly: the nearest ones are still found,
    whatever nearer rows of other kinds there are."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", 100)
    rng = np.random.default_rng(3)
    dim = store.space.index.dim if store.space.index is not None else 0
    query = rng.standard_normal(dim).astype(np.float32)
    query /= np.linalg.norm(query)

    def near(count: int, closeness: float) -> np.ndarray:
        noise = rng.standard_normal((count, dim)).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        rows = closeness * query + (1 - closeness) * noise
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    others = near(300, 0.9)  # nearer than every preference
    store.add_many([f"fact {i}" for i in range(300)], "fact", vectors=others)
    far = near(1200, 0.0)
    far[[17, 950, 1111]] = near(3, 0.6)
    ids = store.add_many([f"preference {i}" for i in range(1200)], "preference", vectors=far)
    scores = far @ query
    best = [ids[i] for i in np.argsort(-scores)[:5]]
    found = store.search("", k=5, vector=query[None, :], filters=Filters(kinds=("preference",)))
    assert [hit.memory.id for hit in found][:3] == best[:3]
    assert all(hit.memory.kind == "preference" for hit in found)


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each search among the rows that pass a filter (``VectorIndex.among``), as it happens."""
    scanned: list[str] = []
    among = vectors.VectorIndex.among
    monkeypatch.setattr(
        vectors.VectorIndex, "among",
        lambda self, *a, **k: scanned.append("among") or among(self, *a, **k),
    )  # fmt: skip
    return scanned


def test_a_filtered_search_takes_what_passes_among_every_rescored_candidate(
    store: MemoryStore,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole table's nearest candidates are rescored once for both of a turn's searches;
    when enough of them pass a filter, the rows that pass are not scanned again (the stated
    preferences' scan was 3.6 ms of a turn at 100k memories)."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", 100)
    rng = np.random.default_rng(5)
    dim = store.space.index.dim if store.space.index is not None else 0
    rows = rng.standard_normal((3000, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    kinds = ["fact", "fact", "preference"] * 1000  # a third of them preferences
    for kind in ("fact", "preference"):
        chosen = [i for i, k in enumerate(kinds) if k == kind]
        store.add_many([f"{kind} {i}" for i in chosen], kind, vectors=rows[chosen])
    query = rows[7][None, :]
    index = store.space.index
    assert index is not None
    every = index.knn("memories", query, vectors.KNN_CANDIDATES)
    assert index.knn("memories", query, 5) == every[:5]  # one rescoring, any number of them

    scanned = _scans(monkeypatch)
    found = store.search("", k=5, vector=query, filters=Filters(kinds=("preference",)))
    assert scanned == [] and all(hit.memory.kind == "preference" for hit in found)
    preferences = {h.memory.id for h in found}
    assert preferences <= {i for i, _ in every}


def test_a_filtered_search_scans_only_when_fewer_pass_than_it_keeps(
    store: MemoryStore,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A search that keeps k rows of a kind takes those among the rescored candidates when at
    least k of them are of that kind, however many fewer than its pool; only with fewer than k
    are the rows of that kind scanned (bench/turn.py: four of fourteen messages had 24-31
    preferences among their 400 candidates, each turn keeping three)."""
    monkeypatch.setattr(vectors, "EXACT_ROWS", 50)
    rng = np.random.default_rng(11)
    dim = store.space.index.dim if store.space.index is not None else 0
    rows = rng.standard_normal((3000, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    kinds = ["preference" if i % 30 == 0 else "fact" for i in range(3000)]  # 100 preferences
    for kind in ("fact", "preference"):
        chosen = [i for i, k in enumerate(kinds) if k == kind]
        store.add_many([f"{kind} {i}" for i in chosen], kind, vectors=rows[chosen])
    query = rows[4][None, :]
    preferences = Filters(kinds=("preference",))
    scanned = _scans(monkeypatch)

    index = store.space.index
    assert index is not None
    ids = [i for i, _ in index.knn("memories", query, vectors.KNN_CANDIDATES)]
    passing = sum(kind == "preference" for (kind,) in store.conn.execute(
        "SELECT kind FROM memories WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)
    ))  # fmt: skip
    assert 5 <= passing < 50  # fewer than the pool of 50, enough for five
    found = store.search("", k=5, vector=query, filters=preferences)
    assert scanned == [] and len(found) == 5
    assert all(hit.memory.kind == "preference" for hit in found)

    found = store.search("", k=passing + 1, vector=query, filters=preferences)
    assert scanned == ["among"] and len(found) == passing + 1


def test_a_filtered_search_checks_the_nearest_a_few_at_a_time_until_enough_pass(
    store: MemoryStore,  # noqa: F811
) -> None:
    """The search of every active memory checks the nearest ``2 * pool`` candidates against
    its filter, not all 400 the coarse scan rescored; a filter few pass reads on, in order, and
    keeps what checking them all at once kept."""
    rng = np.random.default_rng(13)
    dim = store.space.index.dim if store.space.index is not None else 0
    rows = rng.standard_normal((1000, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    liked = set(
        store.add_many([f"preference {i}" for i in range(100)], "preference", vectors=rows[:100])
    )
    store.add_many([f"fact {i}" for i in range(900)], "fact", vectors=rows[100:])
    index = store.space.index
    assert index is not None
    checked: list[int] = []

    def traced(_cursor: object, sql: str, bindings: object) -> bool:
        if "json_each" in sql and "CROSS JOIN memories" in sql and isinstance(bindings, tuple):
            checked.append(len(json.loads(bindings[0])))
        return True

    query = rows[109][None, :]
    near = index.knn("memories", query, vectors.KNN_CANDIDATES)
    store.conn.exec_trace = traced
    try:
        found = search.vector_candidates(store.conn, index, "memories", query, 50, Filters())
        assert checked == [100] and found == near[:50]  # every memory is active
        checked.clear()
        preferences = search.vector_candidates(
            store.conn, index, "memories", query, 50, Filters(kinds=("preference",)), need=3
        )
    finally:
        store.conn.exec_trace = None
    every = [i for i, _ in near if i in liked]
    assert checked[0] == 100 and len(checked) > 1  # a tenth pass: it read on
    assert [i for i, _ in preferences] == every[:50]


def test_the_vectors_of_the_last_search_are_not_read_again_until_they_change(
    store: MemoryStore,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hits of a search are told apart by their vectors, which the search has just read:
    asked for them, the index gives its copy while the file's vectors are unchanged, and reads
    them again once they are not."""
    rng = np.random.default_rng(2)
    dim = store.space.index.dim if store.space.index is not None else 0
    rows = rng.standard_normal((600, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    ids = store.add_many([f"fact {i}" for i in range(600)], "fact", vectors=rows)
    index = store.space.index
    assert index is not None
    read: list[int] = []
    matrix = vectors.VectorIndex._matrix

    def counted(self: vectors.VectorIndex, space: str, wanted: list[int]) -> object:
        read.append(len(wanted := list(wanted)))
        return matrix(self, space, wanted)

    monkeypatch.setattr(vectors.VectorIndex, "_matrix", counted)
    near = [i for i, _ in index.knn("memories", rows[3][None, :], 20)]
    assert read == [vectors.KNN_CANDIDATES]
    got = index.get("memories", near)
    assert read == [vectors.KNN_CANDIDATES] and set(got) == set(near)
    np.testing.assert_allclose(got[ids[3]], rows[3], atol=1e-6)
    outside = [i for i in ids if i not in {j for j, _ in index._last["memories"].found}][:2]
    assert set(index.get("memories", [near[0], *outside])) == {near[0], *outside}
    assert read[1:] == [2]  # only the two it had not rescored

    moved = rows[5][None, :]
    with db.transaction(store.conn):
        index.put("memories", [ids[3]], moved)  # an older row rewritten: the vectors changed
    np.testing.assert_allclose(index.get("memories", [ids[3]])[ids[3]], moved[0], atol=1e-6)
    assert read[2:] == [1]


def test_a_search_of_another_space_between_keeps_the_memories_rescoring(
    store: MemoryStore,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn searches the memories, then the lessons' situations, then the stated preferences
    among the memories with the same vector: the memories' candidates are scanned and read once
    (each space keeps its own last search; a single one made the third search read again)."""
    rng = np.random.default_rng(5)
    dim = store.space.index.dim if store.space.index is not None else 0
    rows = rng.standard_normal((600, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    store.add_many([f"fact {i}" for i in range(500)], "fact", vectors=rows[:500])
    index = store.space.index
    assert index is not None
    with db.transaction(store.conn):
        index.put("situations", list(range(1, 101)), rows[500:])
    read: list[str] = []
    matrix = vectors.VectorIndex._matrix

    def counted(self: vectors.VectorIndex, space: str, wanted: list[int]) -> object:
        read.append(space)
        return matrix(self, space, wanted)

    monkeypatch.setattr(vectors.VectorIndex, "_matrix", counted)
    query = rows[7][None, :]
    first = index.knn("memories", query, 20)
    near = index.knn("situations", query, 5)
    assert index.knn("memories", query, 20) == first and len(near) == 5
    assert read == ["memories", "situations"]
