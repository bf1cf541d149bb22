"""What the distiller proposed, cleaned: the candidates a distillation keeps.

:func:`parse` keeps each proposed memory the checks of :mod:`~engram.assistant.learning.
grounding` accept, with real episode ids; the user's own words of a correction or of a reason
they gave after an answer (:func:`told`, :func:`set_right`) are kept as they said them. The
value types a distillation yields (:class:`Candidate`, :class:`Distillation`) and the outcome
signals it reads (:class:`Outcome`) are here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engram.assistant import intent
from engram.assistant.learning import plan_words
from engram.assistant.learning.grounding import (
    ASKED_FOR,
    PLACEHOLDERS,
    Reader,
    Said,
    copies_example,
    is_garbage,
    lesson_problem,
    listed,
    situations,
)
from engram.core import log, sanitize
from engram.memory import changes, kinds
from engram.memory.episodes import Episode
from engram.memory.text import normalized, text_language

MAX_CONTENT_CHARS = 400
MAX_EPISODE_CHARS = 1500
_log = log.get("assistant.distill")
ABOUT_USER = (kinds.FACT, kinds.PREFERENCE, kinds.PROFILE)
# Messages of the user's a conversation needs before its summary is worth keeping: the real 1.5B
# summed up single questions as "The user asked about X and the assistant provided the correct
# answer" (also when the answer was wrong), and such summaries took the small model's prompt.
SUMMARY_AFTER = 3
SITUATED = (kinds.PREFERENCE, kinds.LESSON)  # kinds that carry the situations they apply to


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

# A text the user quoted in what they told the assistant ('- ', 'Best regards, Mia', “总结：”):
# a quote opens after a space or the start and closes before one (not the apostrophe of "That's").
_QUOTED = re.compile(
    r"(?<!\w)'([^'\n]+)'(?!\w)|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|「([^」\n]+)」"
)
ASKED = "asked"  # meta key of a lesson candidate until its example is written


def quoted(words: str) -> list[str]:
    """The texts the user quoted in ``words``, as an answer must contain them ("- " of "use
    bullet points starting with '- '"); none is blank."""
    found = (next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(words))
    return [text for text in found if text.strip()]


class _Kept:
    """What :func:`parse` keeps of one answer: the candidates so far, the contents seen and the
    count dropped, with the checks every proposal passes (what the user said, the outcome
    signals, the plan shown)."""

    def __init__(
        self,
        episodes: Sequence[Episode],
        language: str,
        outcomes: Sequence[Outcome],
        plan: dict[str, Any] | None,
        read: Reader,
    ) -> None:
        self.allowed = {e.id for e in episodes}
        self.everything = tuple(sorted(self.allowed))
        self.language, self.outcomes, self.plan = language, outcomes, plan
        shown = " ".join(str(v) for v in (plan or {}).values() if isinstance(v, (str, list)))
        # a plan may restate the one shown
        self.said, self.planned = Said(episodes, read=read), Said(episodes, shown, read)
        # A lesson says how to answer; a number in it the user never gave is an answer the model
        # copied ("… respond with 200 degrees"), which then overrides the right one. A summary
        # that keeps one ("… provided the correct answer of 200 degrees") recalls a wrong answer
        # as true.
        self.given = _numbers(" ".join([self.said.text, *(o.text or "" for o in outcomes)]))
        self.found: list[Candidate] = []
        self.seen: set[str] = set()
        self.dropped = 0

    def refused(self, kind: str, content: str) -> str:
        """Why a proposed memory of ``kind`` is not kept ('' when it is)."""
        said, outcomes = self.said, self.outcomes
        if kind == kinds.LESSON:
            if not outcomes and not said.instructs:
                return "no signal and no instruction"
            if _numbers(content) - self.given:
                return "a number the user never gave"
            if said.echoes_answer(content, [o.text or "" for o in outcomes]):
                return "the assistant's own answer, not what the user wanted"
            return lesson_problem(content, self.language)
        if kind == kinds.PLAN:
            if not self.plan and not said.sets_goal:
                return "no goal the user stated"
            if re.search(r"(?i)\bshould\b|应该", _goal_of(content)):
                return "advice, not the user's goal"
            return self.planned.problem(kind, _goal_of(content))
        if kind in ABOUT_USER:
            if said.only_asks or ASKED_FOR.match(content):
                return "the user only asked"
            if kind == kinds.PREFERENCE and not intent.states_preference(content):
                return "no liking, avoiding or need in it"  # "The user is planning a trip …"
            return said.problem(kind, content)
        if kind == kinds.SUMMARY and said.misnames(content):
            return "the assistant's name where the user never said it"
        if kind == kinds.SUMMARY and _numbers(content) - self.given:
            return "a number the user never gave"
        return ""

    def keep(
        self,
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
        said = self.said
        content = " ".join(str(content).split())[:MAX_CONTENT_CHARS]
        renamed = kind in (*ABOUT_USER, kinds.PLAN) and said.misnames(content)
        if renamed:  # "Engram prefers …" written for what the user said
            content = said.renamed(content)
        key = normalized(content)
        if kind not in kinds.KINDS or is_garbage(content) or key in self.seen:
            self.dropped += 1
            return
        if copies_example(content, self.language):
            _log.info("a proposed %s was dropped: the prompt's example", kind)
            self.dropped += 1
            return
        if why := (not own_words and self.refused(kind, content)) or (
            renamed and said.problem(kinds.SUMMARY, content)
        ):
            _log.info("a proposed %s was dropped: %s", kind, why)
            self.dropped += 1
            return
        valid = tuple(sorted({i for i in ids if isinstance(i, int) and i in self.allowed}))
        self.dropped += len({repr(i) for i in ids}) - len(valid)
        self.seen.add(key)
        situated = applies_to if kind in SITUATED else ()
        corrects = kind in ABOUT_USER and said.corrects(valid)
        self.found.append(
            Candidate(kind, content, importance, valid or self.everything, meta, situated, corrects)
        )


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
    kept = _Kept(episodes, language, outcomes, plan, read)
    for item in listed(raw.get("memories")):
        if not isinstance(item, dict):
            kept.dropped += 1
            continue
        level = item.get("importance")
        importance = (min(5, max(1, level)) / 5) if isinstance(level, int) else 0.5
        kept.keep(
            str(item.get("kind", "")),
            str(item.get("content", "")),
            importance,
            listed(item.get("episodes")),
            situations(item.get("applies_to"), language, str(item.get("content", ""))),
        )
    summary = raw.get("summary")
    if isinstance(summary, str) and summary.strip() and len(kept.said.texts) >= SUMMARY_AFTER:
        kept.keep(kinds.SUMMARY, summary, 0.4, kept.everything)
    if kept.said.states_preference and not any(c.kind in ABOUT_USER for c in kept.found):
        _preference_in_summary(kept, summary)
    if own := told(episodes, outcomes):
        _lessons_in_own_words(kept, own)
    _plan(kept, raw.get("plan"))
    return Distillation(language, tuple(kept.found), kept.dropped)


def _preference_in_summary(kept: _Kept, summary: Any) -> None:
    """The model filed the user's stated preference as the summary: keep it as what it is."""
    said = kept.said
    text = " ".join(summary.split()) if isinstance(summary, str) else ""
    stated = (said.stated(text) or said.stated(said.renamed(text))) if text else None
    if stated and not ASKED_FOR.match(stated) and intent.states_preference(stated):
        ids = tuple(said.texts) or kept.everything
        # said to set something right ("我已经不喝咖啡了"): compared with the facts too
        corrects = said.corrects(ids)
        preference = Candidate(kinds.PREFERENCE, stated, 0.6, ids, {}, (), corrects)
        # the whole summary is the preference: it is kept once, as what it is
        kept.found = [c for c in kept.found if normalized(c.content) != normalized(stated)]
        kept.found.append(preference)


def _lessons_in_own_words(kept: _Kept, own: list[tuple[str, str, tuple[int, ...]]]) -> None:
    """What the user told the assistant after an answer is the lesson, in their own words: the
    model's lessons only say where it applies (the real 1.5B turned "please give distances in
    kilometres, not miles" into "When the user asks for distances in kilometres, give them in
    kilometres", and "No emojis in anything you write for me" into a caption rule)."""
    written = [c for c in kept.found if c.kind == kinds.LESSON]
    # a model's lesson that copied the user's words is no reason to drop those words
    kept.seen -= {normalized(c.content) for c in written}
    kept.found = [c for c in kept.found if c.kind != kinds.LESSON]
    for said_words, asked, ids in own:
        places = situations(
            [asked, *_written_for(ids, written, len(own))], kept.language, said_words
        )
        asked_then = {ASKED: asked} if quoted(said_words) else {}
        kept.keep(kinds.LESSON, said_words, 0.6, ids, places, own_words=True, **asked_then)


def _plan(kept: _Kept, proposed: Any) -> None:
    """A plan the user listed, or moved on in so many words, is kept as they said it; else the
    distiller's, when the user's words hold it."""
    spec = plan_words.said_plan(kept.said.texts.values(), kept.plan)
    said_so = spec is not None
    if spec is None:
        spec, why = _proposed_plan(proposed, kept.plan, kept.said)
        if why:
            _log.info("a proposed plan was dropped: %s", why)
            kept.dropped += 1
    if spec is not None:
        goal, steps, current = spec["goal"], spec["steps"], spec["current_step"]
        content = plan_text(goal, steps, current, text_language(goal))
        kept.keep(kinds.PLAN, content, 0.7, kept.everything, own_words=said_so, plan=spec)


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
    steps = list(dict.fromkeys(str(s).strip() for s in listed(proposed.get("steps"))))
    steps = [s for s in steps if s and normalized(s) not in PLACEHOLDERS]
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
