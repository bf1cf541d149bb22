"""Every fault a hostile user can provoke is a message, never a traceback or a silent loss."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import apsw
import numpy as np
import pytest

import tiny
from engram.assistant.app import LoadedModels
from engram.assistant.events import Failed, Finished
from engram.assistant.session import open_session
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.cli.main import main
from engram.core import paths
from engram.core.errors import CatalogueError, InputError, StoreCorruptError, StoreError
from engram.evaluation import locomo
from engram.memory import db, transfer
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models import catalogue
from test_consolidation_support import minilm

HEADER = json.dumps({"type": "engram-memories", "version": 1})


def test_a_foreign_sqlite_file_is_refused_untouched(engram_home: Path) -> None:
    path = paths.database_path()
    other = apsw.Connection(str(path))
    other.execute("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)")
    other.execute("INSERT INTO customers(name) VALUES ('Ada')")
    other.close()
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        db.connect(path)
    assert "another program" in caught.value.message and str(path) in caught.value.message
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no WAL was made


def _damage_first_leaf(path: Path, table: str) -> None:
    conn = db.connect(path)
    page = db.scalar(
        conn,
        "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path LIMIT 1",
        (table,),
    )
    size = db.scalar(conn, "PRAGMA page_size")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(b"\xa5" * size)


def test_a_damaged_page_is_found_at_open_and_reset_keeps_what_is_readable(
    starter_models: Path, loaded_models: LoadedModels, capsys: pytest.CaptureFixture[str]
) -> None:
    path = paths.database_path()
    store = MemoryStore.open(path, minilm(starter_models))
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((50, store.embedder.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.add_many([f"The user owns bicycle number {i}." for i in range(50)], vectors=vectors)
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("kept").id
    for i in range(300):
        log.append(chat, "user", f"Message {i} about the green kayak trip. " * 8)
    store.conn.close()
    _damage_first_leaf(path, "episodes")
    damaged = path.read_bytes()

    with pytest.raises(StoreCorruptError) as caught:  # at open, not on every turn later
        open_session(
            tiny.settings(), small=loaded_models.small, embedder=loaded_models.embedder
        ).close()
    assert "reset-damaged" in caught.value.hint

    assert main(["memory", "reset-damaged"]) == 0
    out = capsys.readouterr().out
    assert "moved the damaged database" in out and "readable rows" in out
    moved = list(path.parent.glob("engram.damaged-*.sqlite3"))
    assert len(moved) == 1 and moved[0].read_bytes() == damaged
    fresh = MemoryStore.open(path, minilm(starter_models))
    db.verify(fresh.conn)
    assert len(fresh.memories(limit=100)) == 50
    assert fresh.search("bicycle number 7", vector=vectors[7:8])[0].memory.content.endswith(" 7.")
    kept = EpisodeLog(fresh.conn).episodes(chat)
    assert 0 < len(kept) < 300 and kept[-1].content.startswith("Message 299 ")
    fresh.conn.close()


def test_a_non_utf8_search_argument_is_searched_not_a_traceback(
    starter_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "search", "\udcff"]) == 0  # what Python makes of the byte 0xff
    assert main(["memory", "search", "--episodes", "caf\udce9"]) == 0


def test_control_characters_are_shown_not_obeyed(
    starter_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    hostile = "I like tea\x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[2J\x9b31m red"
    memory = store.add(hostile)
    store.conn.close()
    for args in (["list"], ["show", str(memory.id)], ["search", "tea"]):
        assert main(["memory", *args]) == 0
        out = capsys.readouterr().out
        assert "I like tea" in out and "\\x1b]52" in out
        assert not any(c in out for c in "\x1b\x07\x9b"), args


def test_a_deeply_nested_catalogue_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text("[model]\nx = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(CatalogueError) as caught:
        catalogue.load(path)
    assert str(path) in caught.value.message and "nested" in caught.value.message


@pytest.mark.parametrize(
    ("record", "named"),
    [
        ({"id": [1]}, "id must be an integer"),
        ({"superseded_by": {"a": 1}}, "superseded_by must be an integer"),
        ({"sources": [{"episode_id": [2]}]}, "sources.episode_id must be an integer"),
        (
            {"meta": {"plan": {"goal": "Move", "steps": ["a", "b"], "current_step": "second"}}},
            "current_step",
        ),
        ({"meta": {"plan": {"goal": "Move", "steps": "pack", "current_step": 0}}}, "steps"),
    ],
)
def test_an_import_field_of_the_wrong_type_names_its_line(
    starter_models: Path, tmp_path: Path, record: dict[str, object], named: str
) -> None:
    line = {"type": "memory", "kind": "plan", "content": "The user is moving house.", **record}
    path = tmp_path / "import.jsonl"
    path.write_text(f"{HEADER}\n{json.dumps(line)}\n", encoding="utf-8")
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    with pytest.raises(InputError) as caught:
        transfer.import_jsonl(store, path)
    assert "Line 2" in caught.value.message and named in caught.value.message
    assert store.memories() == []
    store.conn.close()


@pytest.mark.parametrize(
    "meta",
    [
        '{"plan": {"goal": "Move", "steps": ["pack", "drive"], "current_step": "second"}}',
        '{"plan": {"goal": "Move", "steps": ["pack"], "current_step": 7}}',
        '{"plan": ["pack"]}',
        "[1, 2]",
        "not json",
    ],
)
def test_a_damaged_stored_plan_is_read_as_text_and_named_in_the_log(
    starter_models: Path, meta: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    plan = store.add("The user's goal: move house.", kind="plan")
    store.conn.execute("UPDATE memories SET meta = ? WHERE id = ?", (meta, plan.id))
    with caplog.at_level(logging.WARNING):
        recalled = Recall(store, lambda text: len(text) // 4).plan()
    assert recalled is not None and recalled.content == "The user's goal: move house."
    assert f"memory {plan.id}:" in caplog.text
    store.conn.close()


@pytest.mark.slow
def test_an_answer_that_cannot_be_saved_stays_with_the_failure(
    starter_models: Path, loaded_models: LoadedModels
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    assistant = Assistant(
        EpisodeLog(store.conn),
        loaded_models.small,
        max_answer_tokens=16,
        recall=Recall(store, loaded_models.small.count_tokens),
    )
    chat = assistant.new_conversation()

    def disk_gone() -> bool:  # once the question is stored, the file stops taking writes
        store.conn.execute("PRAGMA query_only = ON")
        return False

    events = list(assistant.turn(chat, "Name three colours.", cancelled=disk_gone))
    store.conn.execute("PRAGMA query_only = OFF")
    said = "".join(getattr(e, "text", "") for e in events if type(e).__name__ == "Token")
    failed = [e for e in events if isinstance(e, Failed)]
    assert said and len(failed) == 1 and failed[0].text == said
    assert "cannot write" in failed[0].problem.message
    assert not any(isinstance(e, Finished) for e in events)
    assert [e.role for e in assistant.log.episodes(chat)] == ["user"]
    events = list(assistant.turn(chat, "And one more?"))  # the store works again afterwards
    assert any(isinstance(e, Finished) for e in events)
    store.conn.close()


@pytest.mark.slow  # a real model in a process of its own
def test_a_line_of_piped_chat_that_is_not_utf8_is_refused_and_the_chat_goes_on(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    result = subprocess.run(
        [sys.executable, "-m", "engram", "chat"],
        input=b"caf\xe9 \xff\xfe\nName one colour.\n",
        capture_output=True,
        env={**os.environ, "ENGRAM_HOME": str(engram_home)},
        timeout=120,
        check=False,
    )
    stderr = result.stderr.decode("utf-8")
    assert "line 1 is not UTF-8" in stderr and "Traceback" not in stderr
    assert result.returncode == 1 and result.stdout.strip()
    conn = apsw.Connection(str(paths.database_path()))
    stored = conn.execute("SELECT role, content FROM episodes ORDER BY id").fetchall()
    assert stored[0] == ("user", "Name one colour.") and [r for r, _ in stored] == [
        "user",
        "assistant",
    ]
    conn.close()


def test_an_eval_turn_id_given_as_a_list_is_a_message(tmp_path: Path) -> None:
    sample = {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_1": [{"speaker": "A", "dia_id": ["D1:1"], "text": "hi"}],
        },
        "qa": [],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        locomo.load_locomo(path)
    assert "dia_id must be a string" in caught.value.message and str(path) in caught.value.message


def test_a_locomo_question_whose_category_is_infinity_is_refused_with_a_message(
    tmp_path: Path,
) -> None:
    """Found by the fuzzer: Python's JSON reads Infinity, and int() of it overflowed."""
    path = tmp_path / "locomo.json"
    sample = {"conversation": {"speaker_a": "A", "speaker_b": "B"}, "qa": [{"question": "q"}]}
    text = json.dumps([sample]).replace('"question": "q"', '"question": "q", "category": Infinity')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="is not a LoCoMo file"):
        locomo.load_locomo(path)


def test_a_delete_says_when_a_reader_keeps_the_old_text_in_the_wal(
    starter_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = MemoryStore.open(paths.database_path(), minilm(starter_models))
    secret = store.add("The user's locker code is 7319.")
    reader = db.connect(paths.database_path())
    reader.execute("BEGIN")
    assert db.scalar(reader, "SELECT COUNT(*) FROM memories") == 1  # holds its snapshot
    assert main(["memory", "forget", str(secret.id), "--yes"]) == 1
    assert "write-ahead log" in capsys.readouterr().err
    reader.execute("COMMIT")
    reader.close()
    assert store.checkpoint()
    wal = Path(str(paths.database_path()) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert b"7319" not in paths.database_path().read_bytes()
    store.conn.close()


def test_a_data_folder_that_cannot_be_made_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    monkeypatch.setenv("ENGRAM_HOME", str(blocker))
    assert main(["memory", "list"]) == 2
    err = capsys.readouterr().err
    assert "cannot create its folder" in err and "ENGRAM_HOME" in err and "Traceback" not in err
