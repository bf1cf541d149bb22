"""Is a near-duplicate an update? Numbers, dates, names and negation decide, not similarity.

Embeddings put "I take 5 mg of warfarin daily" and "... 50 mg ..." at cosine 0.97, and
"my wife is allergic to peanuts" and "... is not allergic ..." at 0.98: a similarity threshold
alone would keep the old memory and drop the correction. :func:`update_between` says when two
close texts differ in what matters and what changed ("5 mg" → "50 mg"), so the new statement
supersedes the old one instead of collapsing into it.
"""

from __future__ import annotations

import difflib
import re

# Words, numbers (with decimal, time and date separators) and single CJK characters.
_CJK = r"[\u3400-\u9fff]"
_TOKEN = re.compile(rf"\d+(?:[.,:/-]\d+)*|{_CJK}|(?:(?!{_CJK})[^\W\d_])+(?:'[^\W\d_]+)?")
# Digits, and Chinese numerals: "三杯" after "两杯" is a changed number.
_NUMBER = re.compile(r"[\d〇零一二两三四五六七八九十百千万亿]")
_SAME_WORDS = 0.75  # share of words two statements of the same fact have in common
# Words that open a correction and say nothing themselves: "actually, I take 100 mg" states
# "I take 100 mg". Stripped before storing, so the change check compares the facts.
_DISCOURSE = re.compile(
    r"^\s*(?:(?:(?:actually|in fact|correction|to be clear|no|oh|well|sorry|不对)\s*[,，:：;；!！]"
    r"|(?:actually|in fact)\s+(?=[^\W\d_])|(?:其实|实际上|(?:更正|纠正)(?:一下)?)[,，:：]?)\s*)+",
    re.IGNORECASE,
)
_NEGATIONS = frozenset(
    {
        "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
        "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't",
        "won't", "wouldn't", "shouldn't", "haven't", "hasn't", "hadn't",
        "不", "没", "無", "无", "非", "别", "未",
    }
)  # fmt: skip
# Numbers in words ("two cats" → "three cats"); not "one", which is as often a pronoun.
_NUMBER_WORDS = frozenset(
    {
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "twice",
    }
)  # fmt: skip
_MONTHS_DAYS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    }
)  # fmt: skip


# Words that say something changed or was wrong ("I moved", "I got her name wrong", "我换工作了").
_CHANGED = re.compile(
    r"\b(?:now|any ?more|no longer|switched|changed|moved|instead|mistyped|typo|wrong|mistake"
    r"|meant)\b|现在|已经|不再|换|搬|改|错",
    re.IGNORECASE,
)


def says_a_change(text: str) -> bool:
    """Does ``text`` say that something is different from before: a negation, a number, or a
    word of change or error? "Actually my office is in Mitte" only adds to "I live in Berlin,
    close to my office"; "I no longer drink coffee" and "我女儿今年六岁" set something right."""
    words = [t.lower() for t in _tokens(text)]
    return bool(
        _CHANGED.search(text)
        or any(_NUMBER.search(w) or w in _NEGATIONS or w in _NUMBER_WORDS for w in words)
    )


def without_discourse(text: str) -> str:
    """``text`` without the correction markers it opens with ("actually, …", "其实…")."""
    stripped = _DISCOURSE.sub("", text, count=1)
    return stripped[:1].upper() + stripped[1:] if stripped != text and stripped else text


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _key(token: str) -> str:
    return token.lower()


def _material(token: str, first: bool) -> bool:
    """A token whose change makes a different statement: a number, a negation, a name, a date."""
    word = token.lower()
    if _NUMBER.search(token) or word in _NEGATIONS or word in _MONTHS_DAYS | _NUMBER_WORDS:
        return True
    # A capitalised word inside a sentence is a name (the pronoun "I" is not).
    return token[:1].isupper() and not first and token != "I"


def update_between(old: str, new: str) -> tuple[str, str] | None:
    """``(was, now)`` when ``new`` changes a number, date, name or negation of ``old``.

    None when the texts say the same thing in other words. ``was``/``now`` are the changed
    words with a unit or neighbour for context, e.g. ``("5 mg", "50 mg")`` or
    ``("is allergic", "is not allergic")``.
    """
    found = _change(old, new)
    if found is None:
        return None
    a, b, (i1, i2, j1, j2) = found
    grow = int(i1 == i2 or j1 == j2)  # an inserted "not": "is allergic" → "is not allergic"
    return (
        _context(a, max(0, i1 - grow), min(len(a), i2 + grow)),
        _context(b, max(0, j1 - grow), min(len(b), j2 + grow)),
    )


