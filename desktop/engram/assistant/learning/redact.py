"""Privacy for the cloud distiller: personal data becomes placeholders before text leaves.

Emails, phone numbers (Chinese mobiles too), Chinese ID numbers, card numbers (Luhn-checked), IP
addresses, URLs with credentials, keys and passwords, simple street addresses and names (the user's
own names, and names after "my name is" / "我叫") are replaced by placeholders like ``[EMAIL_1]``.
The same value always gets the same placeholder, and :meth:`Redactor.restore` puts the originals
back into what the cloud answers, locally.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from engram.assistant.learning.distill import StructuredModel
from engram.core.messages import Message

_OCTET = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_KEY_WORDS = r"(?:password|passwd|pwd|passcode|api[_ -]?key|token|secret|密码|口令|密钥)"
# Order matters: the most specific patterns run first so their text is gone for the others.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@[^\s,;]+", re.IGNORECASE)),
    (
        "SECRET",
        re.compile(_KEY_WORDS + r"\s*(?:is\s+|是|为|[:：=])\s*([^\s，。,;；]+)", re.IGNORECASE),
    ),
    (
        "KEY",
        re.compile(
            r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{16,}|\bAKIA[0-9A-Z]{16}\b"
            r"|\bxox[abprs]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]{10,}"
        ),
    ),
    ("EMAIL", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    (
        "ID",
        re.compile(r"(?<![\dA-Za-z])[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])\d{5}[\dXx](?!\d)"),
    ),
    ("CARD", re.compile(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)")),
    ("PHONE", re.compile(r"(?<!\d)(?:\+?86[- ]?)?1[3-9]\d(?:[- ]?\d{4}){2}(?!\d)")),
    ("IP", re.compile(r"(?<![\d.])(?:" + _OCTET + r"\.){3}" + _OCTET + r"(?![\d.])")),
    ("IP", re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])")),
    (
        "PHONE",
        re.compile(
            r"(?<![\w+])\+\d{1,3}[ .-]?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}(?!\w)"
            r"|(?<![\w(])\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\w)|(?<!\d)0\d{2,3}-\d{7,8}(?!\d)"
        ),
    ),
    (
        "ADDRESS",
        re.compile(
            r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}"
            r"(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Court|Ct)\b\.?"
            r"|[\u4e00-\u9fff]{2,12}(?:路|街|道|巷|弄)\d+号(?:\d+(?:室|楼|栋|单元))*"
        ),
    ),
    (
        "NAME",
        re.compile(
            r"(?<=\b[Mm]y name is )[A-Z][a-z]+(?: [A-Z][a-z]+)*|(?<=\bI am called )[A-Z][a-z]+"
            r"|(?<=我叫)[\u4e00-\u9fff]{2,3}|(?<=我的名字是)[\u4e00-\u9fff]{2,3}"
        ),
    ),
]
_PLACEHOLDER = re.compile(r"\[(?:URL|SECRET|KEY|EMAIL|ID|CARD|PHONE|IP|ADDRESS|NAME)_\d+\]")


def luhn_ok(number: str) -> bool:
    """True when the digits pass the Luhn checksum of payment cards."""
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if i % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return len(digits) >= 13 and total % 10 == 0


class Redactor:
    """Replaces personal data with stable placeholders and restores them afterwards."""

    def __init__(self, names: Sequence[str] = ()) -> None:
        self._by_value: dict[str, str] = {}
        self._by_placeholder: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        names = sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True)
        self._names = (
            re.compile("|".join(_name_pattern(n) for n in names), re.IGNORECASE) if names else None
        )

    def _placeholder(self, kind: str, value: str) -> str:
        found = self._by_value.get(value)
        if found is None:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            found = f"[{kind}_{self._counts[kind]}]"
            self._by_value[value] = found
            self._by_placeholder[found] = value
        return found

    def redact(self, text: str) -> str:
        """The text with every detectable piece of personal data replaced."""
        for kind, pattern in _PATTERNS:
            text = pattern.sub(functools.partial(self._replace, kind), text)
        if self._names is not None:
            text = self._names.sub(lambda m: self._placeholder("NAME", m.group(0)), text)
        return text

    def _replace(self, kind: str, match: re.Match[str]) -> str:
        whole = match.group(0)
        if _PLACEHOLDER.fullmatch(whole):
            return whole
        if kind == "CARD" and not luhn_ok(whole):
            return whole
        if kind == "PHONE" and sum(c.isdigit() for c in whole) < 8:
            return whole
        if kind == "SECRET":  # keep the keyword, hide only the value
            start = match.start(1) - match.start(0)
            value = match.group(1)
            if _PLACEHOLDER.fullmatch(value):
                return whole
            return whole[:start] + self._placeholder("SECRET", value)
        return self._placeholder(kind, whole)

    def restore(self, text: str) -> str:
        """Put the originals back in place of the placeholders."""
        return _PLACEHOLDER.sub(lambda m: self._by_placeholder.get(m.group(0), m.group(0)), text)

    def restore_value(self, value: Any) -> Any:
        """:meth:`restore` through every string of a JSON-like value."""
        if isinstance(value, str):
            return self.restore(value)
        if isinstance(value, list):
            return [self.restore_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.restore_value(v) for k, v in value.items()}
        return value


def _name_pattern(name: str) -> str:
    escaped = re.escape(name)
    return rf"\b{escaped}\b" if name.isascii() else escaped


class RedactingModel:
    """Wraps a cloud model: messages are redacted on the way out, answers restored on the way in."""

    def __init__(self, model: StructuredModel, redactor: Redactor) -> None:
        self.model = model
        self.redactor = redactor

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]:
        safe: list[Message] = [
            {**m, "content": self.redactor.redact(m["content"])} for m in messages
        ]
        answer = self.model.structured(safe, json_schema, max_tokens)
        restored: dict[str, Any] = self.redactor.restore_value(answer)
        return restored
