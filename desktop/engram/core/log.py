"""One named logger per subsystem, a rotating file in the logs folder, and nothing else global."""

from __future__ import annotations

import logging
import logging.handlers
import os

from engram.core import paths

ROOT = "engram"
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def get(subsystem: str) -> logging.Logger:
    """The logger of one subsystem, e.g. ``get("memory")`` -> ``engram.memory``."""
    return logging.getLogger(f"{ROOT}.{subsystem}")


def setup(verbose: bool = False, to_file: bool = True) -> logging.Logger:
    """Configure the ``engram`` logger tree once: a rotating file and stderr for warnings."""
    root = logging.getLogger(ROOT)
    if getattr(root, "_engram_configured", False):
        return root
    root.setLevel(logging.DEBUG if verbose or os.environ.get("ENGRAM_DEBUG") else logging.INFO)
    if to_file:
        handler = logging.handlers.RotatingFileHandler(
            paths.logs_dir() / "engram.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
        )
        handler.setFormatter(logging.Formatter(_FORMAT))
        root.addHandler(handler)
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    root._engram_configured = True  # type: ignore[attr-defined]
    return root


def log_file() -> str:
    """Path of the current log file, for "open the log" actions."""
    return str(paths.logs_dir() / "engram.log")
