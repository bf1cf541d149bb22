"""What the distiller may store, checked after the model (issue 25): memories about the user
come from the user's own words, every kind is reconciled with its own kind, the user's words are
never rewritten, a correction supersedes the old fact, preferences and lessons carry the
situations they apply to, and an answer's outcome is credited only to the lessons that bore on
it. A scripted distiller gives the exact answers; the real 1.5B runs in ``test_real_models.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engram.assistant.events import Plan
from engram.assistant.learning import distill, grounding, plans, proposals, reconcile, signals
from engram.assistant.learning.proposals import Candidate
from engram.core import errors, paths, prompts
from engram.memory import db, embed
from engram.memory.episodes import Episode, EpisodeLog
from engram.memory.store import MemoryStore
from test_consolidation_support import ScriptedModel, chat, memories_answer, minilm


@pytest.fixture
def store(starter_models: Path) -> Iterator[MemoryStore]:
    """A store on this test's database file, with the real embedder (loaded once)."""
    opened = MemoryStore(db.connect(paths.database_path()), _embedder(starter_models))
    try:
        yield opened
    finally:
        opened.conn.close()


@functools.cache
def _embedder(models: Path) -> embed.FastEmbedder:
    return minilm(models)


def said(*turns: tuple[str, str]) -> list[Episode]:
    episodes = []
    for i, (role, text) in enumerate(turns):
        episodes.append(Episode(i + 1, 1, i, role, text, 0.0, None, "complete"))  # type: ignore[arg-type]
    return episodes


def answer(
    *memories: tuple[str, str] | tuple[str, str, list[str]], plan: Any = None
) -> dict[str, Any]:
    return {
        "memories": [
            {"kind": m[0], "content": m[1], "applies_to": m[2] if len(m) > 2 else [],
             "importance": 4, "episodes": [1]}
            for m in memories
        ],
        "summary": "",
        "plan": plan or {"goal": "", "steps": [], "current_step": 0},
    }  # fmt: skip


def kept(raw: dict[str, Any], episodes: list[Episode], **kwargs: Any) -> list[tuple[str, str]]:
    language = distill.detect_language(episodes)
    return [
        (c.kind, c.content) for c in proposals.parse(raw, episodes, language, **kwargs).candidates
    ]


# -- 1. grounded in what the user said ----------------------------------------------------------


def test_a_stated_preference_is_kept_with_its_situations() -> None:
    episodes = said(
        ("user", "I prefer to adopt pets from shelters rather than buying from breeders."),
        ("assistant", "That's a kind choice! Shelters have many animals waiting."),
    )
    raw = answer(
        ("preference", "The user prefers adopting pets from shelters over breeders.",
         ["getting a pet", "dogs", "boats", "-", "cats", "The user adopts pets", "animal shelters",
          "getting a pet"]),
    )  # fmt: skip
    result = proposals.parse(raw, episodes, "en")
    (pref,) = result.candidates
    assert pref.kind == "preference"
    # the prompt's example ("boats") and a sentence about the user are no situations
    assert pref.applies_to == ("getting a pet", "dogs", "cats", "animal shelters")
    assert pref.situated.startswith(pref.content) and "animal shelters" in pref.situated


def test_the_prompts_examples_are_not_copied_into_memory() -> None:
    for language, examples in grounding.EXAMPLES.items():
        prompt = " ".join(prompts.text("distill", language).split())
        assert all(phrase in prompt for phrase in examples)
    episodes = said(("user", "I strongly prefer films under two hours."), ("assistant", "OK."))
    raw = answer(("preference", "The user prefers films under two hours."))
    raw["summary"] = "The user prefers short films, which applies to seasick trips on ferries."
    assert kept(raw, episodes) == [("preference", "The user prefers films under two hours.")]


@pytest.mark.parametrize(
    ("user", "assistant", "proposed", "expected"),
    [
        # the assistant's name and suggestion are not the user's; a summary naming it goes
        ("I'm a game developer and I work late most nights.",
         "I'm Engram. You could try a standing desk and blue-light glasses.",
         [("profile", "Engram is a game developer."),
          ("preference", "The user prefers a standing desk and blue-light glasses."),
          ("profile", "The user is a game developer."),
          ("summary", "Engram recommends blue-light glasses.")],
         [("profile", "The user is a game developer.")]),
        # "Engram prefers …" written for the user's own words is the user
        ("I prefer to adopt pets from shelters rather than buying from breeders.",
         "Engram prefers to adopt pets from shelters.",
         [("preference", "Engram prefers to adopt pets from shelters rather than breeders."),
          ("profile", "The user is Engram.")],
         [("preference", "The user prefers to adopt pets from shelters rather than breeders.")]),
    ],
)  # fmt: skip
def test_what_the_assistant_said_or_is_called_is_not_the_user(
    user: str,
    assistant: str,
    proposed: list[tuple[str, str]],
    expected: list[tuple[str, str]],
) -> None:
    raw = answer(*[m for m in proposed if m[0] != "summary"])
    raw["summary"] = next((text for kind, text in proposed if kind == "summary"), "")
    assert kept(raw, said(("user", user), ("assistant", assistant))) == expected


