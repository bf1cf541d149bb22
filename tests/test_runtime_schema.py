"""The minimal JSON Schema validator and the grammar-friendly schema rewrite."""

from __future__ import annotations

from typing import Any

import pytest

from engram.models import schema_check

PERSON: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 10},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2},
        "note": {"type": ["string", "null"]},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


def test_valid_values_have_no_errors() -> None:
    assert (
        schema_check.errors({"name": "王芳", "age": 28, "tags": ["a"], "note": None}, PERSON) == []
    )
    assert (
        schema_check.errors({"name": "Li", "age": 3.0}, PERSON) == []
    )  # 3.0 is an integer in JSON


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"age": 1}, "missing 'name'"),
        ({"name": "x", "age": True}, "expected integer"),
        ({"name": "x", "age": 200}, "above maximum"),
        ({"name": "", "age": 1}, "below minLength"),
        ({"name": "x", "age": 1, "tags": ["a", "b", "a"]}, "above maxItems"),
        ({"name": "x", "age": 1, "tags": ["c"]}, "is not one of"),
        ({"name": "x", "age": 1, "extra": 1}, "unexpected 'extra'"),
        ({"name": "x", "age": 1, "note": 5}, "expected string or null"),
        ([], "expected object"),
    ],
)
def test_each_violation_is_reported(value: Any, expected: str) -> None:
    problems = schema_check.errors(value, PERSON)
    assert any(expected in p for p in problems), problems


def test_for_grammar_turns_small_integer_ranges_into_enums() -> None:
    small = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 5}}
    assert schema_check.for_grammar(small) == {"type": "array", "items": {"enum": [1, 2, 3, 4, 5]}}
    rewritten = schema_check.for_grammar(PERSON)
    assert rewritten == PERSON  # 0..150 is too wide for an enum; strings are untouched
