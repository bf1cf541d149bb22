"""A minimal JSON Schema validator for the subset Engram's structured outputs use.

Supported: ``type`` (one or a list), ``properties``, ``required``, ``additionalProperties: false``,
``items``, ``enum``, ``const``, ``minItems``/``maxItems``, ``minLength``/``maxLength``,
``minimum``/``maximum``. Anything else in a schema is ignored.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def _type_ok(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(name, (object,)))


def errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema`` (empty when it validates), as readable lines."""
    found: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_type_ok(value, n) for n in names):
            return [f"{where}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        found.append(f"{where}: must be {schema['const']!r}")
    if isinstance(value, dict):
        found += _object_errors(value, schema, where)
    elif isinstance(value, list):
        found += _bounds(len(value), schema, "minItems", "maxItems", where, "items")
        for i, item in enumerate(value):
            found += errors(item, schema.get("items", {}), f"{where}[{i}]")
    elif isinstance(value, str):
        found += _bounds(len(value), schema, "minLength", "maxLength", where, "characters")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        found += _bounds(value, schema, "minimum", "maximum", where, "")
    return found


def _object_errors(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    found = [f"{where}: missing {key!r}" for key in schema.get("required", ()) if key not in value]
    props: dict[str, Any] = schema.get("properties", {})
    for key, item in value.items():
        if key in props:
            found += errors(item, props[key], f"{where}.{key}")
        elif schema.get("additionalProperties") is False:
            found.append(f"{where}: unexpected {key!r}")
    return found


def _bounds(
    size: float, schema: dict[str, Any], low: str, high: str, where: str, unit: str
) -> list[str]:
    found = []
    if low in schema and size < schema[low]:
        found.append(f"{where}: {size} {unit} is below {low} {schema[low]}".replace("  ", " "))
    if high in schema and size > schema[high]:
        found.append(f"{where}: {size} {unit} is above {high} {schema[high]}".replace("  ", " "))
    return found


def for_grammar(schema: dict[str, Any], max_enum: int = 64) -> dict[str, Any]:
    """A copy of ``schema`` that llama.cpp's grammar converter can enforce fully.

    The converter ignores ``minimum``/``maximum``; a small integer range becomes an ``enum``.
    """
    out = {key: _walk(value, max_enum) for key, value in schema.items()}
    low, high = out.get("minimum"), out.get("maximum")
    integer = out.get("type") == "integer"
    if integer and isinstance(low, int) and isinstance(high, int) and 0 <= high - low < max_enum:
        out = {k: v for k, v in out.items() if k not in ("type", "minimum", "maximum")}
        out["enum"] = list(range(low, high + 1))
    return out


def _walk(value: Any, max_enum: int) -> Any:
    if isinstance(value, dict):
        return for_grammar(value, max_enum)
    if isinstance(value, list):
        return [_walk(v, max_enum) for v in value]
    return value
