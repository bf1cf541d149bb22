"""MemoryStore writes, provenance, ranking, packing and re-embedding on a real file and model."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from engram.core import paths
from engram.memory import db, embed, migrations
from engram.memory.episodes import EpisodeLog
from engram.memory.injections import Injections
from engram.memory.packing import pack
from engram.memory.reembed import reembed
from engram.memory.search import Filters
from engram.memory.store import MemoryStore
from engram.memory.text import estimate_tokens
from engram.models import catalogue


@pytest.fixture(scope="module")
def embedder(starter_models: Path) -> embed.FastEmbedder:
    return embed.minilm(catalogue.load().get("all-minilm-l6-v2-int8").folder())


@pytest.fixture
def store(embedder: embed.FastEmbedder) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(paths.database_path(), embedder)
    yield opened
    opened.conn.close()


def test_add_returns_the_existing_memory_for_a_near_duplicate(store: MemoryStore) -> None:
    first = store.add("The user lives in Berlin.", importance=0.8)
    again = store.add("the user lives in Berlin")
    other_kind = store.add("The user lives in Berlin.", kind="profile")
    assert again.id == first.id
    assert other_kind.id != first.id
    assert len(store.memories()) == 2


def test_supersede_keeps_history_but_search_only_sees_the_new_fact(store: MemoryStore) -> None:
    old = store.add("The user works as a nurse at a clinic.")
    new = store.supersede(old.id, "The user works as a data analyst at a startup.")
    kept = store.get(old.id)
    assert kept is not None and kept.status == "superseded" and kept.superseded_by == new.id
    found = [h.memory.id for h in store.search("what is the user's job?")]
    assert new.id in found and old.id not in found
    everything = store.search("user's job", filters=Filters(statuses=None))
    assert old.id in [h.memory.id for h in everything]


def test_update_reembeds_and_reindexes_the_new_text(store: MemoryStore) -> None:
    m = store.add("The user plays the violin.")
    store.update(m.id, "The user plays the cello.", importance=0.9)
    assert store.search("cello", k=1)[0].memory.id == m.id
    assert all(h.text_rank is None for h in store.search("violin") if h.memory.id == m.id)
    assert store.get(m.id).importance == 0.9  # type: ignore[union-attr]


def test_pin_and_feedback_lift_a_memory_in_ranking(store: MemoryStore) -> None:
    a = store.add("The user likes green tea in the morning.", kind="preference")
    b = store.add("The user likes black coffee in the morning.", kind="preference")
    query = "what does the user drink in the morning"
    before = [h.memory.id for h in store.search(query, k=2)]
    loser = before[1]
    store.feedback(loser, +1)
    store.feedback(loser, +1)
    store.pin(loser)
    after = [h.memory.id for h in store.search(query, k=2)]
    assert after[0] == loser and {a.id, b.id} == set(after)
    assert store.get(loser).feedback == 2  # type: ignore[union-attr]


def test_filters_by_kind_conversation_and_time(store: MemoryStore) -> None:
    conv = EpisodeLog(store.conn).new_conversation("trip")
    plan = store.add("Plan: book the train to Hamburg.", kind="plan", conversation_id=conv.id)
    fact = store.add("The user has a sister in Hamburg.")
    kinds = [h.memory.id for h in store.search("Hamburg", filters=Filters(kinds=["plan"]))]
    assert kinds == [plan.id]
    by_conv = store.search("Hamburg", filters=Filters(conversation_id=conv.id))
    assert [h.memory.id for h in by_conv] == [plan.id]
    later = store.search("Hamburg", filters=Filters(since=fact.created_at))
    assert fact.id in [h.memory.id for h in later] and plan.id not in [h.memory.id for h in later]


def test_deleting_a_conversation_keeps_memories_and_marks_their_sources(store: MemoryStore) -> None:
    log = EpisodeLog(store.conn)
    conv = log.new_conversation()
    said = log.append(conv.id, "user", "I moved to Lisbon last month.")
    answer = log.append(conv.id, "assistant", "Lisbon is lovely!")
    summary = store.add(
        "The user moved to Lisbon.",
        kind="summary",
        conversation_id=conv.id,
        source_episodes=[said.id, answer.id],
    )
    store.add_sources(summary.id, [answer.id, said.id])
    assert [e.id for e in store.source_episodes(summary.id)] == [said.id, answer.id]
    injections = Injections(store.conn)
    injections.record(answer.id, [(h.memory.id, h.score) for h in store.search("Lisbon", k=1)])
    assert [m.id for m, _, _ in injections.of(answer.id)] == [summary.id]
    with db.transaction(store.conn):
        store.conn.execute("DELETE FROM conversations WHERE id = ?", (conv.id,))
    kept = store.get(summary.id)
    assert kept is not None and kept.conversation_id is None and kept.use_count == 1
    sources = store.sources(summary.id)
    assert len(sources) == 2 and all(s.source_deleted and s.episode_id is None for s in sources)
    assert [s.turn_index for s in sources] == [0, 1]
    assert store.source_episodes(summary.id) == []
    assert injections.of(answer.id) == []


def test_results_carry_scores_and_near_duplicates_collapse(store: MemoryStore) -> None:
    v = store.embedder.embed(["The user's birthday is on 3 May."])
    store.add("The user's birthday is on 3 May.", vector=v)
    store.add_many(["The user's birthday is on 3 May!"], vectors=v)  # a copy the checks skipped
    hits = store.search("when is the user's birthday", k=5)
    assert sum("birthday" in h.content for h in hits) == 1
    assert hits[0].similarity is not None and hits[0].similarity > 0.5 and hits[0].score > 0


def test_near_duplicates_filling_the_head_give_way_to_the_next_distinct_memories(
    store: MemoryStore,
) -> None:
    copies = [f"My sister Anna lives in Lisbon{'!' * i}" for i in range(1, 9)]  # one text, 8 rows
    store.add_many(copies, importance=0.9)
    store.add_many(["My sister Anna took up climbing in Lisbon last spring."], importance=0.1)
    hits = store.search("sister Anna Lisbon", k=2)
    assert len(hits) == 2
    assert sum(h.content.startswith("My sister Anna lives in Lisbon") for h in hits) == 1
    assert any("climbing" in h.content for h in hits)


class _Sized:
    def __init__(self, content: str, score: float) -> None:
        self.content = content
        self.score = score


def test_packing_respects_the_budget_and_skips_repeats() -> None:
    items = [
        _Sized("The user lives in Berlin with two cats.", 1.0),
        _Sized("The user lives in Berlin with two cats and a dog.", 0.95),
        _Sized("Prefers short answers.", 0.6),
        _Sized("A very long memory " * 40, 0.9),
    ]
    chosen = pack(items, 30, estimate_tokens)
    assert sum(estimate_tokens(i.content) for i in chosen) <= 30
    assert [i.score for i in chosen] == [1.0, 0.6]
    assert pack(items, 0, estimate_tokens) == []


class _Truncated:
    """The real model's vectors cut to 192 dimensions: a different embedding model."""

    def __init__(self, inner: embed.FastEmbedder) -> None:
        self.inner = inner
        self.model_id = "test/minilm-192"
        self.dim = 192

    def embed(self, texts: Sequence[str]) -> embed.Vectors:
        return embed.normalize(self.inner.embed(texts)[:, :192])


