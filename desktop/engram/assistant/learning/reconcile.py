"""Reconciliation: each candidate becomes add, update, supersede or skip against what is known.

A candidate is compared only with memories of its own kind (facts and profiles, both what is
true about the user, with each other). A deterministic guard comes first: a candidate whose text
equals an existing memory (after normalization) or whose embedding is within the embedder's ``same``
of one is skipped without asking, unless it changes a number, date, name or negation of it
(:mod:`engram.memory.changes`): then it supersedes it, whatever a model would say. A statement
the user made to set an earlier one right ("actually I moved to Berlin") supersedes the memory
it corrects; so do the user's own words of a correction (``Candidate.sets_right``), which
replace the memory they set right or are dropped. A correction is compared with facts,
preferences and profiles together ("I no longer drink coffee" sets right "I drink coffee every
morning", whichever kind either was filed as); when no rule finds the memory the user's words of
a correction set right, the model is asked whether the nearest are still true
(:func:`made_untrue`).
Otherwise the large model decides from the candidate and its nearest memories (mem0 style); a
decision naming a memory that was not offered falls back to a plain add. Its update that changes
a number, date, name or negation of a memory is a contradiction: the candidate supersedes the
memory (kept for history, no longer recalled) instead of rewriting it.

The model never rewrites the user's own words: a memory the user wrote (origin ``user``) or
pinned is not updated (the new memory goes beside it), and a plan whose step the user ticked
keeps its steps (it may only move on).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engram.assistant import intent
from engram.assistant.learning import signals
from engram.assistant.learning.distill import StructuredModel, line_schema
from engram.assistant.learning.grounding import MAX_SITUATIONS, coverage, is_garbage, shares_terms
from engram.assistant.learning.proposals import ABOUT_USER, Candidate, situated
from engram.core import log, prompts, sanitize
from engram.memory import changes
from engram.memory.kinds import FACT, PLAN, PROFILE
from engram.memory.records import EXAMPLE, SITUATIONS, Memory, situations_in
from engram.memory.search import Filters
from engram.memory.store import MemoryStore
from engram.memory.text import normalized, query_terms

_log = log.get("consolidation")
DISTILLED = "distilled"  # meta key: the candidate texts a memory was written from
NEIGHBOURS = 5
PLANS_CHECKED = 5  # active plans a plan candidate is compared with
SAME_GOAL = 0.5  # term overlap at which two goals are the same goal restated
ACTIONS = ("add", "update", "supersede", "skip")
# The kinds a candidate is compared with: its own (facts and profiles both say what is true
# about the user; the distiller files "lives in Berlin" as either).
FAMILY: dict[str, tuple[str, ...]] = {FACT: (FACT, PROFILE), PROFILE: (PROFILE, FACT)}
TICKED = "plan_by_user"  # meta key: the user set the plan's steps or ticked one (plans.save)
# The cosines that tell "the same statement", "a correction of the same subject", "one thing"
# and "related" apart are the embedder's, for the candidate's language (Floors: same,
# corrected, update, restated, related).
KEPT_WORDS = 0.7  # an update keeps this share of the new statement's terms
NO_LONGER_TRUE = "no longer true"  # the answer to made_untrue's question that replaces
UNTRUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"memory": {"type": "string", "enum": ["still true", NO_LONGER_TRUE]}},
    "required": ["memory"],
    "additionalProperties": False,
}
UNTRUE_TOKENS = 16
UNTRUE_ASKED = 3  # memories a correction in other words is compared with, nearest first
# What a statement is about, when a correction changes the value: where the user lives, works,
# what they are called. A correction supersedes the memory on the same subject.
_SUBJECT_WORDS = (
    "live lives living lived moved move moving home city address 住 搬 家",
    "work works working job employer company profession 工作 职业 上班",
    "name called named 名字 叫",
)
_SUBJECTS = tuple(frozenset(words.split()) for words in _SUBJECT_WORDS)
# Whom a statement is about, when not the user: a correction of the sister's name is no
# correction of the wife's ("My wife's name is Maria" was superseded by "Actually my sister is
# called Anna").
_WHOM_WORDS = (
    "wife husband partner spouse boyfriend girlfriend fiance fiancee sister brother son daughter"
    " mother mom mum father dad parents grandmother grandma grandfather grandpa aunt uncle"
    " cousin niece nephew friend boss colleague coworker roommate neighbour neighbor child kids"
    " baby cat dog pet 妻子 老婆 太太 丈夫 老公 男朋友 女朋友 姐姐 妹妹 哥哥 弟弟 儿子 女儿"
    " 妈妈 母亲 爸爸 父亲 奶奶 爷爷 外婆 外公 朋友 老板 同事 室友 邻居 孩子 猫 狗"
)
_WHOM = frozenset(_WHOM_WORDS.split())

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(ACTIONS)},
        "target_id": {"type": "integer"},
        "content": line_schema(200),
    },
    "required": ["decision", "target_id", "content"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    """What to do with one candidate; ``target_id`` names the memory updated/superseded/kept."""

    action: str
    target_id: int | None
    content: str
    why: str  # "new", "same text", "similar 0.95", "model"


def neighbours(store: MemoryStore, candidate: Candidate, k: int = NEIGHBOURS) -> list[Memory]:
    """The active memories of the candidate's kind related to it (hybrid search, unrelated
    vectors left out). A correction is compared with everything known about the user: a habit
    it sets right may have been filed as a fact or as a preference ("我每天早上都喝咖啡" and
    "用户已经不喝咖啡了")."""
    family = ABOUT_USER if candidate.corrects else FAMILY.get(candidate.kind, (candidate.kind,))
    related = store.floors(candidate.content).related
    return [
        hit.memory
        for hit in store.search(candidate.content, k=k, filters=Filters(kinds=family), dedupe=1.01)
        if hit.memory.kind in family and (hit.similarity is None or hit.similarity >= related)
    ]


def similarities(
    store: MemoryStore, candidate: Candidate, near: Sequence[Memory]
) -> dict[int, float]:
    """Each related memory's cosine to the candidate (its content, or with its situations,
    whichever is closer: a stored vector may embed either)."""
    if store.index is None or not near:
        return {}
    texts = list(dict.fromkeys([candidate.content, candidate.situated]))
    vectors = store.embedder.embed(texts)
    stored = store.index.get("memories", [m.id for m in near])
    found = {}
    for memory in near:
        other = stored.get(memory.id)
        if other is not None:
            found[memory.id] = max(float(np.dot(v, other.reshape(-1))) for v in vectors)
    return found


def guard(store: MemoryStore, candidate: Candidate, near: Sequence[Memory]) -> Decision | None:
    """Skip without asking when an existing memory says the same thing; supersede it without
    asking when it is the same statement with another number, date, name or negation, or the
    statement on the same subject the user just set right."""
    text = normalized(candidate.content)
    for memory in near:
        if normalized(memory.content) == text or text in memory.meta.get(DISTILLED, ()):
            return Decision("skip", memory.id, memory.content, "same text")
    close = similarities(store, candidate, near)
    floors = store.floors(candidate.content)
    for memory in near:
        if (cos := close.get(memory.id, 0.0)) >= floors.same:
            return corrected(memory, candidate) or Decision(
                "skip", memory.id, memory.content, f"similar {cos:.2f}"
            )
    if candidate.corrects:
        # Words of a correction that do not speak of the user ("it's 50 mg, not 5 mg") may set
        # an answer right: they replace only the memory they restate.
        whose = not candidate.sets_right or intent.about_self(candidate.content)
        for memory in near:
            cos = close.get(memory.id, 0.0)
            if (
                changes.corrects(memory.content, candidate.content)
                or cos >= floors.restated
                or (whose and cos >= floors.corrected and same_subject(memory, candidate))
            ):
                return Decision("supersede", memory.id, candidate.content, "set right")
    return None


def same_subject(memory: Memory, candidate: Candidate) -> bool:
    """Do both say where someone lives (works, is called), whatever they say it is? Two that
    name different people of the user's speak of two subjects."""
    if other_people(memory, candidate):
        return False
    old, new = _subject_terms(memory.content), _subject_terms(candidate.content)
    return any(old & subject and new & subject for subject in _SUBJECTS)


