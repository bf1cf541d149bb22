"""``engram chat``: the assistant in the terminal; one input line is one user turn.

A terminal adapter over :class:`~engram.assistant.app.Engram`, as the window's model worker
is: a message means here what it means there ("remember this: …", "forget that"), and the
commands (``/help``, ``/new``, ``/remember TEXT``, ``/forget``, ``/undo``, ``/good``,
``/bad [WHY]``, ``/retry``, ``/quit``) call the same use cases as the window's buttons; they
never reach the model. ``--list`` shows the chats, ``--resume ID`` continues one.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from engram import __version__
from engram.assistant.app import PAUSED, Engram
from engram.assistant.chats import open_chats
from engram.assistant.events import (
    CallNotRead,
    Cancelled,
    Event,
    Failed,
    Finished,
    Forgotten,
    NothingToForget,
    NotRemembered,
    Recalling,
    Remembered,
    SignalKind,
    Token,
    ToolCalled,
    ToolResult,
    Truncated,
    TurnStarted,
)
from engram.assistant.tools import permissions
from engram.cli import terminal
from engram.cli import tools as tools_cli
from engram.core import heap, settings
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, StoreError, tr

HELP = """Commands (never sent to the model):
  /help           this list
  /new            start a new chat
  /remember TEXT  remember TEXT as your own words
  /forget         forget what was last remembered in this chat, or what the last answer used
                  (so does the message "forget that")
  /undo           bring back what was last forgotten (kept until the chat ends)
  /good           the last answer was good (Engram learns what worked)
  /bad [WHY]      the last answer was wrong, and why (Engram learns a lesson)
  /retry          answer the last message again (one whose answer a crash cut off, too)
  /quit           leave (or Ctrl+D)"""
COMMANDS = ("/help", "/new", "/remember", "/forget", "/undo", "/good", "/bad", "/retry", "/quit")
UNANSWERED = (
    "[not answered: Engram stopped before this answer was saved; your message is kept, "
    "/retry answers it]"
)
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
    """The terminal chat's state: its conversation (0 until the first message names it), the
    last answer (for /good and /bad) and what was last forgotten (for /undo)."""

    app: Engram
    conversation_id: int = 0
    temporary: bool = False
    last_answer: int | None = None
    forgotten: Forgotten | None = None
    memory: str = ""  # whether memory was on, paused or off when last said

    def start(self) -> None:
        """A new chat: a temporary one is made at once, a normal one by its first message."""
        self.conversation_id, self.last_answer, self.forgotten = 0, None, None
        if self.temporary:
            self.conversation_id = self.app.chats.new("Temporary chat", temporary=True)


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if args.resume is not None:
        _check_exists(args.resume)
    chat = _opened(args)
    app = chat.app
    interactive = sys.stdin.isatty()
    if interactive:
        print(_banner(app, chat))
        if args.resume:
            _earlier(app, chat.conversation_id)
    elif args.resume and _unanswered(app, chat.conversation_id):
        print(UNANSWERED, file=sys.stderr)
    try:
        return _converse(chat, args, interactive)
    finally:
        app.chats.leave(chat.conversation_id)  # deletes a temporary chat
        app.close()


def _opened(args: argparse.Namespace) -> _Chat:
    """The chat, its Engram open: why memory is off or learning waits said once."""
    store = settings.SettingsStore.load()
    # It learns like the window: consolidation runs in the background while you chat, and what
    # is left is queued when the chat ends (`engram learn` runs it at once).
    app = Engram(
        store.current,
        on_status=lambda _status: None,
        ask=tools_cli.ask if sys.stdin.isatty() else None,
        on_permissions=permissions.saving_to(store),
    )
    opened = app.open()
    heap.settle()
    off = opened.memory.problem
    if off is not None:
        why = f"{off.message} {off.hint}".strip()
        print(f"engram: answering without memory: {why}", file=sys.stderr)
    elif not args.temporary and opened.learning is not None:
        # said once here; the learning jobs wait without a word
        print(f"engram: {opened.learning.message} {opened.learning.hint}", file=sys.stderr)
    chat = _Chat(app, temporary=args.temporary)
    _memory_news(chat)
    if args.resume:
        chat.conversation_id = args.resume
    else:
        chat.start()
    return chat


def _converse(chat: _Chat, args: argparse.Namespace, interactive: bool) -> int:
    """Each line of the input, a command or a message, until it ends (or /quit, Ctrl+C); the
    exit status is 1 when a line could not be read or done, else the answers'."""
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
            text = _decoded(raw, number)
            if text is None:
                status = 1
                continue
            if not text.strip():
                continue
            command = _command(text, interactive)
            if command == "/quit":
                break
            _memory_news(chat)
            try:
                if command and command != "/retry":
                    _run_command(command, text, chat)
                    continue
                asked = _asked(chat, text, command)
                if asked is None:
                    continue
                if interactive:
                    print("engram> ", end="", flush=True)
                shown = (args.show_memories, args.show_tools)
                status = max(status, _answer(chat, asked, number, *shown))
            except StoreError as exc:  # a full or read-only disk: say so, go on with the next line
                print(f"engram: line {number} was not done: {exc.message} {exc.hint}".rstrip(),
                      file=sys.stderr)  # fmt: skip
                status = 1
    except KeyboardInterrupt:
        print()
    return status


