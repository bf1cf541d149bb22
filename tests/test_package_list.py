"""The wheel's package list (pyproject.toml) names every package of the source tree and every
resource folder: a package left out installs from a checkout but is missing from a wheel."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_and_resource_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    source = ROOT / "desktop"
    packages = {
        ".".join(p.parent.relative_to(source).parts) for p in source.glob("engram/**/__init__.py")
    }
    resources = {
        f"engram.resources.{p.name}"
        for p in (ROOT / "resources").iterdir()
        if p.is_dir() and not p.name.startswith((".", "__"))
    }
    assert packages | resources | {"engram.resources"} == listed