def test_a_preference_filed_as_the_summary_becomes_a_preference() -> None:
    episodes = said(
        ("user", "I don't wear clothing made from animal products as I'm an ethical vegan."),
        ("assistant", "Engram remembers earlier conversations with this user."),
    )
    raw = answer()
    raw["summary"] = (
        "The user is an ethical vegan who does not wear clothing made from animal products."
    )
    assert kept(raw, episodes) == [("preference", raw["summary"])]
    raw["summary"] = "The user talked about veganism and the assistant suggested cotton shirts."
    assert kept(raw, episodes) == []  # one exchange: no summary is kept (SUMMARY_AFTER)
    # only what the user said of a summary that also tells what the assistant did
    mixed = said(("user", "I'm vegetarian and allergic to peanuts."), ("assistant", "I'm Engram."))
    raw["summary"] = "The user is vegetarian and allergic to peanuts. Engram suggests a curry."
    assert kept(raw, mixed) == [("preference", "The user is vegetarian and allergic to peanuts.")]
    chinese = said(("user", "我对花生过敏，吃东西要小心。"), ("assistant", "出门可以随身带药。"))
    raw["summary"] = "用户对花生过敏，出门时随身带药。"
    assert kept(raw, chinese) == [("preference", "用户对花生过敏。")]
    asked = said(("user", "What is vegan leather made of?"), ("assistant", "Usually plastic."))
    raw["summary"] = "The user asked what vegan leather is made of."
    assert kept(raw, asked) == []


def test_a_summary_is_kept_only_for_a_conversation_of_several_messages() -> None:
    """The real 1.5B summed up single questions ("The user asked about the capital of Canada, and
    the assistant provided the answer"), and those summaries filled the small model's prompt."""
    raw = answer()
    raw["summary"] = "The user planned a week in Lisbon: flights, a hotel in Alfama and day trips."
    exchange = [
        ("user", "I'm planning a week in Lisbon in May."), ("assistant", "Lovely! Flights first?"),
        ("user", "Flights are booked. Where should I stay?"), ("assistant", "Alfama is central."),
    ]  # fmt: skip
    assert kept(raw, said(*exchange)) == []
    longer = said(*exchange, ("user", "Any day trips?"), ("assistant", "Sintra and Cascais."))
    assert kept(raw, longer) == [("summary", raw["summary"])]
    assert proposals.SUMMARY_AFTER == 3


def test_a_profile_the_user_never_stated_is_not_stored() -> None:
    episodes = said(("user", "I'm vegetarian."), ("assistant", "Noted!"))
    raw = answer(
        ("profile", "The user is 35 years old, works as an engineer and lives in Paris."),
        ("profile", "The user is a teacher living in Lyon."),
        ("preference", "The user asked for a vegetarian dinner."),  # a request, no preference
        ("preference", "The user is vegetarian."),
    )
    assert kept(raw, episodes) == [("preference", "The user is vegetarian.")]


def test_a_plan_needs_a_real_goal_and_a_step() -> None:
    episodes = said(
        ("user", "I'm learning Spanish. Next I'll watch a series with subtitles."),
        ("assistant", "Great plan."),
    )
    for empty in ("None", "none.", "N/A", ""):
        raw = answer(plan={"goal": empty, "steps": ["watch a series"], "current_step": 0})
        assert kept(raw, episodes) == []
    raw = answer(plan={"goal": "Learn Spanish", "steps": [], "current_step": 0})
    assert kept(raw, episodes) == []
    raw = answer(plan={"goal": "Learn Spanish", "steps": ["watch a series"], "current_step": 0})
    assert [kind for kind, _ in kept(raw, episodes)] == ["plan"]
    advice = {"goal": "The user should consider a tutor", "steps": ["find one"], "current_step": 0}
    assert kept(answer(plan=advice), episodes) == []


def test_a_plan_needs_a_goal_the_user_stated_and_a_plan_shown_is_no_users_word() -> None:
    episodes = said(
        ("user", "I strictly avoid restaurants that serve foods containing gluten."),
        ("assistant", "Understood."),
    )
    raw = answer(
        plan={"goal": "Avoid restaurants containing gluten", "steps": ["find a gluten-free one"],
              "current_step": 0},
    )  # fmt: skip
    assert kept(raw, episodes) == []
    # the active plan shown to the distiller is not what the user said in this conversation
    shown = {"goal": "Pay once for software", "steps": ["cancel subscriptions"], "current_step": 0}
    raw = answer(("preference", "The user prefers to pay a one-time fee for software."))
    assert kept(raw, episodes, plan=shown) == []


