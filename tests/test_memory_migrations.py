"""The schema: every migration in one module, old files open unchanged, vector tables included."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw

from engram.core import paths
from engram.memory import db, embed, migrations
from engram.memory.episode_index import EpisodeIndex, embed_missing
from engram.memory.episodes import EpisodeLog, ToolStep
from engram.memory.injections import Injections
from engram.memory.jobs import JobQueue
from engram.memory.search import Filters
from engram.memory.store import MemoryStore
from test_memory_store import embedder  # noqa: F401  (shared fixture)

# Written by Engram when migrations 0001-0004 were spread over db.py and schema.py and the store
# created the vector tables: two memories (one pinned, one with a source), two messages, an
# injection, a queued job and vectors for all four rows.
OLD_FILE = Path(__file__).parent / "data" / "memory-0004.sqlite3"


def _tables(conn: object) -> set[str]:
    return {
        row["name"]
        for row in db.rows(conn, "SELECT name FROM sqlite_master WHERE type = 'table'")  # type: ignore[arg-type]
    }


def test_names_are_permanent_and_in_order() -> None:
    names = [name for name, _ in migrations.MIGRATIONS]
    assert names[:5] == [
        "0001_conversations_episodes",
        "0002_memories",
        "0003_fulltext",
        "0004_memory_browse_indexes",
        "0005_vector_tables",
    ]
    assert len(set(names)) == len(names)


def test_a_file_from_the_previous_layout_opens_with_everything_kept(
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    path = paths.database_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OLD_FILE, path)
    store = MemoryStore.open(path, embedder)
    applied = [r["name"] for r in db.rows(store.conn, "SELECT name FROM migrations ORDER BY name")]
    assert applied == [name for name, _ in migrations.MIGRATIONS]
    assert store.space.generation == 1 and store.index is not None
    assert store.index.count("memories") == 2 and store.index.count("episodes") == 2
    found = store.search("Which city is home?", k=1, filters=Filters(kinds=["fact"]))
    assert found[0].content == "The user lives in Lisbon." and found[0].similarity is not None
    assert [m.content for m in store.memories() if m.pinned] == ["The user prefers tea to coffee."]
    hits = EpisodeIndex(store.space).search("green bicycle", k=1, mode="vector")
    assert "bicycle" in hits[0].content
    conversation = EpisodeLog(store.conn).conversations()[0]
    answer = EpisodeLog(store.conn).episodes(conversation.id)[1]
    assert [(m.id, rank) for m, rank, _ in Injections(store.conn).of(answer.id)] == [
        (found[0].memory.id, 1)
    ]
    assert [s.episode_id for s in store.sources(found[0].memory.id)] == [answer.id - 1]
    assert [j.status for j in JobQueue(store.conn).jobs()] == ["queued"]
    added = store.add("The user's sister is called Ana.")
    assert store.search("sister", k=1)[0].memory.id == added.id
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_a_file_never_opened_by_a_store_gets_its_vector_tables() -> None:
    path = paths.database_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = db.connect(path, migrate=False)
    migrations.apply(conn, path, migrations.MIGRATIONS[:4])  # what the episode log alone made
    conn.execute("INSERT INTO conversations(title, created_at, updated_at) VALUES ('only', 0, 0)")
    assert not {t for t in _tables(conn) if t.startswith("vectors_")}
    conn.close()
    conn = db.connect(path)
    assert {"vectors_memories_g1", "vectors_episodes_g1"} <= _tables(conn)
    assert db.scalar(conn, "SELECT value FROM meta WHERE key = 'vector_generation'") == "1"
    assert migrations.apply(conn, path) == []


def _file_before(migration: str) -> tuple[Path, apsw.Connection]:
    """The test's database file with the migrations before ``migration`` applied, open."""
    path = paths.database_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    names = [name for name, _ in migrations.MIGRATIONS]
    conn = db.connect(path, migrate=False)
    migrations.apply(conn, path, migrations.MIGRATIONS[: names.index(migration)])
    return path, conn


