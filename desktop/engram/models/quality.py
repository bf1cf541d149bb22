"""How well, and how fast, each installed answering model does Engram's job on this machine.

The bundled quality check (``resources/quality/check.json``) is a few short chats in English and
Simplified Chinese, of four kinds: following a preference the user stated earlier in the chat,
following a format instruction, using a fact kept as a memory, and calling a tool. Each item is
scored here by rules on the answer's text and the tools it called (structure, numbers, words in
either language; never another model's opinion), so a score means the same on every machine.
The application runs the chats through the real turn (``assistant.quality_check``); this module
scores them, keeps each model's result per machine state (the model file, the CPU, the check
itself) in ``<data>/quality.json``, and chooses the answering model: the best scorer that
decodes at :data:`ANSWER_TOKENS_PER_S` here.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from engram.core import log, paths, resources
from engram.core.atomic import atomic_write
from engram.models import files
from engram.models.catalogue import Catalogue, ModelEntry

_log = log.get("models.quality")
FILE = "quality.json"
# Answers faster than people read (the same line the recommended pairs are held to).
ANSWER_TOKENS_PER_S = 8.0
KINDS = ("preference", "format", "memory", "tool")

EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ZH_DAYS = ("一", "二", "三", "四", "五", "六", "日")
_BULLET = re.compile(r"^\s*(?:[-*•·●▪◦]|\+)\s+\S", re.MULTILINE)
_NUMBERED = re.compile(
    r"^\s*(?:\d+\s*[.)、．]|[一二三四五六七八九十]+\s*[、.．])\s*\S", re.MULTILINE
)
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_EN_WORD = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Item:
    """One chat of the check: what is said before (in the chat, or kept as memories), the
    question, and the rules its answer must all meet."""

    id: str
    lang: str
    kind: str
    ask: str
    expect: dict[str, Any]
    said_before: tuple[str, ...] = ()
    memories: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """What a model did with an item: its answer's text and the tools it called."""

    text: str
    tools: tuple[str, ...] = ()


def check_text() -> str:
    return resources.read_text("quality", "check.json")


def items() -> list[Item]:
    """The bundled check's items, in order."""
    data = json.loads(check_text())
    return [
        Item(
            id=raw["id"],
            lang=raw["lang"],
            kind=raw["kind"],
            ask=raw["ask"],
            expect=dict(raw["expect"]),
            said_before=tuple(raw.get("said_before", ())),
            memories=tuple(raw.get("memories", ())),
        )
        for raw in data["items"]
    ]


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _has(text: str, word: str) -> bool:
    """``word`` in ``text``: at the start of a word for Latin letters (so "mile" is not in
    "smile"), anywhere for Chinese."""
    word = _normal(word)
    if word[:1].isascii() and word[:1].isalnum():
        return re.search(r"(?<![a-z0-9])" + re.escape(word), text) is not None
    return word in text


def numbers(text: str) -> list[float]:
    """The numbers written in ``text`` (full-width digits and thousands separators read)."""
    return [float(n.replace(",", "")) for n in _NUMBER.findall(unicodedata.normalize("NFKC", text))]


def words(text: str) -> int:
    """Words in an English text."""
    return len(_EN_WORD.findall(text))


def characters(text: str) -> int:
    """Length of a Chinese text as people count it: each Chinese character, each Latin word or
    number once, punctuation not at all."""
    return len(_CJK.findall(text)) + len(_EN_WORD.findall(text))


def weekday_names(day: date) -> tuple[str, ...]:
    """The ways to write ``day``'s weekday in English and Chinese."""
    zh = ZH_DAYS[day.weekday()]
    names = [EN_DAYS[day.weekday()], f"星期{zh}", f"周{zh}", f"礼拜{zh}"]
    if zh == "日":
        names += ["星期天", "礼拜天"]
    return tuple(names)