def test_a_user_who_only_asks_gets_no_preference_profile_or_plan() -> None:
    for question in ("What is the capital of Australia?", "List three ways to save energy.",
                     "澳大利亚的首都是哪里？"):  # fmt: skip
        episodes = said(("user", question), ("assistant", "Canberra. 堪培拉。 Save energy."))
        raw = answer(
            ("preference", "The user prefers short answers about Australia."),
            ("profile", "The user is interested in the capital of Australia."),
            ("fact", "The user asked about the capital of Australia."),
            ("preference", "The user asked for a short answer about Australia's capital."),
            plan={"goal": "Learn about Australia", "steps": ["ask"], "current_step": 0},
        )
        raw["summary"] = "The user asked a question."
        assert kept(raw, episodes) == []


def test_a_question_with_options_yields_no_preference_but_a_stated_one_is_kept() -> None:
    """A PrefEval-like question ("… 4 options … Pick the one that best fits me. Reply with its
    letter only") speaks of the user and says "only", yet states no preference: what the 1.5B
    filed from it as preferences ("The user is planning a trip…", "The user asked for…") goes."""
    question = (
        "What outdoor adventures would you suggest for my trip to Colorado?\n\nI'm trying to"
        " decide on this and here are 4 options for my query:\nA. Rafting\nB. Hiking\nC. Zip"
        " lines\nD. Caves\nPick the one option that best fits me. Reply with its letter only."
    )
    episodes = said(("user", question), ("assistant", "B"))
    raw = answer(
        (
            "preference",
            "The user is planning a trip to Colorado and is considering outdoor adventures.",
        ),
        ("preference", "The user asked for outdoor adventures in Colorado."),
    )
    raw["summary"] = "The user asked for recommendations on outdoor adventures in Colorado."
    assert kept(raw, episodes) == []
    stated = said(
        ("user", "I avoid any trip that involves heights or zip lines."), ("assistant", "OK")
    )
    raw = answer(("preference", "The user avoids trips that involve heights or zip lines."))
    assert kept(raw, stated) == [
        ("preference", "The user avoids trips that involve heights or zip lines.")
    ]


def test_a_lesson_needs_a_signal_or_an_instruction() -> None:
    lesson = ("lesson", "When the user asks for a distance, give it in kilometres.")
    asked = said(("user", "How long is a half marathon?"), ("assistant", "13.1 miles."))
    assert kept(answer(lesson), asked) == []
    outcome = proposals.Outcome(2, "thumbs_down")
    assert kept(answer(lesson), asked, outcomes=[outcome]) == [lesson]
    told = [*asked, *said(("user", "Next time, give distances in kilometres."))[:1]]
    told[-1] = Episode(3, 1, 2, "user", told[-1].content, 0.0, None, "complete")
    assert kept(answer(lesson), told) == [lesson]


def test_a_lesson_with_a_number_the_user_never_gave_is_an_answer_not_a_lesson() -> None:
    """The real 1.5B wrote "… should respond with 200 degrees" for "Temperatures in Celsius,
    please", and the 0.5B then answered "200" for the boiling point of water."""
    correction = "Temperatures in Celsius, please. My oven only shows °C."
    episodes = said(
        ("user", "What's a good oven temperature for roasting vegetables?"),
        ("assistant", "180 degrees"),
        ("user", correction),
        ("assistant", "About 200 °C."),
        ("user", "And for how long?"),
    )
    outcome = proposals.Outcome(2, "thumbs_down", None)  # no words of the user's to keep instead
    copied = ("lesson", "When the user asks for temperatures in Celsius, respond with 200 degrees.")
    rule = ("lesson", "When the user asks about oven temperatures, give them in °C.")
    assert kept(answer(copied, rule), episodes, outcomes=[outcome]) == [rule]
    raw = answer(rule)
    raw["summary"] = "The user asked for Celsius; the correct answer was 200 degrees."
    assert kept(raw, episodes, outcomes=[outcome]) == [rule]  # nor a summary keeping the answer
    # the user's own numbers may stand in a lesson
    weekday = said(("user", "What day of the week is 2026-03-14?"), ("assistant", "Friday."))
    told = proposals.Outcome(2, "regenerate", None)
    dated = (
        "lesson",
        "When the user asks the weekday of a date like 2026-03-14, use the date tool.",
    )
    assert kept(answer(dated), weekday, outcomes=[told]) == [dated]


LESSONS = {
    "en": ("When the user asks for a distance, give it in kilometres.",),
    "zh_CN": ("当用户问重量时，用公斤回答。",),
}


