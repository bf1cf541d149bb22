"""``engram chat``: the assistant in the terminal; one input line is one user turn.

Lines that are a command (``/help``, ``/new``, ``/remember TEXT``, ``/forget``, ``/good``,
``/bad [WHY]``, ``/quit``) are handled here and never reach the model. ``--list`` shows the
chats, ``--resume ID`` continues one.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

from engram import __version__
from engram.assistant.events import (
    Cancelled,
    Failed,
    Finished,
    NotRemembered,
    Recalling,
    Remembered,
    Token,
    ToolCalled,
    ToolResult,
    Truncated,
    TurnEvent,
    TurnStarted,
)
from engram.assistant.session import Session, open_session
from engram.assistant.signals import SignalKind
from engram.assistant.turn import USER_IMPORTANCE, Assistant, title_for
from engram.cli import terminal
from engram.cli import tools as tools_cli
from engram.core import heap, paths, settings
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, StoreError, tr
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models import roles

HELP = """Commands (never sent to the model):
  /help           this list
  /new            start a new chat
  /remember TEXT  remember TEXT as your own words
  /forget         forget what was last remembered in this chat
  /good           the last answer was good (Engram learns what worked)
  /bad [WHY]      the last answer was wrong, and why (Engram learns a lesson)
  /quit           leave (or Ctrl+D)"""
COMMANDS = ("/help", "/new", "/remember", "/forget", "/good", "/bad", "/quit")
EARLIER_SHOWN = 10  # messages of a resumed chat printed before its prompt
THUMBS: dict[str, SignalKind] = {"/good": "thumbs_up", "/bad": "thumbs_down"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "chat",
        help="chat in the terminal (reads one message per line when stdin is not a terminal)",
    )
    cmd.add_argument(
        "--resume", "--conversation", dest="resume", type=int, metavar="ID",
        help="continue the chat with this id (see --list)",
    )  # fmt: skip
    cmd.add_argument("--list", action="store_true", help="list the chats, newest first, and exit")
    cmd.add_argument(
        "--temporary",
        action="store_true",
        help="a temporary chat: nothing in it is learned or recalled later, and it is deleted "
        "when the chat ends",
    )
    cmd.add_argument(
        "--show-memories",
        action="store_true",
        help="print the memories and earlier messages recalled for each answer",
    )
    cmd.add_argument(
        "--show-tools",
        action="store_true",
        help="print each tool call and its result to stderr",
    )
    cmd.set_defaults(run=run)


@dataclass
class _Chat:
    """The terminal chat's state: its conversation (0 until the first message names it) and the
    memory it last remembered (for /forget)."""

    conversation_id: int = 0
    temporary: bool = False
    last_remembered: int | None = None
    last_answer: int | None = None


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if args.resume is not None:
        _check_exists(args.resume)
    store = settings.SettingsStore.load()
    # It learns like the window: consolidation runs in the background while you chat, and what
    # is left is queued when the chat ends (`engram learn` runs it at once).
    session = open_session(store.current, on_status=lambda _status: None)
    heap.settle()
    tools_cli.ask_here(session.assistant.tools, store)
    problem = session.memory_problem
    if problem:
        why = f"{problem.message} {problem.hint}".strip()
        print(f"engram: answering without memory: {why}", file=sys.stderr)
    elif not args.temporary and not store.current.learn_with_small_models:
        too_small = roles.learning_problem(store.current)
        if too_small is not None:  # said once here; the learning jobs wait without a word
            print(f"engram: {too_small.message} {too_small.hint}", file=sys.stderr)
    assistant = session.assistant
    chat = _Chat(args.resume or 0, args.temporary)
    interactive = sys.stdin.isatty()
    if interactive:
        print(_banner(session, chat))
        if chat.conversation_id:
            _earlier(assistant.log, chat.conversation_id)
    status = 0
    number = 0
    try:
        while True:
            if interactive:
                print("you> ", end="", flush=True)
            raw = sys.stdin.buffer.readline()
            if not raw:
                break
            number += 1
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                print(
                    f"engram: line {number} is not UTF-8 text (byte {exc.start + 1}); it was not "
                    "sent. Save the input as UTF-8 and send it again.",
                    file=sys.stderr,
                )
                status = 1
                continue
            if not text.strip():
                continue
            command = _command(text, interactive)
            if command == "/quit":
                break
            try:
                if command:
                    _run_command(command, text, session, chat)
                    continue
                if interactive:
                    print("engram> ", end="", flush=True)
                shown = (args.show_memories, args.show_tools)
                status = max(status, _answer(assistant, chat, text, *shown))
            except StoreError as exc:  # a full or read-only disk: say so, go on with the next line
                if interactive:
                    print()  # after the "engram> " prompt
                what = "done" if command else "answered"
                print(f"engram: line {number} was not {what}: {exc.message} {exc.hint}".rstrip(),
                      file=sys.stderr)  # fmt: skip
                status = 1
    except KeyboardInterrupt:
        print()
    finally:
        if chat.conversation_id:
            assistant.close_conversation(chat.conversation_id)  # deletes a temporary chat
        session.close()
    return status


def _list() -> int:
    conn = db.connect(paths.database_path())
    try:
        chats = [c for c in EpisodeLog(conn).conversations() if not c.temporary]
    finally:
        conn.close()
    if not chats:
        print("No chats yet. Start one with: engram chat")
        return 0
    for c in chats:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated_at))
        print(f"{c.id:>5}  {when}  {terminal.safe(c.title or '(untitled)')}")
    print("Continue one with: engram chat --resume ID")
    return 0


def _check_exists(conversation_id: int) -> None:
    conn = db.connect(paths.database_path())
    try:
        found = EpisodeLog(conn).conversation(conversation_id)
    finally:
        conn.close()
    if found is None or found.temporary:
        raise InputError(
            tr("There is no chat {id}."),
            tr("See the chats with: engram chat --list"),
            id=conversation_id,
        )


def _banner(session: Session, chat: _Chat) -> str:
    chosen = session.settings
    where = f"chat {chat.conversation_id}" if chat.conversation_id else "a new chat"
    kind = "temporary chat (nothing is learned or kept)" if chat.temporary else where
    return (
        f"Engram {__version__}: {kind}; small model {chosen.small_model}, large model "
        f"{chosen.large_model}.\nType /help for commands, /quit or Ctrl+D to leave."
    )


def _earlier(log: EpisodeLog, conversation_id: int) -> None:
    """Print the last turns of a resumed chat, and how many earlier ones are not shown."""
    said = [e for e in log.episodes(conversation_id) if e.role in ("user", "assistant")]
    if len(said) > EARLIER_SHOWN:
        print(f"[{len(said) - EARLIER_SHOWN} earlier messages not shown]")
    for episode in said[-EARLIER_SHOWN:]:
        who = "you" if episode.role == "user" else "engram"
        print(f"{who}> {terminal.safe(episode.content)}")


def _command(text: str, interactive: bool) -> str | None:
    """The command a line gives, or None for a message. An unknown /word is a typo on a
    terminal (said so, not sent) and a message in piped input."""
    word = text.split(maxsplit=1)[0].lower()
    if word in COMMANDS:
        return word
    if interactive and word.startswith("/") and len(word) > 1 and word[1:].isalpha():
        return "?"
    return None


def _run_command(command: str, text: str, session: Session, chat: _Chat) -> None:
    if command == "/help":
        print(HELP)
    elif command == "/new":
        if chat.conversation_id:
            session.assistant.close_conversation(chat.conversation_id)
        chat.conversation_id, chat.last_remembered, chat.last_answer = 0, None, None
        print("[new chat]")
    elif command == "/remember":
        _remember(text.split(maxsplit=1)[1].strip() if " " in text.strip() else "", session, chat)
    elif command == "/forget":
        _forget(session, chat)
    elif command in THUMBS:
        _judge(THUMBS[command], text.strip()[len(command) :].strip(), session, chat)
    else:
        print(f"[unknown command {text.split(maxsplit=1)[0]!r}; /help lists the commands]")


def _remember(content: str, session: Session, chat: _Chat) -> None:
    if not content:
        print("[/remember needs the text to remember, e.g. /remember I am vegetarian]")
    elif session.store is None:
        print("[not remembered: this chat has no memory]")
    elif chat.temporary or session.settings.memory_paused:
        print("[not remembered: memory is paused or this chat is temporary]")
    else:
        # The command is said in the chat like "remember this: …", and is the memory's source.
        assistant = session.assistant
        if not chat.conversation_id:
            chat.conversation_id = assistant.new_conversation(title_for(content))
        said = assistant.log.append(chat.conversation_id, "user", f"/remember {content}")
        memory = session.store.add(
            content,
            "fact",
            importance=USER_IMPORTANCE,
            origin="user",
            conversation_id=chat.conversation_id,
            source_episodes=[said.id],
        )
        chat.last_remembered = memory.id
        print(f"[remembered: {terminal.safe(memory.content)}]")


def _judge(kind: SignalKind, why: str, session: Session, chat: _Chat) -> None:
    if chat.last_answer is None:
        print("[no answer to judge yet in this chat]")
    elif session.store is None or chat.temporary or session.settings.memory_paused:
        print("[not noted: memory is off or paused, or this chat is temporary]")
    else:
        session.assistant.signal(chat.last_answer, kind, why or None)
        print("[noted: Engram learns from it]")


def _forget(session: Session, chat: _Chat) -> None:
    memory = None
    if session.store is not None and chat.last_remembered is not None:
        memory = session.store.get(chat.last_remembered)
    if memory is None or session.store is None:
        print("[nothing remembered in this chat yet; engram memory forget ID forgets any memory]")
        return
    session.store.delete(memory.id)
    chat.last_remembered = None
    print(f"[forgot: {terminal.safe(memory.content)}]")


def _answer(assistant: Assistant, chat: _Chat, text: str, *shown: bool) -> int:
    if chat.temporary and not chat.conversation_id:
        chat.conversation_id = assistant.new_conversation("Temporary chat", temporary=True)
    # Ctrl+C during an answer stops it (kept as cancelled, like Esc in the window) and the chat
    # goes on; at the prompt it quits. The handler only sets the token: a KeyboardInterrupt
    # raised inside llama.cpp's abort callback would be lost and the answer would go on.
    stop = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda _sig, _frame: stop.cancel())
    try:
        return _shown(assistant.turn(chat.conversation_id, text, stop), chat, *shown)
    finally:
        signal.signal(signal.SIGINT, previous)


def _shown(events: Iterator[TurnEvent], chat: _Chat, show_memories: bool, show_tools: bool) -> int:
    """Print a turn's events as they come; 1 when it failed."""
    for event in events:  # chat 0: a new chat titled after the message
        if isinstance(event, TurnStarted):
            chat.conversation_id = event.conversation_id
        elif isinstance(event, Recalling) and show_memories:
            for item in event.items:
                print(f"[recalled] {terminal.safe(item.line())}")
        elif isinstance(event, ToolCalled | ToolResult) and show_tools:
            print(tools_cli.line(event), file=sys.stderr)
        elif isinstance(event, Token):
            sys.stdout.write(terminal.safe(event.text))
            sys.stdout.flush()
        elif isinstance(event, Truncated):
            print(f"[{event.text}]", file=sys.stderr)
        elif isinstance(event, Remembered):
            chat.last_remembered = event.memory_id
            said = f"updated: {event.change[0]} → {event.change[1]}" if event.change else ""
            print(f"[{terminal.safe(said or 'remembered: ' + event.content)}]", file=sys.stderr)
        elif isinstance(event, NotRemembered):
            print(f"[{event.problem.message} {event.problem.hint}]", file=sys.stderr)
        elif isinstance(event, Finished | Cancelled):
            chat.last_answer = event.episode_id
            if isinstance(event, Cancelled):
                sys.stdout.write(" [stopped]")
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif isinstance(event, Failed):
            problem = event.problem
            print(f"engram: {problem.message} {problem.hint}".strip(), file=sys.stderr)
            return 1
    return 0