def _decoded(raw: bytes, number: int) -> str | None:
    """Input line ``number`` as text, or None (said) when it is not UTF-8."""
    try:
        return raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        print(
            f"engram: line {number} is not UTF-8 text (byte {exc.start + 1}); it was not "
            "sent. Save the input as UTF-8 and send it again.",
            file=sys.stderr,
        )
        return None


def _list() -> int:
    with open_chats() as stored:
        chats = stored.listed()
    if not chats:
        print("No chats yet. Start one with: engram chat")
        return 0
    for c in chats:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated_at))
        print(f"{c.id:>5}  {when}  {terminal.safe(c.title or '(untitled)')}")
    print("Continue one with: engram chat --resume ID")
    return 0


def _check_exists(conversation_id: int) -> None:
    with open_chats() as chats:
        found = chats.conversation(conversation_id)
    if found is None or found.temporary:
        raise InputError(
            tr("There is no chat {id}."),
            tr("See the chats with: engram chat --list"),
            id=conversation_id,
        )


def _memory_news(chat: _Chat) -> None:
    """Say that memory is paused, at the start or when it was paused (or resumed) elsewhere
    since the last line (``engram memory pause``, a window); a temporary chat learns nothing
    anyway."""
    mode, said = chat.app.memory.mode, chat.memory
    chat.memory = mode
    if chat.temporary or mode == said:
        return
    if mode == "paused":
        print(f"engram: {PAUSED.message} {PAUSED.hint}", file=sys.stderr)
    elif said == "paused" and mode == "on":
        print("engram: Memory is on again: Engram learns from what you say.", file=sys.stderr)


def _banner(app: Engram, chat: _Chat) -> str:
    chosen = app.settings
    where = f"chat {chat.conversation_id}" if chat.conversation_id else "a new chat"
    kind = "temporary chat (nothing is learned or kept)" if chat.temporary else where
    return (
        f"Engram {__version__}: {kind}; small model {chosen.small_model}, large model "
        f"{chosen.large_model}.\nType /help for commands, /quit or Ctrl+D to leave."
    )


def _earlier(app: Engram, conversation_id: int) -> None:
    """Print the last turns of a resumed chat, and how many earlier ones are not shown."""
    said = app.chats.messages(conversation_id)
    if len(said) > EARLIER_SHOWN:
        print(f"[{len(said) - EARLIER_SHOWN} earlier messages not shown]")
    for episode in said[-EARLIER_SHOWN:]:
        who = "you" if episode.role == "user" else "engram"
        print(f"{who}> {terminal.safe(episode.content)}")
    if _unanswered(app, conversation_id):
        print(UNANSWERED)


def _unanswered(app: Engram, conversation_id: int) -> bool:
    """Is the chat's last message one whose answer never came (a kill or a crash mid-answer)?"""
    said = app.chats.messages(conversation_id)
    return bool(said) and said[-1].role == "user"


def _command(text: str, interactive: bool) -> str | None:
    """The command a line gives, or None for a message. An unknown /word is a typo on a
    terminal (said so, not sent) and a message in piped input."""
    word = text.split(maxsplit=1)[0].lower()
    if word in COMMANDS:
        return word
    if interactive and word.startswith("/") and len(word) > 1 and word[1:].isalpha():
        return "?"
    return None


def _run_command(command: str, text: str, chat: _Chat) -> None:
    rest = text.strip()[len(command) :].strip()
    if command == "/help":
        print(HELP)
    elif command == "/new":
        chat.app.chats.leave(chat.conversation_id)
        chat.start()
        print("[new chat]")
    elif command == "/remember":
        _remember(chat, text.strip(), rest)
    elif command == "/forget":
        _said(chat, chat.app.memories.forget_last(chat.conversation_id))
    elif command == "/undo":
        _undo(chat)
    elif command in THUMBS:
        _judge(chat, THUMBS[command], rest)
    else:
        print(f"[unknown command {text.split(maxsplit=1)[0]!r}; /help lists the commands]")


def _remember(chat: _Chat, said: str, content: str) -> None:
    if not content:
        print("[/remember needs the text to remember, e.g. /remember I am vegetarian]")
        return
    chat.conversation_id, result = chat.app.memories.remember(chat.conversation_id, said, content)
    _said(chat, result)


