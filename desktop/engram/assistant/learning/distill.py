"""Distillation: the large model turns a job's episodes into candidate memories, a summary, a plan.

The model answers under a JSON schema (grammar-constrained for local models, validated for cloud
ones). What comes back is checked again here: invented episode ids are dropped, empty or garbage
contents are dropped, and everything is written in the user's language (detected from the episodes).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engram.assistant import intent
from engram.assistant.learning import plan_words
from engram.core import log, prompts, sanitize
from engram.core.errors import EngramError
from engram.core.messages import Message
from engram.memory import changes, kinds
from engram.memory.episodes import Episode
from engram.memory.records import EXAMPLE
from engram.memory.text import normalized, query_terms, text_language

MAX_CONTENT_CHARS = 400
MAX_EPISODE_CHARS = 1500
_log = log.get("assistant.distill")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_LOOP = re.compile(r"(\S.{0,11}?)\1{4,}", re.DOTALL)
_CONDITION = re.compile(r"(?i)(?:when(?:ever)?|if|before|after|once)\b|(?:当|如果|每当|在)")
_ADVICE = re.compile(r"(?i)\b(?:they|the user|users) should\b|用户应该")
# A request restated ("The user asked for …") says nothing about the user.
_ASKED_FOR = re.compile(
    r"(?i)^\s*(?:the user|user) (?:asked|asks|wanted to know|inquired)\b|^\s*用户(?:询问|问|想知道)"
)
_USER_FACT = re.compile(r"(?i)(?:the user|user) (?:is|was|has|lives|likes|works)\b")
# A user setting their own earlier statement right, in words the reading of intent does not take
# for a correction of an answer: "Correction: …", "to be clear", "I mistyped", "I got her name
# wrong", "it turns out … after all", "…, not a nurse", "说错了", "记错了".
_SETS_RIGHT = re.compile(
    r"(?i)\bcorrection\b|\bto be clear\b|\bmistyped\b|\btypo\b|\bturns out\b|\bafter all\b"
    r"|\bgot (?:\w+ ){0,2}wrong\b|,\s*not\s+(?:a |an |the |my )?\w+\s*[.!]?\s*$"
    r"|说错|记错|写错|搞错|弄错"
)
_WORDS = re.compile(r"[a-z]{3,}|[\u4e00-\u9fff]")
# Words every lesson shares (its frame), left out when a lesson is compared with the prompts.
_FRAME = (
    "when whenever the user users asks asked ask because they and for how with that this then "
    "their them its are was has have not but you your 当 时 用 户 因 为 问 的 了 是 要 给"
)
_FUNCTION_WORDS = frozenset(_FRAME.split())
_PLACEHOLDER_WORDS = {
    "string", "content", "memory", "none", "null", "n/a", "na", "todo", "...", "无", "没有", "暂无",
    "unknown", "nothing", "empty", "goal", "the user's goal", "not specified", "未知", "目标",
}  # fmt: skip
# Grounding: what a memory about the user says must come from what the user said. These words
# only frame a statement ("The user prefers …", "用户喜欢……") and are left out of the comparison.
_FRAMING_EN = (
    "user user's users prefer prefers preferred preference preferences like likes liked love "
    "loves enjoy enjoys dislike dislikes hate hates avoid avoids avoiding want wants wanted need "
    "needs would rather strongly very really always never usually often mostly tends tend also "
    "their them they his her own does doesn't not only any all some due because since fear fears "
    "afraid feel feels find finds keep keeps stay stays steer clear interested interest "
    "personally generally particular particularly specific specifically strict strictly deep "
    "acute strong"
)
_FRAMING_ZH = (
    "用户 户喜 喜欢 欢的 不喜 偏好 倾向 讨厌 避免 希望 想要 需要 非常 总是 通常 他们 她们 自己 "
    "因为 所以 由于 不会 不想 比较 更喜 的是 户的 户是 户不 户在 户有 户对 户会 户想 户希 户偏 户讨"
)
_FRAME_EN = frozenset(_FRAMING_EN.split())
_FRAME_ZH = frozenset(_FRAMING_ZH.split())
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_ENGRAM = re.compile(r"(?i)\bengram\b")
_ENGRAM_S = re.compile(r"(?i)\bengram['’]s\b")
GROUNDED = 0.5  # share of a memory's content terms the user said
GROUNDED_PROFILE = 0.6  # a profile invents most easily (age, job, city never said)
ABOUT_USER = (kinds.FACT, kinds.PREFERENCE, kinds.PROFILE)
# Messages of the user's a conversation needs before its summary is worth keeping: the real 1.5B
# summed up single questions as "The user asked about X and the assistant provided the correct
# answer" (also when the answer was wrong), and such summaries took the small model's prompt.
SUMMARY_AFTER = 3
SITUATED = (kinds.PREFERENCE, kinds.LESSON)  # kinds that carry the situations they apply to
MAX_SITUATIONS = 6
SITUATION_CHARS = 40


@dataclass(frozen=True)
class Limits:
    """How much one distillation may write: bounded strings keep every answer complete JSON."""

    memories: int = 8
    chars: int = 160  # per memory; the summary gets twice as much

    @property
    def max_tokens(self) -> int:
        """Room for the longest answer the schema allows (about a token per character)."""
        situations = MAX_SITUATIONS * (SITUATION_CHARS // 3 + 4)
        return 200 + self.memories * (self.chars + 30 + situations) + 3 * self.chars


def line_schema(max_chars: int) -> dict[str, Any]:
    """A one-line string schema: the pattern keeps control characters (which the grammar's
    plain string allows but JSON does not) out of grammar-constrained output."""
    return {
        "type": "string",
        "maxLength": max_chars,
        "pattern": f'^[^"\\\\\\n\\r\\t]{{0,{max_chars}}}$',
    }


def schema(limits: Limits) -> dict[str, Any]:
    """The JSON schema of a distillation answer."""
    return {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "maxItems": limits.memories,
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(kinds.LISTED)},
                        "content": line_schema(limits.chars),
                        "applies_to": {
                            "type": "array",
                            "items": line_schema(SITUATION_CHARS),
                            "maxItems": MAX_SITUATIONS,
                        },
                        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
                        "episodes": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
                    },
                    "required": ["kind", "content", "applies_to", "importance", "episodes"],
                    "additionalProperties": False,
                },
            },
            "summary": line_schema(2 * limits.chars),
            "plan": {
                "type": "object",
                "properties": {
                    "goal": line_schema(limits.chars),
                    "steps": {
                        "type": "array",
                        "items": line_schema(limits.chars // 2),
                        "maxItems": 5,
                    },
                    "current_step": {"type": "integer", "minimum": 0, "maximum": 5},
                },
                "required": ["goal", "steps", "current_step"],
                "additionalProperties": False,
            },
        },
        "required": ["memories", "summary", "plan"],
        "additionalProperties": False,
    }


Reader = Callable[[str], intent.Intent]  # a message -> what it asks for


class StructuredModel(Protocol):
    """What distillation needs from a model: one JSON object valid under a schema."""

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = ...
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Candidate:
    """A memory the distiller proposes, with the episodes it comes from."""

    kind: str
    content: str
    importance: float  # 0..1
    episode_ids: tuple[int, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    applies_to: tuple[str, ...] = ()  # the situations it matters in (preferences, lessons)
    corrects: bool = False  # the user said it to set an earlier statement right
    # The user's own words of a correction (:func:`set_right`): kept only to replace the memory
    # they set right, never added beside it.
    sets_right: bool = False

    @property
    def situated(self) -> str:
        """What its vector embeds: the content with the situations it applies to."""
        return situated(self.content, self.applies_to)


def situated(content: str, applies_to: Sequence[str]) -> str:
    """A memory's text with its situations, as its vector embeds it (recall finds a lesson or
    a preference by the situation it matters in, not only by its words)."""
    if not applies_to:
        return content
    return f"{content} ({'; '.join(applies_to)})"


@dataclass(frozen=True)
class Distillation:
    """Everything one distillation run produced, already cleaned."""

    language: str
    candidates: tuple[Candidate, ...]
    dropped: int  # candidates or ids thrown away as invalid


def detect_language(episodes: Sequence[Episode]) -> str:
    """``zh_CN`` when the user writes mostly Chinese, else ``en`` (only the user's words count)."""
    said = "".join(e.content for e in episodes if e.role == "user") or "".join(
        e.content for e in episodes
    )
    return text_language(said)


def transcript(episodes: Sequence[Episode]) -> str:
    """The episodes as numbered lines the model can cite: ``[12] user: ...``."""
    lines = []
    for e in episodes:
        text = " ".join(sanitize.clean(e.content).split())  # data, never a turn of its own
        if len(text) > MAX_EPISODE_CHARS:
            text = text[:MAX_EPISODE_CHARS] + "…"
        lines.append(f"[{e.id}] {e.role}: {text}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Outcome:
    """A signal the job carries: how the user judged one answer (``text``: their words)."""

    answer_episode_id: int | None  # None: a regenerate or an edit dropped the answer
    kind: str
    text: str | None = None
    replaced: str | None = None  # the dropped answer's text

    def line(self) -> str:
        said = f" {json.dumps(sanitize.clean(self.text), ensure_ascii=False)}" if self.text else ""
        if self.replaced:
            gone = sanitize.clean(self.replaced[:MAX_EPISODE_CHARS])
            said += f" replaced: {json.dumps(gone, ensure_ascii=False)}"
        answer = "-" if self.answer_episode_id is None else self.answer_episode_id
        return f"[{answer}] {self.kind}{said}"


_POSITIVE = frozenset({"thumbs_up", "praise", "tool_accepted"})  # signals.POSITIVE
_OUTCOMES_HEADING = {"en": "Outcome signals:", "zh_CN": "结果信号："}
_PLAN_HEADING = {"en": "The user's active plan:", "zh_CN": "用户当前的计划："}


# A text the user quoted in what they told the assistant ('- ', 'Best regards, Mia', “总结：”):
# a quote opens after a space or the start and closes before one (not the apostrophe of "That's").
_QUOTED = re.compile(
    r"(?<!\w)'([^'\n]+)'(?!\w)|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|「([^」\n]+)」"
)
_ASKED = "asked"  # meta key of a lesson candidate until its example is written
EXAMPLE_LINES, EXAMPLE_LINE_CHARS, EXAMPLE_TOKENS = 8, 240, 480
_EXAMPLE_HEADINGS = {
    "en": ("QUESTION:", "ANSWER:", "USER SAID:"),
    "zh_CN": ("问题：", "回答：", "用户说："),
}
# Said once more when an example left out a text the user quoted (then the texts, quoted).
_EXAMPLE_MUST_HOLD = {
    "en": "The new answer must contain, word for word: ",
    "zh_CN": "新的回答必须原样用上：",
}


def quoted(words: str) -> list[str]:
    """The texts the user quoted in ``words``, as an answer must contain them ("- " of "use
    bullet points starting with '- '"); none is blank."""
    found = (next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(words))
    return [text for text in found if text.strip()]


# An example answer as its lines (one-line strings: a grammar's plain string lets raw newlines
# through, which JSON does not).
EXAMPLE_SCHEMA = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "items": line_schema(EXAMPLE_LINE_CHARS),
            "minItems": 1,
            "maxItems": EXAMPLE_LINES,
        }
    },
    "required": ["lines"],
    "additionalProperties": False,
}


