"""Export and import of memories as JSON Lines (all or nothing), and a readable Markdown export."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any, NamedTuple

import apsw

from engram.core.errors import InputError, Problem, tr
from engram.memory import db
from engram.memory.episode_index import Progress, embed_missing
from engram.memory.episodes import ToolStep
from engram.memory.kinds import FACT, KINDS
from engram.memory.records import (
    MEMORY_COLUMNS,
    ORIGINS,
    STATUSES,
    Provenance,
    plan_problem,
    situations_in,
)
from engram.memory.store import MemoryStore, check_content

FORMAT = "engram-memories"
IMPORT_BATCH = 256  # memories embedded per transaction after an import
VERSION = 1
MAX_LINE = 1_000_000


class Imported(NamedTuple):
    """What an import did: memories added, and those skipped as already present."""

    added: int
    present: int


_EPISODE_FIELDS = ("id", "conversation_id", "turn_index", "role", "content", "created_at")
_STEP_FIELDS = ("tool_name", "tool_arguments", "tool_result", "tool_error")


def export_jsonl(store: MemoryStore, out: IO[str], episodes: bool = False) -> int:
    """Write every memory (with provenance) and, optionally, every conversation but the
    temporary ones; returns lines."""
    lines: list[dict[str, Any]] = [
        {"type": FORMAT, "version": VERSION, "embedding_model": store.embedding_model}
    ]
    if episodes:  # never a temporary chat (one open elsewhere, or left by a crash)
        kept = "FROM conversations WHERE temporary = 0"
        for row in db.rows(store.conn, f"SELECT id, title, created_at {kept}"):
            lines.append({"type": "conversation", **row})
        cols = ", ".join(_EPISODE_FIELDS + _STEP_FIELDS)
        query = (
            f"SELECT {cols} FROM episodes WHERE conversation_id IN (SELECT id {kept}) ORDER BY id"
        )
        for row in db.rows(store.conn, query):
            name, arguments, result, error = (row.pop(field) for field in _STEP_FIELDS)
            if name is not None:  # a tool episode: its call and result
                row["step"] = asdict(ToolStep(name, arguments or "", result or "", bool(error)))
            lines.append({"type": "episode", **row})
    for row in db.rows(store.conn, f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY id"):
        row["meta"] = json.loads(row["meta"])
        row["sources"] = [s.__dict__ for s in store.sources(row["id"])]
        lines.append({"type": "memory", **row})
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(lines)


def export_markdown(store: MemoryStore, out: IO[str]) -> int:
    """A human-readable list of the active memories, grouped by kind; returns how many."""
    memories = store.memories(limit=1_000_000)
    out.write("# Engram memories\n\n")
    for kind in KINDS:
        group = [m for m in memories if m.kind == kind]
        if not group:
            continue
        out.write(f"## {kind.capitalize()}\n\n")
        for m in group:
            day = time.strftime("%Y-%m-%d", time.localtime(m.updated_at))
            pin = " (pinned)" if m.pinned else ""
            text = " ".join(m.content.split())
            out.write(f"- {text}{pin} — importance {m.importance:.1f}, {day}, #{m.id}\n")
        out.write("\n")
    return len(memories)


def _fail(number: int, what: Problem) -> InputError:
    return InputError(
        tr("Line {number} of the import file is invalid: {problem}. Nothing was imported."),
        tr("Fix or remove that line (the file must be an Engram JSON Lines export) and retry."),
        number=number,
        problem=what,
    )


def _number(value: Any, number: int, key: str, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _fail(
            number,
            Problem(tr("{key} must be a number from {low} to {high}"), key=key, low=low, high=high),
        )
    return float(value)


def _date(value: Any, number: int, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1e11:
        raise _fail(
            number,
            Problem(
                tr("{key} must be a date in seconds since 1970 (a number), not {value}"),
                key=key,
                value=json.dumps(value, ensure_ascii=False)[:40],
            ),
        )
    return float(value)


def _memory(raw: dict[str, Any], number: int) -> dict[str, Any]:
    if not isinstance(raw.get("content"), str):
        raise _fail(number, Problem(tr("content must be text")))
    if not raw["content"].strip():
        raise _fail(number, Problem(tr("content is empty")))
    try:
        content = check_content(raw["content"])
    except InputError as exc:
        raise _fail(number, exc.problem) from exc
    memory = {
        "content": content,
        "kind": raw.get("kind", FACT),
        "status": raw.get("status", "active"),
        "origin": raw.get("origin", "user"),
    }
    for key, allowed in (("kind", KINDS), ("status", STATUSES), ("origin", ORIGINS)):
        if memory[key] not in allowed:
            raise _fail(
                number,
                Problem(tr("{key} must be one of {allowed}"), key=key, allowed=", ".join(allowed)),
            )
    memory["importance"] = _number(raw.get("importance", 0.5), number, "importance")
    memory["confidence"] = _number(raw.get("confidence", 0.8), number, "confidence")
    if raw.get("pinned", False) not in (True, False):  # also 1 and 0, as exports write it
        raise _fail(number, Problem(tr("pinned must be true or false")))
    memory["pinned"] = int(raw.get("pinned", False))
    memory["feedback"] = int(_number(raw.get("feedback", 0), number, "feedback", -1e6, 1e6))
    now = time.time()
    for key in ("created_at", "updated_at"):
        memory[key] = _date(raw.get(key, now), number, key)
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        raise _fail(number, Problem(tr("meta must be an object")))
    plan = plan_problem(meta["plan"]) if "plan" in meta else None
    if plan is not None:
        raise _fail(number, plan)
    memory["meta"] = json.dumps(meta, ensure_ascii=False)
    sources = raw.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        raise _fail(number, Problem(tr("sources must be a list of objects")))
    for key in ("id", "superseded_by"):
        _optional_id(raw.get(key), number, key)
    for source in sources:
        for key in ("episode_id", "conversation_id", "turn_index"):
            _optional_id(source.get(key), number, f"sources.{key}")
    memory["sources"] = sources
    memory["old_id"] = raw.get("id")
    memory["old_superseded_by"] = raw.get("superseded_by")
    memory["line"] = number
    return memory


def _check_superseded(memories: list[dict[str, Any]]) -> None:
    """A superseded memory must name the memory of the file that replaced it."""
    ids = {m["old_id"] for m in memories if m["old_id"] is not None}
    for m in memories:
        if m["status"] == "superseded" and (
            m["old_superseded_by"] not in ids or m["old_superseded_by"] == m["old_id"]
        ):
            raise _fail(
                m["line"],
                Problem(tr("a superseded memory needs superseded_by, the id of its replacement")),
            )


def _optional_id(value: Any, number: int, key: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise _fail(number, Problem(tr("{key} must be an integer"), key=key))


def parse(lines: Iterable[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Validated memories and episode-related records; InputError names the first bad line."""
    memories: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            raise _fail(number, Problem(tr("the line is longer than 1 MB")))
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise _fail(number, Problem(tr("not JSON ({error})"), error=str(exc))) from exc
        if not isinstance(raw, dict):
            raise _fail(number, Problem(tr("not a JSON object")))
        kind = raw.get("type")
        if number == 1 and kind != FORMAT:
            raise _fail(
                number,
                Problem(tr('the first line must be {{"type": "{format}", ...}}'), format=FORMAT),
            )
        if kind == "memory":
            memories.append(_memory(raw, number))
        elif kind in ("conversation", "episode"):
            others.append(_other(raw, number))
        elif kind != FORMAT:
            raise _fail(number, Problem(tr("unknown record type {kind!r}"), kind=kind))
    _check_superseded(memories)
    return memories, others