@pytest.mark.parametrize(
    ("question", "correction", "situation", "words"),
    [
        ("How long is a half marathon?", "No, that's wrong: give distances in kilometres.",
         "How long is a half marathon?", "Give distances in kilometres."),
        ("一个大西瓜一般有多重？", "不对，重量请用公斤说。", "一个大西瓜一般有多重？",
         "重量请用公斤说。"),
    ],
)  # fmt: skip
def test_a_correction_is_kept_as_a_lesson_in_the_users_words_with_its_question_as_situation(
    question: str, correction: str, situation: str, words: str
) -> None:
    """A sentence built around the user's words ("When the user asks something like “…”, do as
    they said: …") was recited by the real 0.5B instead of followed; the words alone are the
    lesson, and the question (with the situations the model names) is where it applies."""
    episodes = said(("user", question), ("assistant", "13.1 miles."), ("user", correction))
    outcome = proposals.Outcome(2, "correction", correction)
    language = distill.detect_language(episodes)
    found = proposals.parse(answer(), episodes, language, outcomes=[outcome]).candidates
    assert [(c.kind, c.content, c.episode_ids) for c in found] == [("lesson", words, (1, 2, 3))]
    assert found[0].applies_to == (situation,)
    # the model's lessons say where the user's words apply; they are not kept beside them
    written = answer(("lesson", LESSONS[language][0], ["shopping lists"]))
    found = proposals.parse(written, episodes, language, outcomes=[outcome]).candidates
    assert [(c.content, c.applies_to) for c in found] == [(words, (situation, "shopping lists"))]
    # praise asks for none of the user's words, and the model's lesson is checked as before
    praise = proposals.Outcome(2, "praise", "Thanks, that worked!")
    assert proposals.parse(answer(), episodes, language, outcomes=[praise]).candidates == ()
    found = proposals.parse(written, episodes, language, outcomes=[praise]).candidates
    assert [c.content for c in found] == [LESSONS[language][0]]


SIGN_OFF = "Sign messages you write for me with 'Best regards, Mia'. Mia is my name."
LANDLORD = "Write a short message to my landlord saying the heating is broken."


def test_the_texts_a_user_quoted_are_found_and_an_apostrophe_is_no_quote() -> None:
    assert proposals.quoted(SIGN_OFF) == ["Best regards, Mia"]
    assert proposals.quoted("When you list things, use bullet points starting with '- '.") == ["- "]
    assert proposals.quoted("解释的时候第一行先写“总结：”加一句话概括。") == ["总结："]
    assert (
        proposals.quoted("Write dates as YYYY-MM-DD. That's how I file everything, isn't it") == []
    )
    assert proposals.quoted("Use ' ' or \"\" for nothing.") == []


def _signed(example: Any) -> tuple[proposals.Distillation, ScriptedModel]:
    episodes = said(("user", LANDLORD), ("assistant", "Dear landlord, the heating is broken."),
                    ("user", SIGN_OFF))  # fmt: skip
    model = ScriptedModel(lambda _m: answer(), example_answer=example)
    outcome = proposals.Outcome(2, "correction", SIGN_OFF)
    return distill.distill(model, episodes, outcomes=[outcome])[0], model


def test_a_lesson_quoting_a_text_comes_with_its_question_answered_the_way_the_user_asked() -> None:
    """Qwen2.5-Coder-0.5B follows a form it is shown more often than one it is told (the
    lesson-following lab: English 5 -> 9 of 18 with examples of the quoted forms): the distiller
    answers the question again the user's way, and the example is kept when it holds the text
    the user quoted."""
    lines = ["Dear landlord,", "", "The heating in my flat is broken.", "Best regards, Mia"]
    result, model = _signed(lambda _m: {"lines": lines})
    (lesson,) = result.candidates
    assert lesson.content == SIGN_OFF and "asked" not in lesson.meta
    assert lesson.meta["example"] == {"asked": LANDLORD, "answer": "\n".join(lines)}
    kind, request = model.calls[-1]
    assert kind == "example" and request[0]["content"] == prompts.text("demonstrate", "en")
    assert all(text in request[1]["content"] for text in (LANDLORD, SIGN_OFF, "heating is broken"))
    # one that leaves the quoted text out shows nothing the user asked for: no example
    result, _ = _signed(lambda _m: {"lines": ["Dear landlord,", "The heating is broken.", "Mia"]})
    assert [c.meta for c in result.candidates] == [{}]

    # a model that fails here costs the lesson nothing
    def failing(_m: Any) -> dict[str, Any]:
        raise errors.EngramError("The model stopped.")

    result, _ = _signed(failing)
    assert [(c.content, c.meta) for c in result.candidates] == [(SIGN_OFF, {})]


def test_an_example_without_the_quoted_text_is_asked_for_once_more_naming_it() -> None:
    """For "以后列举的时候用“- ”开头，不要编号。" the real 1.5B listed the items bare,
    then, told the text to use, as "- " lines."""

    def lines(messages: list[dict[str, str]]) -> dict[str, Any]:
        named = "word for word: “Best regards, Mia”" in messages[-1]["content"]
        return {"lines": ["Dear landlord,", "The heating is broken.",
                          "Best regards, Mia" if named else "Mia"]}  # fmt: skip

    result, model = _signed(lines)
    (lesson,) = result.candidates
    assert lesson.meta["example"]["answer"].endswith("\nBest regards, Mia")
    assert [kind for kind, _ in model.calls] == ["distill", "example", "example"]
    # once, not more: still without it, no example
    result, model = _signed(lambda _m: {"lines": ["Dear landlord,", "It is broken.", "Mia"]})
    assert [c.meta for c in result.candidates] == [{}]
    assert [kind for kind, _ in model.calls] == ["distill", "example", "example"]


