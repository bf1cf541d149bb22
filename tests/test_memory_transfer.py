"""Export and import of memories (JSON Lines, Markdown), the LoCoMo loader, and the CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engram.cli.main import main
from engram.core.errors import InputError
from engram.evaluation import locomo
from engram.memory import db, transfer
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog, ToolStep
from engram.memory.store import MemoryStore
from test_memory_store import embedder, store  # noqa: F401  (shared fixtures)

DATA = Path(__file__).parent / "data" / "synthetic_locomo.json"


def _fill(target: MemoryStore) -> tuple[int, int]:
    log = EpisodeLog(target.conn)
    conv = log.new_conversation("旅行")
    said = log.append(conv.id, "user", "我上周去了杭州。")
    old = target.add("用户住在上海。", kind="profile", source_episodes=[said.id])
    new = target.supersede(old.id, "用户搬到了杭州。")
    target.add("Prefers answers in Chinese.", kind="preference", pinned=True, meta={"by": "test"})
    return old.id, new.id


def test_jsonl_round_trip_keeps_memories_provenance_and_history(
    store: MemoryStore,  # noqa: F811
    tmp_path: Path,
) -> None:
    _fill(store)
    store.add("Use bullet points.", kind="lesson", meta={"applies_to": ["packing lists"]})
    out = io.StringIO()
    assert transfer.export_jsonl(store, out, episodes=True) == 1 + 1 + 1 + 4
    path = tmp_path / "export.jsonl"
    path.write_text(out.getvalue(), encoding="utf-8")
    assert "杭州" in out.getvalue()
    store.forget_all(episodes=True)
    assert transfer.import_jsonl(store, path) == (4, 0)
    memories = {m.content: m for m in store.memories(statuses=None)}
    old, new = memories["用户住在上海。"], memories["用户搬到了杭州。"]
    assert old.status == "superseded" and old.superseded_by == new.id
    assert memories["Prefers answers in Chinese."].pinned
    assert memories["Prefers answers in Chinese."].meta == {"by": "test"}
    assert [e.content for e in store.source_episodes(old.id)] == ["我上周去了杭州。"]
    assert store.search("杭州", k=1)[0].memory.id == new.id
    # a lesson comes back with a vector for each situation it applies to
    found = store.situated(store.query_vector("What should I pack?"), 4, ["lesson"])
    assert [h.content for h in found] == ["Use bullet points."]


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{not json", "not JSON"),
        ('{"type": "memory", "content": ""}', "content is empty. Nothing"),
        ('{"type": "memory", "content": 12345}', "content must be text"),
        ('{"type": "memory", "content": "x", "pinned": "yes"}', "pinned must be true or false"),
        ('{"type": "memory", "content": "x", "status": "superseded"}', "needs superseded_by"),
        (
            '{"type": "memory", "id": 7, "content": "x", "status": "superseded",'
            ' "superseded_by": 8}',
            "needs superseded_by",
        ),
        ('{"type": "memory", "content": "x", "created_at": "May 1"}', 'not "May 1"'),
        ('{"type": "memory", "content": "x", "kind": "gossip"}', "kind must be one of"),
        ('{"type": "memory", "content": "x", "importance": "high"}', "importance"),
        ('{"type": "memory", "content": "x", "sources": "all"}', "sources"),
        ('{"type": "exploit", "payload": "DROP TABLE memories"}', "unknown record type"),
        ("[1, 2, 3]", "not a JSON object"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_a_bad_line_is_reported_by_number_and_nothing_is_imported(
    store: MemoryStore,  # noqa: F811
    tmp_path: Path,
    line: str,
    why: str,
) -> None:
    header = json.dumps({"type": transfer.FORMAT, "version": 1})
    good = json.dumps({"type": "memory", "content": "A good memory."})
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([header, good, good, line, good]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        transfer.import_jsonl(store, path)
    assert "Line 4 " in caught.value.message and why in caught.value.message
    assert db.scalar(store.conn, "SELECT COUNT(*) FROM memories") == 0


def test_importing_the_same_export_twice_adds_nothing_the_second_time(
    store: MemoryStore,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _fill(store)
    path = tmp_path / "export.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        transfer.export_jsonl(store, handle)
    store.forget_all()
    assert main(["memory", "import", str(path)]) == 0
    assert "imported 3 memories from" in capsys.readouterr().out
    assert main(["memory", "import", str(path)]) == 0
    assert "imported 0 memories from" in capsys.readouterr().out
    assert transfer.import_jsonl(store, path) == (0, 3)
    assert len(store.memories(statuses=None)) == 3


def test_tool_steps_travel_with_their_episodes(store: MemoryStore, tmp_path: Path) -> None:  # noqa: F811
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("Sums")
    log.append(chat.id, "user", "What is 2 + 2?")
    step = ToolStep("calculator", '{"expression": "2 + 2"}', "error: is the result", False)
    log.append_step(chat.id, step)
    out = io.StringIO()
    transfer.export_jsonl(store, out, episodes=True)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line.get("step") for line in lines if line["type"] == "episode"] == [
        None,
        {"name": "calculator", "arguments": '{"expression": "2 + 2"}',
         "result": "error: is the result", "error": False},
    ]  # fmt: skip
    # An export from before steps had columns: a tool episode is its text alone.
    before = {"type": "episode", "id": 90, "conversation_id": lines[1]["id"], "turn_index": 2,
              "role": "tool", "content": 'clock {}\n→ error: no clock'}  # fmt: skip
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [*lines, before]), encoding="utf-8")
    store.forget_all(episodes=True)
    transfer.import_jsonl(store, path)
    (imported,) = log.conversations()
    assert [e.step for e in log.episodes(imported.id)] == [
        None, step, ToolStep("clock", "{}", "no clock", True),
    ]  # fmt: skip
    assert log.tools_called(imported.id) == {"calculator", "clock"}


def test_import_refuses_a_file_that_is_not_an_export(store: MemoryStore, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "other.jsonl"
    path.write_bytes(b'{"type": "memory", "content": "x"}\n')
    with pytest.raises(InputError, match="Line 1 "):
        transfer.import_jsonl(store, path)
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8"):
        transfer.import_jsonl(store, path)


def test_markdown_export_groups_by_kind(store: MemoryStore) -> None:  # noqa: F811
    _fill(store)
    out = io.StringIO()
    assert transfer.export_markdown(store, out) == 2
    text = out.getvalue()
    assert "## Profile\n\n- 用户搬到了杭州。" in text and "(pinned)" in text
    assert "上海" not in text


def _closed_stdin(_prompt: str) -> str:
    raise EOFError


def test_cli_lists_searches_exports_imports_and_forgets(
    store: MemoryStore,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old_id, new_id = _fill(store)
    assert main(["memory", "list"]) == 0
    listed = capsys.readouterr().out
    assert "用户搬到了杭州。" in listed and "上海" not in listed
    assert main(["memory", "search", "杭州", "-k", "1"]) == 0
    assert f"#{new_id}" in capsys.readouterr().out
    assert main(["memory", "search", "杭州", "--episodes"]) == 0
    assert "我上周去了杭州。" in capsys.readouterr().out
    assert main(["memory", "show", str(old_id)]) == 0
    assert "user: 我上周去了杭州。" in capsys.readouterr().out
    target = tmp_path / "mem.jsonl"
    assert main(["memory", "export", str(target)]) == 0
    monkeypatch.setattr("builtins.input", lambda _prompt: "n")
    assert main(["memory", "forget", "--all"]) == 1
    monkeypatch.setattr("builtins.input", _closed_stdin)
    assert main(["memory", "forget", str(new_id)]) == 1  # no answer on a closed stdin means no
    assert len(store.memories()) == 2
    monkeypatch.setattr("builtins.input", lambda _prompt: "yes")
    assert main(["memory", "forget", str(new_id)]) == 0
    assert store.get(new_id) is None
    assert main(["memory", "forget", "--all", "--yes"]) == 0
    assert store.memories(statuses=None) == []
    assert main(["memory", "import", str(target)]) == 0
    assert len(store.memories(statuses=None)) == 3
    assert main(["memory", "show", "12345"]) == 2
    assert "no memory #12345" in capsys.readouterr().err


def test_locomo_loader_accepts_both_layouts_and_ingests_turns(
    store: MemoryStore,  # noqa: F811
    tmp_path: Path,
) -> None:
    samples = locomo.load_locomo(DATA)
    assert len(samples) == 2 and len(samples[0].sessions) == 14
    assert sum(len(s.turns) for sample in samples for s in sample.sessions) >= 300
    assert any(q.category == 5 and not q.evidence for q in samples[0].qa)
    raw = json.loads(DATA.read_text(encoding="utf-8"))[0]
    flat = {**{k: v for k, v in raw.items() if k != "conversation"}, **raw["conversation"]}
    (tmp_path / "flat.json").write_text(json.dumps(flat), encoding="utf-8")
    assert locomo.load_locomo(tmp_path / "flat.json") == samples[:1]
    ids = locomo.ingest(store.conn, samples[0])
    assert len(ids) == sum(len(s.turns) for s in samples[0].sessions)
    first = samples[0].sessions[0]
    episode = EpisodeLog(store.conn).episodes(1)[0]
    assert episode.content == f"{first.turns[0].speaker}: {first.turns[0].text}"
    assert episode.created_at == locomo.session_time(first.date_time)
    (tmp_path / "bad.json").write_text('[{"qa": []}]', encoding="utf-8")
    with pytest.raises(InputError, match="not a LoCoMo file"):
        locomo.load_locomo(tmp_path / "bad.json")


@pytest.mark.slow
def test_evidence_recall_on_the_synthetic_set(store: MemoryStore) -> None:  # noqa: F811
    found = total = 0
    for sample in locomo.load_locomo(DATA)[:1]:
        ids = locomo.ingest(store.conn, sample)
        index = EpisodeIndex(store.space)
        index.index_new()
        for qa in sample.qa:
            if qa.evidence:
                top = {h.episode.id for h in index.search(qa.question, k=10)}
                found += bool(top & {ids[e] for e in qa.evidence})
                total += 1
    assert total >= 15 and found / total >= 0.7


def test_forget_refuses_an_unknown_id_or_a_lone_episodes_before_asking(
    store: MemoryStore,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _old_id, new_id = _fill(store)

    def never_asked(_prompt: str) -> str:
        raise AssertionError("asked before checking")

    monkeypatch.setattr("builtins.input", never_asked)
    assert main(["memory", "forget", str(new_id), "999"]) == 2
    assert "no memory #999" in capsys.readouterr().err
    assert main(["memory", "forget", "--episodes", str(new_id)]) == 2
    assert "--all" in capsys.readouterr().err
    assert store.get(new_id) is not None
    monkeypatch.setattr("builtins.input", lambda _prompt: "y")
    assert main(["memory", "forget", str(new_id)]) == 0
    assert "forgot 1 memory\n" in capsys.readouterr().out


def test_memory_pause_resume_and_status_change_the_saved_setting(
    engram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engram.core import settings

    assert main(["memory", "status"]) == 0
    assert capsys.readouterr().out == "memory is on\n"
    assert main(["memory", "pause"]) == 0
    assert settings.load().memory_paused
    assert main(["memory", "status"]) == 0
    assert "memory is paused" in capsys.readouterr().out
    assert main(["memory", "resume"]) == 0
    assert not settings.load().memory_paused
