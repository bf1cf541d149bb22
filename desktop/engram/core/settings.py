"""User settings: immutable values, a versioned JSON file with migrators, and their one owner.

:class:`Settings` is frozen; a change is a new value (``dataclasses.replace``). The
:class:`SettingsStore` holds the current value, saves every change atomically and tells its
subscribers (old, new). Secrets (the cloud API key) never live here: they go to the OS keyring.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.core import log, paths
from engram.core.atomic import atomic_write
from engram.core.errors import SettingsError, tr

SCHEMA_VERSION = 1
ROLES = ("small", "large", "embedding")  # the model roles settings choose a model for
_log = log.get("settings")


@dataclass(frozen=True)
class CloudSettings:
    """The opt-in cloud distiller (an OpenAI-compatible chat API)."""

    enabled: bool = False
    base_url: str = ""
    model: str = ""
    redact_personal_data: bool = True


@dataclass(frozen=True)
class ToolSettings:
    """Tools the model may call: the step limit, tools turned off, shared folders, MCP servers
    (name → Claude Desktop-style entry) and the stored permission choices (name → always/deny)."""

    enabled: bool = True
    max_steps: int = 4
    disabled: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolSettings:
        known = _known(cls, {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
        if not all(isinstance(x, str) for k in ("disabled", "folders") for x in known.get(k, ())):
            _log.warning("tool settings hold a non-text folder or tool name; using the defaults")
            known = {k: v for k, v in known.items() if k not in ("disabled", "folders")}
        return cls(**known)


@dataclass(frozen=True)
class Settings:
    """Everything the user can change; defaults suit the offline starter pair."""

    small_model: str = "qwen2.5-coder-0.5b-instruct"
    large_model: str = "qwen2.5-coder-1.5b-instruct"
    embedding_model: str = "use-multilingual-v3"
    # The small model on the user's own OpenAI-compatible server instead of a local GGUF (both
    # set), e.g. llama.cpp's server or Ollama on a desktop; the large role has ``cloud``.
    small_server_url: str = ""
    small_server_model: str = ""
    threads: int = 0  # 0 = choose from the machine's cores
    gpu_layers: int = 0  # layers llama.cpp offloads to the GPU (when this build supports it)
    context_size: int = 4096
    max_answer_tokens: int = 512
    temperature: float = 0.7  # sampling of answers (learning samples on its own terms)
    top_p: float = 0.95
    # Custom instructions: what the user tells every chat about themselves and how to answer.
    # They go into the system part as quoted data (sanitised), never as instructions of Engram's.
    about_you: str = ""
    answer_style: str = ""
    memory_budget_tokens: int = 384
    consolidate_every_turns: int = 5
    consolidate_idle_seconds: int = 120
    large_model_idle_unload_seconds: int = 300
    memory_paused: bool = False
    backup_every_hours: int = 24  # an automatic backup of the database when the newest is older
    backups_kept: int = 7  # 0 turns automatic backups off
    # Learn with a large model under 1B parameters (the demo) anyway: for tests and demos only,
    # such a model invents memories (see models.roles.learning_problem).
    learn_with_small_models: bool = False
    language: str = "system"  # "system", "en" or "zh_CN"
    theme: str = "system"  # "system", "light" or "dark"
    font_size: int = 0  # points; 0 = the desktop's size
    hf_endpoint: str = ""
    disable_xet: bool = False
    cloud: CloudSettings = field(default_factory=CloudSettings)
    tools: ToolSettings = field(default_factory=ToolSettings)

    def model_for(self, role: str) -> str:
        """The model chosen for a role: ``small``, ``large`` or ``embedding``."""
        return {
            "small": self.small_model,
            "large": self.large_model,
            "embedding": self.embedding_model,
        }[role]

    def choosing(
        self, small: str | None = None, large: str | None = None, embedding: str | None = None
    ) -> Settings:
        """These settings with other models for some roles."""
        return dataclasses.replace(
            self,
            small_model=self.small_model if small is None else small,
            large_model=self.large_model if large is None else large,
            embedding_model=self.embedding_model if embedding is None else embedding,
        )

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        data = migrate(dict(data))
        cloud = CloudSettings(**_known(CloudSettings, data.pop("cloud", {}) or {}))
        tools = ToolSettings.from_json(data.pop("tools", {}) or {})
        return cls(cloud=cloud, tools=tools, **_known(cls, data))


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
    names = {f.name for f in dataclasses.fields(kind)} - {"cloud", "tools"}
    unknown = set(data) - names - {"cloud", "tools"}
    if unknown:
        _log.warning("ignoring unknown settings: %s", ", ".join(sorted(unknown)))
    defaults = kind()
    result = {}
    for name in names & set(data):
        value = data[name]
        expected = type(getattr(defaults, name))
        if expected is float and type(value) is int:  # JSON writes 1.0 as 1
            value = float(value)
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
        try:
            os.replace(path, backup)
        except OSError as moved:  # a read-only config folder: the file stays where it is
            _log.warning(
                "settings file %s is unreadable (%s) and cannot be moved aside (%s)",
                path, type(exc).__name__, moved.strerror or type(moved).__name__,
            )  # fmt: skip
        else:
            _log.warning("settings file %s was unreadable (%s); kept as %s", path, exc, backup)
        return Settings()


def save(settings: Settings, path: Path | None = None) -> None:
    """Write settings atomically (temp file + rename), so a crash never leaves half a file."""
    with atomic_write(path or paths.settings_path()) as handle:
        json.dump(settings.to_json(), handle, ensure_ascii=False, indent=2)


Listener = Callable[[Settings, Settings], None]


class SettingsStore:
    """The one owner of the current settings: every change goes through it, is saved, and is
    announced to the subscribers as (old, new).

    Thread-safe. Listeners run on the thread that made the change, in the order of the changes,
    while the store's lock is held: they should only hand the news on (a Qt adapter queues it).
    """

    def __init__(self, current: Settings | None = None, path: Path | None = None) -> None:
        self._current = current or Settings()
        self._path = path  # None: paths.settings_path() at each save (it follows ENGRAM_HOME)
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []

    @classmethod
    def load(cls, path: Path | None = None) -> SettingsStore:
        """A store holding the settings file's values (see :func:`load`)."""
        return cls(load(path), path)

    @property
    def current(self) -> Settings:
        return self._current

    def update(self, **changes: Any) -> Settings:
        """Change some fields (``cloud=`` takes a whole :class:`CloudSettings`); see
        :meth:`replace`."""
        with self._lock:
            return self.replace(dataclasses.replace(self._current, **changes))

    def choose_models(self, **by_role: str) -> Settings:
        """Choose the models of some roles (see :meth:`Settings.choosing`); see :meth:`replace`."""
        with self._lock:
            return self.replace(self._current.choosing(**by_role))

    def merge(self, base: Settings, edited: Settings) -> Settings:
        """Apply what an editor changed (from ``base``, what it showed, to ``edited``) on top of
        the current settings: what changed meanwhile elsewhere in other fields is kept."""
        changes = {name: getattr(edited, name) for name in changed_fields(base, edited)}
        return self.update(**changes)

    def replace(self, new: Settings) -> Settings:
        """Make ``new`` the settings: saved atomically first, then announced. Nothing changes and
        :class:`SettingsError` is raised when the file cannot be written."""
        with self._lock:
            old = self._current
            if new == old:
                return old
            try:
                save(new, self._path)
            except OSError as exc:
                raise SettingsError(
                    tr("Could not save the settings ({error}). Nothing was changed."),
                    tr("Check that the data folder is writable."),
                    error=exc.strerror or type(exc).__name__,
                ) from exc
            self._current = new
            _log.info("settings changed: %s", ", ".join(changed_fields(old, new)))
            for listener in list(self._listeners):
                try:
                    listener(old, new)
                except Exception:  # a broken listener must not stop the others (or the change)
                    _log.exception("a settings listener failed")
            return new

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(old, new)`` after every change; returns the function that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe


def store_of(settings: Settings | SettingsStore) -> SettingsStore:
    """The store itself, or a new one holding ``settings`` (saved to the usual file on change):
    a window opened with plain settings (tests, screenshots) still has one owner for them."""
    return settings if isinstance(settings, SettingsStore) else SettingsStore(settings)


def changed_fields(old: Settings, new: Settings) -> list[str]:
    """Names of the fields that differ (``cloud`` as one field)."""
    names = [f.name for f in dataclasses.fields(Settings)]
    return [name for name in names if getattr(old, name) != getattr(new, name)]
