"""No evaluation sentence in the package: a rule, prompt or comment written from a sentence of a
set Engram is measured on would make the measurement say nothing about other wording. Every
string of the shipped task and phrasing sets and of the bench's sets (the blind twins too) is
looked for in every source file of the package."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETS = [
    *sorted((ROOT / "resources/eval").glob("*.json")),
    *sorted(ROOT.glob("bench/data/**/*.json")),
]
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{6,}")
_PATTERN = re.compile(r"[\\|\[\]()]")  # a check's regular expression, not a sentence


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value.strip()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def sentences() -> set[str]:
    """The sentences of every evaluation set: strings of 16 characters or more with a space, or
    with six Chinese characters in a row."""
    found = set()
    for path in SETS:
        for text in _strings(json.loads(path.read_text("utf-8"))):
            long_enough = (len(text) >= 16 and " " in text) or _CJK_RUN.search(text)
            if long_enough and not _PATTERN.search(text):
                found.add(text)
    return found


def test_the_sets_are_read() -> None:
    assert len(SETS) >= 8 and len(sentences()) > 1000


def test_no_package_source_quotes_an_evaluation_sentence() -> None:
    quoted = sentences()
    found = []
    for path in sorted((ROOT / "desktop/engram").rglob("*.py")):
        source = path.read_text("utf-8")
        found += [(str(path.relative_to(ROOT)), text) for text in quoted if text in source]
    assert found == []
