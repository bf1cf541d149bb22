"""The calculator tool: exact decimal arithmetic, percentages and durations, by a small parser.

Numbers are exact fractions while computing (``1 / 3 * 3`` is 1, ``0.1 + 0.2`` is 0.3); a result
whose decimals never end is shown rounded to 20 significant digits, marked with ``≈``; so is one
longer than 60 digits, in scientific notation (``0.5^1000`` is ``≈9.33…E-302``). Numbers may be
written that way too (``1e3``, ``2.5E-3``); a result beyond 10,000 digits is refused.

Grammar (no ``eval``)::

    expr   := term (("+" | "-") term)*
    term   := factor (("*" | "/" | "of") factor)*
    factor := ("-" | "+") factor | power
    power  := atom ("^" factor)?
    atom   := NUMBER [UNIT] ["%"] | "(" expr ")" ["%"] | ("sqrt" | "√") atom

``a + 10%`` adds ten percent of ``a``; ``15% of 80`` is 12. A number followed by a unit of time
(``s``, ``min``, ``h``, ``d``, ``week``) is a duration; ``… in hours`` converts the result.
``sqrt(x)`` (or ``√x``) is exact for a perfect square (``sqrt(7569)`` is 87), else computed to
20 significant digits and, like everything computed from it, marked ``≈``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any

from engram.assistant.tools.base import Tool, ToolContext, ToolError, one_text
from engram.core.errors import tr
from engram.memory.when import ISO_DAY

HINT = tr("Use numbers, + - * / ^ %, sqrt(), parentheses and units of time.")
SHOWN_DIGITS = 20
MAX_EXPONENT = 1000
MAX_DIGITS = 10_000  # a result (or a number in it) with more digits is refused
LONG_DIGITS = 60  # a longer exact result is shown in scientific notation (≈1.23E+45)
MAX_CHARS = 500
SECONDS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "秒": 1,
    "min": 60, "mins": 60, "minute": 60, "minutes": 60, "分钟": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "小时": 3600,
    "d": 86400, "day": 86400, "days": 86400, "天": 86400,
    "week": 604800, "weeks": 604800, "wk": 604800, "周": 604800,
}  # fmt: skip
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+(?:[.,]\d+)*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+(?![A-Za-z]))?)"
    r"|(?P<word>[A-Za-z]+|秒|分钟|小时|天|周)|(?P<op>\*\*|[-+*/×÷^%()√]))"
)


@dataclass(frozen=True)
class Quantity:
    """A number, possibly a duration (in seconds) or a percentage."""

    value: Fraction
    duration: bool = False
    percent: bool = False
    approximate: bool = False  # computed from a rounded square root


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ToolError(
                tr("The calculator cannot read {text!r}."), HINT, text=text[pos : pos + 20]
            )
        pos = match.end()
        num, word, op = match.group("num"), match.group("word"), match.group("op")
        if num is not None:
            out.append(num.replace(",", ""))
        elif word is not None:
            out.append(word.lower())
        elif op:
            out.append({"**": "^", "×": "*", "÷": "/"}.get(op, op))
    return out


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ToolError(tr("The expression ends too early."), HINT)
        self.pos += 1
        return token

    def expr(self) -> Quantity:
        left = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            left = _add(left, self.term(), op == "-")
        return left

    def term(self) -> Quantity:
        left = self.factor()
        while self.peek() in ("*", "/", "of"):
            op = self.take()
            right = self.factor()
            left = _divide(left, right) if op == "/" else _multiply(left, right)
        return left

    def factor(self) -> Quantity:
        if self.peek() in ("-", "+"):
            sign = self.take()
            inner = self.factor()
            return dataclasses.replace(inner, value=-inner.value) if sign == "-" else inner
        return self.power()

    def power(self) -> Quantity:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        exponent = self.factor()
        if base.duration or exponent.duration or exponent.value.denominator != 1:
            raise ToolError(tr("Powers need a plain number and a whole exponent."), HINT)
        if abs(exponent.value) > MAX_EXPONENT:
            raise ToolError(tr("The exponent is beyond ±{limit}."), HINT, limit=MAX_EXPONENT)
        _check_size(base.value, abs(int(exponent.value)))
        return Quantity(base.value ** int(exponent.value), approximate=base.approximate)

    def atom(self) -> Quantity:
        token = self.take()
        if token == "(":
            value = self.expr()
            if self.take() != ")":
                raise ToolError(tr("A parenthesis is not closed."), HINT)
        elif token in ("sqrt", "√"):
            value = _square_root(self.atom())
        elif token[0].isdigit() or token[0] == ".":
            number = Decimal(token)
            if abs(number.as_tuple().exponent) > MAX_DIGITS:  # type: ignore[arg-type]
                raise ToolError(tr("The number {token} is too large."), HINT, token=token)
            value = Quantity(Fraction(number))
            if self.peek() in SECONDS:
                value = Quantity(value.value * SECONDS[self.take()], duration=True)
        else:
            raise ToolError(tr("The calculator does not know {word!r}."), HINT, word=token)
        if self.peek() == "%":
            self.take()
            value = dataclasses.replace(value, value=value.value / 100, percent=True)
        return value


def _add(left: Quantity, right: Quantity, subtract: bool) -> Quantity:
    if right.percent and not left.percent:  # a + 10% adds ten percent of a
        change = left.value * right.value
        changed = left.value - change if subtract else left.value + change
        return Quantity(changed, left.duration, approximate=_approximate(left, right))
    if left.duration != right.duration:
        raise ToolError(tr("A duration and a plain number cannot be added."), HINT)
    value = left.value - right.value if subtract else left.value + right.value
    return Quantity(value, left.duration, left.percent and right.percent, _approximate(left, right))


def _multiply(left: Quantity, right: Quantity) -> Quantity:
    if left.duration and right.duration:
        raise ToolError(tr("Two durations cannot be multiplied."), HINT)
    return Quantity(
        left.value * right.value,
        left.duration or right.duration,
        approximate=_approximate(left, right),
    )


def _divide(left: Quantity, right: Quantity) -> Quantity:
    if right.value == 0:
        raise ToolError(tr("Division by zero."), HINT)
    if right.duration and not left.duration:
        raise ToolError(tr("A plain number cannot be divided by a duration."), HINT)
    return Quantity(
        left.value / right.value,
        left.duration and not right.duration,
        approximate=_approximate(left, right),
    )


def _approximate(left: Quantity, right: Quantity) -> bool:
    return left.approximate or right.approximate


def _square_root(number: Quantity) -> Quantity:
    """Exact for a perfect square (of a fraction too), else to 20 digits more than shown."""
    if number.duration:
        raise ToolError(tr("A duration has no square root."), HINT)
    if number.value < 0:
        raise ToolError(tr("A negative number has no real square root."), HINT)
    top, bottom = number.value.numerator, number.value.denominator
    if math.isqrt(top) ** 2 == top and math.isqrt(bottom) ** 2 == bottom:
        return dataclasses.replace(number, value=Fraction(math.isqrt(top), math.isqrt(bottom)))
    with localcontext() as ctx:
        ctx.prec = 2 * SHOWN_DIGITS
        root = (Decimal(top) / Decimal(bottom)).sqrt()
    return dataclasses.replace(number, value=Fraction(root), approximate=True)


def _check_size(value: Fraction, times: int = 1) -> None:
    """Refuse a value (raised to ``times``) with more than :data:`MAX_DIGITS` digits."""
    digits = max(value.numerator.bit_length(), value.denominator.bit_length()) * 0.30103
    if digits * times > MAX_DIGITS:
        raise ToolError(
            tr("The result would have more than {limit} digits."), HINT, limit=f"{MAX_DIGITS:,}"
        )


def _plain(value: Fraction, approximate: bool = False) -> str:
    """A fraction as decimal digits: exact when they end (and it is not ``approximate``), else
    rounded and marked ``≈``."""
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    ends = rest == 1 and not approximate
    # A denominator 2^a 5^b ends after max(a, b) <= 4 x its digit count decimals.
    exact = len(str(abs(value.numerator))) + 4 * len(str(value.denominator)) + 2
    with localcontext() as ctx:
        ctx.prec = max(SHOWN_DIGITS, exact) if ends else SHOWN_DIGITS
        number = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
    text = format(number, "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    if len(text.lstrip("-").replace(".", "")) > LONG_DIGITS:
        with localcontext() as ctx:
            ctx.prec = SHOWN_DIGITS
            short = format(+number, "E")
        return ("" if short == format(number, "E") else "≈") + short
    return text if ends else f"≈{text}"


def _duration(seconds: Fraction) -> str:
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        whole = int(rest // size)
        if whole:
            parts.append(f"{whole} {unit}")
            rest -= whole * size
    if rest or not parts:
        parts.append(f"{_plain(rest)} s")
    return sign + " ".join(parts)


def evaluate(expression: str) -> str:
    """The exact result of ``expression`` as text (a duration reads as ``2 h 30 min``)."""
    if len(expression) > MAX_CHARS:
        raise ToolError(
            tr("The expression is longer than {limit} characters."), HINT, limit=MAX_CHARS
        )
    if day := ISO_DAY.search(expression):  # "2026-01-01 - 2026-04-15" is no subtraction
        raise ToolError(
            tr("{date} is a date: the date tool counts the days between dates."),
            tr("Ask the date tool for 'days between 2026-01-01 and 2026-04-15'."),
            date=day.group(),
        )
    tokens = _tokens(expression)
    target = None
    if len(tokens) >= 2 and tokens[-2] in ("in", "to") and tokens[-1] in SECONDS:
        target = tokens[-1]
        tokens = tokens[:-2]
    try:
        parser = _Parser(tokens)
        result = parser.expr()
        if parser.peek() is not None:
            raise ToolError(
                tr("Unexpected {token!r} in the expression."), HINT, token=parser.peek()
            )
        if target is not None:
            if not result.duration:
                raise ToolError(
                    tr("Only a duration can be converted to {unit}."), HINT, unit=target
                )
            converted = _plain(result.value / SECONDS[target], result.approximate)
            return f"{converted} {target}"
    except (InvalidOperation, OverflowError) as exc:
        raise ToolError(
            tr("The calculator cannot compute this ({error})."), HINT, error=type(exc).__name__
        ) from exc
    _check_size(result.value)
    if result.duration:
        return f"{_duration(result.value)} ({_plain(result.value, result.approximate)} s)"
    if result.percent:
        return _plain(result.value * 100, result.approximate) + "%"
    return _plain(result.value, result.approximate)


# A stretch of a message written as the calculator reads it: numbers, operators, parentheses,
# "of", "sqrt" and units of time; a minus between digits only with spaces ("2026-03-14" is a date,
# "3-5" a range). It must start and end as an expression does.
_UNITS = "|".join(sorted(map(re.escape, SECONDS), key=len, reverse=True))
_WRITTEN = re.compile(
    rf"(?:\s*(?:\d[\d.,]*(?:\s*%)?|[+*/×÷^()√]|\s-\s|-(?=\s*[\d(])|\b(?:of|sqrt)\b"
    rf"|(?:\b(?:in|to)\s+)?(?<![A-Za-z'’])(?:{_UNITS})(?![A-Za-z])))+",
    re.IGNORECASE,
)
_OPERATION = re.compile(r"[+*/×÷^√-]|\b(?:of|sqrt|in|to)\b", re.IGNORECASE)
_WHOLE = re.compile(r"^[-(√\d]|^sqrt", re.IGNORECASE)


# Operations said in words, read as the calculator writes them.
_SAID = {
    "square root of": " sqrt ", "to the power of": "^", "multiplied by": "*", "divided by": "/",
    "per cent": "%", "percent": "%", "times": "*", "plus": "+", "minus": " - ",
    "乘以": "*", "除以": "/", "加上": "+", "减去": " - ",
}  # fmt: skip
_SAYING = re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w)
                              for w in _SAID), re.IGNORECASE)  # fmt: skip


# A number raised or lowered by a percentage, said in words ("My rent is 1,180 a month and goes
# up 4.5%", "账单是86.40元，加15%的服务费"): one number, one percentage and words of one direction.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.,])\d[\d,]*(?:\.\d+)?(?![\d.,]*\s*%)")
_PERCENT = re.compile(r"(?<![A-Za-z0-9_.,])(\d+(?:\.\d+)?)\s*%")
_UP = re.compile(
    r"(?i)\b(?:up|rises?|rose|increase[sd]?|raise[sd]?|grows?|grew|higher)\b|涨|增加|提高|上调|加"
)
_DOWN = re.compile(
    r"(?i)\b(?:down|falls?|fell|drops?|dropped|decrease[sd]?|discount(?:ed)?|off|lower|cheaper)\b"
    r"|降|减少|下调|便宜|减"
)


def _changed_by_percent(message: str) -> str | None:
    """ "1,180 + 4.5%" for a number said to go up by a percentage (the calculator adds that
    share of it), "… - …%" for one said to go down, or None. The 0.5B had written
    "1180 + 1.180 * 4.5" for the rent."""
    numbers, shares = _NUMBER.findall(message), _PERCENT.findall(message)
    up, down = bool(_UP.search(message)), bool(_DOWN.search(message))
    if len(numbers) != 1 or len(shares) != 1 or up == down:
        return None
    return f"{numbers[0]} {'+' if up else '-'} {shares[0]}%"


def expression_in(message: str) -> dict[str, Any] | None:
    """The arguments of a call for the one expression ``message`` writes out whole (operations
    said in words read as signs: "17.5 percent of 240", "12 乘以 7"; a number going up or down
    by a percentage), or None (no expression, or more than one: the model chooses)."""
    found = []
    written_out = _SAYING.sub(lambda m: _SAID[m.group().lower()], message)
    for match in _WRITTEN.finditer(written_out):
        written = " ".join(match.group().split()).rstrip(".,")
        if (
            not _WHOLE.match(written)
            or not _OPERATION.search(written)
            or re.search(r"\d-\d", written)
        ):
            continue
        try:
            evaluate(written)
        except ToolError:
            continue
        found.append(written)
    if not found and (changed := _changed_by_percent(message)):
        found.append(changed)
    return {"expression": found[0]} if len(found) == 1 else None


def _run(arguments: dict[str, Any], _ctx: ToolContext) -> str:
    expression = str(arguments["expression"])
    return f"{expression} = {evaluate(expression)}"


TOOL = Tool(
    name="calculator",
    description=(
        "Exact arithmetic with decimals: + - * / ^, sqrt(), parentheses, percentages "
        "('200 + 15%', '15% of 80') and durations ('2 h 30 min + 45 min', '3 days in hours')."
    ),
    description_zh=(
        "精确的十进制计算：+ - * / ^、sqrt()、括号、百分比（'200 + 15%'、'15% of 80'）和时长"
        "（'2 h 30 min + 45 min'、'3 days in hours'）。"
    ),
    schema=one_text("expression", MAX_CHARS),
    run=_run,
    reads_outside=False,
    arguments_in=expression_in,
    value=lambda result: result.rpartition(" = ")[2],
)