def other_people(memory: Memory, candidate: Candidate) -> bool:
    """Do both name people (or pets) of the user's (:data:`_WHOM`), and none of them the same
    ("my wife" and "my sister")?"""
    old, new = _subject_terms(memory.content) & _WHOM, _subject_terms(candidate.content) & _WHOM
    return bool(old and new and not old & new)


def _subject_terms(text: str) -> set[str]:
    terms = set(query_terms(text))
    return terms | {ch for term in terms for ch in term if "\u3400" <= ch <= "\u9fff"}


def corrected(memory: Memory, candidate: Candidate) -> Decision | None:
    """Supersede ``memory`` when the candidate changes what matters in it ("5 mg" → "50 mg"),
    not when it only leaves it out ("two cats" → "The user adopted another cat")."""
    old, new = memory.content, candidate.content
    if changes.update_between(old, new) is None or changes.drops_value(old, new):
        return None
    return Decision("supersede", memory.id, candidate.content, "a correction")


def made_untrue(
    model: StructuredModel, candidate: Candidate, near: Sequence[Memory], language: str
) -> Decision | None:
    """The memory the user's words of a correction make untrue when they say it in other words
    than the memory ("To be clear, I'm a paramedic, not a nurse" for "I work as a nurse at the
    city hospital"), as the model reads it: a supersede of the first one it calls no longer
    true, or None.

    Only a correction that says something changed is asked about (a negation, a number, a word
    of change or error: :func:`changes.says_a_change`; asked directly, the 1.5B took 4 of 12
    additions for corrections, and the number-and-name guard below does not read Chinese:
    "其实我的公司在朝阳区" replaced "我住在北京，离公司很近"),
    and only memories that share a word with it and do not speak of another person, the
    nearest :data:`UNTRUE_ASKED` (never "My wife's name is Maria" for "my sister is called
    Anna", never "I live in Sydney with my two dogs" for "I'm thinking of getting a cat"), and
    only for words that speak of the user (others may set an answer right). One short question
    a memory: asked which of those shown the correction makes untrue, if any, the 1.5B named one
    every time, additions too ("my cats are called Tom and Jerry" for "I have two cats at
    home")."""
    if not intent.about_self(candidate.content) or not changes.says_a_change(candidate.content):
        return None
    for memory in [m for m in near if _may_set_right(m, candidate)][:UNTRUE_ASKED]:
        said = f"MEMORY: {_quoted(memory.content)}\nSAID: {_quoted(candidate.content)}"
        raw = model.structured(
            [
                {"role": "system", "content": prompts.text("untrue", language)},
                {"role": "user", "content": said},
            ],
            UNTRUE_SCHEMA,
            UNTRUE_TOKENS,
        )
        if raw.get("memory") == NO_LONGER_TRUE:
            return Decision("supersede", memory.id, candidate.content, "no longer true")
    return None


