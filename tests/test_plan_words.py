"""A plan in the user's own words (issue 25): the steps a user lists are kept as said, with the
step they are on, and moved on only when they say a step is finished or begun; the distiller's
plan stays for a plan told in prose, and may not move the active plan when the user said nothing
of it. (The answer gets the plan its message names: ``test_lessons.py``.)"""

from __future__ import annotations

from typing import Any

import pytest

from engram.assistant.learning import plan_words, proposals
from test_learning_faithful import answer, kept, said

SPANISH = (
    "I'm learning Spanish. My plan: 1) finish the Duolingo basics, 2) watch one Spanish series"
    " with subtitles, 3) have a 30-minute conversation with a tutor. I just finished the"
    " Duolingo basics. What's next?"
)
SPANISH_STEPS = [
    "finish the Duolingo basics",
    "watch one Spanish series with subtitles",
    "have a 30-minute conversation with a tutor",
]


@pytest.mark.parametrize(
    ("message", "goal", "steps", "current"),
    [
        (SPANISH, "Learning Spanish", SPANISH_STEPS, 1),
        (
            "I'm training for a 10 km race. Plan: week 1 run 3 km three times, week 2 run 5 km"
            " three times, week 3 run 7 km twice, week 4 race. I'm starting week 1 today.",
            "Training for a 10 km race",
            ["week 1 run 3 km three times", "week 2 run 5 km three times",
             "week 3 run 7 km twice", "week 4 race"],
            0,
        ),
        (
            "My goal is to ship the beta by March. Steps:\n1. fix the login bug\n2. write the"
            " onboarding docs\n3. invite 20 testers\nI haven't finished the login bug yet.",
            "Ship the beta by March",
            ["fix the login bug", "write the onboarding docs", "invite 20 testers"],
            0,  # not finished: still on the first step
        ),
        (
            "To move to Lisbon I need to: (1) get a visa (2) find a flat (3) ship my books."
            " The visa is done!",
            "To move to Lisbon",
            ["get a visa", "find a flat", "ship my books"],
            1,
        ),
        (
            "我在备考雅思。计划：1）背完核心词汇，2）每天做一套听力，3）每周写两篇作文，"
            "4）参加一次模考。我已经背完核心词汇了，下一步做什么？",
            "备考雅思",
            ["背完核心词汇", "每天做一套听力", "每周写两篇作文", "参加一次模考"],
            1,
        ),
        (
            "我在准备半程马拉松。计划：第一周每次跑5公里，第二周每次8公里，第三周每次12公里，"
            "第四周比赛。这周是第一周。",
            "准备半程马拉松",
            ["第一周每次跑5公里", "第二周每次8公里", "第三周每次12公里", "第四周比赛"],
            0,
        ),
    ],
)  # fmt: skip
def test_a_listed_plan_is_read_as_said(
    message: str, goal: str, steps: list[str], current: int
) -> None:
    found = plan_words.listed(message)
    assert found == plan_words.Listed(goal, tuple(steps), current)


@pytest.mark.parametrize(
    "message",
    [
        "What is 1) the capital of France and 2) its population?",  # a question
        "I paid 1.5 euros, 2.5 euros and 3.5 euros.",  # numbers, no list
        "1) eggs 2) milk",  # no goal before it
        "I'm learning Spanish and watching a series with subtitles.",  # prose: the distiller's
        "Week 1 went well.",  # one label, no list
        "Please fix these in my essay: 1) the intro, 2) the conclusion.",  # a task, no plan
        "Here are the results: 1. Ana 2. Ben 3. Chloe.",
    ],
)
def test_no_plan_where_none_is_listed(message: str) -> None:
    assert plan_words.listed(message) is None


def _spanish(step: int) -> dict[str, Any]:
    return {"goal": "Learning Spanish", "steps": SPANISH_STEPS, "current_step": step}


def test_the_active_plan_moves_on_only_when_the_user_says_a_step_is_finished() -> None:
    moved = (
        "Spanish update: I watched all of La Casa de Papel with subtitles, so that step is done."
    )
    assert plan_words.said_plan([moved], _spanish(1)) == _spanish(2)
    for nothing in (
        "Remind me, what's my next step with Spanish?",
        "What should I work on next for my Spanish?",
        "I haven't finished the series yet.",
        "I finished a book about Rome.",  # finished, but no step of the plan
    ):
        assert plan_words.said_plan([nothing], _spanish(1)) is None, nothing
    # "finished" is no word of a step: the tutor step is the one named, and it was the last
    last = plan_words.said_plan(["I had a tutor call today, finished!"], _spanish(1))
    assert last == {**_spanish(2), "done": True}
    # what a later message of the same conversation says moves the plan just listed
    assert plan_words.said_plan([SPANISH, moved], None) == _spanish(2)
    weeks = plan_words.said_plan(
        ["Training plan: week 1 run 3 km, week 2 run 5 km, week 3 race.",
         "Week 1 is done, starting week 2 tomorrow."], None,
    )  # fmt: skip
    assert weeks is not None and weeks["current_step"] == 1
    ielts = {"goal": "备考雅思", "steps": ["背完核心词汇", "每天做一套听力", "每周写两篇作文"],
             "current_step": 1}  # fmt: skip
    done = plan_words.said_plan(["听力我已经每天练了一个月，这一步算完成了。接下来呢？"], ielts)
    assert done == {**ielts, "current_step": 2}
    assert plan_words.said_plan(["提醒我一下，雅思下一步是什么？"], ielts) is None
    # what may let the distiller move a plan: something of that plan finished or begun
    assert plan_words.moves("听力练完了。", ielts)
    assert not plan_words.moves("我的房租每月3200元，要涨4.5%，涨完是多少？", ielts)
    assert not plan_words.moves("I finished a book about Rome.", _spanish(1))


def test_the_users_listed_plan_replaces_the_distillers_reading() -> None:
    episodes = said(("user", SPANISH), ("assistant", "Next, watch a series with subtitles."))
    # what the real 1.5B answered: the first step as the goal, the rest as the steps
    wrong = {
        "goal": "finish Duolingo basics",
        "steps": ["watch one Spanish series with subtitles", "have a conversation with a tutor"],
        "current_step": 0,
    }
    result = proposals.parse(answer(plan=wrong), episodes, "en")
    [plan] = result.candidates
    assert plan.kind == "plan" and plan.meta["plan"] == _spanish(1)
    assert plan.content == proposals.plan_text("Learning Spanish", SPANISH_STEPS, 1, "en")


def test_the_distiller_may_not_move_the_active_plan_when_the_user_said_nothing_of_it() -> None:
    episodes = said(("user", "What is the capital of Australia?"), ("assistant", "Canberra."))
    finished = {"goal": "Learning Spanish", "steps": SPANISH_STEPS, "current_step": 3}
    assert kept(answer(plan=finished), episodes, plan=_spanish(1)) == []
    # a question about the plan sets no goal: no new plan from "my next step"
    asked = said(("user", "Remind me, what's my next step with Spanish?"), ("assistant", "…"))
    new = {"goal": "To work on next for my Spanish", "steps": ["Learn Spanish", "Cook vegetables"],
           "current_step": 1}  # fmt: skip
    assert kept(answer(plan=new), asked) == []
    # told in prose, a plan is the distiller's to read
    prose = said(
        ("user", "I'm learning Spanish: Duolingo first, then a series."), ("assistant", "")
    )
    spec = {"goal": "Learn Spanish", "steps": ["Duolingo", "a series"], "current_step": 0}
    assert [kind for kind, _ in kept(answer(plan=spec), prose)] == ["plan"]