def demonstration(
    model: StructuredModel, asked: str, answer: str, words: str, language: str
) -> str | None:
    """``asked`` answered again the way the user's ``words`` about ``answer`` say, written by the
    distilling model, or None: only for words that quote a text to use, and only an answer that
    holds every quoted text and is not the old one (an example must show the form it teaches:
    the 1.5B's examples of a unit or a date were as wrong as the answers they corrected, while
    Qwen2.5-Coder-0.5B, shown an example of a quoted form, followed it: bench lab in
    docs/evaluation.md)."""
    literals = quoted(words)
    if not literals or not answer.strip():
        return None
    language = language if language in _EXAMPLE_HEADINGS else "en"
    said = "\n\n".join(
        f"{heading}\n{sanitize.clean(text)}"
        for heading, text in zip(_EXAMPLE_HEADINGS[language], (asked, answer, words), strict=True)
    )
    text = _example(model, said, answer, language)
    if text is not None and not all(literal in text for literal in literals):
        # Asked once more, naming the quoted texts: for "以后列举的时候用“- ”开头，不要编号。" the
        # 1.5B listed "登山鞋\n相机\n水杯", then, told to use “- ”, "- 登山鞋\n- 相机\n- 水杯".
        named = ", ".join(f"“{sanitize.clean(literal)}”" for literal in literals)
        text = _example(model, f"{said}\n\n{_EXAMPLE_MUST_HOLD[language]}{named}", answer, language)
        if text is not None and not all(literal in text for literal in literals):
            _log.info("an example for a lesson was dropped: it leaves out a text the user quoted")
            return None
    return text


