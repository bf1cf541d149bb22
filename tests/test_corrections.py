"""A correction supersedes (issue 28, item 6): a fact set right in a later chat replaces the old
one, which stays for history (superseded, naming its replacement, its text never rewritten) and
is no longer recalled; pinned memories stay as they are, and words that set an answer right, or
a new fact beside an old one, replace nothing.

A scripted distiller gives the exact sequences: first the one the real 1.5B gave most often, no
memory at all for the correction (the user's own words then set the fact right), then a model
that calls a contradiction an update. ``bench/corrections.py`` measures the real 1.5B on the
same pairs (``tests/data/corrections.json``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engram.assistant import remembering
from engram.assistant.learning import consolidation
from engram.core.cancel import CancelToken
from engram.memory import changes
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.records import Memory
from engram.memory.store import MemoryStore
from test_consolidation_support import ScriptedModel, ScriptedSource
from test_memory_store import embedder, store  # noqa: F401  (shared fixtures)

PAIRS = json.loads(
    (Path(__file__).parent / "data" / "corrections.json").read_text(encoding="utf-8")
)["pairs"]
NOTHING = {"memories": [], "summary": "", "plan": {"goal": "", "steps": [], "current_step": 0}}


def _said(store: MemoryStore, text: str) -> Memory:  # noqa: F811
    """A fact the user kept in their own words ("remember this: …")."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    episode = log.append(chat, "user", f"remember this: {text}")
    kept = store.get(remembering.remember(store, chat, episode.id, text).memory_id)
    assert kept is not None
    return kept


def _learn(store: MemoryStore, said: str, model: ScriptedModel) -> None:  # noqa: F811
    """A chat in which the user says ``said``, learned with the scripted distiller."""
    log, queue = EpisodeLog(store.conn), JobQueue(store.conn)
    chat = log.new_conversation().id
    log.append(chat, "user", said)
    log.append(chat, "assistant", "Noted.")
    queue.enqueue(chat)
    job = queue.claim()
    assert job is not None
    result = consolidation.run_job(job, store, queue, ScriptedSource(model), CancelToken())
    assert result.outcome == "done"


def _proposes(*memories: dict[str, Any]) -> ScriptedModel:
    return ScriptedModel(lambda _m: {**NOTHING, "memories": list(memories)})


def _fact(content: str) -> dict[str, Any]:
    return {"kind": "fact", "content": content, "applies_to": [], "importance": 3, "episodes": []}


# Said in other words than the fact, with no shared word for what it is about (where the user
# lives, works, what someone is called): too far from it to be taken for its correction.
OTHER_WORDS = {"count-cats", "age-son", "job", "no-longer-coffee", "no-longer-zh"}


@pytest.mark.parametrize(
    "pair",
    [
        pytest.param(
            p,
            id=p["id"],
            marks=[pytest.mark.xfail(strict=True, reason="other words")]
            if p["id"] in OTHER_WORDS
            else [],
        )
        for p in PAIRS
    ],
)
def test_the_users_correction_replaces_the_fact_when_the_distiller_proposes_nothing(
    store: MemoryStore,  # noqa: F811
    pair: dict[str, Any],
) -> None:
    old = _said(store, pair["first"][0])
    model = _proposes()
    _learn(store, pair["correction"][0], model)
    before = store.get(old.id)
    assert before is not None and before.status == "superseded"
    assert before.content == old.content  # kept for history, never rewritten
    new = store.get(before.superseded_by or 0)
    assert new is not None and new.status == "active"
    assert re.search(pair["new"], new.content, re.IGNORECASE)
    assert [m.id for m in store.memories()] == [new.id]  # the only one recalled
    assert [kind for kind, _ in model.calls] == ["distill"]  # no model decided it
    assert [w.change for w in store.writes(old.id)][-1] == f"superseded by #{new.id}"


def test_a_contradiction_the_model_calls_an_update_supersedes_instead(store: MemoryStore) -> None:  # noqa: F811
    old = _said(store, "I have two cats at home.")
    model = ScriptedModel(
        lambda _m: {**NOTHING, "memories": [_fact("The user has three cats")]},
        lambda _m: {"decision": "update", "target_id": old.id, "content": "two or three cats"},
    )
    _learn(store, "Actually I have three cats now.", model)
    assert [kind for kind, _ in model.calls] == ["distill", "reconcile"]
    before = store.get(old.id)
    assert before is not None and before.status == "superseded"
    assert before.content == "I have two cats at home."  # never rewritten
    assert [m.content for m in store.memories()] == ["The user has three cats"]