def _other(raw: dict[str, Any], number: int) -> dict[str, Any]:
    if raw.get("id") is None:
        raise _fail(number, Problem(tr("id must be an integer")))
    _optional_id(raw["id"], number, "id")
    if raw["type"] == "episode":
        if raw.get("role") not in ("system", "user", "assistant", "tool"):
            raise _fail(number, Problem(tr("role must be system, user, assistant or tool")))
        turn = raw.get("turn_index")
        if (
            not isinstance(raw.get("content"), str)
            or isinstance(turn, bool)
            or type(turn) is not int
        ):
            raise _fail(
                number, Problem(tr("an episode needs text content and an integer turn_index"))
            )
        if raw.get("conversation_id") is None:
            raise _fail(number, Problem(tr("conversation_id must be an integer")))
        _optional_id(raw["conversation_id"], number, "conversation_id")
        raw["step"] = _step(raw)
    _date(raw.get("created_at", 0), number, "created_at")
    return raw


def _step(raw: dict[str, Any]) -> ToolStep | None:
    """A tool episode's call and result: its ``step`` as an export writes it since steps have
    columns, else (an export from before, or a ``step`` that is not an object of text name,
    arguments and result and a true or false error) read from its text, which holds them all;
    None for the other roles."""
    if raw["role"] != "tool":
        return None
    step = raw.get("step")
    if isinstance(step, dict):
        name, arguments, result = (step.get(key) for key in ("name", "arguments", "result"))
        error = step.get("error")
        texts = isinstance(name, str) and isinstance(arguments, str) and isinstance(result, str)
        if texts and isinstance(error, bool):
            return ToolStep(str(name), str(arguments), str(result), error)
    return ToolStep.from_text(raw["content"])