def test_switching_model_reembeds_in_batches_and_search_works_meanwhile(
    store: MemoryStore, embedder: embed.FastEmbedder
) -> None:
    ids = store.add_many([f"Fact number {i} about topic {i % 7}." for i in range(40)])
    store.add("The user's favourite city is Kyoto.")
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        assert store.search("favourite city", k=1)[0].content.endswith("Kyoto.")
        assert store.embedding_model == embedder.model_id

    calls = iter(range(100))
    assert not reembed(store, _Truncated(embedder), cancel=lambda: next(calls) == 1, batch=16)
    assert store.embedding_model == embedder.model_id and store.index is not None
    assert store.index.count("memories") == len(ids) + 1
    assert reembed(store, _Truncated(embedder), progress=progress, batch=16)
    assert seen[-1] == (41, 41) and len(seen) == 3
    assert store.embedding_model == "test/minilm-192" and store.index.dim == 192
    assert store.search("favourite city", k=1)[0].content.endswith("Kyoto.")
    # The old tables stay for a search that read the old generation just before the swap,
    # and go at the next start.
    old = "SELECT name FROM sqlite_master WHERE name LIKE 'vectors_%_g1'"
    assert len(db.rows(store.conn, old)) == len(migrations.VECTOR_SPACES)
    migrations.drop_older_generations(store.conn, store.space.generation)
    assert db.rows(store.conn, old) == []


