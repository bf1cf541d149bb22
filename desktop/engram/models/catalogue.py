"""The model catalogue: ``models.toml`` (and a user catalogue in the data dir) as typed entries."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.core import paths
from engram.core.errors import CatalogueError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROLES = ("small", "large", "embedding")


@dataclass(frozen=True)
class ModelFile:
    """One file of a model, as it sits in the model's folder."""

    path: str
    size: int | None = None
    sha256: str | None = None
    hf_file: str | None = None
    member: str | None = None
    pypi_package: str | None = None
    pypi_version: str | None = None


@dataclass(frozen=True)
class ModelEntry:
    """One catalogue entry."""

    id: str
    name: str
    roles: tuple[str, ...]
    format: str
    files: tuple[ModelFile, ...]
    context_length: int = 4096
    ram_gb: float = 1.0
    languages: tuple[str, ...] = ("en",)
    license: str = ""
    starter: bool = False
    chat_template: str | None = None
    hf_repo: str | None = None
    hf_revision: str = "main"
    pypi_package: str | None = None
    pypi_version: str | None = None
    embedding_dim: int | None = None
    fastembed_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def folder(self) -> Path:
        """The folder holding this model's files."""
        return paths.models_dir() / self.id

    def main_file(self) -> Path:
        """The file a runtime loads (the GGUF, or the ONNX for embeddings)."""
        return self.folder() / self.files[0].path


@dataclass(frozen=True)
class Catalogue:
    """All known models."""

    models: tuple[ModelEntry, ...]

    def get(self, model_id: str) -> ModelEntry:
        for entry in self.models:
            if entry.id == model_id:
                return entry
        known = ", ".join(e.id for e in self.models)
        raise CatalogueError(f"Unknown model id {model_id!r}.", f"Known models: {known}.")

    def starters(self) -> list[ModelEntry]:
        return [e for e in self.models if e.starter]


def default_path() -> Path:
    """The catalogue shipped with Engram."""
    return paths.project_root() / "models.toml"


def load(path: Path | None = None) -> Catalogue:
    """Parse and validate a catalogue file."""
    path = path or default_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CatalogueError(f"Model catalogue {path} is missing.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path}: {exc}", "Fix the TOML syntax at that line.") from exc
    entries = []
    for index, raw in enumerate(data.get("model", [])):
        try:
            entries.append(_entry(raw))
        except (KeyError, TypeError, ValueError) as exc:
            raise CatalogueError(f"{path}: model #{index + 1} is invalid: {exc}") from exc
    return Catalogue(tuple(entries))


def _entry(raw: dict[str, Any]) -> ModelEntry:
    hf = raw.get("hf", {})
    pypi = raw.get("pypi", {})
    files = tuple(ModelFile(**f) for f in raw["files"])
    roles = tuple(raw["roles"])
    bad = set(roles) - set(ROLES)
    if bad:
        raise ValueError(f"unknown role(s) {sorted(bad)}")
    return ModelEntry(
        id=raw["id"],
        name=raw["name"],
        roles=roles,
        format=raw["format"],
        files=files,
        context_length=int(raw.get("context_length", 4096)),
        ram_gb=float(raw.get("ram_gb", 1.0)),
        languages=tuple(raw.get("languages", ("en",))),
        license=raw.get("license", ""),
        starter=bool(raw.get("starter", False)),
        chat_template=raw.get("chat_template"),
        hf_repo=hf.get("repo"),
        hf_revision=hf.get("revision", "main"),
        pypi_package=pypi.get("package"),
        pypi_version=pypi.get("version"),
        embedding_dim=raw.get("embedding_dim"),
        fastembed_name=raw.get("fastembed_name"),
    )
