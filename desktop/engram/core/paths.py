"""Every filesystem location Engram uses, resolved in one place.

``ENGRAM_HOME`` moves everything (data, config, logs, models) under one folder; tests always set it.
``ENGRAM_MODELS_DIR`` moves only the models folder, so a test run can share downloaded model files
without touching the user's real data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from engram.core.errors import StoreReadOnlyError, tr

APP_NAME = "Engram"


def home() -> Path | None:
    """The ``ENGRAM_HOME`` override, or None when the platform directories are used."""
    value = os.environ.get("ENGRAM_HOME", "").strip()
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    """Where the database, models and logs live."""
    return _ensure(_data_location())


def config_dir() -> Path:
    """Where ``settings.json`` lives."""
    return _ensure(_config_location())


def models_dir() -> Path:
    """Where downloaded and imported model files live."""
    return _ensure(_models_location())


def own_folders() -> tuple[Path, ...]:
    """Engram's own folders, resolved, made or not: the configuration, the data (the database,
    logs, backups) and the models. The files tools never read inside them."""
    return tuple(p.resolve() for p in (_config_location(), _data_location(), _models_location()))


def _data_location() -> Path:
    root = home()
    if root is not None:
        return root / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _config_location() -> Path:
    root = home()
    if root is not None:
        return root / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def _models_location() -> Path:
    value = os.environ.get("ENGRAM_MODELS_DIR", "").strip()
    return Path(value).expanduser() if value else _data_location() / "models"


def logs_dir() -> Path:
    """Where the rotating log and crash reports are written."""
    return _ensure(data_dir() / "logs")


def database_path() -> Path:
    """The single SQLite file that holds everything Engram remembers."""
    return data_dir() / "engram.sqlite3"


def settings_path() -> Path:
    """The user's settings file."""
    return config_dir() / "settings.json"


def project_root() -> Path:
    """The source checkout (holds ``models.toml``), or the packaged app's bundled files."""
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller in the packaged app
    return Path(bundle) if bundle else Path(__file__).resolve().parents[3]


def _ensure(path: Path) -> Path:
    """``path`` as a folder, made if needed; a folder Engram cannot make is a StoreError."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreReadOnlyError(
            tr("Engram cannot create its folder {path} ({error})."),
            tr(
                "Check that the folder is writable by you and not on a read-only disk, or set "
                "ENGRAM_HOME to a folder that is."
            ),
            path=path,
            error=exc.strerror or type(exc).__name__,
        ) from exc
    return path
