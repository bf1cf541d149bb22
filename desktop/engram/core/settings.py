"""User settings: a versioned JSON file with migrators, written atomically.

Secrets (the cloud API key) never live here: they go to the OS keyring.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.core import log, paths
from engram.core.atomic import atomic_write

SCHEMA_VERSION = 1
_log = log.get("settings")


@dataclass
class CloudSettings:
    """The opt-in cloud distiller (an OpenAI-compatible chat API)."""

    enabled: bool = False
    base_url: str = ""
    model: str = ""
    redact_personal_data: bool = True


@dataclass
class Settings:
    """Everything the user can change; defaults suit the offline starter models."""

    small_model: str = "smollm2-135m-instruct"
    large_model: str = "smollm2-135m-instruct"
    embedding_model: str = "all-minilm-l6-v2-int8"
    threads: int = 0  # 0 = choose from the machine's cores
    context_size: int = 4096
    max_answer_tokens: int = 512
    memory_budget_tokens: int = 384
    consolidate_every_turns: int = 5
    consolidate_idle_seconds: int = 120
    large_model_idle_unload_seconds: int = 300
    memory_paused: bool = False
    language: str = "system"  # "system", "en" or "zh_CN"
    theme: str = "system"  # "system", "light" or "dark"
    hf_endpoint: str = ""
    disable_xet: bool = False
    cloud: CloudSettings = field(default_factory=CloudSettings)

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        data = migrate(dict(data))
        cloud = CloudSettings(**_known(CloudSettings, data.pop("cloud", {}) or {}))
        return cls(cloud=cloud, **_known(cls, data))


# Each migrator takes the dict of version N and returns version N+1; append only.
MIGRATORS: list[Callable[[dict[str, Any]], dict[str, Any]]] = []


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a settings dict from any older version up to :data:`SCHEMA_VERSION`."""
    version = int(data.pop("version", SCHEMA_VERSION))
    while version < SCHEMA_VERSION:
        data = MIGRATORS[version - 1](data)
        version += 1
    return data


def _known(kind: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(kind)} - {"cloud"}
    unknown = set(data) - names - {"cloud"}
    if unknown:
        _log.warning("ignoring unknown settings: %s", ", ".join(sorted(unknown)))
    defaults = kind()
    result = {}
    for name in names & set(data):
        value = data[name]
        expected = type(getattr(defaults, name))
        if isinstance(value, expected):
            result[name] = value
        else:
            _log.warning("setting %s has the wrong type (%r); using the default", name, value)
    return result


def load(path: Path | None = None) -> Settings:
    """Read settings; a missing file gives defaults, a damaged one is kept aside and reported."""
    path = path or paths.settings_path()
    if not path.exists():
        return Settings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return Settings.from_json(data)
    except (ValueError, TypeError, OSError) as exc:
        backup = path.with_suffix(".damaged.json")
        os.replace(path, backup)
        _log.warning("settings file %s was unreadable (%s); kept as %s", path, exc, backup)
        return Settings()


def save(settings: Settings, path: Path | None = None) -> None:
    """Write settings atomically (temp file + rename), so a crash never leaves half a file."""
    with atomic_write(path or paths.settings_path()) as handle:
        json.dump(settings.to_json(), handle, ensure_ascii=False, indent=2)