def drops_value(old: str, new: str) -> bool:
    """Does ``new`` leave out the number, date or name that ``old`` changes in, with nothing in
    its place ("I have two cats at home" → "The user adopted another cat")? Then it is no
    correction of ``old``: it lost what ``old`` says. A dropped negation is a change ("is not
    allergic" → "is allergic")."""
    found = _change(old, new)
    if found is None:
        return False
    a, b, (i1, i2, j1, j2) = found
    if any(_material(b[j], j == 0) for j in range(j1, j2)):
        return False
    return any(_material(a[i], i == 0) and a[i].lower() not in _NEGATIONS for i in range(i1, i2))


def _change(old: str, new: str) -> tuple[list[str], list[str], tuple[int, int, int, int]] | None:
    """Both texts' tokens and the first span that differs in a number, date, name or negation
    (``old[i1:i2]`` became ``new[j1:j2]``), or None."""
    a, b = _tokens(old), _tokens(new)
    matcher = difflib.SequenceMatcher(a=[_key(t) for t in a], b=[_key(t) for t in b])
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        changed = [(t, i == 0) for i, t in enumerate(a) if i1 <= i < i2]
        changed += [(t, j == 0) for j, t in enumerate(b) if j1 <= j < j2]
        if any(_material(token, first) for token, first in changed):
            return a, b, (i1, i2, j1, j2)
    return None


def corrects(old: str, new: str) -> bool:
    """``new`` says ``old`` again in mostly the same words, with a number, date, name or
    negation changed (whatever an embedder thinks of their similarity)."""
    a, b = [_key(t) for t in _tokens(old)], [_key(t) for t in _tokens(new)]
    same = difflib.SequenceMatcher(a=a, b=b).ratio() >= _SAME_WORDS
    return same and update_between(old, new) is not None


def _context(tokens: list[str], start: int, end: int) -> str:
    """The changed words, with the unit after a changed number ("5" → "5 mg", "5毫克")."""
    if end < len(tokens) and end > start and _NUMBER.search(tokens[end - 1]):
        # "5毫克", "5 mg"; a Chinese numeral takes one measure word ("三杯").
        cjk_unit = re.fullmatch(_CJK, tokens[end]) and not re.fullmatch(_CJK, tokens[end - 1])
        end += 2 if cjk_unit else 1
    piece = tokens[start:end]
    joiner = "" if any(re.fullmatch(_CJK, t) for t in piece) else " "
    return joiner.join(piece)


# -- what a statement pins down, for telling whether an answer agrees with it -------------------

# Chinese numerals and their values; "两" is two. "十", "百", "千" multiply what comes before.
_CJK_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
_CJK_UNITS = {"十": 10, "百": 100, "千": 1000}
_WORD_VALUES = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "twice": 2,
}  # fmt: skip


def spans(text: str) -> list[re.Match[str]]:
    """The tokens of ``text`` as the change check reads them (words, numbers, single CJK
    characters), each with where it is."""
    return list(_TOKEN.finditer(text))


def negates(token: str) -> bool:
    """Is the token a negation ("not", "don't", "不", "没")?"""
    return token.lower() in _NEGATIONS


def is_name(token: str, first: bool) -> bool:
    """A name or a day: a capitalised word inside a sentence (not "I"), as the change check
    reads one."""
    return token[:1].isupper() and not first and token != "I"


def numbers(found: list[re.Match[str]]) -> set[str]:
    """The numbers the tokens (:func:`spans`) state, each as one value: digits without a
    trailing zero part ("9:00" is "9"), a number word ("seven" is "7"), a run of Chinese
    numerals ("九" is "9", "十二" is "12"). A lone "一" is left out: as often "a" as one
    ("一起", "一下")."""
    values: set[str] = set()
    run: list[str] = []
    end = -1
    for match in [*found, None]:
        token = match.group(0) if match is not None else ""
        if match is not None and (token in _CJK_DIGITS or token in _CJK_UNITS):
            if run and match.start() != end:
                values |= _run_value(run)
                run = []
            run.append(token)
            end = match.end()
            continue
        values |= _run_value(run)
        run = []
        word = token.lower()
        if word in _WORD_VALUES:
            values.add(str(_WORD_VALUES[word]))
        elif token[:1].isdigit():
            values.add(re.sub(r"(?:[:.]0+)+$", "", token.replace(",", "")))
    return values


def _run_value(run: list[str]) -> set[str]:
    return {str(_cjk_value(run))} if run and run != ["一"] else set()


def _cjk_value(run: list[str]) -> int:
    total, digit = 0, None
    for char in run:
        if char in _CJK_UNITS:
            total += (1 if digit is None else digit) * _CJK_UNITS[char]
            digit = None
        else:
            digit = _CJK_DIGITS[char] if digit is None else digit * 10 + _CJK_DIGITS[char]
    return total + (digit or 0)