def _example(model: StructuredModel, said: str, answer: str, language: str) -> str | None:
    """The distilling model's new answer for ``said`` (the question, its answer and what the
    user said of it), or None: a model error, garbage, or the old ``answer`` again."""
    request: list[Message] = [
        {"role": "system", "content": prompts.text("demonstrate", language)},
        {"role": "user", "content": said},
    ]
    try:
        raw = model.structured(request, EXAMPLE_SCHEMA, EXAMPLE_TOKENS)
    except EngramError as exc:  # the lesson is kept without an example
        _log.info("no example for a lesson: %s", exc.message)
        return None
    lines = [str(line).rstrip() for line in _listed(raw.get("lines"))]
    text = "\n".join(lines).strip()
    if not text or is_garbage(text) or normalized(text) == normalized(answer):
        return None
    return text


def demonstrated(
    model: StructuredModel,
    candidates: Sequence[Candidate],
    episodes: Sequence[Episode],
    language: str,
) -> tuple[Candidate, ...]:
    """``candidates`` with an example (:func:`demonstration`, ``meta.example``: the question and
    its new answer) on each lesson in the user's words that quotes a text to use."""
    said = {e.id: e for e in episodes}
    found = []
    for candidate in candidates:
        asked = candidate.meta.get(_ASKED)
        if candidate.kind != kinds.LESSON or not isinstance(asked, str):
            found.append(candidate)
            continue
        meta = {k: v for k, v in candidate.meta.items() if k != _ASKED}
        answer = next(
            (
                said[i].content
                for i in candidate.episode_ids
                if i in said and said[i].role == "assistant"
            ),
            "",
        )
        if example := demonstration(model, asked, answer, candidate.content, language):
            meta[EXAMPLE] = {"asked": asked, "answer": example}
        found.append(dataclasses.replace(candidate, meta=meta))
    return tuple(found)