def score(item: Item, answer: Answer, today: date | None = None) -> str:
    """Why ``answer`` fails ``item`` ("" when it passes): the first rule it breaks.

    Rules: ``any`` (one of these words), ``none`` (none of them), ``numbers`` (one of these
    numbers is written), ``bullets`` (exactly so many bulleted lines), ``numbered`` (at most so
    many numbered lines), ``max_words``/``min_words`` (English words), ``max_chars``/
    ``min_chars`` (Chinese length), ``tool`` (this tool was called), ``weekday`` (the weekday so
    many days after ``today`` is named).
    """
    text = _normal(answer.text)
    rules = item.expect
    if not text.strip():
        return "no answer"
    if "tool" in rules and rules["tool"] not in answer.tools:
        return f"did not call {rules['tool']}"
    if "any" in rules and not any(_has(text, w) for w in rules["any"]):
        return "missing: " + " / ".join(rules["any"])
    for word in rules.get("none", ()):
        if _has(text, word):
            return f"says {word!r}"
    if "numbers" in rules:
        wanted = [float(n) for n in rules["numbers"]]
        if not any(abs(got - n) <= 1e-6 * max(1.0, n) for got in numbers(text) for n in wanted):
            return "wrong or missing number"
    if "bullets" in rules and len(_BULLET.findall(text)) != rules["bullets"]:
        return f"{len(_BULLET.findall(text))} bullets, not {rules['bullets']}"
    if "numbered" in rules and len(_NUMBERED.findall(text)) > rules["numbered"]:
        return "numbered lines"
    for rule, count in (("words", words(text)), ("chars", characters(text))):
        if f"max_{rule}" in rules and count > rules[f"max_{rule}"]:
            return f"{count} {rule}, over {rules[f'max_{rule}']}"
        if f"min_{rule}" in rules and count < rules[f"min_{rule}"]:
            return f"{count} {rule}, under {rules[f'min_{rule}']}"
    if "weekday" in rules:
        day = (today or date.today()) + timedelta(days=int(rules["weekday"]))
        if not any(_has(text, name) for name in weekday_names(day)):
            return f"not {EN_DAYS[day.weekday()]}"
    return ""


