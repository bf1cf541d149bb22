"""Load: a huge message is embedded and searched within bounded work; a big import does not
hold up the next turn (its messages are embedded in the background)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engram.assistant.readable import INDEX_PER_TURN
from engram.assistant.turn.recall import Recall
from engram.core import paths
from engram.memory import embed, text, transfer
from engram.memory.episode_index import Backfill, EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from test_consolidation_support import minilm


@pytest.mark.slow
def test_a_long_text_is_embedded_as_the_model_reads_it(starter_models: Path) -> None:
    embedder = minilm(starter_models)
    words = [
        "the",
        "river",
        "keeps",
        "its",
        "old",
        "stone",
        "bridge",
        "near",
        "the",
        "quiet",
        "market",
        "square",
    ]
    long = " ".join(words[i % len(words)] + str(i) for i in range(40_000))  # about 300 KB
    head = long[: embed.MAX_EMBED_CHARS]
    model = embedder._load()  # what the model itself makes of the whole text
    whole = embed.normalize(np.asarray(list(model.embed([long])), dtype=np.float32))
    assert np.allclose(embedder.embed([long]), whole, atol=1e-5)
    assert np.allclose(embedder.embed([long]), embedder.embed([head]), atol=1e-6)


def test_a_five_megabyte_message_is_stored_indexed_and_found(starter_models: Path) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    filler = "lorem ipsum dolor sit amet consectetur " * 130_000  # 5 MB
    said = log.append(chat, "user", filler + " the zeppelin landed in Reykjavik")
    index = EpisodeIndex(store.space)
    assert index.index_new() == 1
    assert index.search("zeppelin Reykjavik", 3)[0].episode.id == said.id
    assert index.search(filler[:200_000] + " zeppelin", 3)  # a pasted page as the query
    store.conn.close()


@pytest.mark.slow
def test_a_turn_after_a_big_import_embeds_a_few_and_the_backfill_the_rest(
    starter_models: Path,
) -> None:
    embedder = minilm(starter_models)
    store = MemoryStore.open(paths.database_path(), embedder)
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("imported").id
    for i in range(INDEX_PER_TURN * 3):
        log.append(chat, "user", f"Imported note {i}: the heron nests by pond {i}.")
        if i == 150:  # oldest first: this one is not embedded by the turn
            log.append(chat, "user", "The albatross sleeps on the old lighthouse.")
    assert store.index is not None
    recall = Recall(store, lambda text: len(text) // 4)
    assert recall.catch_up() == INDEX_PER_TURN  # as a turn does before it recalls
    found = recall.recall("albatross lighthouse", 400)
    assert store.index.count("episodes") == INDEX_PER_TURN  # only a bounded share before search
    assert any("albatross" in item.content for item in found)  # found by its words meanwhile
    backfill = Backfill(paths.database_path(), embedder)
    assert backfill.wait() == INDEX_PER_TURN * 2 + 1
    backfill.close()
    assert store.index.count("episodes") == INDEX_PER_TURN * 3 + 1
    store.conn.close()


@pytest.mark.slow
def test_an_import_reports_progress_and_a_stop_while_embedding_loses_nothing(
    starter_models: Path, tmp_path: Path
) -> None:
    embedder = minilm(starter_models)
    store = MemoryStore.open(paths.database_path(), embedder)
    lines = [json.dumps({"type": transfer.FORMAT, "version": 1})]
    lines += [
        json.dumps({"type": "memory", "kind": "fact", "content": f"Imported fact number {i}."})
        for i in range(transfer.IMPORT_BATCH * 2 + 10)
    ]
    path = tmp_path / "import.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    seen: list[tuple[int, int]] = []

    def stop_after_first_batch(done: int, total: int) -> None:
        seen.append((done, total))
        raise KeyboardInterrupt  # the user pressed Ctrl+C while it embedded

    with pytest.raises(KeyboardInterrupt):
        transfer.import_jsonl(store, path, stop_after_first_batch)
    total = transfer.IMPORT_BATCH * 2 + 10
    assert seen == [(transfer.IMPORT_BATCH, total)]
    assert len(store.memories(limit=10_000)) == total  # every memory is in
    assert store.index is not None and store.index.count("memories") == transfer.IMPORT_BATCH
    backfill = Backfill(paths.database_path(), embedder)
    assert backfill.wait() == total - transfer.IMPORT_BATCH
    backfill.close()
    assert store.index.count("memories") == total
    seen.clear()
    again = transfer.import_jsonl(store, path, lambda done, total: seen.append((done, total)))
    assert (again.added, again.present, seen) == (0, total, [])  # nothing twice
    other = tmp_path / "other.jsonl"
    other.write_text(path.read_text(encoding="utf-8").replace("Imported", "Other"), "utf-8")
    transfer.import_jsonl(store, other, lambda done, total: seen.append((done, total)))
    assert seen == [(256, total), (512, total), (total, total)]
    store.conn.close()


def test_a_query_is_read_as_far_as_the_embedder_reads_it() -> None:
    """A pasted book is not tokenised whole for its search terms, several times a turn: the
    terms come from its first characters, as its vector does."""
    start = "zeppelin landed " + "lorem ipsum " * 1000
    terms = text.query_terms(start + " reykjavik" * 100_000)
    assert "zeppelin" in terms and "lorem" in terms
    assert "reykjavik" not in terms  # past QUERY_CHARS
    assert text.query_terms("the zeppelin")[-1] == "zeppelin"
