"""Grounding: is what the distiller proposed what the user said?

A memory about the user (a fact, a preference, a profile) and a plan must come from the user's
own words (:class:`Said`: their content terms, names and numbers, read as the turn reads them);
a lesson is a rule with its situation, not a sentence of Engram's own prompts; garbage,
placeholders and a small model's loops are never memories. :mod:`~engram.assistant.learning.
proposals` asks these checks of every candidate the model proposed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from engram.assistant import intent
from engram.core import prompts
from engram.memory import kinds
from engram.memory.episodes import Episode
from engram.memory.text import normalized, query_terms, text_language

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_LOOP = re.compile(r"(\S.{0,11}?)\1{4,}", re.DOTALL)
_CONDITION = re.compile(r"(?i)(?:when(?:ever)?|if|before|after|once)\b|(?:当|如果|每当|在)")
_ADVICE = re.compile(r"(?i)\b(?:they|the user|users) should\b|用户应该")
# A request restated ("The user asked for …") says nothing about the user.
ASKED_FOR = re.compile(
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
PLACEHOLDERS = {
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
MAX_SITUATIONS = 6
SITUATION_CHARS = 40

Reader = Callable[[str], intent.Intent]  # a message -> what it asks for


def is_garbage(content: str) -> bool:
    """Empty, placeholder-like, or without enough words to mean anything."""
    text = content.strip().strip("\"'“”.。")
    if normalized(text) in PLACEHOLDERS:
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
    for item in listed(value):
        text = " ".join(str(item).split()).strip(" .,;:。，；")[:SITUATION_CHARS]
        key = normalized(text)
        if not key or key in PLACEHOLDERS or key in found or f'"{key}"' in example or key in own:
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


def listed(value: Any) -> list[Any]:
    """A list the distiller returned, or [] when it returned something else there."""
    return value if isinstance(value, list) else []