def test_a_lesson_quoting_nothing_asks_for_no_example() -> None:
    words = "Please give distances in kilometres, not miles."
    episodes = said(("user", "How long is a half marathon?"), ("assistant", "13.1 miles."),
                    ("user", words))  # fmt: skip
    model = ScriptedModel(lambda _m: answer())
    found = distill.distill(model, episodes, outcomes=[proposals.Outcome(2, "correction", words)])
    assert [(c.content, c.meta) for c in found[0].candidates] == [(words, {})]
    assert [kind for kind, _ in model.calls] == ["distill"]


def test_a_piece_of_the_lessons_own_words_is_no_situation() -> None:
    """The 1.5B gave the sign-off lesson the situation "Best regards, Mia": a short text at
    0.33 from "Remind me, what's my next step with Spanish?", which brought the lesson and its
    letter to that question."""
    episodes = said(("user", LANDLORD), ("assistant", "Dear landlord, the heating is broken."),
                    ("user", SIGN_OFF))  # fmt: skip
    outcome = proposals.Outcome(2, "correction", SIGN_OFF)
    sign = "When the user asks for a letter, sign it with their name."
    written = answer(("lesson", sign, ["Best regards, Mia", "writing a letter"]))
    (lesson,) = proposals.parse(written, episodes, "en", outcomes=[outcome]).candidates
    asked = LANDLORD[: grounding.SITUATION_CHARS].strip()
    assert (lesson.content, lesson.applies_to) == (SIGN_OFF, (asked, "writing a letter"))
    # the model's own lesson is checked against its own words the same way
    tip = "When the user asks for a letter, end it with the sender's name."
    (lesson,) = proposals.parse(answer(("lesson", tip, ["asks for a letter", "emails"])), episodes,
                              "en").candidates  # fmt: skip
    assert lesson.applies_to == ("emails",)


@pytest.mark.parametrize(
    ("praise", "words"),
    [
        ("That worked perfectly, thanks! Quick chickpea dishes are exactly my thing.",
         "Quick chickpea dishes are exactly my thing."),
        ("谢谢，很有用！我最喜欢用豆腐做的快手菜。", "我最喜欢用豆腐做的快手菜。"),
        ("Perfect. Next time add the calories too.", "Next time add the calories too."),
    ],
)  # fmt: skip
def test_praise_with_a_reason_is_kept_as_a_lesson_in_the_users_words(
    praise: str, words: str
) -> None:
    """The real 1.5B turned "… Quick chickpea dishes are exactly my thing." into "When the
    user asks for a quick chickpea dish, the assistant recommends … 'Pasta alla Carbonara'"
    (the answer it was given, with meat in it); the reason the user gave is the lesson."""
    question = "Recommend a vegetarian dinner I can cook in 20 minutes."
    episodes = said(("user", question), ("assistant", "Chickpea curry."), ("user", praise))
    outcome = proposals.Outcome(2, "praise", praise)
    language = distill.detect_language(episodes)
    model = answer(("lesson", "When the user asks for a quick chickpea dish, recommend pasta."))
    found = proposals.parse(model, episodes, language, outcomes=[outcome]).candidates
    assert [(c.kind, c.content) for c in found] == [("lesson", words)]
    assert found[0].applies_to[0].startswith("Recommend a vegetarian dinner")  # its situation
    for thanks in ("Thanks a lot, that was really great!", "谢谢！", "Thanks! A dessert too?"):
        assert proposals.told(episodes, [proposals.Outcome(2, "praise", thanks)]) == []


def test_a_correction_the_model_copied_as_its_lesson_is_still_kept() -> None:
    """The real 1.5B wrote the user's bullet-point correction word for word as its lesson; that
    lesson gave way to the user's words, which were then dropped as already seen: no lesson."""
    correction = "When you list things, use bullet points starting with '- ', one per line."
    episodes = said(
        ("user", "List three ways to save energy at home."),
        ("assistant", "1. Turn off lights."),
        ("user", correction),
    )
    outcome = proposals.Outcome(2, "correction", correction)
    copied = answer(("lesson", correction, ["lists", "tips"]))
    found = proposals.parse(copied, episodes, "en", outcomes=[outcome]).candidates
    assert [(c.kind, c.content, c.applies_to) for c in found] == [
        ("lesson", correction, ("List three ways to save energy at home", "lists", "tips"))
    ]