def import_jsonl(store: MemoryStore, path: Path, progress: Progress | None = None) -> Imported:
    """Import an export file in one transaction, then embed the new memories a batch at a time
    (``progress(done, total)`` after each). A memory already present (same kind and content) is
    skipped, so importing a file twice adds nothing the second time.

    A stop while embedding loses nothing: the memories are in, and the session's ``Backfill``
    embeds the rest.
    """
    memories, others = _read(path)
    conn = store.conn
    ids: dict[Any, int] = {}
    added: list[int] = []
    with db.transaction(conn):
        conversations, episodes = _insert_chats(conn, others)
        for m in memories:
            new_id = _insert_memory(store, m, conversations, episodes)
            if new_id is not None:
                ids[m["old_id"]] = new_id
                added.append(new_id)
        imported = Provenance("import", detail=f"imported from {path.name}")
        store.record(added, "created", imported)
        for m in memories:
            if m["old_id"] in ids and m["old_superseded_by"] in ids and m["old_id"] is not None:
                conn.execute(
                    "UPDATE memories SET superseded_by = ? WHERE id = ?",
                    (ids[m["old_superseded_by"]], ids[m["old_id"]]),
                )
    embed_missing(store.space, "memories", batch=IMPORT_BATCH, progress=progress)
    embed_missing(store.space, "situations", batch=IMPORT_BATCH)
    return Imported(len(added), len(memories) - len(added))


def _read(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The memories and the other records (chats, messages) of an export file."""
    try:
        with path.open(encoding="utf-8") as handle:
            return parse(handle)
    except UnicodeDecodeError as exc:
        raise InputError(
            tr("{path} is not UTF-8 text ({error})."),
            tr("Import an Engram export."),
            path=path,
            error=str(exc),
        ) from exc
    except OSError as exc:
        raise InputError(tr("Cannot read {path} ({error})."), path=path, error=str(exc)) from exc


def _insert_chats(
    conn: apsw.Connection, others: list[dict[str, Any]]
) -> tuple[dict[int, int], dict[int, int]]:
    """Insert the file's chats and their messages (a message of no chat in the file is left
    out); returns the new ids of each by its id in the file."""
    conversations: dict[int, int] = {}
    episodes: dict[int, int] = {}
    for raw in others:
        if raw["type"] == "conversation":
            conn.execute(
                "INSERT INTO conversations(title, created_at, updated_at) VALUES (?, ?, ?)",
                (str(raw.get("title", "")), raw.get("created_at", 0), raw.get("created_at", 0)),
            )
            conversations[raw["id"]] = conn.last_insert_rowid()
        elif raw["conversation_id"] in conversations:
            step = raw["step"]
            conn.execute(
                "INSERT INTO episodes(conversation_id, turn_index, role, content, created_at,"
                " tool_name, tool_arguments, tool_result, tool_error)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversations[raw["conversation_id"]],
                    raw["turn_index"],
                    raw["role"],
                    raw["content"],
                    raw.get("created_at", 0),
                    *(step.columns() if step is not None else (None,) * 4),
                ),
            )
            episodes[raw["id"]] = conn.last_insert_rowid()
    return conversations, episodes


def _insert_memory(
    store: MemoryStore,
    m: dict[str, Any],
    conversations: dict[int, int],
    episodes: dict[int, int],
) -> int | None:
    """Insert one memory of the file with its situations and sources; returns its new id, or
    None when the same memory (kind and content) is present already."""
    conn = store.conn
    if db.scalar(
        conn, "SELECT 1 FROM memories WHERE kind = ? AND content = ?", (m["kind"], m["content"])
    ):
        return None
    (new_id,) = store.next_ids(1)  # never the id of a deleted memory
    conn.execute(
        "INSERT INTO memories(id, kind, content, importance, confidence, pinned, status,"
        " created_at, updated_at, feedback, origin, meta)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            new_id,
            m["kind"],
            m["content"],
            m["importance"],
            m["confidence"],
            m["pinned"],
            m["status"],
            m["created_at"],
            m["updated_at"],
            m["feedback"],
            m["origin"],
            m["meta"],
        ),
    )
    store.put_situations(new_id, situations_in(json.loads(m["meta"])))
    for s in m["sources"]:
        episode = episodes.get(s.get("episode_id"))
        conn.execute(
            "INSERT INTO memory_sources(memory_id, episode_id, conversation_id,"
            " turn_index, source_deleted) VALUES (?, ?, ?, ?, ?)",
            (
                new_id,
                episode,
                conversations.get(s.get("conversation_id")),
                s.get("turn_index") if isinstance(s.get("turn_index"), int) else None,
                int(episode is None),
            ),
        )
    return new_id