def messages(
    episodes: Sequence[Episode],
    language: str,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
) -> list[Message]:
    """The distill request; with outcome signals it also asks for lessons from them, with the
    active plan (``meta.plan``) it asks whether the conversation advanced or finished it."""
    system, said = prompts.text("distill", language), transcript(episodes)
    if outcomes:
        system = f"{system}\n\n{prompts.text('lesson', language)}"
        lines = "\n".join(o.line() for o in outcomes)
        said = f"{said}\n\n{_OUTCOMES_HEADING[language]}\n{lines}"
    if plan:
        system = f"{system}\n\n{prompts.text('plan_update', language)}"
        shown = {k: plan.get(k) for k in ("goal", "steps", "current_step")}
        text = sanitize.clean(json.dumps(shown, ensure_ascii=False))
        said = f"{said}\n\n{_PLAN_HEADING[language]}\n{text}"
    return [{"role": "system", "content": system}, {"role": "user", "content": said}]


def is_garbage(content: str) -> bool:
    """Empty, placeholder-like, or without enough words to mean anything."""
    text = content.strip().strip("\"'“”.。")
    if normalized(text) in _PLACEHOLDER_WORDS:
        return True
    letters = _LETTER.findall(text)
    cjk = len(_CJK.findall(text))
    if cjk < 2 and len(letters) < 6:
        return True
    return len(set(text.lower())) < 4 or is_repetitive(text)  # "aaaaaa", "......"


def is_repetitive(text: str) -> bool:
    """A small model's loop: the same words, or the same run of up to 12 characters five times
    in a row ("......", "哈哈哈哈哈", ".1.1.1.1.1"). Never a share of distinct characters: every
    ordinary sentence of some length has few distinct letters."""
    words = text.lower().split()
    if len(words) >= 8 and len(set(words)) / len(words) < 0.4:
        return True
    sentences = [x.strip() for x in re.split(r"[.!?。！？]+", text) if len(x.strip()) >= 6]
    if any(sentences.count(x) >= 3 for x in set(sentences)):  # the same sentence over again
        return True
    return _LOOP.search(text) is not None


def lesson_problem(content: str, language: str) -> str:
    """Why a proposed lesson is not one ('' when it is): a lesson is a rule with its situation
    ("When …, …" / "当……时，……"), about what the assistant does, neither a fact about the user
    nor a sentence of Engram's own prompts (small models copy their instructions and examples)."""
    text = content.strip()
    if not _CONDITION.match(text):
        return "no situation"
    if _USER_FACT.match(text):
        return "a fact, not a rule"
    if _ADVICE.search(text):
        return "advice to the user, not a rule for the assistant"
    words = _content_words(text)
    for sentence in _prompt_sentences(language):
        if words and len(words & sentence) / len(words) >= 0.6:
            return "a sentence of the prompt"
    return ""


def _content_words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower())) - _FUNCTION_WORDS


@functools.cache
def _prompt_sentences(language: str) -> tuple[frozenset[str], ...]:
    """The content words of each sentence of the distill and lesson prompts."""
    text = f"{prompts.text('distill', language)}\n{prompts.text('lesson', language)}"
    sentences = re.split(r"[.。;；:：\n]+", text)
    return tuple(frozenset(w) for s in sentences if len(w := _content_words(s)) >= 3)


