"""Checking model files on disk: presence, size and sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

from engram.core.errors import ModelFileError, Problem, tr
from engram.models.catalogue import ModelEntry, ModelFile

_CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def problem(entry: ModelEntry, spec: ModelFile, deep: bool = True) -> Problem | None:
    """What is wrong with one installed file, or None when it is fine."""
    target = entry.folder() / spec.path
    if not target.is_file():
        return Problem(tr("{path} is missing"), path=target)
    size = target.stat().st_size
    if spec.size is not None and size != spec.size:
        return Problem(
            tr("{path} has {size} bytes, expected {expected} (truncated or replaced)"),
            path=target,
            size=size,
            expected=spec.size,
        )
    if deep and spec.sha256 and sha256_of(target) != spec.sha256:
        return Problem(
            tr("{path} is corrupt (its sha256 does not match the catalogue)"), path=target
        )
    return None


def verify(entry: ModelEntry, deep: bool = False) -> None:
    """Raise :class:`ModelFileError` naming the first bad file of a model and the fix."""
    for spec in entry.files:
        issue = problem(entry, spec, deep=deep)
        if issue:
            raise ModelFileError(
                tr("Model {name}: {problem}."),
                tr("Run `engram models fetch-starter` to fetch it again.")
                if entry.starter
                else tr("Run `engram models download {id}` to fetch it again."),
                name=entry.name,
                problem=issue,
                id=entry.id,
            )
