"""Text from the store or a model, made safe to print: control characters shown, never obeyed.

A memory, a message or an answer may hold terminal escapes (ANSI colours, OSC 52 that writes the
clipboard, a title change); printed raw, the terminal would act on them. Every C0/C1 control
character except newline and tab is printed as its escape (``\\x1b``) instead.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def safe(text: str) -> str:
    """``text`` with every control character but newline and tab written out as an escape."""
    return _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


def argument(text: str) -> str:
    """A command-line argument as text: bytes that were not UTF-8 become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
