"""Known errors: problems of the environment or of input, each with a message and a way out.

Anything that is not an :class:`EngramError` is a bug and goes to the crash handler.
"""

from __future__ import annotations


class EngramError(Exception):
    """A known problem the user can act on.

    ``message`` says what is wrong (naming the file or value), ``hint`` says what to do.
    """

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class ModelFileError(EngramError):
    """A model file is missing, truncated, corrupt or unsupported."""


class ModelLoadError(EngramError):
    """A model file exists but cannot be loaded (memory, architecture, template)."""


class StoreError(EngramError):
    """The database cannot be opened or written."""


class InputError(EngramError):
    """User input that cannot be accepted as given."""


class CloudError(EngramError):
    """The cloud API refused or failed a request."""


class KeyringUnavailableError(EngramError):
    """No OS keyring backend can store secrets on this machine."""


class DownloadError(EngramError):
    """A model download failed; partial files have been removed or kept for resume."""


class CatalogueError(EngramError):
    """``models.toml`` (or a user catalogue) is invalid."""
