"""Writing a file so that a crash or a full disk never leaves half of it (temp, fsync, rename)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from engram.core.errors import InputError, tr


@contextmanager
def _replacing(path: Path, mode: str, encoding: str | None) -> Iterator[IO[Any]]:
    """A handle on a temporary file next to ``path`` that replaces it on success."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        newline = "\n" if encoding is not None else None
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_write(path: Path, encoding: str = "utf-8") -> Iterator[IO[str]]:
    """Yield a text handle; on success the file replaces ``path`` whole, else nothing changes."""
    with _replacing(path, "w", encoding) as handle:
        yield handle


@contextmanager
def atomic_write_bytes(path: Path) -> Iterator[IO[bytes]]:
    """Yield a binary handle (e.g. for an image); replaces ``path`` whole or not at all."""
    with _replacing(path, "wb", None) as handle:
        yield handle


def output_folder(path: Path) -> Path:
    """Make ``path`` a folder to write into, or say why it cannot be one."""
    if path.exists() and not path.is_dir():
        raise InputError(
            tr("{path} is a file, not a folder."), tr("Give the name of a folder."), path=path
        )
    path.mkdir(parents=True, exist_ok=True)
    return path


def output_file(path: Path) -> Path:
    """Check that ``path`` can be written as a file: not a folder, in a folder that exists."""
    if path.is_dir():
        raise InputError(
            tr("{path} is a folder, not a file."), tr("Give a file name inside it."), path=path
        )
    if not path.parent.is_dir():
        raise InputError(
            tr("The folder {folder} does not exist."),
            tr("Create it first, or choose another place."),
            folder=path.parent,
        )
    return path
