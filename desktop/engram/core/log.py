"""One named logger per subsystem, a rotating file in the logs folder; private by default.

Logs carry ids, counts and timings. Message and memory text appears only through
:func:`private`, and only when the user opts in with ``ENGRAM_LOG_TEXT=1`` (the log then says so
at its start). Secrets Engram handles (API keys) are registered with :func:`secret` and replaced
in every log record and in every error text Engram stores (:func:`scrub`). Files and folders
Engram creates are the user's alone (umask 077; the data and logs folders 0700).
"""

from __future__ import annotations

import logging
import logging.handlers
import os

from engram.core import paths

ROOT = "engram"
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
TEXT_FLAG = "ENGRAM_LOG_TEXT"  # "1": logs may hold message and memory text (for debugging)
SECRET_MARK = "[secret]"
MIN_SECRET_CHARS = 8  # shorter strings are too common to replace safely
_secrets: set[str] = set()


def text_logging() -> bool:
    """Did the user opt in to message and memory text in the log?"""
    return os.environ.get(TEXT_FLAG) == "1"


def private(text: str) -> str:
    """Message or memory text for a log line: verbatim only with ``ENGRAM_LOG_TEXT=1``."""
    return text if text_logging() else f"<{len(text)} characters>"


def secret(value: str) -> None:
    """Remember a secret (an API key) so :func:`scrub` removes it from logs and stored errors."""
    if len(value) >= MIN_SECRET_CHARS:
        _secrets.add(value)


def scrub(text: str) -> str:
    """``text`` with every registered secret replaced by ``[secret]``."""
    for value in _secrets:
        if value in text:
            text = text.replace(value, SECRET_MARK)
    return text


class Scrubbing(logging.Filter):
    """Formats each record once and removes registered secrets from the result."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _secrets:
            record.msg = scrub(record.getMessage())
            record.args = None
        return True


class _PrivateFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files only their owner can read (also after each rollover)."""

    def _open(self):  # type: ignore[no-untyped-def]
        stream = super()._open()
        os.chmod(self.baseFilename, 0o600)
        return stream


def private_files() -> None:
    """Make what Engram creates from now on readable by the user only, and fix what exists."""
    os.umask(0o077)
    for folder in (paths.data_dir(), paths.logs_dir(), paths.config_dir()):
        if folder.exists():
            folder.chmod(0o700)
    for file in (paths.database_path(), paths.settings_path()):
        if file.exists():
            file.chmod(0o600)


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
        private_files()
        handler = _PrivateFileHandler(
            paths.logs_dir() / "engram.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
        )
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler.addFilter(Scrubbing())
        root.addHandler(handler)
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(Scrubbing())
    root.addHandler(console)
    root._engram_configured = True  # type: ignore[attr-defined]
    if text_logging():
        root.warning("%s=1: this log holds message and memory text", TEXT_FLAG)
    return root


def clear() -> int:
    """Empty the log and remove its older files and crash reports ("forget everything" does);
    returns how many files were removed. A log written by an older Engram may hold text."""
    folder = paths.logs_dir()
    current = folder / "engram.log"
    removed = 0
    for file in folder.iterdir():
        if file == current or not file.is_file():
            continue
        file.unlink(missing_ok=True)
        removed += 1
    if current.exists():
        with current.open("r+b") as handle:  # the handler appends, so it goes on from 0
            handle.truncate(0)
    get("log").info("log cleared (%d older files removed)", removed)
    return removed


def log_file() -> str:
    """Path of the current log file, for "open the log" actions."""
    return str(paths.logs_dir() / "engram.log")
