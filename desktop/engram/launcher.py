"""The ``engram`` command: no arguments opens the desktop app, a subcommand runs in the terminal."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("gui", "app"):
        from engram.ui.app import run

        return run(args[1:])
    try:
        try:
            return _terminal(args)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``engram … | head``): the Python docs' recipe, so that the
        # interpreter's own flush at exit does not fail again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _terminal(args: list[str]) -> int:
    from engram.core import tether

    if args[0] == tether.CHILD_ARG:  # an MCP server's tether (the packaged app)
        return tether.main(args[1:])
    from engram.models import build_check

    if args[0] == build_check.CHILD_ARG:  # the child of the llama.cpp build check
        return build_check.child(args[1:])
    from engram.cli.main import guarded
    from engram.cli.main import main as cli_main

    if args[0] == "screenshots":
        from engram.ui.screenshots import run as screenshots

        return guarded(lambda: screenshots(args[1:]))
    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