class Said:
    """What the user said in a job's episodes, for checking that a memory about the user comes
    from the user's own words (never from the assistant's, nor from nowhere). ``read`` reads a
    message for what it asks, as the turn does (:func:`engram.assistant.reading.read` with the
    store's embedder; the rules alone by default)."""

    def __init__(
        self, episodes: Sequence[Episode], extra: str = "", read: Reader = intent.read
    ) -> None:
        self.read = read
        self.texts = {e.id: e.content for e in episodes if e.role == "user"}
        self.answered = _terms(" ".join(e.content for e in episodes if e.role == "assistant"))
        self.text = f"{' '.join(self.texts.values())} {extra}"
        self.terms = _terms(self.text)
        self.lower = self.text.lower()
        self.language = text_language(self.text)
        said = [read(t) for t in self.texts.values()]
        self.instructs = any(r.correction or r.remember is not None for r in said)
        # Only asked: no word about themselves, no instruction, no correction.
        self.only_asks = not self.instructs and not any(
            intent.about_self(t) for t in self.texts.values()
        )
        # A question about the next step of a plan only asks: it sets no goal
        self.sets_goal = any(
            intent.sets_goal(t) and not intent.only_asks(t) for t in self.texts.values()
        )
        self.states_preference = not self.only_asks and any(
            intent.about_self(t) and intent.states_preference(t) for t in self.texts.values()
        )

    def corrects(self, ids: Sequence[int]) -> bool:
        """Did the user, in these messages (or any, when none of them is the user's), set an
        earlier statement right ("actually I moved to Berlin", "其实我搬到柏林了")?"""
        said = [self.texts[i] for i in ids if i in self.texts] or list(self.texts.values())
        return any(
            self.read(t).correction or intent.changes_fact(t) or _SETS_RIGHT.search(t) for t in said
        )

    def echoes_answer(self, lesson: str, reactions: Sequence[str]) -> bool:
        """Is a lesson's rule (what follows its situation) the assistant's own answer: none of
        its words said by the user, in their messages or their reactions (a thumb's reason),
        and most of them the assistant's? A lesson needs the user's reaction, and the rule is
        what the user wanted, never what the answer already said."""
        found = _CONDITION.match(lesson)
        rest = lesson[found.end() :] if found else lesson
        rule = re.split(r"[,，]", rest, maxsplit=1)[-1]
        terms = _terms(rule)
        if not terms or text_language(rule) != self.language:
            return False
        reacted = self.terms | _terms(" ".join(reactions))
        if any(_said(t, reacted) for t in terms):
            return False
        return sum(_said(t, self.answered) for t in terms) >= len(terms) / 2

    def grounding(self, content: str) -> float:
        """The share of the content's terms the user said (1.0 when the content is written in
        another language than the user's: words cannot be compared across languages)."""
        if text_language(content) != self.language:
            return 1.0
        terms = _terms(content)
        if not terms:
            return 0.0
        return sum(_said(t, self.terms) for t in terms) / len(terms)

    def stated(self, summary: str) -> str | None:
        """What of a summary the user stated about themselves: the whole summary, or else its
        first sentence or clause grounded in the user's words ("The user is vegetarian. The
        assistant suggests …" → "The user is vegetarian.")."""
        sentences = [p for p in re.split(r"(?<=[.!?。！？])\s*", summary) if p.strip()]
        pieces = [summary, *sentences]
        if sentences:
            clause = re.split(r"[,，;；]", sentences[0])[0].strip()
            pieces.append(clause + ("。" if text_language(clause) == "zh_CN" else "."))
        for piece in (p.strip() for p in pieces):
            if not is_garbage(piece) and not self.problem(kinds.PREFERENCE, piece):
                return piece
        return None

    def renamed(self, content: str) -> str:
        """The content with Engram's name replaced by the user ("Engram prefers …" written for
        what the user said; what is left must still be grounded)."""
        user = (
            ("用户", "用户的") if text_language(content) == "zh_CN" else ("The user", "The user's")
        )
        return _ENGRAM.sub(user[0], _ENGRAM_S.sub(user[1], content))

    def misnames(self, content: str) -> bool:
        """Does the content name Engram, which the user never did (the assistant's name taken
        for the user's, "Engram is a game developer")?"""
        return bool(_ENGRAM.search(content)) and not _ENGRAM.search(self.text)

    def problem(self, kind: str, content: str) -> str:
        """Why a memory about the user is not grounded in what the user said ('' when it is)."""
        for name in _names(content) if text_language(content) == self.language else ():
            if name.lower() not in self.lower:
                return f"a name the user never said ({name})"
        for number in _NUMBER.findall(content):
            if number not in self.text:
                return "a number the user never said"
        if self.misnames(content) or (
            re.search(r"(?i)\bthe assistant\b|助手", content)
            and not re.search(r"(?i)\bassistant\b|助手", self.text)
        ):
            return "about the assistant, not the user"
        needed = GROUNDED_PROFILE if kind == kinds.PROFILE else GROUNDED
        if self.grounding(content) < needed:
            return "not what the user said"
        return ""


def coverage(text: str, source: str) -> float:
    """The share of the text's content terms that ``source`` has (inflections allowed; 1.0
    for a text without content terms)."""
    terms, found = _terms(text), _terms(source)
    return sum(_said(t, found) for t in terms) / len(terms) if terms else 1.0


def shares_terms(text: str, other: str) -> bool:
    """Does ``text`` have a content term that ``other`` has too (inflections allowed)?"""
    found = _terms(other)
    return any(_said(t, found) for t in _terms(text))


