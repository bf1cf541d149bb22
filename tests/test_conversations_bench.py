"""bench/conversations.py: its checks on a store built by hand (real SQLite, the tests' MiniLM
embedder, no model), and one short conversation end to end with the tiny model to show the
harness runs (what the tiny model keeps is not judged)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.learning.distiller_backends import LocalDistiller
from engram.assistant.session import embedder_for
from engram.core import paths
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models.background import LazyModel

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "conversations_bench", ROOT / "bench/conversations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _bench()


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore.open(paths.database_path(), embedder_for(tiny.settings()))


def _chat(store: MemoryStore, user: str, assistant: str) -> tuple[int, int, int]:
    """A chat of one exchange: its id, the user's message and the answer."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    return chat, log.append(chat, "user", user).id, log.append(chat, "assistant", assistant).id


def _arjun(store: MemoryStore) -> int:
    chat, said, answered = _chat(
        store,
        "My son Arjun is 9 and he plays chess every weekend.",
        "Chess clubs for kids often meet on Saturdays; a tournament set makes a lovely gift.",
    )
    store.add("Arjun is 9.", conversation_id=chat, source_episodes=[said])
    store.add("Arjun plays chess every weekend.", conversation_id=chat, source_episodes=[said])
    store.add("Arjun's son plays chess.", "summary", conversation_id=chat, source_episodes=[said])
    store.add(
        "A tournament set makes a lovely gift for kids in Saturday clubs.",
        "lesson",
        origin="local",
        conversation_id=chat,
        source_episodes=[answered],
    )
    return chat


CONVERSATION: dict[str, Any] = {
    "id": "arjun",
    "language": "en",
    "turns": ["My son Arjun is 9 and he plays chess every weekend."],
    "facts": [
        {"said": "Arjun is 9", "keys": ["arjun", "9"]},
        {"said": "plays chess", "keys": ["Arjun", "CHESS"]},
        {"said": "(never said)", "keys": ["Arjun", "violin"]},
    ],
    "must_not": ["Arjun's son", "Arjun is 10"],
}


def test_a_fact_is_kept_when_one_memory_holds_all_its_keys_whatever_their_case(
    store: MemoryStore,
) -> None:
    _arjun(store)
    verdict = bench.check(CONVERSATION, store)
    assert verdict.stated == 3
    assert verdict.stored == [["arjun", "9"], ["Arjun", "CHESS"]]
    [missed] = verdict.missed
    assert missed["keys"] == ["Arjun", "violin"]
    assert missed["went"].startswith("reworded: ")  # memories name Arjun, none the violin


def test_a_renamed_relation_is_a_must_not_hit_and_the_assistants_advice_is_its_own(
    store: MemoryStore,
) -> None:
    _arjun(store)
    verdict = bench.check(CONVERSATION, store)
    assert [text for text, _memory in verdict.must_not] == ["Arjun's son"]
    [alone] = verdict.assistant_only
    assert "tournament set" in alone  # only "chess"-less words of the answer: not the user's


def test_chinese_memories_are_grounded_by_the_bigrams_the_user_said(store: MemoryStore) -> None:
    chat, said, answered = _chat(
        store, "我女儿小雨今年五岁，特别怕狗。", "可以带孩子去动物园看熊猫，孩子们都喜欢。"
    )
    store.add("小雨今年五岁，怕狗。", conversation_id=chat, source_episodes=[said])
    store.add("带孩子去动物园看熊猫。", "lesson", conversation_id=chat, source_episodes=[answered])
    assert bench.content_words("用户不怕狗") == {"不怕", "怕狗"}  # the frame's 用户 is no word
    items = {item.memory.content: item for item in bench.kept(store)}
    assert not bench.assistant_only(items["小雨今年五岁，怕狗。"])
    assert bench.assistant_only(items["带孩子去动物园看熊猫。"])
    verdict = bench.check(
        {"facts": [{"said": "", "keys": ["小雨", "五岁"]}], "must_not": ["小雨今年六岁"]}, store
    )
    assert verdict.stored == [["小雨", "五岁"]] and verdict.must_not == []