def test_grounding_compares_chinese_by_characters() -> None:
    episodes = said(
        ("user", "我对花生过敏，吃东西要特别小心。"),
        ("assistant", "好的，我会注意。建议你随身带药。"),
    )
    raw = answer(
        ("preference", "用户对花生过敏。", ["吃饭", "餐厅", "零食"]),
        ("profile", "用户住在上海，是一名医生。"),
        ("preference", "用户喜欢随身带药。"),
    )
    assert kept(raw, episodes) == [("preference", "用户对花生过敏。")]


# -- 2. each kind with its own; the user's words are theirs -------------------------------------


def cand(content: str, kind: str = "fact", **kwargs: Any) -> Candidate:
    return Candidate(kind, content, 0.8, (), **kwargs)


def test_a_candidate_is_compared_only_with_memories_of_its_kind(store: MemoryStore) -> None:
    summary = store.add("When the user asks about distances, the answer was in miles.", "summary")
    model = ScriptedModel(
        memories_answer(),
        lambda _m: {"decision": "update", "target_id": summary.id, "content": "overwritten"},
    )
    lesson = cand("When the user asks about distances, give them in kilometres.", "lesson")
    decision = reconcile.decide(store, model, lesson, "en")
    assert (decision.action, decision.why) == ("add", "new")
    assert model.calls == []  # the summary was never offered
    assert store.get(summary.id).content == summary.content  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["user", "pinned"])
def test_the_model_never_rewrites_the_users_own_or_a_pinned_memory(
    store: MemoryStore, kind: str
) -> None:
    origin = "user" if kind == "user" else "local"
    mine = store.add("I have violin lessons on Saturdays at ten.", "fact", origin=origin,
                     pinned=kind == "pinned")  # fmt: skip
    for action in ("update", "supersede"):
        model = ScriptedModel(
            memories_answer(),
            lambda _m, a=action: {"decision": a, "target_id": mine.id,
                                  "content": "The user plays violin."},
        )  # fmt: skip
        candidate = cand("The user has violin lessons with a teacher on Saturdays.")
        decision = reconcile.decide(store, model, candidate, "en")
        assert decision.action == "add" and decision.target_id is None, decision
    written = reconcile.apply(store, decision, candidate, origin="local", conversation_id=None,
                              job_id=1)  # fmt: skip
    assert written is not None and written.id != mine.id
    again = store.get(mine.id)
    assert again is not None and again.content == mine.content and again.status == "active"


def test_an_update_that_merges_another_thing_or_loses_the_new_words_is_an_add(
    store: MemoryStore,
) -> None:
    heights = store.add("The user has an acute fear of heights.", "preference", origin="local")
    merged_away = {
        "decision": "update", "target_id": heights.id,
        "content": "The user has an acute fear of heights and avoids high places.",
    }  # fmt: skip
    model = ScriptedModel(memories_answer(), lambda _m: merged_away)
    hotel = cand("The user avoids hotels with a bustling nightlife.", "preference")
    decision = reconcile.decide(store, model, hotel, "en")
    assert decision.action == "add" and decision.target_id is None, decision
    overwritten = {"decision": "update", "target_id": heights.id,
                   "content": "The user is afraid of tall buildings and bridges."}  # fmt: skip
    model = ScriptedModel(memories_answer(), lambda _m: overwritten)
    bridges = cand("The user is afraid of tall buildings and bridges.", "preference")
    assert reconcile.decide(store, model, bridges, "en").action == "add"
    # one thing said better is still an update
    model = ScriptedModel(
        memories_answer(),
        lambda _m: {"decision": "update", "target_id": heights.id,
                    "content": "The user has an acute fear of heights and avoids tall buildings."},
    )  # fmt: skip
    more = cand("The user's fear of heights means avoiding tall buildings.", "preference")
    assert reconcile.decide(store, model, more, "en").action == "update"


def test_a_plan_the_user_ticked_keeps_its_steps_and_only_moves_on(store: MemoryStore) -> None:
    spec = {"goal": "Learn Spanish", "steps": ["basics", "series", "tutor"], "current_step": 0}
    made = store.add(proposals.plan_text("Learn Spanish", spec["steps"], 0, "en"), "plan",  # type: ignore[arg-type]
                     origin="local", meta={"plan": spec})  # fmt: skip
    plans.save(store, Plan(made.id, "Learn Spanish", ("basics", "series", "tutor"), 2))
    model = ScriptedModel(memories_answer())

    def plan(steps: list[str], step: int) -> Candidate:
        new = {"goal": "Learn Spanish", "steps": steps, "current_step": step}
        text = proposals.plan_text("Learn Spanish", steps, step, "en")
        return Candidate("plan", text, 0.7, (), {"plan": new})

    back = reconcile.decide(store, model, plan(["basics", "series", "tutor"], 0), "en")
    other = reconcile.decide(store, model, plan(["a profile", "tutor"], 1), "en")
    assert back.action == other.action == "skip"
    assert back.why == "the user's plan is kept"
    ahead = reconcile.decide(store, model, plan(["basics", "series", "tutor"], 2), "en")
    assert ahead.action in ("skip", "update")  # the same step is no change


