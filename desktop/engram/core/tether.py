"""Run a command as a child that never outlives the process that started it, however that one
ends (closed, crashed, killed with SIGKILL).

Engram starts each stdio MCP server through this tether (``command`` wraps the server's command
line): the tether starts the server in a process group of its own, hands it its standard streams
and waits for it. When Engram dies, the tether stops the whole group, the server's own children
too: on Linux the kernel tells it at once (``PR_SET_PDEATHSIG``), elsewhere it notices within
:data:`POLL_S` that its parent changed. A server that ignores a closed stdin and SIGTERM is
stopped all the same. While Engram lives, the tether changes nothing: the server's exit code is
its own, and Engram's stop (stdin closed, SIGTERM to the group, then SIGKILL) reaches the server
as before (the tether waits for it through SIGTERM).

Only the standard library here: a source install runs this file by its path (``python -I``, no
Engram import), the packaged app through the launcher's hidden subcommand :data:`CHILD_ARG`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence

CHILD_ARG = "_tether"  # the launcher's hidden subcommand that runs :func:`main`
POLL_S = 0.25  # how often the tether looks whether its parent is still there
PR_SET_PDEATHSIG = 1  # prctl(2)


def command(argv: Sequence[str]) -> list[str]:
    """``argv`` run under the tether of this process (as is where there are no process groups)."""
    if os.name != "posix":
        return list(argv)
    if getattr(sys, "frozen", False):
        head = [sys.executable, CHILD_ARG]
    else:
        head = [sys.executable, "-I", os.path.abspath(__file__)]
    return [*head, str(os.getpid()), "--", *argv]


def _stop_group(*_args: object) -> None:
    """The parent is gone: end the group (the server, its children and this tether)."""
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _told_when_parent_dies() -> None:
    """Linux: the kernel sends SIGHUP to this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGHUP), 0, 0, 0)


def main(argv: Sequence[str]) -> int:
    """``PARENT_PID -- COMMAND ARGS…``: run the command until it ends, or until the parent does."""
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        print(f"usage: {CHILD_ARG} PARENT_PID -- COMMAND [ARGS…]", file=sys.stderr)
        return 2
    parent, argv = int(argv[0]), list(argv[2:])
    if os.getpgrp() != os.getpid():
        os.setpgid(0, 0)  # a group of its own, so stopping it never reaches the parent's
    signal.signal(signal.SIGHUP, _stop_group)
    _told_when_parent_dies()
    if os.getppid() != parent:  # the parent died before the tether was tied
        return 1
    try:
        child = subprocess.Popen(argv)  # its streams, environment and folder are the tether's
    except OSError as exc:
        print(f"cannot start {argv[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    null = os.open(os.devnull, os.O_RDWR)  # hold no end of the server's pipes
    for stream in (0, 1):
        os.dup2(null, stream)
    signal.signal(signal.SIGTERM, lambda *_args: None)  # the group's SIGTERM is the server's
    while True:
        try:
            code = child.wait(POLL_S)
        except subprocess.TimeoutExpired:
            if os.getppid() != parent:
                _stop_group()
            continue
        return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
