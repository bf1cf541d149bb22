"""A scripted conversation set, end to end: is every fact the user stated kept in their words,
nothing contradicting them or made of the assistant's words alone, and does what the user
deletes stay gone?

Run: ``.venv/bin/python bench/conversations.py [--set FILE] [--limit N] [--only ID]
[--json OUT]`` (``bench/data/conversations_dev.json`` by default, format
``engram-conversations/1``; a blind twin is run once). For each conversation, on a fresh data
folder, as in the window: the application (``Engram``) opens with the real Qwen2.5-Coder-0.5B,
each user message is sent (``Engram.send``, the answer streamed), then the learning job an idle
chat gets runs with the real Qwen2.5-Coder-1.5B (``consolidation.run_job``, then hygiene, as the
learning thread does). Then, over every active memory (facts, preferences, summaries, lessons):

- (a) each stated fact: one memory holds all its keys;
- (b) no memory holds a ``must_not`` text (a renamed person, an invented relation, a number
  changed);
- (c) no memory is the assistant's alone: fewer than two of its content words (CJK bigrams for
  Chinese) are in the user's messages of the chats it was learned from;
- (d) ``forget``: every memory with the keys is deleted as the memory browser deletes it
  (``Memories.delete``), ``after_forget`` is sent in a new chat, learning runs again over every
  chat (the old ones read again from their first message, as after a regenerate), and the
  memories with those keys that came back are counted (when no memory held them, nothing was
  forgotten and the check is not run).

Each miss prints the memories and where the fact went (never stored, stored with other words,
stored and then replaced), so it can be read. Nothing here judges by a model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

from engram.assistant.app import Engram, LoadedModels  # noqa: E402
from engram.assistant.learning.distiller_backends import DistillerSource  # noqa: E402
from engram.assistant.memories import open_memories  # noqa: E402
from engram.assistant.session import distilling, tidy  # noqa: E402
from engram.core.cancel import CancelToken  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.evaluation.task_runner import heard, learn  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.memory.jobs import JobQueue  # noqa: E402
from engram.memory.records import Memory  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402
from engram.memory.text import query_terms  # noqa: E402

DEV = REPO / "bench/data/conversations_dev.json"
FORMAT = "engram-conversations/1"
# Words any memory is written with, whoever said what: they show nothing the user said.
FRAME = frozenset(
    (
        "user",
        "users",
        "assistant",
        "prefers",
        "preference",
        "preferences",
        "likes",
        "wants",
        "mentioned",
        "said",
        "asked",
        "asks",
        "stated",
        "about",
        "has",
        "have",
        "their",
        "they",
        "them",
        "this",
        "that",
        "with",
        "would",
        "should",
        "will",
        "also",
        "用户",
        "助手",
        "提到",
        "表示",
        "询问",
    )
)
GROUNDED = 2  # content words a memory shares with the user's messages (fewer if it has fewer)


# -- the set ------------------------------------------------------------------------------------


def load(path: Path) -> list[dict[str, Any]]:
    """The conversations of an ``engram-conversations/1`` file (raises what is wrong)."""
    data = json.loads(path.read_text("utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not an {FORMAT} file")
    conversations: list[dict[str, Any]] = data["conversations"]
    for c in conversations:
        if not c["turns"] or ("forget" in c) != bool(c.get("after_forget")):
            raise ValueError(f"{path}: {c['id']} needs turns, and after_forget with forget")
    return conversations


# -- the checks (on any store) ------------------------------------------------------------------


@dataclass(frozen=True)
class Kept:
    """An active memory and what the user said in the chats it was learned from."""

    memory: Memory
    user_said: str

    def holds(self, keys: Sequence[str]) -> bool:
        """Every key is in it (case-insensitive; Chinese as written)."""
        text = self.memory.content.lower()
        return all(key.lower() in text for key in keys)

    def line(self) -> str:
        return f"#{self.memory.id} {self.memory.kind}: {self.memory.content}"


def kept(store: MemoryStore) -> list[Kept]:
    """Every active memory, with the user's messages of its source chats."""
    memories = store.memories(limit=100_000)
    sources = store.sources_of([m.id for m in memories])
    log = EpisodeLog(store.conn)
    said: dict[int, str] = {}
    found = []
    for memory in memories:
        chats = {s.conversation_id for s in sources.get(memory.id, []) if s.conversation_id}
        chats |= {memory.conversation_id} if memory.conversation_id else set()
        for chat in chats - said.keys():
            said[chat] = "\n".join(e.content for e in log.episodes(chat) if e.role == "user")
        found.append(Kept(memory, "\n".join(said[c] for c in sorted(chats))))
    return found