def _may_set_right(memory: Memory, candidate: Candidate) -> bool:
    """Does the correction name something of the memory (a word they share: "nurse", "coffee",
    "son", "咖啡") and no other person than it?"""
    return shares_terms(memory.content, candidate.content) and not other_people(memory, candidate)


def _quoted(text: str) -> str:
    """Untrusted text as a JSON string in a prompt: data, never a line of its own."""
    return json.dumps(sanitize.clean(text), ensure_ascii=False)


def ask(
    model: StructuredModel, candidate: Candidate, near: Sequence[Memory], language: str
) -> Decision:
    """The model's decision, checked: an unknown target or empty content falls back safely."""
    listing = "\n".join(f"[{m.id}] ({m.kind}) {sanitize.clean(m.content)}" for m in near)
    corrects = " (the user said this to set something earlier right)" if candidate.corrects else ""
    question = (
        f"NEW ({candidate.kind}){corrects}: {sanitize.clean(candidate.content)}\n\n"
        f"EXISTING:\n{listing}"
    )
    raw = model.structured(
        [
            {"role": "system", "content": prompts.text("reconcile", language)},
            {"role": "user", "content": question},
        ],
        SCHEMA,
        256,
    )
    action = raw.get("decision")
    target = raw.get("target_id")
    content = " ".join(str(raw.get("content") or "").split())
    if is_garbage(content):
        content = candidate.content
    known = {m.id for m in near}
    if action not in ACTIONS:
        return Decision("add", None, candidate.content, "model gave no decision")
    if action == "add":
        return Decision("add", None, candidate.content, "model")
    if target not in known:
        # The model named a memory it was not shown: never touch an unrelated memory.
        return Decision("add", None, candidate.content, f"model named unknown #{target}")
    if action == "skip":
        return Decision("skip", target, candidate.content, "model")
    return Decision(action, target, content, "model")


def already_distilled(store: MemoryStore, candidate: Candidate, conversation_id: int) -> int | None:
    """A memory (of any status) this conversation's distillation already wrote from this text."""
    return store.noted_in(conversation_id, DISTILLED, normalized(candidate.content))


