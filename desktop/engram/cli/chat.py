"""``engram chat``: the assistant in the terminal; one input line is one user turn."""

from __future__ import annotations

import argparse
import sys

from engram.assistant.events import Cancelled, Failed, Finished, Notice, Token
from engram.assistant.turn import Assistant
from engram.core import paths, settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models import roles


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "chat",
        help="chat in the terminal (reads one message per line when stdin is not a terminal)",
    )
    cmd.add_argument("--conversation", type=int, help="continue this conversation id")
    cmd.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    prefs = settings.load()
    conn = db.connect(paths.database_path())
    episodes = EpisodeLog(conn)
    conversation = (
        episodes.conversation(args.conversation) if args.conversation else None
    ) or episodes.new_conversation("Terminal chat")
    model = roles.load_local(prefs, "small")
    assistant = Assistant(episodes, model, max_answer_tokens=prefs.max_answer_tokens)
    interactive = sys.stdin.isatty()
    status = 0
    try:
        while True:
            if interactive:
                print("you> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line:
                break
            text = line.rstrip("\n")
            if not text.strip():
                continue
            if interactive:
                print("engram> ", end="", flush=True)
            status = max(status, _answer(assistant, conversation.id, text))
    except KeyboardInterrupt:
        print()
    finally:
        model.close()
        conn.close()
    return status


def _answer(assistant: Assistant, conversation_id: int, text: str) -> int:
    for event in assistant.turn(conversation_id, text):
        if isinstance(event, Token):
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, Notice):
            print(f"[{event.text}]", file=sys.stderr)
        elif isinstance(event, Finished | Cancelled):
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif isinstance(event, Failed):
            print(f"engram: {event.message} {event.hint}".strip(), file=sys.stderr)
            return 1
    return 0