def content_words(text: str) -> set[str]:
    """What a text says of its own: search terms that are not the frame every memory is
    written in, Latin words of three letters or more, numbers, CJK bigrams (none across a
    frame word: 用户不 gives no 户不)."""
    for word in FRAME:
        text = text if word.isascii() else text.replace(word, " ")
    return {
        t
        for t in query_terms(text)
        if t not in FRAME and (len(t) >= 3 or t.isdigit() or (len(t) == 2 and not t.isascii()))
    }


def assistant_only(item: Kept) -> bool:
    """Is the memory made of words the user never said in its chats? Fewer than two of its
    content words (or than it has) are in the user's messages."""
    words = content_words(item.memory.content)
    shared = words & content_words(item.user_said)
    return not words or len(shared) < min(GROUNDED, len(words))


def keyed(memories: Sequence[Kept], keys: Sequence[str]) -> list[Kept]:
    return [m for m in memories if m.holds(keys)]


@dataclass
class Verdict:
    """What one conversation's memories keep and break."""

    stated: int
    stored: list[list[str]] = field(default_factory=list)  # the keys of the facts kept
    missed: list[dict[str, Any]] = field(default_factory=list)  # a fact, and where it went
    must_not: list[tuple[str, str]] = field(default_factory=list)  # (text, memory)
    assistant_only: list[str] = field(default_factory=list)
    came_back: list[str] = field(default_factory=list)


def check(conversation: dict[str, Any], store: MemoryStore) -> Verdict:
    """Checks (a), (b) and (c) on the store's active memories."""
    memories = kept(store)
    verdict = Verdict(stated=len(conversation["facts"]))
    for fact in conversation["facts"]:
        if keyed(memories, fact["keys"]):
            verdict.stored.append(fact["keys"])
        else:
            verdict.missed.append({**fact, "went": went(store, memories, fact["keys"])})
    for text in conversation["must_not"]:
        verdict.must_not += [(text, m.line()) for m in keyed(memories, [text])]
    verdict.assistant_only = [m.line() for m in memories if assistant_only(m)]
    return verdict


def went(store: MemoryStore, memories: Sequence[Kept], keys: Sequence[str]) -> str:
    """Where a fact no active memory holds went: stored and then replaced or rewritten,
    stored with other words (some keys kept), or never stored."""
    for memory in store.memories(statuses=None, limit=100_000):
        text = memory.content.lower()
        if memory.status != "active" and all(k.lower() in text for k in keys):
            return f"stored, then {memory.status}: #{memory.id} {memory.content}"
        for write in store.writes(memory.id):
            before = (write.before or "").lower()
            if before and all(k.lower() in before for k in keys):
                return f"stored, then rewritten ({write.via}): #{memory.id} was {write.before}"
    partial = [m for m in memories if any(k.lower() in m.memory.content.lower() for k in keys)]
    if partial:
        return "reworded: " + " | ".join(m.line() for m in partial)
    return "never stored"


# -- driving Engram -----------------------------------------------------------------------------


def say(app: Engram, turns: Sequence[str], echo: bool) -> int:
    """Send each message in one new chat, as the window does; the chat's id."""
    chat = 0
    for text in turns:
        said = heard(app.send(chat, text, CancelToken()), chat)
        chat = said.conversation_id
        if echo:
            print(f"  > {text}\n  < {said.error or said.text!r}"[:400], flush=True)
    return chat


def learn_from(
    store: MemoryStore, settings: Settings, source: DistillerSource, chats: Sequence[int]
) -> None:
    """Each chat's idle learning job, then hygiene, written as the distiller's (as the
    learning thread runs them)."""
    with store.writing(distilling(settings)):
        for chat in chats:
            learn(store, source, chat, "idle")
    tidy(store)


def read_again(store: MemoryStore, chats: Sequence[int]) -> None:
    """No job covers these chats any more: the next learns from their first message on."""
    log, queue = EpisodeLog(store.conn), JobQueue(store.conn)
    for chat in chats:
        queue.uncover(chat, log.episodes(chat)[0].id)


def forget(settings: Settings, keys: Sequence[str]) -> list[str]:
    """Delete every active memory holding the keys, as the memory browser deletes one."""
    memories = open_memories(settings, "memory browser")
    try:
        gone = [m for m in memories.memories(None, ("active",), 100_000) if _has(m, keys)]
        for memory in gone:
            memories.delete(memory.id)
        return [f"#{m.id} {m.kind}: {m.content}" for m in gone]
    finally:
        memories.close()


def _has(memory: Memory, keys: Sequence[str]) -> bool:
    return all(k.lower() in memory.content.lower() for k in keys)


