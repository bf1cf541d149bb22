"""API keys in the OS keyring only, with an explicit session-only holder when there is none.

Plaintext and "fail" backends count as no keyring: Engram never writes a key to a file. When the
keyring is unavailable the caller shows :class:`KeyringUnavailableError` and may offer
:meth:`KeyStore.keep_for_session`, which holds the key in memory until the app exits.
"""

from __future__ import annotations

import functools
from typing import Any

from engram.core import log
from engram.core.errors import KeyringUnavailableError, Problem, tr

_log = log.get("models.secrets")
SERVICE = "engram"
CLOUD_KEY = "cloud-api-key"
# Backends that store nothing, or store secrets as readable files.
_UNSAFE_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")
_HINT = tr(
    "Install and unlock a keyring service (GNOME Keyring, KWallet, KeePassXC's Secret Service), "
    "or keep the key for this session only; Engram never saves it to a file."
)


def _unsafe(backend: Any) -> bool:
    inner = getattr(backend, "backends", None)
    if inner is not None:  # a chainer: safe when at least one chained backend is
        return all(_unsafe(b) for b in inner)
    return type(backend).__module__.startswith(_UNSAFE_MODULES)


def backend_problem() -> Problem | None:
    """Why the OS keyring cannot hold a secret here, or None when it can."""
    import keyring

    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # keyring raises many types while discovering backends
        return Problem(tr("the keyring could not start ({error})"), error=type(exc).__name__)
    if _unsafe(backend):
        return Problem(
            tr("no secure keyring backend is available (found {backend})"),
            backend=type(backend).__name__,
        )
    return None


class KeyStore:
    """Secrets by name: in the OS keyring, or in memory for this session when the user agrees."""

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service
        self._session: dict[str, str] = {}

    def check(self) -> None:
        """Raise :class:`KeyringUnavailableError` when the OS keyring cannot be used."""
        problem = backend_problem()
        if problem:
            raise KeyringUnavailableError(
                tr("Cannot store the API key: {problem}."), _HINT, problem=problem
            )

    def set(self, name: str, secret: str) -> None:
        """Store a secret in the OS keyring (never silently anywhere else)."""
        import keyring
        from keyring.errors import KeyringError

        self.check()
        try:
            keyring.set_password(self.service, name, secret)
        except KeyringError as exc:
            raise KeyringUnavailableError(
                tr("The keyring refused to store the API key ({error})."),
                _HINT,
                error=type(exc).__name__,
            ) from exc
        self._session.pop(name, None)
        log.secret(secret)
        _log.info("stored %s in the OS keyring", name)

    def keep_for_session(self, name: str, secret: str) -> None:
        """Hold a secret in memory only, after the user chose that over a keyring."""
        self._session[name] = secret
        log.secret(secret)
        _log.info("holding %s for this session only", name)

    def get(self, name: str) -> str | None:
        """The secret, from this session's memory or the keyring; None when unknown."""
        if name in self._session:
            return self._session[name]
        if backend_problem():
            return None
        import keyring
        from keyring.errors import KeyringError

        try:
            value = keyring.get_password(self.service, name)
        except KeyringError as exc:
            _log.warning("keyring lookup of %s failed: %s", name, type(exc).__name__)
            return None
        if value:
            log.secret(value)  # never in a log line or a stored error from now on
        return value

    def delete(self, name: str) -> None:
        """Forget a secret everywhere Engram may hold it."""
        self._session.pop(name, None)
        if backend_problem():
            return
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            keyring.delete_password(self.service, name)
        except PasswordDeleteError:
            pass
        except KeyringError as exc:
            raise KeyringUnavailableError(
                tr("The keyring refused to delete the API key ({error})."),
                _HINT,
                error=type(exc).__name__,
            ) from exc


@functools.cache
def shared() -> KeyStore:
    """The process's key store: a key kept "for this session only" is seen by every user of it."""
    return KeyStore()