def test_a_fact_stored_and_then_replaced_says_so(store: MemoryStore) -> None:
    chat, said, _answered = _chat(store, "Arjun is 9.", "Nice!")
    store.add("Arjun is 9.", conversation_id=chat, source_episodes=[said])
    store.add("Arjun is 10.", conversation_id=chat, source_episodes=[said])
    [missed] = bench.check(
        {"facts": [{"said": "", "keys": ["Arjun", "9"]}], "must_not": []}, store
    ).missed
    assert missed["went"].startswith("stored, then superseded")
    never = bench.check({"facts": [{"said": "", "keys": ["Priya"]}], "must_not": []}, store)
    assert never.missed[0]["went"] == "never stored"


def test_forget_deletes_every_memory_with_the_keys_as_the_browser_does(store: MemoryStore) -> None:
    _arjun(store)
    deleted = bench.forget(tiny.settings(), ["CHESS"])
    assert len(deleted) == 2  # the fact and the summary; the lesson never says chess
    left = bench.kept(store)
    assert bench.keyed(left, ["chess"]) == []
    assert sorted(item.memory.kind for item in left) == ["fact", "lesson"]


def test_totals_count_per_language_and_for_all() -> None:
    rows = [
        {"language": "en", "stored": [["a"]], "stated": 2, "must_not": [("x", "m")],
         "assistant_only": [], "came_back": ["m"], "deleted": ["m"]},
        {"language": "zh", "stored": [], "stated": 1, "must_not": [],
         "assistant_only": ["m", "n"], "came_back": []},
    ]  # fmt: skip
    found = bench.totals(rows)
    assert found["en"] == {"chats": 1, "stored": 1, "stated": 2, "must_not": 1,
                           "assistant_only": 0, "forgets": 1, "came_back": 1}  # fmt: skip
    assert found["all"]["stated"] == 3 and found["all"]["assistant_only"] == 2
    assert found["zh"]["forgets"] == 0


def test_a_set_without_its_format_or_with_a_forget_and_nothing_after_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "set.json"
    path.write_text('{"format": "other", "conversations": []}', "utf-8")
    with pytest.raises(ValueError, match="not an engram-conversations/1 file"):
        bench.load(path)
    one = {"id": "x", "turns": ["hi"], "facts": [], "must_not": [], "forget": {"keys": ["a"]}}
    path.write_text(
        f'{{"format": "engram-conversations/1", "conversations": [{bench.json.dumps(one)}]}}',
        "utf-8",
    )
    with pytest.raises(ValueError, match="x needs turns, and after_forget with forget"):
        bench.load(path)
    assert len(bench.load(ROOT / "bench/data/conversations_dev.json")) >= 20


@pytest.mark.slow
def test_one_short_conversation_runs_end_to_end_with_the_tiny_model(
    loaded_models: LoadedModels,
) -> None:
    small = loaded_models.small
    source = LocalDistiller(LazyModel(lambda: small, 600.0))
    conversation = {
        "id": "tiny",
        "language": "en",
        "turns": ["My cat Pixel is 3 years old.", "What should I feed a cat?"],
        "facts": [{"said": "My cat Pixel is 3", "keys": ["Pixel", "3"]}],
        "must_not": ["Pixel is a dog"],
        "forget": {"keys": ["Pixel"]},
        "after_forget": ["Any tips for a rainy weekend?"],
    }
    row = bench.run(
        conversation, tiny.settings(max_answer_tokens=16), loaded_models, source, echo=False
    )
    assert row["id"] == "tiny" and row["stated"] == 1
    assert len(row["stored"]) + len(row["missed"]) == 1
    # every deleted memory held the key; with nothing deleted (the tiny model may store
    # nothing) no chat follows the forget and nothing can count as come back
    assert all("pixel" in line.lower() for line in row["deleted"])
    assert ("after_forget" in row) == bool(row["deleted"]) and row["came_back"] == []
    store = MemoryStore.open(
        paths.database_path(), loaded_models.embedder or embedder_for(tiny.settings())
    )
    log = EpisodeLog(store.conn)
    chats = log.conversations()
    assert len(chats) == (2 if row["deleted"] else 1)
    answers = [e.role for c in chats for e in log.episodes(c.id)].count("assistant")
    assert answers == (3 if row["deleted"] else 2)