def run(
    conversation: dict[str, Any],
    settings: Settings,
    models: LoadedModels,
    source: DistillerSource,
    echo: bool = True,
) -> dict[str, Any]:
    """One conversation on the data folder ENGRAM_HOME names (fresh): its verdict as a record."""
    app = Engram(settings, models=models)
    app.open()
    try:
        store = app.session.store if app.session is not None else None
        assert store is not None, "memory is off"
        chats = [say(app, conversation["turns"], echo)]
        learn_from(store, settings, source, chats)
        verdict = check(conversation, store)
        record: dict[str, Any] = {"memories": [m.line() for m in kept(store)]}
        if "forget" in conversation:
            keys = conversation["forget"]["keys"]
            record["deleted"] = forget(settings, keys)
            if record["deleted"]:  # else nothing was forgotten: nothing can come back
                chats.append(say(app, conversation["after_forget"], echo))
                read_again(store, chats[:-1])
                learn_from(store, settings, source, chats)
                verdict.came_back = [m.line() for m in keyed(kept(store), keys)]
                record["after_forget"] = [m.line() for m in kept(store)]
    finally:
        app.close()
    return {
        "id": conversation["id"],
        "language": conversation["language"],
        **vars(verdict),
        **record,
    }


# -- the report ---------------------------------------------------------------------------------


def report(row: dict[str, Any]) -> None:
    """One conversation's numbers, and each miss with the memories to read it by."""
    print(
        f"{row['id']}: facts {len(row['stored'])}/{row['stated']}, must_not "
        f"{len(row['must_not'])}, assistant-only {len(row['assistant_only'])}, came back "
        f"{len(row['came_back'])}" + _forgot(row),
        flush=True,
    )
    for miss in row["missed"]:
        print(f"  MISSED {miss['keys']} ({miss['said']}): {miss['went']}")
    for text, memory in row["must_not"]:
        print(f"  MUST NOT {text!r}: {memory}")
    for memory in row["assistant_only"]:
        print(f"  ASSISTANT ONLY: {memory}")
    for memory in row["came_back"]:
        print(f"  CAME BACK: {memory}")
    if row["missed"] or row["must_not"] or row["assistant_only"] or row["came_back"]:
        for memory in row["memories"]:
            print(f"    memory {memory}")
        for memory in row.get("deleted", []):
            print(f"    deleted {memory}")
        for memory in row.get("after_forget", []) if row["came_back"] else []:
            print(f"    after forget {memory}")


def _forgot(row: dict[str, Any]) -> str:
    if "deleted" not in row:
        return " (no forget)"
    return "" if row["deleted"] else " (no memory held the forget keys: nothing to forget)"


def totals(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per language (and all): conversations, facts stored and stated, must_not hits,
    assistant-only memories, forgets run and memories that came back."""
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        for language in (row["language"], "all"):
            t = found.setdefault(language, dict.fromkeys(_TOTALS, 0))
            t["chats"] += 1
            t["stored"] += len(row["stored"])
            t["stated"] += row["stated"]
            t["must_not"] += len(row["must_not"])
            t["assistant_only"] += len(row["assistant_only"])
            t["forgets"] += bool(row.get("deleted"))
            t["came_back"] += len(row["came_back"])
    return found


_TOTALS = ("chats", "stored", "stated", "must_not", "assistant_only", "forgets", "came_back")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEV)
    parser.add_argument("--limit", type=int, default=0, help="the first N conversations")
    parser.add_argument("--only", action="append", default=[], help="this conversation id")
    parser.add_argument("--json", type=Path, help="write the records here")
    args = parser.parse_args()
    conversations = load(args.set)
    if args.only:
        conversations = [c for c in conversations if c["id"] in args.only]
    if args.limit:
        conversations = conversations[: args.limit]

    os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
    os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-")
    from engram.assistant.learning.distiller_backends import LocalDistiller
    from engram.assistant.session import embedder_for
    from engram.models import roles
    from engram.models.background import LazyModel

    settings = Settings()
    models = LoadedModels(roles.load_local(settings, "small"), embedder_for(settings))
    large = roles.load_local(settings, "large", background=True)
    source = LocalDistiller(LazyModel(lambda: large, 3600))
    print(
        f"{args.set.name}: {len(conversations)} conversations; {settings.small_model} "
        f"answers, {settings.large_model} learns, embedder {models.embedder.model_id}",
        flush=True,
    )
    start, rows = time.perf_counter(), []
    for n, conversation in enumerate(conversations):
        os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix=f"engram-bench-{n}-")
        print(f"-- {conversation['id']}", flush=True)
        rows.append(run(conversation, settings, models, source))
        report(rows[-1])
        if args.json:
            args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), "utf-8")
    print(f"\n{time.perf_counter() - start:.0f} s")
    for language, t in totals(rows).items():
        print(
            f"{language}: {t['chats']} chats; facts stored {t['stored']}/{t['stated']}; "
            f"must_not hits {t['must_not']}; assistant-only memories {t['assistant_only']}; "
            f"came back {t['came_back']} (after {t['forgets']} forgets)"
        )
    models.small.close()
    large.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