def _undo(chat: _Chat) -> None:
    if chat.forgotten is None:
        print("[nothing to bring back: nothing was forgotten in this chat]")
        return
    chat.app.memories.undo_forget(chat.forgotten)
    print(f"[brought back: {terminal.safe(chat.forgotten.content)}]")
    chat.forgotten = None


def _judge(chat: _Chat, kind: SignalKind, why: str) -> None:
    if chat.last_answer is None:
        print("[no answer to judge yet in this chat]")
    elif (problem := chat.app.learning.judge(chat.last_answer, kind, why or None)) is not None:
        print(f"[not noted: {problem.message}]")
    else:
        print("[noted: Engram learns from it]")


def _said(chat: _Chat, event: Event, out: TextIO = sys.stdout) -> None:
    """What the user's own words about memory did (remember, forget), in brackets."""
    if isinstance(event, Remembered):
        said = f"updated: {event.change[0]} → {event.change[1]}" if event.change else ""
        print(f"[{terminal.safe(said or 'remembered: ' + event.content)}]", file=out)
    elif isinstance(event, NotRemembered):
        print(f"[not remembered: {event.problem.message}]", file=out)
    elif isinstance(event, Forgotten):
        chat.forgotten = event
        print(f"[forgot: {terminal.safe(event.content)}] (/undo brings it back)", file=out)
    elif isinstance(event, NothingToForget):
        print(
            "[there is nothing to forget here: nothing was remembered since the last answer, "
            "and it used no memory; engram memory forget ID forgets any memory]",
            file=out,
        )


Asked = Callable[[CancelToken], Iterator[Event]]


def _asked(chat: _Chat, text: str, command: str | None) -> Asked | None:
    """What a line asks to be answered: the message, or with /retry the chat's last message
    again (regenerated; after a crash, answered at last). None: nothing to answer (said)."""
    conversation_id = chat.conversation_id
    if command != "/retry":
        return lambda stop: chat.app.send(conversation_id, text, stop)
    said = chat.app.chats.messages(conversation_id) if conversation_id else []
    last = next((e for e in reversed(said) if e.role == "user"), None)
    if last is None:
        print("[nothing to answer again: no message in this chat yet]")
        return None
    return lambda stop: chat.app.resend(conversation_id, last.id, last.content, stop)


def _answer(chat: _Chat, asked: Asked, number: int, *shown: bool) -> int:
    # Ctrl+C during an answer stops it (kept as cancelled, like Esc in the window) and the chat
    # goes on; at the prompt it quits. The handler only sets the token: a KeyboardInterrupt
    # raised inside llama.cpp's abort callback would be lost and the answer would go on.
    stop = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda _sig, _frame: stop.cancel())
    try:
        return _shown(asked(stop), chat, number, *shown)
    finally:
        signal.signal(signal.SIGINT, previous)


def _shown(
    events: Iterator[Event], chat: _Chat, number: int, show_memories: bool, show_tools: bool
) -> int:
    """Print the events of the message on input line ``number`` as they come; 1 when it failed
    (the chat goes on)."""
    for event in events:  # chat 0: a new chat titled after the message
        if isinstance(event, TurnStarted):
            chat.conversation_id = event.conversation_id
        elif isinstance(event, Recalling) and show_memories:
            for item in event.items:
                print(f"[recalled {item.label}] {terminal.safe(item.line()[2:])}")
        elif isinstance(event, ToolCalled | ToolResult) and show_tools:
            print(tools_cli.line(event), file=sys.stderr)
        elif isinstance(event, Token):
            sys.stdout.write(terminal.safe(event.text))
            sys.stdout.flush()
        elif isinstance(event, Truncated):
            print(f"[{event.text}]", file=sys.stderr)
        elif isinstance(event, CallNotRead):
            print("[the model tried to use a tool, but what it wrote could not be used]",
                  file=sys.stderr)  # fmt: skip
        elif isinstance(event, Finished | Cancelled):
            chat.last_answer = event.episode_id
            if isinstance(event, Cancelled):
                sys.stdout.write(" [stopped]")
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif isinstance(event, Failed):
            if event.text:
                print(flush=True)  # ends the line the answer broke off on
            problem = event.problem
            print(f"engram: line {number} was not answered: {problem.message} {problem.hint}"
                  .rstrip(), file=sys.stderr)  # fmt: skip
            return 1
        elif isinstance(event, Remembered | NotRemembered):
            _said(chat, event, sys.stderr)  # beside the answer, as its notes are
        elif isinstance(event, Forgotten | NothingToForget):
            _said(chat, event)  # "forget that" is answered by what it did
    return 0