def test_a_file_from_before_0014_keeps_its_writes_and_records_earlier_texts_from_then_on(
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    path, conn = _file_before("0014_writes_keep_the_earlier_text")
    names = [name for name, _ in migrations.MIGRATIONS]
    conn.execute(
        "INSERT INTO memories(id, kind, content, created_at, updated_at, origin)"
        " VALUES (5, 'fact', 'The user plays the cello.', 20, 20, 'local')"
    )
    conn.execute(
        "INSERT INTO memory_writes(memory_id, at, change, via, model)"
        " VALUES (5, 30, 'content', 'distiller', 'qwen')"
    )
    conn.close()

    store = MemoryStore.open(path, embedder)
    applied = [r["name"] for r in db.rows(store.conn, "SELECT name FROM migrations ORDER BY name")]
    assert applied == names
    old = store.writes(5)
    # Its earlier text was never kept: nothing to show or undo.
    assert [(w.change, w.via, w.before) for w in old] == [("content", "distiller", None)]
    assert not any(w.undoable for w in old)
    store.update(5, "The user plays the cello and the piano.")
    assert store.writes(5)[-1].before == "The user plays the cello."
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_a_file_from_before_0016_gets_a_row_and_a_vector_per_situation(
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    path, conn = _file_before("0016_situations")
    rows = (
        (5, "lesson", "Use bullet points.", '{"applies_to": ["lists", " lists of tips ", 3, ""]}'),
        (6, "fact", "The user plays the cello.", "{}"),
        (7, "preference", "The user is vegetarian.", '{"applies_to": "meals"}'),
    )
    for row in rows:
        conn.execute(
            "INSERT INTO memories(id, kind, content, created_at, updated_at, origin, meta)"
            " VALUES (?, ?, ?, 0, 0, 'local', ?)",
            row,
        )
    conn.close()

    store = MemoryStore.open(path, embedder)
    found = db.rows(store.conn, "SELECT memory_id, content FROM situations ORDER BY id")
    assert [(r["memory_id"], r["content"]) for r in found] == [
        (5, "lists"), (5, "lists of tips"), (7, "meals"),
    ]  # fmt: skip
    assert embed_missing(store.space, "situations") == 3  # what the backfill does on start
    assert [h.memory.id for h in store.situated(store.query_vector("tips"), 8, ["lesson"])] == [5]
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_a_file_from_before_0017_finds_its_situations_by_their_words(
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    path, conn = _file_before("0017_situations_fulltext")
    conn.execute(
        "INSERT INTO memories(id, kind, content, created_at, updated_at, origin, meta)"
        " VALUES (5, 'lesson', '重量请用公斤说。', 0, 0, 'local', '{}')"
    )
    conn.execute("INSERT INTO situations(memory_id, content) VALUES (5, '一个大西瓜一般有多重？')")
    conn.close()

    store = MemoryStore.open(path, embedder)
    found = store.situated_by_words("一只成年大熊猫有多重？", 8, ["lesson"])
    assert [h.memory.id for h in found] == [5]
    assert store.situated_by_words("北京奥运会是哪一天开幕的？", 8, ["lesson"]) == []
    # Kept in step: a memory's new situations replace the old ones in the index too.
    with db.transaction(store.conn):
        store.put_situations(5, ["北京奥运会是哪一天开幕的？"])
    assert [h.memory.id for h in store.situated_by_words("哪一天开幕", 8, ["lesson"])] == [5]
    assert store.situated_by_words("一只成年大熊猫有多重？", 8, ["lesson"]) == []
    assert db.scalar(store.conn, "PRAGMA integrity_check") == "ok"


def test_a_file_from_before_0020_keeps_its_tool_steps_in_their_own_columns() -> None:
    path, conn = _file_before("0020_tool_step_columns")
    conn.execute(
        "INSERT INTO conversations(id, title, created_at, updated_at) VALUES (1, '', 0, 0)"
    )
    said = [
        ("user", "calculator is what I use; what is 2 + 2?"),
        ("tool", 'calculator {"expression": "2 + 2"}\n→ 4'),
        ("tool", 'memory_search {"query": "税"}\n→ error: no match'),
        (
            "tool",
            '? {"tool": "calculator", "arguments": {\n→ error: The tool call could not be read',
        ),
        ("tool", 'files_read {"path": "旅行.md"}\n→ day one\n→ day two'),
        ("assistant", "2 + 2 is 4."),
    ]
    for turn, (role, content) in enumerate(said):
        conn.execute(
            "INSERT INTO episodes(conversation_id, turn_index, role, content, created_at)"
            " VALUES (1, ?, ?, ?, 0)",
            (turn, role, content),
        )
    conn.close()

    conn = db.connect(path)
    log = EpisodeLog(conn)
    episodes = log.episodes(1)
    assert [e.step for e in episodes] == [
        None,
        ToolStep("calculator", '{"expression": "2 + 2"}', "4"),
        ToolStep("memory_search", '{"query": "税"}', "no match", error=True),
        ToolStep(
            "?", '{"tool": "calculator", "arguments": {', "The tool call could not be read", True
        ),
        ToolStep("files_read", '{"path": "旅行.md"}', "day one\n→ day two"),
        None,
    ]
    # Cut up by the rule the text was written with: each step writes the same text again, and
    # an export from before is read back the same way.
    for episode in episodes[1:-1]:
        assert episode.step is not None and episode.step.text() == episode.content
        assert ToolStep.from_text(episode.content) == episode.step
    assert log.tools_called(1) == {"calculator", "memory_search", "?", "files_read"}
    added = log.append_step(1, ToolStep("clock", "{}", "12:00"))
    assert log.episodes(1)[-1] == added and added.content == "clock {}\n→ 12:00"
    assert db.scalar(conn, "PRAGMA integrity_check") == "ok"
    conn.close()