@dataclass(frozen=True)
class Result:
    """One model's run of the check on this machine: items passed of those run, its decode
    speed while answering them, the wall time, and why each failed item failed."""

    model_id: str
    passed: int
    total: int
    tokens_per_s: float
    seconds: float
    failed: dict[str, str] = field(default_factory=dict)  # item id -> the rule it broke
    state: str = ""  # the machine state it was measured in (see :func:`state_of`)
    tokens: int = 0  # tokens decoded (after each answer's first) to time the speed

    @classmethod
    def of(
        cls,
        model_id: str,
        verdicts: dict[str, str],
        tokens: int,
        decode_seconds: float,
        seconds: float,
    ) -> Result:
        """A result from each item's verdict (:func:`score`) and the tokens decoded in
        ``decode_seconds`` (after each answer's first token) over the whole run."""
        failed = {item: why for item, why in verdicts.items() if why}
        rate = tokens / decode_seconds if decode_seconds > 0 else 0.0
        passed = len(verdicts) - len(failed)
        return cls(model_id, passed, len(verdicts), rate, seconds, failed, tokens=tokens)

    @property
    def fast(self) -> bool:
        """Fast enough to answer with here."""
        return self.tokens_per_s >= ANSWER_TOKENS_PER_S

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def cpu() -> str:
    """This CPU, as the check's speeds depend on it: its model name, cores and architecture."""
    name = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            found = (ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name"))
            name = next(found, name)
    except OSError:
        pass
    return f"{name}|{os.cpu_count()}|{platform.machine()}"


def state_of(entry: ModelEntry) -> str:
    """The machine state a model's result holds for: its file (path, size, time), the CPU and
    the check's own text; any of them changing runs the check again."""
    model = entry.main_file()
    try:
        stat = model.stat()
        identity = f"{model}|{stat.st_size}|{stat.st_mtime_ns}"
    except OSError:
        identity = f"{model}|missing"
    text = f"{identity}\n{cpu()}\n{check_text()}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _kept() -> dict[str, Any]:
    """What ``quality.json`` holds ({} when it is missing or damaged: the check runs again)."""
    try:
        data = json.loads((paths.data_dir() / FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _update(**changes: Any) -> None:
    """Write ``changes`` over what ``quality.json`` holds (a read-only data folder: the check
    runs again next time)."""
    data = {**_kept(), **changes}
    try:
        with atomic_write(paths.data_dir() / FILE) as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1)
    except OSError as exc:
        _log.warning("could not keep the quality check's results (%s)", type(exc).__name__)


def _results() -> dict[str, Any]:
    results = _kept().get("results")
    return results if isinstance(results, dict) else {}


def cached(entries: list[ModelEntry]) -> dict[str, Result]:
    """The results kept for ``entries`` that still hold (same file, CPU and check)."""
    kept = _results()
    found: dict[str, Result] = {}
    for entry in entries:
        raw = kept.get(entry.id)
        if not isinstance(raw, dict):
            continue
        try:
            result = Result.from_json(raw)
        except TypeError:
            continue
        if result.state == state_of(entry):
            found[entry.id] = result
    return found


def keep(entry: ModelEntry, result: Result) -> Result:
    """Store ``entry``'s result for the current machine state; returns it as stored."""
    stored = replace(result, state=state_of(entry))
    _update(results={**_results(), entry.id: stored.to_json()})
    return stored


def applied(verdict_state: str) -> bool:
    """Whether the choice made for this set of results was already applied to the settings
    (once: a user who then chooses another model keeps it)."""
    return _kept().get("applied") == verdict_state


def mark_applied(verdict_state: str) -> None:
    _update(applied=verdict_state)


def choose(results: list[Result]) -> Result | None:
    """The model to answer with: the best scorer among those fast enough here (a tie goes to
    the faster); None when none is fast enough (the current choice stands)."""
    quick = [r for r in results if r.fast]
    if not quick:
        return None
    return max(quick, key=lambda r: (r.passed / max(r.total, 1), r.tokens_per_s))


@dataclass(frozen=True)
class Verdict:
    """The check's answer for this machine: the model it chooses and every result."""

    chosen: Result
    results: tuple[Result, ...]

    @property
    def others(self) -> tuple[Result, ...]:
        return tuple(r for r in self.results if r.model_id != self.chosen.model_id)

    @property
    def state(self) -> str:
        """One key for this set of results (the settings are changed once per key)."""
        return "+".join(sorted(f"{r.model_id}:{r.state}" for r in self.results))

    def reason(self, names: dict[str, str], language: str = "en") -> str:
        """Why it answers with the chosen model, in ``language`` ("en" or "zh_CN")."""
        c = self.chosen
        zh = language == "zh_CN"
        if zh:
            said = f"用 {names.get(c.model_id, c.model_id)} 回答：质量检查 {c.passed}/{c.total}"
            said += f"，每秒 {c.tokens_per_s:.0f} 个词元"
        else:
            said = f"Answers with {names.get(c.model_id, c.model_id)}: {c.passed}/{c.total}"
            said += f" on the quality check at {c.tokens_per_s:.0f} tokens/s"
        for other in self.others:
            name = names.get(other.model_id, other.model_id)
            slow = not other.fast
            if zh:
                said += f"；{name} 得 {other.passed}/{other.total}"
                said += f"（每秒 {other.tokens_per_s:.0f} 个，太慢）" if slow else ""
            else:
                said += f"; {name} scored {other.passed}/{other.total}"
                said += f" (too slow here: {other.tokens_per_s:.1f} tokens/s)" if slow else ""
        return said + ("。" if zh else ".")


def candidates(cat: Catalogue) -> list[ModelEntry]:
    """The installed local models that can answer (the "small" role), demo models left out,
    smallest first."""
    found = [
        entry
        for entry in cat.models
        if "small" in entry.roles
        and entry.format == "gguf"
        and not entry.demo
        and all(files.problem(entry, spec, deep=False) is None for spec in entry.files)
    ]
    return sorted(found, key=lambda e: e.download_bytes())


def verdict(entries: list[ModelEntry]) -> Verdict | None:
    """The check's choice among ``entries`` from the results kept for this machine state, or
    None until at least two were checked and one of them is fast enough."""
    results = cached(entries)
    chosen = choose(list(results.values()))
    if chosen is None or len(results) < 2:
        return None
    return Verdict(chosen, tuple(results[e.id] for e in entries if e.id in results))