def test_knn_matches_exact_search(store: MemoryStore) -> None:
    rng = np.random.default_rng(3)
    vectors = embed.normalize(rng.standard_normal((1200, 384)).astype(np.float32))
    ids = store.add_many([f"row {i}" for i in range(1200)], vectors=vectors)
    assert store.index is not None
    q = vectors[17] + 0.05 * rng.standard_normal(384).astype(np.float32)
    got = [i for i, _ in store.index.knn("memories", q[None, :], 5, candidates=400)]
    exact = [ids[i] for i in np.argsort(-(vectors @ (q / np.linalg.norm(q))))[:5]]
    assert got[0] == ids[17] and got == exact


def test_a_repeated_knn_is_answered_again_until_a_vector_is_written(store: MemoryStore) -> None:
    """The same question twice is one scan (a turn asks it of all memories and then of the
    preferences); a vector written or deleted in between is seen by the second."""
    rng = np.random.default_rng(5)
    vectors = embed.normalize(rng.standard_normal((600, 384)).astype(np.float32))
    ids = store.add_many([f"row {i}" for i in range(600)], vectors=vectors)
    index = store.index
    assert index is not None
    q = vectors[40][None, :]
    first = index.knn("memories", q, 5)
    reads: list[str] = []
    store.conn.setexectrace(lambda _cursor, sql, _bindings: reads.append(sql) or True)
    try:
        assert index.knn("memories", q, 5) == first
    finally:
        store.conn.setexectrace(None)
    assert not any("embedding FROM" in sql for sql in reads)  # no float vectors read again
    closer = embed.normalize((vectors[40] + 0.001 * vectors[41])[None, :])
    (new,) = store.add_many(["a closer row"], vectors=closer)
    assert index.knn("memories", q, 5)[0][0] in (new, ids[40])
    assert new in [i for i, _ in index.knn("memories", q, 5)]
    store.delete(new)
    assert index.knn("memories", q, 5) == first


def test_a_lesson_is_found_by_its_closest_situation_and_keeps_them_through_edits(
    store: MemoryStore,
) -> None:
    """Each situation a lesson applies to has a vector of its own: a question far from the
    lesson's words and near one of its situations finds it; the rows follow the meta through
    updates, an edit of the text keeps them, and deleting the memory deletes them."""
    bullets = store.add(
        "When you list things, use bullet points starting with '- ', no numbering.",
        "lesson",
        meta={"applies_to": ["List three ways to save energy at home", "tips"]},
    )
    store.add("Answer in kilometres.", "lesson", meta={"applies_to": ["How long is a marathon?"]})
    store.add("The user lists birds they saw.", "fact", meta={"applies_to": ["List birds"]})
    query = store.query_vector("Give me some ways to sleep better.")
    assert store.index is not None and query is not None
    whole = store.index.get("memories", [bullets.id])[bullets.id].reshape(-1)
    found = store.situated(query, 8, ["lesson"])
    assert found[0].memory.id == bullets.id and [h.memory.kind for h in found] == ["lesson"] * 2
    assert found[0].similarity is not None
    assert found[0].similarity > float(np.dot(query.reshape(-1), whole)) + 0.1

    store.update(bullets.id, "Use bullet points when you list things.")  # an edit keeps them
    assert store.situated(query, 8, ["lesson"])[0].memory.id == bullets.id
    store.update(bullets.id, meta={"applies_to": ["How far is Paris from Berlin?"]})
    assert store.situated(query, 8, ["lesson"])[0].memory.id != bullets.id
    rows = db.rows(store.conn, "SELECT content FROM situations WHERE memory_id = ?", (bullets.id,))
    assert [r["content"] for r in rows] == ["How far is Paris from Berlin?"]
    store.update(bullets.id, status="archived")
    assert bullets.id not in {h.memory.id for h in store.situated(query, 8, ["lesson"])}
    store.delete(bullets.id)
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM situations WHERE memory_id = ?",
                     (bullets.id,)) == 0  # fmt: skip
    assert store.index.count("situations") == 2
