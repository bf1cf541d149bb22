"""One named logger per subsystem, a rotating file in the logs folder; private by default.

Logs carry ids, counts and timings. Message and memory text appears only through
:func:`private`, and only when the user opts in with ``ENGRAM_LOG_TEXT=1`` (the log then says so
at its start). Secrets Engram handles (API keys) are registered with :func:`secret`; they and
credentials in URLs are masked in every log record (:mod:`engram.core.masking`). Files and folders
Engram creates are the user's alone (umask 077; the data and logs folders 0700).

A folder or file whose mode cannot be fixed (a read-only disk) keeps it; a log that cannot be
written (a read-only or full disk) is off for the run, said in one line on stderr, and every
command goes on without it.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import stat
import sys
import traceback
from pathlib import Path

from engram.core import masking, paths
from engram.core.errors import StoreError

ROOT = "engram"
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
TEXT_FLAG = "ENGRAM_LOG_TEXT"  # "1": logs may hold message and memory text (for debugging)
SECRET_MARK = masking.MARK
secret = masking.secret  # remember an API key: masked from every log record and stored error
scrub = masking.mask  # text without registered secrets and credential-shaped parts


def text_logging() -> bool:
    """Did the user opt in to message and memory text in the log?"""
    return os.environ.get(TEXT_FLAG) == "1"


def private(text: str) -> str:
    """Message or memory text for a log line: verbatim only with ``ENGRAM_LOG_TEXT=1``."""
    return text if text_logging() else f"<{len(text)} characters>"


class Scrubbing(logging.Filter):
    """Formats each record once and masks secrets in the result and in its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = scrub(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        return True


class _PrivateFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files only their owner can read (also after each rollover). When a
    write fails (a full or read-only disk) it says so once on stderr and writes no more, instead
    of printing a traceback for every record."""

    failed = False

    def _open(self):  # type: ignore[no-untyped-def]
        stream = super()._open()
        _make_private(Path(self.baseFilename), 0o600)
        return stream

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        error = sys.exc_info()[1]
        if self.failed or not isinstance(error, OSError):
            super().handleError(record)
            return
        self.failed = True
        _say_no_log(error, self.baseFilename)


def _say_no_log(error: BaseException, log_file: str = "the log") -> None:
    """Say on stderr, in one line, that this run writes no log, and why."""
    if isinstance(error, StoreError):
        why = error.message
    else:
        where = getattr(error, "filename", None) or log_file
        strerror = getattr(error, "strerror", None) or type(error).__name__
        why = f"cannot write {where} ({strerror}); check that its disk has space and is writable"
    print(f"engram: the log is off for this run: {why}", file=sys.stderr)


def _make_private(path: Path, mode: int) -> None:
    """Give ``path`` the owner-only ``mode`` when it has another one; one that cannot be changed (a
    read-only disk, a file of another user) keeps its mode, which is no reason to stop."""
    try:
        if stat.S_IMODE(path.stat().st_mode) != mode:
            path.chmod(mode)
    except FileNotFoundError:
        pass
    except OSError as exc:
        get("log").info("%s keeps its permissions (%s)", path, exc.strerror)


def private_files() -> None:
    """Make what Engram creates from now on readable by the user only, and fix what exists."""
    os.umask(0o077)
    for folder in (paths.data_dir(), paths.logs_dir(), paths.config_dir()):
        _make_private(folder, 0o700)
    for file in (paths.database_path(), paths.settings_path()):
        _make_private(file, 0o600)


def _file_handler() -> logging.Handler:
    """The rotating log file, made private; raises when the folder or file cannot be written."""
    private_files()
    handler = _PrivateFileHandler(
        paths.logs_dir() / "engram.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(Scrubbing())
    return handler


def unexpected(action: str, exc: BaseException) -> None:
    """Log a bug with its traceback: the exception's type and frames, not its message text
    (which may quote what the user wrote)."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    get("errors").error("%s failed with %s:\n%s", action, type(exc).__name__, frames.rstrip())


def get(subsystem: str) -> logging.Logger:
    """The logger of one subsystem, e.g. ``get("memory")`` -> ``engram.memory``."""
    return logging.getLogger(f"{ROOT}.{subsystem}")


def setup(verbose: bool = False, to_file: bool = True) -> logging.Logger:
    """Configure the ``engram`` logger tree once: a rotating file and stderr for warnings."""
    root = logging.getLogger(ROOT)
    if getattr(root, "_engram_configured", False):
        return root
    root.setLevel(logging.DEBUG if verbose or os.environ.get("ENGRAM_DEBUG") else logging.INFO)
    no_file = None
    if to_file:
        try:
            root.addHandler(_file_handler())
        except (OSError, StoreError) as exc:  # a read-only or missing folder: log to no file
            no_file = exc
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(Scrubbing())
    root.addHandler(console)
    root._engram_configured = True  # type: ignore[attr-defined]
    if no_file is not None:
        _say_no_log(no_file)
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
