"""Argument parsing for the terminal commands; each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from engram import __version__
from engram.cli import chat, learn, models
from engram.cli import eval as eval_cli
from engram.cli import memory as memory_cli
from engram.cli import tools as tools_cli
from engram.core import log
from engram.core.errors import EngramError

COMMANDS = (chat, models, memory_cli, eval_cli, learn, tools_cli)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="engram",
        description="Engram: an offline assistant whose small model gets the memory of a big one. "
        "Run without a command to open the desktop app.",
    )
    top.add_argument("--version", action="version", version=f"engram {__version__}")
    top.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("gui", help="open the desktop app (the default)")
    sub.add_parser("screenshots", help="render the windows to PNG files (DIR, --dark)")
    for module in COMMANDS:
        module.register(sub)
    return top


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if not hasattr(args, "run"):
        parser().print_help()
        return 2
    return guarded(lambda: _run(args))


def _run(args: argparse.Namespace) -> int:
    log.setup(verbose=args.verbose)  # makes the logs folder: it may not be writable
    return int(args.run(args) or 0)


def guarded(command: Callable[[], int]) -> int:
    """Run a terminal command: a known error prints its message and hint (exit 2), no traceback."""
    try:
        return command()
    except EngramError as exc:
        print(f"engram: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(exc.hint, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
