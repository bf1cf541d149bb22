"""The ``engram`` command: no arguments opens the desktop app, a subcommand runs in the terminal."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("gui", "app"):
        from engram.ui.app import run

        return run(args[1:])
    if args[0] == "screenshots":
        from engram.ui.screenshots import run as screenshots

        return screenshots(args[1:])
    from engram.cli.main import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