def test_the_users_words_do_not_replace_what_was_just_learned_from_them(
    store: MemoryStore,  # noqa: F811
) -> None:
    old = _said(store, "My wife's name is Maria and she is a teacher.")
    model = _proposes(_fact("The user's wife's name is Marta"))
    _learn(store, "Oops, I mistyped: my wife's name is Marta.", model)
    assert [m.content for m in store.memories()] == ["The user's wife's name is Marta"]
    assert store.get(old.id).status == "superseded"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("old", "new", "lost"),
    [
        ("I have two cats at home.", "The user adopted another cat", True),
        ("I take 5 mg of melatonin every night.", "The user takes melatonin every night.", True),
        ("My daughter is called Emma.", "The user has a daughter.", True),
        ("I have two cats at home.", "I have three cats now.", False),
        ("I'm not allergic to penicillin.", "I'm allergic to penicillin after all.", False),
        ("我有两个孩子。", "我有三个孩子。", False),
    ],
)
def test_a_statement_that_leaves_out_the_value_corrects_nothing(
    old: str, new: str, lost: bool
) -> None:
    """The number, date or name a memory changes in, left out with nothing in its place; a
    dropped negation is a change."""
    assert changes.drops_value(old, new) is lost
    assert changes.update_between(old, new) is not None


@pytest.mark.parametrize("filed_as", ["preference", "summary"])
def test_a_habit_set_right_as_a_preference_replaces_the_fact(
    store: MemoryStore,  # noqa: F811
    filed_as: str,
) -> None:
    """A correction is compared with facts and preferences together: the real 1.5B filed
    "I no longer drink coffee" as a preference (or as the summary, kept as the preference it
    states), the coffee every morning was a fact."""
    old = _said(store, "我每天早上都喝咖啡。")
    habit = "用户已经不喝咖啡了，现在只喝绿茶。"
    preference = {**_fact(habit), "kind": "preference"}
    model = ScriptedModel(
        lambda _m: (
            {**NOTHING, "memories": [preference]}
            if filed_as == "preference"
            else {**NOTHING, "summary": habit}
        ),
        lambda _m: {"decision": "supersede", "target_id": old.id, "content": ""},
    )
    _learn(store, "我已经不喝咖啡了，现在只喝绿茶。", model)
    assert [kind for kind, _ in model.calls] == ["distill", "reconcile"]
    assert (
        f"NEW (preference) (the user said this to set something earlier right): {habit}"
        in (model.calls[1][1][-1]["content"])
    )
    assert f"[{old.id}] (fact) 我每天早上都喝咖啡。" in model.calls[1][1][-1]["content"]
    assert [(m.kind, m.content) for m in store.memories()] == [("preference", habit)]
    assert store.get(old.id).status == "superseded"  # type: ignore[union-attr]


def test_a_new_fact_beside_an_old_one_replaces_nothing(store: MemoryStore) -> None:  # noqa: F811
    son = _said(store, "My son is 7 years old.")
    model = ScriptedModel(
        lambda _m: {**NOTHING, "memories": [_fact("The user's daughter is 5 years old")]},
        lambda _m: {"decision": "add", "target_id": 0, "content": ""},
    )
    _learn(store, "My daughter is 5 years old.", model)
    assert sorted(m.content for m in store.memories()) == [
        "My son is 7 years old.",
        "The user's daughter is 5 years old",
    ]
    assert store.get(son.id) == son


def test_words_that_set_an_answer_right_replace_no_memory(store: MemoryStore) -> None:  # noqa: F811
    home = _said(store, "I live in Sydney with my two dogs.")
    _learn(
        store, "No, that's wrong: the capital of Australia is Canberra, not Sydney.", _proposes()
    )
    assert [m.id for m in store.memories()] == [home.id]  # and nothing added beside it
    _learn(store, "Actually I'm thinking of getting a cat.", _proposes())  # sets nothing right
    assert [m.id for m in store.memories()] == [home.id]


def test_a_pinned_memory_is_not_replaced_by_a_correction(store: MemoryStore) -> None:  # noqa: F811
    home = store.pin(_said(store, "I live in Berlin, close to the river.").id)
    _learn(store, "I don't live in Berlin anymore, I moved to Munich last month.", _proposes())
    assert store.get(home.id) == home
    assert [m.id for m in store.memories()] == [home.id]


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("My wife's name is Maria and she is a teacher.", "Actually my sister is called Anna."),
        ("我妻子叫玛丽亚，是老师。", "其实我姐姐叫安娜。"),
    ],
)
def test_a_correction_about_someone_else_replaces_nothing(
    store: MemoryStore,  # noqa: F811
    first: str,
    later: str,
) -> None:
    """Both say what someone is called, of two different people: the wife keeps her name."""
    wife = _said(store, first)
    _learn(store, later, _proposes())
    assert store.get(wife.id) == wife
    assert wife.id in [m.id for m in store.memories()]