def _stemmed(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s")


def _terms(text: str) -> set[str]:
    """Content terms (words of 3+ letters, CJK bigrams) without the words that frame a
    statement about the user."""
    found: set[str] = set()
    for start in range(0, min(len(text), 40_000), 8_000):
        for term in query_terms(text[start : start + 8_000]):
            if _CJK.search(term):
                if len(term) == 2 and term not in _FRAME_ZH:
                    found.add(term)
            elif len(word := _stemmed(term)) >= 3 and word not in _FRAME_EN and word.isalpha():
                found.add(word)
    return found


def _said(term: str, said: set[str]) -> bool:
    """Is the term among the user's, allowing for inflection ("shelters", "running")?"""
    if term in said:
        return True
    if _CJK.search(term):
        return False
    for other in said:
        shared = min(5, len(term), len(other))
        if shared >= 3 and term[:shared] == other[:shared]:
            return True
    return False


def _names(content: str) -> list[str]:
    """Capitalised words inside sentences (not the first word of one, not "I")."""
    names = []
    for sentence in re.split(r"(?<=[.!?。！？])\s+", content):
        words = re.findall(r"[A-Za-z][A-Za-z'’-]*", sentence)
        names += [w for w in words[1:] if w[0].isupper() and w not in ("I", "I'm", "I've")]
    return names


def situations(value: Any, language: str = "en", words: str = "") -> tuple[str, ...]:
    """The situations a memory in ``words`` applies to, as the distiller listed them, cleaned:
    neither the prompt's own example (small models copy it), nor a sentence about the user, nor
    a piece of the memory's own words (its vector embeds those already; a sign-off lesson given
    its own sign-off as a situation was brought by it to an unrelated question about a plan)."""
    example = _prompt_text(language)
    own = normalized(words)
    found: dict[str, str] = {}
    for item in _listed(value):
        text = " ".join(str(item).split()).strip(" .,;:。，；")[:SITUATION_CHARS]
        key = normalized(text)
        if (
            not key
            or key in _PLACEHOLDER_WORDS
            or key in found
            or f'"{key}"' in example
            or key in own
        ):
            continue
        if re.match(r"(?i)the user\b|用户", text) or (
            len(_LETTER.findall(text)) < 3 and not _CJK.search(text)
        ):
            continue
        found[key] = text
    return tuple(found.values())[:MAX_SITUATIONS]


# The distill prompt's own examples (resources/prompts/distill_*.txt), which small models copy.
EXAMPLES = {
    "en": ("never flies", "seasick", "ferries", "cruises", "holidays by the sea"),
    "zh_CN": ("从不坐飞机", "晕船", "轮渡", "邮轮", "海边度假"),
}


def copies_example(content: str, language: str) -> bool:
    """Does the content repeat the prompt's examples (two of them or more)?"""
    text = content.lower()
    return sum(phrase in text for phrase in EXAMPLES.get(language, ())) >= 2


@functools.cache
def _prompt_text(language: str) -> str:
    """The distill prompt, normalized, its quotes kept (to recognise its examples)."""
    return " ".join(prompts.text("distill", language).lower().replace("“", '"').split())


def parse(
    raw: dict[str, Any],
    episodes: Sequence[Episode],
    language: str,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
    read: Reader = intent.read,
) -> Distillation:
    """Clean a structured answer: keep valid candidates with real episode ids.

    A memory about the user (fact, preference, profile) and a plan must come from what the user
    said (:class:`Said`); a conversation in which the user only asked yields none of them. A
    lesson needs a reason: an outcome signal, or the user telling the assistant how to answer.
    """
    allowed = {e.id for e in episodes}
    everything = tuple(sorted(allowed))
    shown = " ".join(str(v) for v in (plan or {}).values() if isinstance(v, (str, list)))
    # a plan may restate the one shown
    said, planned = Said(episodes, read=read), Said(episodes, shown, read)
    # A lesson says how to answer; a number in it the user never gave is an answer the model
    # copied ("… respond with 200 degrees"), which then overrides the right one. A summary that
    # keeps one ("… provided the correct answer of 200 degrees") recalls a wrong answer as true.
    given = _numbers(" ".join([said.text, *(o.text or "" for o in outcomes)]))
    found: list[Candidate] = []
    seen: set[str] = set()
    dropped = 0

    def refused(kind: str, content: str) -> str:
        if kind == kinds.LESSON:
            if not outcomes and not said.instructs:
                return "no signal and no instruction"
            if _numbers(content) - given:
                return "a number the user never gave"
            if said.echoes_answer(content, [o.text or "" for o in outcomes]):
                return "the assistant's own answer, not what the user wanted"
            return lesson_problem(content, language)
        if kind == kinds.PLAN:
            if not plan and not said.sets_goal:
                return "no goal the user stated"
            if re.search(r"(?i)\bshould\b|应该", _goal_of(content)):
                return "advice, not the user's goal"
            return planned.problem(kind, _goal_of(content))
        if kind in ABOUT_USER:
            if said.only_asks or _ASKED_FOR.match(content):
                return "the user only asked"
            if kind == kinds.PREFERENCE and not intent.states_preference(content):
                return "no liking, avoiding or need in it"  # "The user is planning a trip …"
            return said.problem(kind, content)
        if kind == kinds.SUMMARY and said.misnames(content):
            return "the assistant's name where the user never said it"
        if kind == kinds.SUMMARY and _numbers(content) - given:
            return "a number the user never gave"
        return ""

    def keep(
        kind: str,
        content: str,
        importance: float,
        ids: Sequence[Any],
        applies_to: tuple[str, ...] = (),
        own_words: bool = False,
        **meta: Any,
    ) -> None:
        """Keep a proposed memory unless a check refuses it (the user's ``own_words`` are not
        checked for the form of a model's lesson: they are what the user said)."""
        nonlocal dropped
        content = " ".join(str(content).split())[:MAX_CONTENT_CHARS]
        renamed = kind in (*ABOUT_USER, kinds.PLAN) and said.misnames(content)
        if renamed:  # "Engram prefers …" written for what the user said
            content = said.renamed(content)
        key = normalized(content)
        if kind not in kinds.KINDS or is_garbage(content) or key in seen:
            dropped += 1
            return
        if copies_example(content, language):
            _log.info("a proposed %s was dropped: the prompt's example", kind)
            dropped += 1
            return
        if why := (not own_words and refused(kind, content)) or (
            renamed and said.problem(kinds.SUMMARY, content)
        ):
            _log.info("a proposed %s was dropped: %s", kind, why)
            dropped += 1
            return
        valid = tuple(sorted({i for i in ids if isinstance(i, int) and i in allowed}))
        dropped += len({repr(i) for i in ids}) - len(valid)
        seen.add(key)
        situated = applies_to if kind in SITUATED else ()
        corrects = kind in ABOUT_USER and said.corrects(valid)
        found.append(
            Candidate(kind, content, importance, valid or everything, meta, situated, corrects)
        )

    for item in _listed(raw.get("memories")):
        if not isinstance(item, dict):
            dropped += 1
            continue
        level = item.get("importance")
        importance = (min(5, max(1, level)) / 5) if isinstance(level, int) else 0.5
        keep(
            str(item.get("kind", "")),
            str(item.get("content", "")),
            importance,
            _listed(item.get("episodes")),
            situations(item.get("applies_to"), language, str(item.get("content", ""))),
        )
    summary = raw.get("summary")
    if isinstance(summary, str) and summary.strip() and len(said.texts) >= SUMMARY_AFTER:
        keep(kinds.SUMMARY, summary, 0.4, everything)
    if said.states_preference and not any(c.kind in ABOUT_USER for c in found):
        # The model filed the user's stated preference as the summary: keep it as what it is.
        text = " ".join(summary.split()) if isinstance(summary, str) else ""
        stated = (said.stated(text) or said.stated(said.renamed(text))) if text else None
        if stated and not _ASKED_FOR.match(stated) and intent.states_preference(stated):
            ids = tuple(said.texts) or everything
            # said to set something right ("我已经不喝咖啡了"): compared with the facts too
            corrects = said.corrects(ids)
            preference = Candidate(kinds.PREFERENCE, stated, 0.6, ids, {}, (), corrects)
            # the whole summary is the preference: it is kept once, as what it is
            found = [c for c in found if normalized(c.content) != normalized(stated)]
            found.append(preference)
    if own := told(episodes, outcomes):
        # What the user told the assistant after an answer is the lesson, in their own words: the
        # model's lessons only say where it applies (the real 1.5B turned "please give distances
        # in kilometres, not miles" into "When the user asks for distances in kilometres, give
        # them in kilometres", and "No emojis in anything you write for me" into a caption rule).
        written = [c for c in found if c.kind == kinds.LESSON]
        # a model's lesson that copied the user's words is no reason to drop those words
        seen -= {normalized(c.content) for c in written}
        found = [c for c in found if c.kind != kinds.LESSON]
        for said_words, asked, ids in own:
            places = situations(
                [asked, *_written_for(ids, written, len(own))], language, said_words
            )
            asked_then = {_ASKED: asked} if quoted(said_words) else {}
            keep(kinds.LESSON, said_words, 0.6, ids, places, own_words=True, **asked_then)
    # A plan the user listed, or moved on in so many words, is kept as they said it.
    spec = plan_words.said_plan(said.texts.values(), plan)
    said_so = spec is not None
    if spec is None:
        spec, why = _proposed_plan(raw.get("plan"), plan, said)
        if why:
            _log.info("a proposed plan was dropped: %s", why)
            dropped += 1
    if spec is not None:
        goal, steps, current = spec["goal"], spec["steps"], spec["current_step"]
        content = plan_text(goal, steps, current, text_language(goal))
        keep(kinds.PLAN, content, 0.7, everything, own_words=said_so, plan=spec)
    return Distillation(language, tuple(found), dropped)


def _proposed_plan(
    proposed: Any, shown: dict[str, Any] | None, said: Said
) -> tuple[dict[str, Any] | None, str]:
    """The distiller's plan as ``meta.plan`` keeps it, or None with why it was dropped ('' when
    it proposed none)."""
    if not isinstance(proposed, dict) or not isinstance(proposed.get("goal"), str):
        return None, ""
    goal = " ".join(proposed["goal"].split())
    if not goal:
        return None, ""
    if (
        shown
        and not said.sets_goal
        and not any(plan_words.moves(t, shown) for t in said.texts.values())
    ):
        # the large model moved the active plan to its end during a question about a capital
        return None, "the user said nothing of a plan"
    steps = list(dict.fromkeys(str(s).strip() for s in _listed(proposed.get("steps"))))
    steps = [s for s in steps if s and normalized(s) not in _PLACEHOLDER_WORDS]
    if is_garbage(goal) or not steps:
        return None, "no real goal or no step"
    step = proposed.get("current_step")
    current = min(max(0, step if isinstance(step, int) else 0), len(steps) - 1)
    spec: dict[str, Any] = {"goal": goal, "steps": steps, "current_step": current}
    if isinstance(step, int) and step >= len(steps):  # past the last step: done
        spec["done"] = True
    return spec, ""


def _written_for(ids: Sequence[int], written: Sequence[Candidate], told: int) -> list[str]:
    """The situations the model's lessons give for the user's words from episodes ``ids``: all
    of them when the user told one thing, else those of the lessons drawn from the same
    episodes. A situation of another correction of the job would bring these words to that
    one's questions (recall takes a lesson's closest situation)."""
    mine = [c for c in written if told == 1 or set(c.episode_ids) & set(ids)]
    return [place for c in mine for place in c.applies_to]


def set_right(
    episodes: Sequence[Episode], proposed: Sequence[Candidate], read: Reader = intent.read
) -> list[Candidate]:
    """The user's own words of each message in which they set a statement right ("Actually
    it's 50 mg, not 5 mg", "其实我有三个孩子"), as candidates that only replace the memory they
    correct (:attr:`Candidate.sets_right`; one that does not speak of the user, only the memory
    it restates: it may set an answer right, not a memory).

    The real 1.5B proposed nothing for most such messages, or lost what changed ("The user
    adopted another cat" for "I have three cats now"), and the old fact stayed active."""
    said, found = Said(episodes, read=read), []
    known = {normalized(c.content) for c in proposed}
    for episode_id, text in said.texts.items():
        if not said.corrects([episode_id]):
            continue
        words = changes.without_discourse(" ".join(text.split()))[:MAX_CONTENT_CHARS]
        if not is_garbage(words) and normalized(words) not in known:
            found.append(
                Candidate(kinds.FACT, words, 0.8, (episode_id,), corrects=True, sets_right=True)
            )
    return found


_SAID_CHARS = 240


def told(
    episodes: Sequence[Episode], outcomes: Sequence[Outcome]
) -> list[tuple[str, str, tuple[int, ...]]]:
    """What the user said when they corrected an answer or turned it down with a reason, or
    praised it for a reason ("… Quick chickpea dishes are exactly my thing."; thanks alone say
    nothing), each with the question the answer was for and its sources (that question, the
    answer, the user's words).

    The user's words are the lesson, and the question its situation: as a sentence built around
    them ("When the user asks something like “…”, do as they said: …"), Qwen2.5-Coder-0.5B
    recited the sentence instead of answering.
    """
    lessons = []
    for outcome in outcomes:
        answer = outcome.answer_episode_id
        text = " ".join((outcome.text or "").split())
        words = intent.praised_for(text) if outcome.kind in _POSITIVE else intent.unframed(text)
        before = [e for e in episodes if answer is not None and e.id < answer and e.role == "user"]
        if answer is None or not words or not before:
            continue
        asked = " ".join(before[-1].content.split())
        words = words[:_SAID_CHARS]
        sources = [before[-1].id, answer]
        sources += [e.id for e in episodes if e.role == "user" and e.content == outcome.text]
        lessons.append((words, asked, tuple(sorted(set(sources)))))
    return lessons[:2]


def _numbers(text: str) -> set[str]:
    """The numbers written in ``text`` ("1,234.5", "2026-03-14" gives 2026, 03 and 14)."""
    return set(re.findall(r"\d+(?:[.,]\d+)*", text))


def _goal_of(content: str) -> str:
    """The goal of a plan's text (what grounding compares), or the text itself."""
    for prefix in ("The user's goal: ", "用户的目标："):
        if content.startswith(prefix):
            return re.split(r"\. Steps: |。步骤：", content[len(prefix) :])[0]
    return content


def _listed(value: Any) -> list[Any]:
    """A list the distiller returned, or [] when it returned something else there."""
    return value if isinstance(value, list) else []


def plan_text(goal: str, steps: Sequence[str], current: int, language: str) -> str:
    """A plan as one readable memory."""
    goal = goal.strip().rstrip("。.")
    if language == "zh_CN":
        text = f"用户的目标：{goal}。"
        if steps:
            text += "步骤：" + "；".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
            text += f"。当前在第 {current + 1} 步。"
        return text
    text = f"The user's goal: {goal}."
    if steps:
        text += " Steps: " + "; ".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
        text += f". Currently on step {current + 1}."
    return text


def distill(
    model: StructuredModel,
    episodes: Sequence[Episode],
    limits: Limits | None = None,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
    read: Reader = intent.read,
) -> tuple[Distillation, dict[str, Any]]:
    """Ask the model to distill the episodes; returns the cleaned result and the raw answer
    (``read``: how a user's message is read, as the turn reads it)."""
    limits = limits or Limits()
    language = detect_language(episodes)
    request = messages(episodes, language, outcomes, plan)
    raw = model.structured(request, schema(limits), limits.max_tokens)
    result = parse(raw, episodes, language, outcomes, plan, read)
    shown = demonstrated(model, result.candidates, episodes, language)
    return dataclasses.replace(result, candidates=shown), raw
