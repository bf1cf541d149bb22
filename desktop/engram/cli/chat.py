"""``engram chat``: the assistant in the terminal; one input line is one user turn."""

from __future__ import annotations

import argparse
import sys

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
)
from engram.assistant.session import open_session
from engram.assistant.turn import Assistant
from engram.cli import terminal
from engram.cli import tools as tools_cli
from engram.core import settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "chat",
        help="chat in the terminal (reads one message per line when stdin is not a terminal)",
    )
    cmd.add_argument("--conversation", type=int, help="continue this conversation id")
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


def run(args: argparse.Namespace) -> int:
    store = settings.SettingsStore.load()
    # It learns like the window: consolidation runs in the background while you chat, and what
    # is left is queued when the chat ends (`engram learn` runs it at once).
    session = open_session(store.current, on_status=lambda _status: None)
    tools_cli.ask_here(session.assistant.tools, store)
    problem = session.memory_problem
    if problem:
        why = f"{problem.message} {problem.hint}".strip()
        print(f"engram: answering without memory: {why}", file=sys.stderr)
    assistant = session.assistant
    if args.temporary:
        conversation_id = assistant.new_conversation("Temporary chat", temporary=True)
    elif args.conversation and assistant.log.conversation(args.conversation):
        conversation_id = args.conversation
    else:
        conversation_id = assistant.new_conversation("Terminal chat")
    interactive = sys.stdin.isatty()
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
            if interactive:
                print("engram> ", end="", flush=True)
            status = max(
                status,
                _answer(assistant, conversation_id, text, args.show_memories, args.show_tools),
            )
    except KeyboardInterrupt:
        print()
    finally:
        assistant.close_conversation(conversation_id)  # deletes a temporary chat
        session.close()
    return status


def _answer(
    assistant: Assistant, conversation_id: int, text: str, show_memories: bool, show_tools: bool
) -> int:
    for event in assistant.turn(conversation_id, text):
        if isinstance(event, Recalling) and show_memories:
            for item in event.items:
                print(f"[recalled] {terminal.safe(item.line())}")
        elif isinstance(event, ToolCalled | ToolResult) and show_tools:
            print(tools_cli.line(event), file=sys.stderr)
        elif isinstance(event, Token):
            sys.stdout.write(terminal.safe(event.text))
            sys.stdout.flush()
        elif isinstance(event, Truncated):
            print(f"[{event.text}]", file=sys.stderr)
        elif isinstance(event, Remembered) and event.change:
            change = terminal.safe(f"{event.change[0]} → {event.change[1]}")
            print(f"[updated: {change}]", file=sys.stderr)
        elif isinstance(event, Remembered):
            print(f"[remembered: {terminal.safe(event.content)}]", file=sys.stderr)
        elif isinstance(event, NotRemembered):
            print(f"[{event.problem.message} {event.problem.hint}]", file=sys.stderr)
        elif isinstance(event, Finished | Cancelled):
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif isinstance(event, Failed):
            problem = event.problem
            print(f"engram: {problem.message} {problem.hint}".strip(), file=sys.stderr)
            return 1
    return 0