# -- 3. a correction supersedes the old fact ----------------------------------------------------


@pytest.mark.parametrize(
    ("old", "correction", "new", "kind"),
    [
        ("The user lives in Munich.", "Actually I moved to Berlin.", "The user moved to Berlin.",
         "fact"),
        ("The user lives in Munich.", "Actually I moved to Berlin.", "The user moved to Berlin.",
         "profile"),
        ("用户住在北京。", "其实我搬到柏林了。", "用户搬到柏林了。", "fact"),
        ("The user has two children.", "Actually, I have three children.",
         "The user has three children.", "fact"),
    ],
)  # fmt: skip
def test_a_correction_supersedes_the_old_fact(
    store: MemoryStore, old: str, correction: str, new: str, kind: str
) -> None:
    before = store.add(old, "fact", origin="user")
    cat = store.add("The user has a cat called Mimi.", "fact", origin="local")
    ids = chat(store, [(correction, "Noted.")])
    episodes = EpisodeLog(store.conn).episodes(1)
    raw = answer((kind, new))
    raw["memories"][0]["episodes"] = [ids[0]]
    (candidate,) = proposals.parse(raw, episodes, distill.detect_language(episodes)).candidates
    assert candidate.corrects
    model = ScriptedModel(memories_answer(), lambda _m: {"decision": "add", "target_id": 0,
                                                         "content": ""})  # fmt: skip
    decision = reconcile.decide(store, model, candidate, distill.detect_language(episodes), 1)
    written = reconcile.apply(store, decision, candidate, origin="local", conversation_id=1,
                              job_id=1)  # fmt: skip
    assert written is not None
    gone = store.get(before.id)
    assert gone is not None and gone.status == "superseded" and gone.superseded_by == written.id
    assert store.get(cat.id).status == "active"  # type: ignore[union-attr]
    active = [m.content for m in store.memories(statuses=("active",), limit=100)]
    assert old not in active


def test_a_new_fact_on_another_subject_supersedes_nothing(store: MemoryStore) -> None:
    home = store.add("The user lives in Munich.", "fact", origin="local")
    ids = chat(store, [("Actually, I also have a dog now.", "Lovely.")])
    episodes = EpisodeLog(store.conn).episodes(1)
    raw = answer(("fact", "The user has a dog."))
    raw["memories"][0]["episodes"] = [ids[0]]
    (candidate,) = proposals.parse(raw, episodes, "en").candidates
    model = ScriptedModel(memories_answer(), lambda _m: {"decision": "add", "target_id": 0,
                                                         "content": ""})  # fmt: skip
    assert reconcile.decide(store, model, candidate, "en").action == "add"
    assert store.get(home.id).status == "active"  # type: ignore[union-attr]


# -- 5. situations are kept and embedded ---------------------------------------------------------


def test_situations_are_stored_in_meta_and_embedded_with_the_content(store: MemoryStore) -> None:
    places = ("boats", "ferries", "cruises", "holidays by the sea")
    candidate = cand("The user gets seasick.", "preference", applies_to=places)
    model = ScriptedModel(memories_answer())
    decision = reconcile.decide(store, model, candidate, "en")
    written = reconcile.apply(store, decision, candidate, origin="local", conversation_id=None,
                              job_id=3)  # fmt: skip
    assert written is not None and written.meta["applies_to"] == list(places)
    assert store.index is not None
    stored = store.index.get("memories", [written.id])[written.id].reshape(-1)
    both, alone = store.embedder.embed([candidate.situated, candidate.content])
    assert float(np.dot(stored, both)) > 0.99 > float(np.dot(stored, alone))
    # an update adds its situations and embeds them too
    more = cand("The user gets seasick.", "preference", applies_to=("sailing",))
    updated = reconcile.apply(
        store, reconcile.Decision("update", written.id, "The user gets seasick on boats.", "model"),
        more, origin="local", conversation_id=None, job_id=4,
    )  # fmt: skip
    assert updated is not None and updated.meta["applies_to"] == [*places, "sailing"]
    stored = store.index.get("memories", [written.id])[written.id].reshape(-1)
    (expected,) = store.embedder.embed([proposals.situated(updated.content, [*places, "sailing"])])
    assert float(np.dot(stored, expected)) > 0.99


