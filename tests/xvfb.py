"""A virtual X display for the tests that open a real window (``tests/test_walkthrough.py``).

Xvfb starts on a free display (``-displayfd``: the server picks the number and writes it to a
pipe), at 1280×800, the height of a small laptop screen; the window runs in a subprocess with
``QT_QPA_PLATFORM=xcb`` on it (the test process itself stays offscreen). Without Xvfb, or without
the libraries Qt's xcb plugin needs, the tests are skipped with the reason; CI installs both and
sets ``ENGRAM_REQUIRE_XVFB=1``, which turns the skip into a failure.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

REQUIRE = "ENGRAM_REQUIRE_XVFB"
SCREEN = (1280, 800)
START_S = 30.0  # a loaded 2-core machine
PROBE = "from PySide6.QtGui import QGuiApplication; QGuiApplication([])"


class NoDisplayError(Exception):
    """No real window can be opened here; the message says why and how to get one."""


def required() -> bool:
    """CI must open the real window (``ENGRAM_REQUIRE_XVFB=1``): no skipping."""
    return os.environ.get(REQUIRE) == "1"


@contextmanager
def display(size: tuple[int, int] = SCREEN) -> Iterator[str]:
    """Run Xvfb on a free display while the block runs; yields its name (":N"). Raises
    :class:`NoDisplayError` when Xvfb is missing or does not start, or Qt cannot open a window
    on it."""
    server = shutil.which("Xvfb")
    if server is None:
        raise NoDisplayError("Xvfb is not installed (Debian: apt-get install xvfb)")
    read, write = os.pipe()
    with tempfile.TemporaryFile() as log:
        width, height = size
        process = subprocess.Popen(
            [server, "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24",
             "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
        os.close(write)
        try:
            name = f":{_display_number(read, process, log)}"
            _check_qt(name)
            yield name
        finally:
            os.close(read)
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _display_number(read: int, process: subprocess.Popen[bytes], log: IO[bytes]) -> int:
    """The number Xvfb writes once it listens (a line on the ``-displayfd`` pipe)."""
    said = b""
    while not said.endswith(b"\n"):
        ready, _, _ = select.select([read], [], [], START_S)
        chunk = os.read(read, 16) if ready else b""
        if not chunk:  # it exited, or said nothing in time
            log.seek(0)
            tail = log.read().decode(errors="replace").strip().splitlines()[-3:]
            code = process.poll()
            raise NoDisplayError(f"Xvfb did not start (exit code {code}): {' / '.join(tail)}")
        said += chunk
    return int(said)


def _check_qt(name: str) -> None:
    """Qt's xcb plugin opens on the display (it needs libxcb-cursor0 and friends)."""
    env = environment(name)
    probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                           text=True, timeout=60, check=False)  # fmt: skip
    if probe.returncode != 0:
        said = [line for line in probe.stderr.splitlines() if line.strip()][:2]
        raise NoDisplayError(
            "Qt cannot open a window on Xvfb (docs/development.md lists the libraries its "
            f"xcb plugin needs): {' / '.join(said)}"
        )


def environment(name: str, **extra: str) -> dict[str, str]:
    """The environment of a process that shows its windows on display ``name``."""
    env = {key: value for key, value in os.environ.items() if key != "WAYLAND_DISPLAY"}
    env |= {"DISPLAY": name, "QT_QPA_PLATFORM": "xcb"}
    env.update(extra)
    return env
