"""Memory in two languages with the default embedder (the Universal Sentence Encoder
multilingual, real weights from the package index): a fact told in one language is found by a
question in the other, each model's similarity floors come from its catalogue entry, and a store
made with another model is re-embedded in the background while search goes on (real SQLite)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.session import embedder_of, open_session
from engram.assistant.turn.recall import Recall
from engram.core import paths
from engram.core.errors import CatalogueError, EngramError
from engram.core.settings import Settings
from engram.memory import embed, reembed
from engram.memory.kinds import FACT
from engram.memory.store import MemoryStore
from engram.models import catalogue, starter
from test_consolidation_support import minilm

USE = "use-multilingual-v3"
# Facts and questions written for these tests (none is a sentence of an evaluation set).
FACTS = {
    "zh": "用户的侄子明明在杭州读大学，学的是建筑。",
    "en": "The user's landlord is called Mr Okafor and collects the rent on the first Monday.",
}
ASKED = {
    "zh": "Where does my nephew go to university?",
    "en": "我的房东叫什么名字？",
}
OTHERS = [
    "用户每周三晚上去游泳。",
    "用户的女儿喜欢画恐龙。",
    "The user drives a blue hatchback.",
    "The user's sister works as a vet in Leeds.",
    "用户不吃香菜。",
    "The user prefers tea to coffee in the morning.",
]


@pytest.fixture(scope="module")
def use_model(starter_models: Path) -> embed.Embedder:
    entry = catalogue.load().get(USE)
    starter.fetch([entry], report=lambda _line: None)
    return embedder_of(entry)


@pytest.fixture
def store(tmp_path: Path, use_model: embed.Embedder) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(tmp_path / "m.sqlite3", use_model)
    for text in [*OTHERS, *FACTS.values()]:
        opened.add(text, FACT, origin="local")
    yield opened
    opened.conn.close()


def _tokens(text: str) -> int:
    return len(text) // 3 + 1


def test_the_default_embedder_reads_chinese_and_brings_its_floors(
    use_model: embed.Embedder,
) -> None:
    entry = catalogue.load().get(Settings().embedding_model)
    assert entry.id == USE and "zh" in entry.languages and entry.starter
    vectors = use_model.embed(["今天下雨了。", "It is raining today.", "股票涨了。"])
    assert vectors.shape == (3, 512)
    # The same sentence in two languages is closer than two unrelated Chinese sentences.
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2
    english, chinese = embed.floors_of(use_model, "en"), embed.floors_of(use_model, "zh_CN")
    assert english.relevant == entry.floors["en"]["relevant"]
    assert chinese.relevant == entry.floors["zh"]["relevant"] != english.relevant
    # The floors that merge or replace memories are never below MiniLM's.
    for name in embed.Floors.guards():
        assert getattr(chinese, name) >= getattr(embed.MINILM_FLOORS, name)
    assert embed.reads_language(use_model, "zh_CN") and embed.reads_language(use_model, "en")


@pytest.mark.parametrize("told", ["zh", "en"])
def test_a_fact_told_in_one_language_is_found_by_a_question_in_the_other(
    store: MemoryStore, told: str
) -> None:
    # The search of the memory browser, `engram memory search` and the memory tool.
    found = [h.memory.content for h in store.search(ASKED[told], k=3)]
    assert FACTS[told] in found


def test_the_turn_recalls_a_chinese_fact_asked_in_other_chinese_words(store: MemoryStore) -> None:
    # No word (character pair) in common with "用户每周三晚上去游泳。": meaning alone.
    given = [r.content for r in Recall(store, _tokens).recall("我一般哪天去泳池？", 384)]
    assert OTHERS[0] in given


def test_minilm_searches_chinese_by_its_words_alone(tmp_path: Path, starter_models: Path) -> None:
    english_only = embedder_of(catalogue.load().get(tiny.EMBEDDER))  # it reads English only
    opened = MemoryStore.open(tmp_path / "m.sqlite3", english_only)
    try:
        for text in OTHERS:
            opened.add(text, FACT, origin="local")
        # No shared word: nothing, where MiniLM's vectors would have ranked noise as meaning.
        assert opened.search("我的侄子在哪里上学？", k=3) == []
        assert [h.memory.content for h in opened.search("我去游泳的日子", k=3)] == [OTHERS[0]]
    finally:
        opened.conn.close()


def test_floors_in_the_catalogue_are_checked(tmp_path: Path) -> None:
    entry = catalogue.load().get(USE)
    text = catalogue.default_path().read_text("utf-8")
    relevant = entry.floors["en"]["relevant"]
    bad = text.replace(f"\nrelevant = {relevant}\n", "\nrelevant = 2\n", 1)
    assert bad != text
    path = tmp_path / "models.toml"
    path.write_text(bad, "utf-8")
    with pytest.raises(CatalogueError) as caught:
        catalogue.load(path)
    assert "floors" in caught.value.message
    unknown = dataclasses.replace(entry, floors={"en": {"closeness": 0.5}})
    with pytest.raises(EngramError):
        embedder_of(unknown)


def _minilm_store(path: Path, starter_models: Path) -> MemoryStore:
    opened = MemoryStore.open(path, minilm(starter_models))
    for text in [*OTHERS, *FACTS.values()]:
        opened.add(text, FACT, origin="local")
    return opened


def test_a_stopped_reembedding_carries_on_where_it_stopped(
    tmp_path: Path, starter_models: Path, use_model: embed.Embedder
) -> None:
    opened = _minilm_store(tmp_path / "m.sqlite3", starter_models)
    try:
        calls = iter(range(100))
        seen: list[tuple[int, int]] = []
        # Stopped before its second batch: the file still searches MiniLM's vectors.
        assert not reembed.reembed(opened, use_model, cancel=lambda: next(calls) == 1, batch=3)
        assert opened.space.model_id == minilm(starter_models).model_id
        assert reembed.reembed(opened, use_model, progress=lambda d, t: seen.append((d, t)))
        assert seen[0][0] == 3  # the first batch was kept
        assert seen[-1][0] == seen[-1][1] == len(OTHERS) + len(FACTS)
        assert opened.space.model_id == USE
        assert FACTS["zh"] in [h.memory.content for h in opened.search(ASKED["zh"], k=3)]
    finally:
        opened.conn.close()


def test_a_session_on_another_models_store_reembeds_it_in_the_background(
    starter_models: Path, starter_pair: tuple[LoadedModels, int], use_model: embed.Embedder
) -> None:

    _minilm_store(paths.database_path(), starter_models).conn.close()
    loaded = starter_pair[0]
    session = open_session(
        tiny.settings(embedding_model=USE), small=loaded.small, embedder=use_model
    )
    try:
        assert session.reembedding is not None and session.store is not None
        # Meanwhile the search uses the old vectors (MiniLM is on this machine): English works.
        assert session.store.search("What does my sister do?", k=1)
        assert session.reembedding.wait()
        assert session.store.space.model_id == USE
        found = [h.memory.content for h in session.store.search(ASKED["en"], k=3)]
        assert FACTS["en"] in found
    finally:
        session.close()
