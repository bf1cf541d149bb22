"""The memory tools: recall (search memories and past chats, with provenance) and remember."""

from __future__ import annotations

import time
from typing import Any

from engram.assistant.readable import INDEX_PER_TURN, readable
from engram.assistant.tools import permissions
from engram.assistant.tools.base import Tool, ToolContext, ToolError, one_text
from engram.core.errors import tr
from engram.memory.episode_index import EpisodeIndex
from engram.memory.kinds import FACT, KINDS, LESSON, PREFERENCE
from engram.memory.records import Provenance
from engram.memory.search import Filters

RECALL_K = 6
TOLD = tuple(k for k in KINDS if k != LESSON)  # the kinds the recall tool reads back
SNIPPET_CHARS = 300
MODEL_IMPORTANCE = 0.5  # what the remember tool keeps: the store's default, as the distiller's


def _store(ctx: ToolContext) -> Any:
    if ctx.store is None:
        raise ToolError(
            tr("Memory is off, so there is nothing to search or keep."),
            tr("Check the embedding model in Settings."),
        )
    return ctx.store


def _day(stamp: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(stamp))


def _recall(arguments: dict[str, Any], ctx: ToolContext) -> str:
    store = _store(ctx)
    query = str(arguments["query"])
    episodes = EpisodeIndex(store.space)
    episodes.index_new(limit=INDEX_PER_TURN, newest=True)  # as a turn does; Backfill does the rest
    vector = store.query_vector(query)
    lines = []
    # Lessons say how to answer, not what the user told: they reach an answer through its own
    # lessons block, where they apply (read back here, "TL;DR:" opened an answer on a plan).
    for hit in store.search(query, k=RECALL_K, vector=vector, filters=Filters(kinds=TOLD)):
        memory = hit.memory
        sources = sorted({s.conversation_id for s in hit.sources if s.conversation_id})
        origin = f", from conversation {', '.join(map(str, sources))}" if sources else ""
        lines.append(
            f"[memory #{memory.id}, {memory.kind}, {_day(memory.updated_at)}, written by "
            f"{written_by(store, memory.id)}{origin}] {memory.content[:SNIPPET_CHARS]}"
        )
    for found in readable(store, episodes.search(query, k=RECALL_K, vector=vector), query):
        episode = found.episode
        if episode.conversation_id == ctx.conversation_id or not episode.content.strip():
            continue
        lines.append(
            f"[message #{episode.id}, {episode.role}, conversation {episode.conversation_id}, "
            f"{_day(episode.created_at)}] {episode.content[:SNIPPET_CHARS]}"
        )
    return "\n".join(lines) or f"Nothing in memory matches {query!r}."


# Who first wrote a memory (``memory_writes.via`` of its creation), as the recall tool says it.
_WRITERS = {
    "user": "the user",
    "tool": "a tool call the user allowed",
    "import": "an import",
    "distiller": "Engram's learning",
    "hygiene": "Engram's upkeep",
    "earlier": "an earlier Engram",
}


def written_by(store: Any, memory_id: int) -> str:
    """Who wrote the memory first: the user, a tool call they allowed, Engram's learning, …"""
    writes = store.writes(memory_id)
    return _WRITERS.get(writes[0].via, "unknown") if writes else "unknown"


def _may_remember(_arguments: dict[str, Any], ctx: ToolContext) -> None:
    """Nothing may be kept now (memory off or paused, a temporary chat): said before the user
    is asked."""
    _store(ctx)
    if (quiet := ctx.quiet) is not None:  # the application's rule, for this answer
        raise ToolError(quiet.template, quiet.hint_template, **quiet.params)


def _remember(arguments: dict[str, Any], ctx: ToolContext) -> str:
    """Keep what the model asks to, once the user said yes (the tool asks: the request may come
    from text the answer read, a file, a tool's result, a recalled memory); the write records
    the call, the user's yes and what the answer had read before it.

    The words are the model's, not the user's: the memory's origin is the model (``local``, the
    answering model runs here), at the distiller's importance, so it neither outranks what the
    user said nor is kept from later corrections as the user's own words are."""
    _may_remember(arguments, ctx)
    store = _store(ctx)
    kind = str(arguments.get("kind") or FACT)
    by = Provenance("tool", detail=asked_by(REMEMBER.name, ctx))
    kept = store.add(
        str(arguments["content"]),
        kind,
        importance=MODEL_IMPORTANCE,
        origin="local",
        conversation_id=ctx.conversation_id or None,
        by=by,
    )
    return f"Stored as memory #{kept.id} ({kind}): {kept.content}"


def asked_by(tool: str, ctx: ToolContext) -> str:
    """Where a call's request came from, as its write records it."""
    said = f"the {tool} tool, allowed {ctx.granted or 'without asking'} by the user"
    return said + (f", after reading {', '.join(ctx.after)}" if ctx.after else "")


RECALL = Tool(
    name="recall",
    description="Search the user's memories and earlier conversations; each result says where it "
    "came from.",
    description_zh="搜索用户的记忆和以前的对话；每条结果都注明出处。",
    schema=one_text("query", 300),
    run=_recall,
)
REMEMBER = Tool(
    name=permissions.REMEMBER,
    description="Store a memory the user explicitly asked to keep (a fact or a preference).",
    description_zh="保存用户明确要求记住的内容（事实或偏好）。",
    schema={
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1, "maxLength": 400},
            "kind": {"type": "string", "enum": [FACT, PREFERENCE]},
        },
        "required": ["content"],
        "additionalProperties": False,
    },
    run=_remember,
    needs_permission=True,  # never a write the user did not see and allow
    reads_outside=False,
    precheck=_may_remember,
)
TOOLS = (RECALL, REMEMBER)
