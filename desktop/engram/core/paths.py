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
    root = home()
    if root is not None:
        return _ensure(root / "data")
    import platformdirs

    return _ensure(Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)))


def config_dir() -> Path:
    """Where ``settings.json`` lives."""
    root = home()
    if root is not None:
        return _ensure(root / "config")
    import platformdirs

    return _ensure(Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)))


def models_dir() -> Path:
    """Where downloaded and imported model files live."""
    value = os.environ.get("ENGRAM_MODELS_DIR", "").strip()
    if value:
        return _ensure(Path(value).expanduser())
    return _ensure(data_dir() / "models")


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
