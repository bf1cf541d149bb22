"""The one way to read bundled resources (prompts, icons, styles, translations)."""

from __future__ import annotations

import functools
from importlib import resources
from importlib.abc import Traversable


def path(*parts: str) -> Traversable:
    """A bundled resource, e.g. ``path("prompts", "system_en.txt")``."""
    node: Traversable = resources.files("engram.resources")
    for part in parts:
        node = node / part
    return node


@functools.cache  # bundled files do not change while Engram runs; prompts read them every turn
def read_text(*parts: str) -> str:
    """The UTF-8 text of a bundled resource."""
    return path(*parts).read_text(encoding="utf-8")
