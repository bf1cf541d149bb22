"""``engram memory``: list, search, show, export, import and forget long-term memories."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engram.assistant import memories
from engram.assistant.memories import KINDS, Memories, Memory, Write
from engram.cli import terminal
from engram.core import paths, settings
from engram.core.errors import InputError, tr


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("memory", help="list, search, export, import and forget memories")
    verbs = cmd.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser("list", help="the remembered memories, pinned first")
    p.add_argument("--kind", choices=KINDS, action="append")
    p.add_argument("--all", action="store_true", help="include superseded and archived ones")
    p.add_argument("--limit", type=int, default=100)
    p.set_defaults(run=_list)
    p = verbs.add_parser("search", help="hybrid search (meaning and words)")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--kind", choices=KINDS, action="append")
    p.add_argument("--episodes", action="store_true", help="search raw messages instead")
    p.set_defaults(run=_search)
    p = verbs.add_parser("show", help="one memory with where it came from")
    p.add_argument("id", type=int)
    p.set_defaults(run=_show)
    p = verbs.add_parser("export", help="write memories as JSON Lines or Markdown")
    p.add_argument("file", type=Path, nargs="?", help="output file (default: standard output)")
    p.add_argument("--markdown", action="store_true", help="a readable list instead of JSON Lines")
    p.add_argument("--episodes", action="store_true", help="include all conversations")
    p.set_defaults(run=_export)
    p = verbs.add_parser("import", help="add the memories of a JSON Lines export")
    p.add_argument("file", type=Path)
    p.set_defaults(run=_import)
    p = verbs.add_parser("forget", help="delete memories for good")
    p.add_argument("ids", type=int, nargs="*")
    p.add_argument("--all", action="store_true", help="every memory")
    p.add_argument("--episodes", action="store_true", help="with --all: conversations too")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=_forget)
    for verb, help_text in (
        ("pause", "stop remembering: new messages stay in their chat but are never learned"),
        ("resume", "remember and learn again"),
        ("status", "whether memory is paused"),
    ):
        verbs.add_parser(verb, help=help_text).set_defaults(run=_pause)
    p = verbs.add_parser("backup", help="write a backup of the database now")
    p.set_defaults(run=_backup)
    p = verbs.add_parser("restore", help="replace the database by a backup (the newest by default)")
    p.add_argument("file", type=Path, nargs="?", help="the backup file (default: the newest)")
    p.add_argument("--list", action="store_true", help="list the backups, newest first")
    p.set_defaults(run=_restore)
    p = verbs.add_parser(
        "reset-damaged",
        help="move a damaged database aside and start a fresh one with what is still readable",
    )
    p.set_defaults(run=_reset_damaged)


def _utf8_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        if (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(encoding="utf-8", errors="replace")


def _open() -> Memories:
    _utf8_output()
    return memories.open_memories(settings.load(), "engram memory")


_NONE = (
    "No memories yet. Engram learns them from your chats; to add one, say "
    '"remember this: …" in a chat (or /remember … in engram chat).'
)


def _line(m: Memory) -> str:
    flags = ("*" if m.pinned else " ") + ("" if m.status == "active" else f" [{m.status}]")
    return f"#{m.id:<5} {m.kind:10} {flags} {terminal.safe(' '.join(m.content.split()))}"


def _list(args: argparse.Namespace) -> int:
    store = _open()
    found = store.memories(args.kind, None if args.all else ("active",), args.limit)
    for m in found:
        print(_line(m))
    if not found:
        print(_NONE if not store.counts()[0] else "No memories match (--all shows every status).")
    return 0


def _search(args: argparse.Namespace) -> int:
    store = _open()
    query = terminal.argument(args.query)
    if args.episodes:
        said = store.search_messages(query, args.k)
        if not said:
            print("No earlier messages match.")
        for e in said:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.episode.created_at))
            text = terminal.safe(" ".join(e.content.split()))
            print(f"{e.score:.3f}  {when} {e.episode.role:9} {text}")
        return 0
    hits = store.search(query, args.k, args.kind)
    if not hits:
        print("No memories match." if store.counts()[0] else _NONE)
    for h in hits:
        print(f"{h.score:.3f}  {_line(h.memory)}")
    return 0


def _show(args: argparse.Namespace) -> int:
    store = _open()
    m = store.get(args.id)
    if m is None:
        raise InputError(
            tr("There is no memory #{id}."), tr("List them with `engram memory list`."), id=args.id
        )
    print(_line(m))
    print(
        f"importance {m.importance:.2f}, confidence {m.confidence:.2f}, origin {m.origin},"
        f" used {m.use_count}x, feedback {m.feedback:+d}"
    )
    for w in store.writes(m.id):
        print(f"  {written(w)}")
    for s in store.sources(m.id):
        where = "deleted conversation" if s.source_deleted else f"conversation {s.conversation_id}"
        print(f"  from {where}, turn {s.turn_index}")
    for e in store.source_episodes(m.id):
        print(f"    {e.role}: {terminal.safe(' '.join(e.content.split())[:200])}")
    return 0


def written(w: Write) -> str:
    """One recorded write: when, what changed, and where it came from."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(w.at))
    model = f" {w.model}" if w.model else ""
    job = f", job {w.job_id}" if w.job_id is not None else ""
    detail = f": {terminal.safe(w.detail)}" if w.detail else ""
    return f"{when} {w.change} by {w.via}{model}{job}{detail}"


