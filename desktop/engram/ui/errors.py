"""Known errors in the user's language: the one place that translates an EngramError for display.

The core writes each message as an English template marked with ``tr()`` plus its values
(:mod:`engram.core.errors`); ``pyside6-lupdate`` collects those templates into the translation
files under context ``""``. Here the template is translated and then filled. A broken
translation (a translator's typo in a placeholder) never hides the error: the English text is
shown instead, and the broken entry is logged.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engram.core import log
from engram.core.errors import EngramError, Problem

_log = log.get("ui.errors")


def translate(error: EngramError | Problem) -> tuple[str, str]:
    """The message and the hint ('' when there is none) in the current UI language."""
    problem = error.problem if isinstance(error, EngramError) else error
    return _fill(problem.template, problem), _fill(problem.hint_template, problem)


def text(error: EngramError | Problem) -> str:
    """Message and hint on two lines, for a notice or a dialog."""
    message, hint = translate(error)
    return f"{message}\n{hint}" if hint else message


def _fill(template: str, problem: Problem) -> str:
    if not template:
        return ""
    translated = QCoreApplication.translate("", template)
    if not problem.params:
        return translated
    values = {
        name: _fill(value.template, value) if isinstance(value, Problem) else value
        for name, value in problem.params.items()
    }
    try:
        return translated.format_map(values)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError) as exc:
        _log.error("broken translation of %r (%r): %s", template, translated, exc)
        return template.format_map(values)
