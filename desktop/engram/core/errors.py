"""Known errors: problems of the environment or of input, each with a message and a way out.

Anything that is not an :class:`EngramError` is a bug and goes to the crash handler.

Messages are English templates in ``str.format`` syntax, marked with :func:`tr`, plus the values
that fill them::

    raise InputError(tr("There is no memory #{id}."), tr("List them with `engram memory list`."),
                     id=memory_id)

``message`` and ``hint`` are the English text (the terminal and the logs show it); the desktop UI
translates ``template`` and ``hint_template`` and fills them with the same ``params``
(``engram.ui.errors``). Every text value is masked when the problem is made
(:mod:`engram.core.masking`): no message shows an API key or a URL's credentials, wherever it
goes. Values are values — paths, numbers, names, the text of a lower-level
error — never English sentences: a sentence is its own template, or a nested :class:`Problem`
passed as a value (it is shown as its message, translated as well). A template with params
writes a literal brace as ``{{`` or ``}}``; a template without params is shown as written.
The one other form re-raises a known error's own text as another type (or with another hint):
``KeyringUnavailableError(exc.template, tr("…"), **exc.params)``. ``tests/test_error_templates.py``
checks every construction site.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engram.core.masking import mask


def tr(text: str) -> str:
    """Mark an English message template for translation; returns ``text`` unchanged.

    ``pyside6-lupdate`` collects every ``tr("…")`` call into the translation files (context
    ``""``), and the UI translates the template when it shows the message. The core imports no
    Qt, so here it is only a marker: the argument must be a string literal.
    """
    return text


def _masked(value: object) -> object:
    """A value as a message may show it: text (an error's too) without secrets or credentials."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, BaseException):
        text = str(value)
        return value if mask(text) == text else mask(text)
    return value


def _fill(template: str, params: Mapping[str, object]) -> str:
    return template.format_map(params) if params and template else template


@dataclass(frozen=True, init=False)
class Problem:
    """A known problem as data: the English templates and their values.

    What crosses threads and layers to be shown later (a failed turn, the consolidation status):
    the UI translates it at display time, logs and the terminal use :attr:`message`.
    """

    template: str
    hint_template: str = ""
    params: Mapping[str, object] = field(default_factory=dict)

    def __init__(self, template: str, hint: str = "", **params: object) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "hint_template", hint)
        object.__setattr__(self, "params", {name: _masked(v) for name, v in params.items()})

    @property
    def message(self) -> str:
        """The English message, filled in."""
        return _fill(self.template, self.params)

    @property
    def hint(self) -> str:
        """The English hint, filled in ('' when there is none)."""
        return _fill(self.hint_template, self.params)

    def __str__(self) -> str:
        return self.message


class EngramError(Exception):
    """A known problem the user can act on.

    ``message`` says what is wrong (naming the file or value), ``hint`` says what to do; both are
    :func:`tr`-marked templates filled with ``params`` (see the module docstring). ``problem``
    holds the templates and values, for showing the error elsewhere (in another language).
    """

    def __init__(self, message: str, hint: str = "", **params: object) -> None:
        self.problem = Problem(message, hint, **params)
        super().__init__(self.problem.message)

    @property
    def template(self) -> str:
        """The English message template, as marked with :func:`tr`."""
        return self.problem.template

    @property
    def hint_template(self) -> str:
        """The English hint template ('' when there is none)."""
        return self.problem.hint_template

    @property
    def params(self) -> Mapping[str, object]:
        """The values that fill both templates."""
        return self.problem.params

    @property
    def message(self) -> str:
        """The English message, filled in (for the terminal and the logs)."""
        return self.problem.message

    @property
    def hint(self) -> str:
        """The English hint, filled in."""
        return self.problem.hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class ModelFileError(EngramError):
    """A model file is missing, truncated, corrupt or unsupported."""


class ModelLoadError(EngramError):
    """A model file exists but cannot be loaded (memory, architecture, template)."""


class StoreError(EngramError):
    """The database cannot be opened, read or written (``memory.faults`` says which kind)."""


class StoreBusyError(StoreError):
    """Another Engram (or another program) holds the database's write lock and kept it."""


class StoreFullError(StoreError):
    """The disk (or the user's quota) is full; the write was rolled back."""


class StoreReadOnlyError(StoreError):
    """The database file or its folder cannot be written (permissions, a read-only disk)."""


class StoreCorruptError(StoreError):
    """The file is damaged or is not an Engram database; it can be moved aside and replaced."""


class SettingsError(EngramError):
    """The settings file cannot be written."""


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