def _export(args: argparse.Namespace) -> int:
    store = _open()
    if args.file is not None:
        count = store.export_to(args.file, markdown=args.markdown, chats=args.episodes)
        print(f"exported {count} lines to {args.file}", file=sys.stderr)
    else:
        store.export(sys.stdout, markdown=args.markdown, chats=args.episodes)
    return 0


def _import(args: argparse.Namespace) -> int:
    def shown(done: int, total: int) -> None:
        if sys.stderr.isatty() or done == total:
            end = "\n" if done == total else ""
            print(f"\rembedding {done:,} of {total:,} memories", end=end, file=sys.stderr)

    imported = _open().import_file(args.file, shown)
    present = f" ({imported.present:,} already present)" if imported.present else ""
    print(f"imported {_counted(imported.added)} from {args.file}{present}")
    return 0


def _counted(count: int) -> str:
    """``1 memory``, ``2 memories``."""
    return f"{count:,} memor{'y' if count == 1 else 'ies'}"


def _forget(args: argparse.Namespace) -> int:
    if not args.all and not args.ids:
        raise InputError(tr("Say which memories to forget."), tr("Give their ids, or --all."))
    if args.episodes and not args.all:
        raise InputError(
            tr("--episodes forgets every conversation, so it goes with --all."),
            tr("Use: engram memory forget --all --episodes"),
        )
    store = _open()
    for memory_id in args.ids:
        if store.get(memory_id) is None:
            raise InputError(tr("There is no memory #{id}."), id=memory_id)
    what = (
        "ALL memories" + (" and conversations" if args.episodes else "")
        if args.all
        else _counted(len(args.ids))
    )
    if not args.yes:
        try:
            answer = input(f"Forget {what} for good? This cannot be undone. [y/N] ")
        except EOFError:  # no terminal to ask: the safe answer is no
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing forgotten")
            return 1
    if args.all:
        count = store.forget_all(chats=args.episodes)
    else:
        for memory_id in args.ids:
            store.delete(memory_id)
        count = len(args.ids)
    print(f"forgot {_counted(count)}")
    if not store.wal_truncated:
        print(
            "engram: another Engram window or command is reading the database, so a copy of the "
            "deleted text stays in its write-ahead log (engram.sqlite3-wal) until every Engram "
            "window and command has closed (SQLite then folds it in and removes it).",
            file=sys.stderr,
        )
        return 1
    return 0


def _pause(args: argparse.Namespace) -> int:
    """Pause or resume in the database (a window or chat open now follows at its next message)
    and in the settings (what the next start and the window's checkbox show)."""
    change = None if args.verb == "status" else args.verb == "pause"
    if memories.pause_memory(settings.SettingsStore.load(), change):
        print("memory is paused: new messages stay in their chat but are never remembered")
    else:
        print("memory is on")
    return 0


def _reset_damaged(args: argparse.Namespace) -> int:
    path = paths.database_path()
    reset = memories.reset_damaged()
    if reset is not None:
        moved, kept = reset
        print(f"moved the damaged database to {moved}; started a fresh one at {path}")
        print(
            f"copied {kept.total_copied} readable rows into it"
            + (f"; up to {kept.total_lost} could not be read" if kept.total_lost else "")
        )
        return 0
    print(f"{path} is not damaged; nothing to do")
    return 0


def _backup(args: argparse.Namespace) -> int:
    made = memories.backup_now(settings.SettingsStore.load().current)
    print(f"wrote {made}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    found = memories.backups()
    if args.list:
        for item in found:
            print(f"{item}  {item.stat().st_size:,} bytes")
        if not found:
            print("No backups yet. Write one with: engram memory backup")
        return 0
    chosen = args.file or (found[0] if found else None)
    if chosen is None:
        raise InputError(
            tr("There is no backup to restore in {folder}."),
            tr("Write one with `engram memory backup`, or name a backup file."),
            folder=memories.backup_folder(),
        )
    moved = memories.restore_backup(chosen)
    kept = f"; the database it replaced is kept as {moved}" if moved else ""
    print(f"restored {chosen}{kept}")
    return 0