def same_plan(store: MemoryStore, candidate: Candidate) -> Memory | None:
    """The active plan a plan candidate restates (same goal, maybe another step), if any."""
    spec = candidate.meta.get("plan")
    if candidate.kind != PLAN or not isinstance(spec, dict):
        return None
    goal = str(spec.get("goal", ""))
    for plan in store.memories(kinds=[PLAN], limit=PLANS_CHECKED):
        known = plan.meta.get("plan")
        if not isinstance(known, dict):
            continue
        other = str(known.get("goal", ""))
        if normalized(other) == normalized(goal) or signals.overlap(other, goal) >= SAME_GOAL:
            return plan
    return None


def ticked(plan: Memory) -> bool:
    """Did the user set this plan's steps or tick one (the plan panel)?"""
    return bool(plan.meta.get(TICKED))


def moves_on(plan: Memory, candidate: Candidate) -> bool:
    """The candidate restates the plan with its steps as they are, only further along."""
    old, new = plan.meta.get("plan"), candidate.meta.get("plan")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    step, was = new.get("current_step", 0), old.get("current_step", 0)
    return old.get("steps") == new.get("steps") and int(step) >= int(was)


def decide(
    store: MemoryStore,
    model: StructuredModel,
    candidate: Candidate,
    language: str,
    conversation_id: int | None = None,
) -> Decision:
    """Add, update, supersede or skip for one candidate (from ``conversation_id``, if known)."""
    buried = store.tombstones.covers(candidate.content, candidate.situated, candidate.episode_ids)
    if buried is not None:
        return Decision("skip", None, candidate.content, f"#{buried} was taken away by the user")
    if conversation_id is not None:
        seen = already_distilled(store, candidate, conversation_id)
        if seen is not None:
            return Decision("skip", seen, candidate.content, "distilled before")
    if (plan := same_plan(store, candidate)) is not None:
        if plan.meta.get("plan") == candidate.meta.get("plan"):
            return Decision("skip", plan.id, plan.content, "plan unchanged")
        if ticked(plan) and not moves_on(plan, candidate):
            return Decision("skip", plan.id, plan.content, "the user's plan is kept")
        return Decision("update", plan.id, candidate.content, "plan advanced")
    if candidate.kind == PLAN:  # another goal is another plan (Chinese plans sit near each other)
        return Decision("add", None, candidate.content, "a new goal")
    near = neighbours(store, candidate)
    if candidate.sets_right:  # the user's words of a correction: they replace, or nothing
        said = set(candidate.episode_ids)  # not what was just learned from these very words
        near = [m for m in near if not said & {s.episode_id for s in store.sources(m.id)}]
        found = (
            guard(store, candidate, near) or made_untrue(model, candidate, near, language)
            if near
            else None
        )
        if found is not None and found.action == "supersede":
            replaced = next(m for m in near if m.id == found.target_id)
            if (decision := kept(found, replaced, candidate)).action == "supersede":
                return decision  # not a pinned memory
        return Decision("skip", None, candidate.content, "sets nothing right")
    if not near:
        return Decision("add", None, candidate.content, "new")
    decision = guard(store, candidate, near) or merged(
        store,
        candidate,
        near,
        contradiction(near, candidate, ask(model, candidate, near, language)),
    )
    target = next((m for m in near if m.id == decision.target_id), None)
    if decision.action == "skip" and target is not None:
        # "Already known" must not swallow a correction, whoever judged it.
        decision = corrected(target, candidate) or decision
    if (
        decision.action in ("update", "supersede")
        and target is not None
        and normalized(decision.content) == normalized(target.content)
    ):
        return Decision("skip", target.id, target.content, f"{decision.action} changes nothing")
    return kept(decision, target, candidate)


def contradiction(near: Sequence[Memory], candidate: Candidate, decision: Decision) -> Decision:
    """The model's update, as a supersede when the user set something right and the candidate
    changes a number, date, name or negation of the memory: a contradiction replaces the old fact
    (kept for history, no longer recalled), it is not merged into its text ("I have two cats" and
    "The user has three cats")."""
    target = next((m for m in near if m.id == decision.target_id), None)
    if decision.action != "update" or target is None or not candidate.corrects:
        return decision  # without a word of correction, a partial restatement is no contradiction
    return corrected(target, candidate) or decision