def test_a_lesson_keeps_the_newest_example_the_user_asked_for(store: MemoryStore) -> None:
    first = {"asked": "Write a note to my landlord.", "answer": "Hello,\nBest regards, Mia"}
    candidate = cand(SIGN_OFF, "lesson", applies_to=("notes",), meta={"example": first})
    decision = reconcile.Decision("add", None, SIGN_OFF, "new")
    written = reconcile.apply(store, decision, candidate, origin="local", conversation_id=None,
                              job_id=5)  # fmt: skip
    assert written is not None and written.meta["example"] == first
    again = {"asked": "Write to my dentist.", "answer": "Thank you.\nBest regards, Mia"}
    for meta, kept in (({"example": again}, again), ({}, again)):
        updated = reconcile.apply(
            store, reconcile.Decision("update", written.id, SIGN_OFF, "same text"),
            cand(SIGN_OFF, "lesson", meta=meta), origin="local", conversation_id=None, job_id=6,
        )  # fmt: skip
        assert updated is not None and updated.meta["example"] == kept  # none given: kept


# -- 6. credit only where the lesson bore on the answer -----------------------------------------


def test_only_the_lessons_that_bore_on_the_answer_are_credited(store: MemoryStore) -> None:
    km = store.add("When the user asks how far a place is, give kilometres.", "lesson",
                   meta={"applies_to": ["distances", "travel", "running races"]})  # fmt: skip
    bullets = store.add("When the user asks for a list, use bullet points.", "lesson")
    celsius = store.add(
        "当用户问温度时，用摄氏度回答。", "lesson", meta={"applies_to": ["烹饪", "天气"]}
    )
    lessons = [km, bullets, celsius]
    assert signals.credited(lessons, "How far is it from London to Paris?") == [km]
    assert signals.credited(lessons, "What distances do marathons have?") == [km]
    assert signals.credited(lessons, "List three ways to save energy at home.") == [bullets]
    assert signals.credited(lessons, "水的沸点是多少温度？") == [celsius]
    assert signals.credited(lessons, "明天的天气怎么样？") == [celsius]
    assert signals.credited(lessons, "Write a birthday wish for my sister.") == []
    close = lambda a, b: "birthday" in b  # noqa: E731
    assert signals.credited([bullets], "Write a birthday wish.", close) == [bullets]


def test_a_sentence_said_over_and_over_is_a_loop() -> None:
    loop = "用户要求署名小林。" + "助手的回复是正确的，但用户指出了错误。" * 4
    assert grounding.is_garbage(loop)
    assert not grounding.is_garbage("The user likes tea. The user likes tea in the morning.")


def test_each_correction_of_a_job_gets_the_situations_the_model_drew_from_its_episodes() -> None:
    """Two corrections in one job: each of the user's lessons is where the model's lesson from
    the same messages applies, not also where the other one does (with a vector per situation,
    a situation of the other lesson would bring it to the other lesson's questions)."""
    km, bullets = "No, give distances in kilometres.", "Use bullet points when you list things."
    episodes = said(
        ("user", "How long is a half marathon?"), ("assistant", "13.1 miles."), ("user", km),
        ("user", "List three ways to save energy at home."), ("assistant", "1. Turn off lights."),
        ("user", bullets),
    )  # fmt: skip
    outcomes = [proposals.Outcome(2, "correction", km), proposals.Outcome(5, "correction", bullets)]
    raw = answer()
    raw["memories"] = [
        {"kind": "lesson", "content": content, "applies_to": [place], "importance": 4,
         "episodes": ids}
        for content, place, ids in (
            ("When asked for a distance, give it in kilometres.", "race distances", [1, 2, 3]),
            ("When listing things, use bullet points.", "shopping lists", [4, 5, 6]),
        )
    ]  # fmt: skip
    found = proposals.parse(raw, episodes, "en", outcomes=outcomes).candidates
    assert [(c.content, c.applies_to) for c in found] == [
        ("Give distances in kilometres.", ("How long is a half marathon?", "race distances")),
        (bullets, ("List three ways to save energy at home", "shopping lists")),
    ]


def test_a_lesson_that_only_repeats_the_answer_is_not_kept() -> None:
    """A rule none of whose words the user said, taken from the assistant's answer, is the
    answer again, not what the user wanted: thanks for it teach nothing."""
    episodes = said(
        ("user", "My nephew turns ten on Saturday. Any gift ideas?"),
        ("assistant", "A building kit or a telescope would delight a curious ten-year-old."),
        ("user", "Thanks!"),
    )
    praise = proposals.Outcome(2, "praise", "Thanks!")
    echo = "When the user asks for a present for a child, suggest a building kit or a telescope."
    assert kept(answer(("lesson", echo)), episodes, outcomes=[praise]) == []
    # A rule in words the user said is theirs as much as the answer's: kept.
    asked = said(
        ("user", "My nephew loves stars; he wants a telescope. Which kind for a ten-year-old?"),
        ("assistant", "A small refractor telescope is easy for a curious ten-year-old."),
        ("user", "Thanks!"),
    )
    rule = "When the user asks about gifts for a young stargazer, suggest a telescope."
    assert kept(answer(("lesson", rule)), asked, outcomes=[praise]) == [("lesson", rule)]
