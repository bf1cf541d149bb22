"""API keys: OS keyring only, a clear error without one, and never in settings, log or database."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import pytest
from keyring.errors import PasswordDeleteError
from keyrings.alt.file import PlaintextKeyring

from engram.core import log, paths, settings
from engram.core.errors import CloudError, KeyringUnavailableError
from engram.memory import db
from engram.models import secrets
from engram.models.cloud import CloudClient

SECRET = "sk-live-9f8e7d6c5b4a"


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A working keyring backend that keeps secrets in a dict (a stand-in for the OS service)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture
def use_backend() -> Iterator[object]:
    previous = keyring.get_keyring()

    def install(backend: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(previous)


def test_key_round_trips_through_the_keyring(use_backend) -> None:  # type: ignore[no-untyped-def]
    backend = use_backend(MemoryKeyring())
    store = secrets.KeyStore()
    store.set(secrets.CLOUD_KEY, SECRET)
    assert backend.store == {("engram", secrets.CLOUD_KEY): SECRET}
    assert secrets.KeyStore().get(secrets.CLOUD_KEY) == SECRET
    store.delete(secrets.CLOUD_KEY)
    assert store.get(secrets.CLOUD_KEY) is None
    store.delete(secrets.CLOUD_KEY)  # deleting twice is fine


@pytest.mark.parametrize(
    "backend", [keyring.backends.fail.Keyring, PlaintextKeyring], ids=["fail", "plain"]
)
def test_no_secure_keyring_is_explained_and_nothing_is_written(
    use_backend,
    backend,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    installed = use_backend(backend())
    if isinstance(installed, PlaintextKeyring):
        installed.file_path = str(tmp_path / "keyring_pass.cfg")
    store = secrets.KeyStore()
    with pytest.raises(KeyringUnavailableError) as info:
        store.set(secrets.CLOUD_KEY, SECRET)
    assert "session" in info.value.hint
    assert store.get(secrets.CLOUD_KEY) is None
    assert not (tmp_path / "keyring_pass.cfg").exists()


def test_session_only_key_lives_in_memory(use_backend) -> None:  # type: ignore[no-untyped-def]
    use_backend(keyring.backends.fail.Keyring())
    store = secrets.KeyStore()
    store.keep_for_session(secrets.CLOUD_KEY, SECRET)
    assert store.get(secrets.CLOUD_KEY) == SECRET
    assert secrets.KeyStore().get(secrets.CLOUD_KEY) is None  # another session does not see it
    store.delete(secrets.CLOUD_KEY)
    assert store.get(secrets.CLOUD_KEY) is None


def test_a_chainer_is_as_safe_as_its_best_backend(use_backend, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from keyring.backends.chainer import ChainerBackend

    use_backend(ChainerBackend())
    monkeypatch.setattr(ChainerBackend, "backends", [keyring.backends.fail.Keyring()])
    assert "no secure keyring" in str(secrets.backend_problem() or "")
    monkeypatch.setattr(ChainerBackend, "backends", [PlaintextKeyring(), MemoryKeyring()])
    assert secrets.backend_problem() is None


@pytest.mark.network_local
def test_key_never_reaches_settings_log_or_database(use_backend, engram_home: Path) -> None:  # type: ignore[no-untyped-def]
    use_backend(MemoryKeyring())
    logger = logging.getLogger(log.ROOT)
    handler = logging.FileHandler(paths.logs_dir() / "engram.log", encoding="utf-8")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        cloud = settings.CloudSettings(enabled=True, base_url="http://127.0.0.1:9/v1")
        cfg = dataclasses.replace(settings.load(), cloud=cloud)
        settings.save(cfg)
        store = secrets.KeyStore()
        store.set(secrets.CLOUD_KEY, SECRET)
        client = CloudClient(cfg.cloud.base_url, "m", store.get(secrets.CLOUD_KEY) or "", retries=0)
        log.get("test").info("client %r", client)
        with pytest.raises(CloudError):
            client.chat([{"role": "user", "content": "hi"}])
        db.connect(paths.database_path()).close()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()
    files = [p for p in engram_home.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"settings.json", "engram.log", paths.database_path().name} <= names
    assert "127.0.0.1:9" in (paths.logs_dir() / "engram.log").read_text(encoding="utf-8")
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