def merged(
    store: MemoryStore, candidate: Candidate, near: Sequence[Memory], decision: Decision
) -> Decision:
    """The model's update, when it merges two statements of one thing and keeps what both say;
    else the candidate goes beside it (the 1.5B merged unrelated preferences into one text,
    dropping the new one's words or overwriting the old one with the new)."""
    if decision.action != "update" or decision.target_id is None or candidate.kind == PLAN:
        return decision
    cos = similarities(store, candidate, near).get(decision.target_id, 0.0)
    target = next((m for m in near if m.id == decision.target_id), None)
    old = target.content if target is not None else ""
    if (
        cos >= store.floors(candidate.content).update
        and coverage(candidate.content, decision.content) >= KEPT_WORDS
        and coverage(old, decision.content) >= KEPT_WORDS
    ):
        return decision
    return Decision("add", None, candidate.content, f"not one thing with #{decision.target_id}")


def kept(decision: Decision, target: Memory | None, candidate: Candidate) -> Decision:
    """The decision, unless it would rewrite what the model may not: a pinned memory, the
    user's own words (unless the user set them right), a memory of another kind; or replace a
    memory by one that lost its number, date or name. Then the new memory goes beside it."""
    if target is None or decision.action not in ("update", "supersede"):
        return decision
    beside = Decision("add", None, candidate.content, f"#{target.id} kept")
    if target.pinned:
        return beside
    set_right = decision.why in ("a correction", "set right") or candidate.corrects
    replace = Decision("supersede", target.id, candidate.content, "set right")
    if decision.action == "update" and (target.kind != candidate.kind or target.origin == "user"):
        if not set_right:
            return beside
        decision = replace
    if decision.action == "supersede" and (
        (target.origin == "user" and not set_right)
        or changes.drops_value(target.content, candidate.content)  # "two cats" → "a cat"
    ):
        return beside
    return decision


def apply(
    store: MemoryStore,
    decision: Decision,
    candidate: Candidate,
    *,
    origin: str,
    conversation_id: int | None,
    job_id: int,
) -> Memory | None:
    """Carry out a decision with provenance; returns the memory written (None for skip).

    A preference or a lesson keeps the situations it applies to in ``meta.applies_to``, and its
    vector embeds them with its content (recall finds it by situation)."""
    sources = candidate.episode_ids
    meta: dict[str, Any] = {
        **candidate.meta,
        "job": job_id,
        DISTILLED: [normalized(candidate.content)],
    }
    if candidate.applies_to:
        meta[SITUATIONS] = list(candidate.applies_to)
    new: dict[str, Any] = {
        "kind": candidate.kind,
        "origin": origin,
        "conversation_id": conversation_id,
        "source_episodes": sources,
        "meta": meta,
    }
    if decision.action in ("add", "supersede") and candidate.applies_to:
        new["vector"] = store.space.embed([situated(decision.content, candidate.applies_to)])
    if decision.action == "add":
        return store.add(decision.content, importance=candidate.importance, **new)
    if decision.action == "supersede" and decision.target_id is not None:
        return store.supersede(decision.target_id, decision.content, **new)
    if decision.action == "update" and decision.target_id is not None:
        old = store.get(decision.target_id)
        if old is None:
            return None
        seen = [*old.meta.get(DISTILLED, ()), normalized(candidate.content)]
        merged = {**old.meta, DISTILLED: seen}
        places = list(dict.fromkeys([*situations_in(old.meta), *candidate.applies_to]))
        if places:
            merged[SITUATIONS] = places[: 2 * MAX_SITUATIONS]
        if EXAMPLE in candidate.meta:  # the newest way the user asked for it
            merged[EXAMPLE] = candidate.meta[EXAMPLE]
        status = {}
        if candidate.kind == PLAN and "plan" in candidate.meta:  # the structure follows the text
            merged["plan"] = candidate.meta["plan"]
            if candidate.meta["plan"].get("done"):  # finished: out of the system part, kept
                status = {"status": "archived"}
        updated = store.update(
            old.id,
            decision.content,
            importance=max(candidate.importance, old.importance),
            meta=merged,
            **status,
        )
        if candidate.applies_to and store.index is not None:
            vector = store.space.embed([situated(updated.content, merged[SITUATIONS])])
            if vector is not None:
                store.index.put("memories", [updated.id], vector)
        store.add_sources(updated.id, sources)
        return updated
    return None
