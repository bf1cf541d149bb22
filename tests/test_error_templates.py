"""Every known error is written so that the UI can translate it (engram.core.errors, issue #7).

The sites are read from the source, not run: each construction of an EngramError subclass or of
a Problem passes its message and hint as ``tr("literal")`` (or a choice between such literals),
and the {names} in those literals are exactly the keyword values given at the call, so the
English text and every translation can always be filled in.
"""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engram.core.errors import CloudError, EngramError, InputError, Problem, tr

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "engram"
# Defines the mechanism: EngramError builds its Problem from its own arguments.
MECHANISM = PACKAGE / "core" / "errors.py"


@dataclass(frozen=True)
class Site:
    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path.relative_to(PACKAGE.parent)}:{self.line}"


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))]


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def error_classes(modules: list[tuple[Path, ast.Module]]) -> set[str]:
    """Names of EngramError and every class deriving from it anywhere in the package."""
    bases = {
        node.name: {_base_name(b) for b in node.bases}
        for _, module in modules
        for node in ast.walk(module)
        if isinstance(node, ast.ClassDef)
    }
    found = {"EngramError"}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _constants(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``NAME = <expr>`` assignments (a shared hint written once)."""
    return {
        target.id: node.value
        for node in module.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _literals(node: ast.expr, constants: dict[str, ast.expr]) -> list[str] | None:
    """The tr() literals an argument can be, or None when it is anything else."""
    if isinstance(node, ast.Name) and node.id in constants:
        return _literals(constants[node.id], constants)
    if isinstance(node, ast.IfExp):
        body, orelse = _literals(node.body, constants), _literals(node.orelse, constants)
        return None if body is None or orelse is None else body + orelse
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "tr"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return None


def _forwarded(node: ast.expr, attr: str) -> bool:
    """``<error or problem>.template`` / ``.hint_template``: an existing error's own text."""
    return isinstance(node, ast.Attribute) and node.attr == attr


def fields(template: str) -> set[str]:
    """The names a template needs: ``{path}``, ``{count:,}`` and ``{value!r}`` name one each."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None:
            names.add(name.split(".")[0].split("[")[0])
    return names


def problems_at(call: ast.Call, constants: dict[str, ast.expr]) -> Iterator[str]:
    """What is wrong with one construction of a known error (nothing when it is right)."""
    if len(call.args) not in (1, 2) or any(k.arg in ("message", "hint") for k in call.keywords):
        yield "pass the message (and the hint) positionally, as tr() templates"
        return
    message, hint = call.args[0], call.args[1] if len(call.args) == 2 else None
    spread = [k.value for k in call.keywords if k.arg is None]
    names = {k.arg for k in call.keywords if k.arg is not None}
    if _forwarded(message, "template"):
        if len(spread) != 1 or not _forwarded(spread[0], "params"):
            yield "a forwarded template needs its own values: **<error>.params"
        if hint is not None and not _forwarded(hint, "hint_template"):
            hint_texts = _literals(hint, constants)
            if hint_texts is None:
                yield "the hint is not a tr() literal nor the forwarded hint_template"
            elif any(fields(text) - names for text in hint_texts):
                yield "the new hint needs values the forwarded error does not name"
        return
    texts = _literals(message, constants)
    if texts is None:
        yield "the message is not a tr() literal (or a choice between tr() literals)"
        return
    if hint is not None:
        hint_texts = _literals(hint, constants)
        if hint_texts is None:
            yield "the hint is not a tr() literal (or a choice between tr() literals)"
            return
        texts += hint_texts
    if spread:
        yield "values are passed by name, not spread from a mapping"
    used: set[str] = set()
    for text in texts:
        try:
            needed = fields(text)
        except ValueError as exc:
            yield f"{text!r} is not a valid template ({exc})"
            continue
        used |= needed
        if not names and ("{" in text or "}" in text):
            yield f"{text!r} has braces but the call gives no values"
        elif needed - names:
            yield f"{text!r} needs {sorted(needed - names)}, not given at the call"
    if names - used:
        yield f"values {sorted(names - used)} appear in no template"


def constructions() -> Iterator[tuple[Site, ast.Call, dict[str, ast.expr]]]:
    modules = _sources()
    classes = error_classes(modules) | {"Problem"}
    for path, module in modules:
        if path == MECHANISM:
            continue
        constants = _constants(module)
        for node in ast.walk(module):
            if isinstance(node, ast.Call) and _base_name(node.func) in classes:
                yield Site(path, node.lineno), node, constants


def test_the_subclasses_are_found_across_the_package() -> None:
    classes = error_classes(_sources())
    assert {"InputError", "DownloadCancelledError", "StructuredOutputError"} <= classes
    assert "DistillerUnavailableError" in classes  # defined in engram.assistant, not in core
    assert "_TransientError" not in classes


@pytest.mark.slow
def test_every_known_error_is_built_from_translatable_templates() -> None:
    wrong = sorted(
        f"{site}: {problem}"
        for site, call, constants in constructions()
        for problem in problems_at(call, constants)
    )
    checked = sum(1 for _ in constructions())
    assert checked > 100
    assert not wrong, "\n".join(wrong)


def test_every_tr_call_has_a_single_literal_argument() -> None:
    """pyside6-lupdate collects only literal arguments; anything else would never be translated."""
    wrong = sorted(
        str(Site(path, node.lineno))
        for path, module in _sources()
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "tr"
        and _literals(node, {}) is None
    )
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("source", "fault"),
    [
        ('InputError(tr("Cannot read {path}."), path=p)', None),
        ('InputError(tr("Cannot read {path}."), tr("Retry."), path=p)', None),
        ('InputError(tr("A {x}.") if c else tr("B."), tr("Retry."), x=1)', None),
        ('KeyringUnavailableError(exc.template, tr("Tick it."), **exc.params)', None),
        ('InputError(f"Cannot read {path}.")', "not a tr() literal"),
        ('InputError(tr("Cannot read {path}."))', "has braces but the call gives no values"),
        ('InputError(tr("Cannot read {path}."), pth=p)', "needs ['path']"),
        ('InputError(tr("Cannot read it."), path=p)', "appear in no template"),
        ('InputError(tr("Cannot read it."), hint)', "the hint is not a tr() literal"),
        ('InputError(tr("Broken {path."), path=p)', "is not a valid template"),
        ("InputError(exc.template, exc.hint_template)", "**<error>.params"),
    ],
)
def test_the_checker_accepts_templates_and_names_what_is_wrong(
    source: str, fault: str | None
) -> None:
    call = ast.parse(source, mode="eval").body
    assert isinstance(call, ast.Call)
    found = list(problems_at(call, {}))
    if fault is None:
        assert found == []
    else:
        assert any(fault in problem for problem in found), found


def test_the_english_text_is_the_filled_template() -> None:
    nested = Problem(tr("role must be {roles}"), roles="system, user or assistant")
    error = InputError(
        tr("Line {number} is invalid: {problem}."),
        tr("Fix line {number}."),
        number=4,
        problem=nested,
    )
    assert error.message == "Line 4 is invalid: role must be system, user or assistant."
    assert error.hint == "Fix line 4."
    assert str(error) == f"{error.message}\n{error.hint}"
    assert (error.template, error.hint_template) == (
        "Line {number} is invalid: {problem}.",
        "Fix line {number}.",
    )
    assert error.params == {"number": 4, "problem": nested}
    assert error.problem.message == error.message
    braces = CloudError(tr("Expected {{...}} from {url}"), url="http://x")
    assert braces.message == "Expected {...} from http://x"
    plain = EngramError(tr("Literal {braces} without values stay as written."))
    assert plain.message == "Literal {braces} without values stay as written."
    assert isinstance(plain, Exception) and plain.hint == ""
