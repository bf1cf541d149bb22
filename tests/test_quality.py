"""The bundled quality check: its scorers on hand-made answers, the choice of the answering model,
the results kept per machine state, the recommendation and ``engram models check``; one slow
test runs the real check on the tiny model end to end."""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import date
from pathlib import Path

import pytest

import tiny
from engram.assistant import quality_check
from engram.cli.main import main
from engram.core import paths, resources, settings
from engram.models import catalogue, hardware, quality
from engram.models.quality import Answer, Item, Result, score

SMALL, LARGE = "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"
MONDAY = date(2025, 3, 3)


def _item(kind: str = "format", lang: str = "en", **expect: object) -> Item:
    return Item("t", lang, kind, "question", dict(expect))


# -- the check's data ---------------------------------------------------------------------------


def test_the_check_has_every_kind_in_both_languages_and_each_item_a_rule() -> None:
    items = quality.items()
    assert len({i.id for i in items}) == len(items)
    for lang in ("en", "zh"):
        kinds = [i.kind for i in items if i.lang == lang]
        assert 8 <= len(kinds) <= 12 and set(kinds) == set(quality.KINDS)
    for item in items:
        assert item.expect and item.ask
        assert bool(item.memories) == (item.kind == "memory")
        assert bool(item.said_before) == (item.kind == "preference")
        assert ("tool" in item.expect) == (item.kind == "tool")


def test_the_check_shares_no_sentence_with_the_eval_sets() -> None:
    ours = json.loads(resources.read_text("quality", "check.json"))["items"]
    texts = {t for i in ours for t in (i["ask"], *i.get("said_before", ()), *i.get("memories", ()))}
    folder = Path(str(resources.path("eval")))
    for path in folder.glob("*.json"):
        theirs = path.read_text(encoding="utf-8")
        assert not [t for t in texts if t in theirs], path.name


# -- scorers ------------------------------------------------------------------------------------


def test_bullets_count_exactly_and_numbered_lines_fail() -> None:
    item = _item(bullets=3, numbered=0)
    assert score(item, Answer("Try these:\n- Dim the lights\n- No screens\n* Same bedtime")) == ""
    assert score(item, Answer("• 苹果\n• 香蕉\n• 橙子")) == ""
    assert score(item, Answer("1. Dim the lights\n2. No screens\n3. Same bedtime")) != ""
    assert score(item, Answer("- one\n- two")) == "2 bullets, not 3"
    assert score(item, Answer("- a\n- b\n- c\n1. d")) == "numbered lines"
    assert score(_item(bullets=3, numbered=0), Answer("一、苹果\n- 香蕉\n- 橙子\n- 梨")) != ""


def test_word_and_character_limits_count_as_people_do() -> None:
    words = _item(max_words=5, min_words=2)
    assert score(words, Answer("It turns source code into machine code.")) == "7 words, over 5"
    assert score(words, Answer("It translates programs.")) == ""
    assert score(words, Answer("Yes.")) == "1 words, under 2"
    chars = _item(lang="zh", max_chars=10)
    assert score(chars, Answer("植物用光制造养分。")) == ""  # punctuation is not counted
    assert score(chars, Answer("植物利用阳光把水和二氧化碳变成养分。")) != ""
    assert quality.characters("用 AI 写 100 字") == 5


def test_numbers_are_read_in_any_width_with_separators() -> None:
    item = _item(numbers=[888, 21.1])
    assert score(item, Answer("37 × 24 = 888")) == ""
    assert score(item, Answer("答案是８８８。")) == ""
    assert score(item, Answer("About 21.1 km.")) == ""
    assert score(item, Answer("It is 887.")) == "wrong or missing number"
    assert quality.numbers("1,250 and 3.5") == [1250.0, 3.5]


def test_words_match_at_word_starts_in_english_and_anywhere_in_chinese() -> None:
    item = _item(any=["km", "公里"], none=["mile", "sorry"])
    assert score(item, Answer("About 21 km, with a smile.")) == ""  # "mile" is not in "smile"
    assert score(item, Answer("大约21公里")) == ""
    assert score(item, Answer("About 13 miles (21 km).")) == "says 'mile'"
    assert score(item, Answer("I'm sorry, but I can't assist with that.")).startswith("missing")
    assert score(_item(any=["beagle"]), Answer("Pepper is a BEAGLE.")) == ""


def test_a_tool_item_needs_the_call_and_the_right_result() -> None:
    item = _item("tool", tool="calculator", numbers=[45])
    assert score(item, Answer("18% of 250 is 45.", ("calculator",))) == ""
    assert score(item, Answer("18% of 250 is 45.")) == "did not call calculator"
    assert score(item, Answer("It is 40.", ("calculator",))) == "wrong or missing number"


def test_weekdays_are_named_in_either_language() -> None:
    item = _item("tool", tool="clock", weekday=10)  # ten days after a Monday: a Thursday
    assert score(item, Answer("It will be Thursday.", ("clock",)), MONDAY) == ""
    assert score(item, Answer("那天是星期四。", ("clock",)), MONDAY) == ""
    assert score(item, Answer("It will be Friday.", ("clock",)), MONDAY) == "not thursday"
    sunday = _item("tool", tool="clock", weekday=6)
    assert score(sunday, Answer("今天是礼拜天", ("clock",)), MONDAY) == ""


def test_an_empty_answer_fails_every_item() -> None:
    for item in quality.items():
        assert score(item, Answer("  ")) == "no answer"


# -- the choice ---------------------------------------------------------------------------------


def _result(model_id: str, passed: int, rate: float, total: int = 16) -> Result:
    return Result(model_id, passed, total, rate, 60.0)


def test_the_best_scorer_at_a_usable_speed_answers() -> None:
    fast_weak, fast_good = _result("a", 5, 30.0), _result("b", 10, 11.0)
    slow_best = _result("c", 14, 4.0)
    assert quality.choose([fast_weak, fast_good, slow_best]) == fast_good
    assert quality.choose([fast_weak, slow_best]) == fast_weak  # the better one is too slow
    assert quality.choose([slow_best, _result("d", 2, 7.9)]) is None  # none fast enough
    tie = [_result("a", 9, 12.0), _result("b", 9, 20.0)]
    assert quality.choose(tie) == tie[1]  # a tie goes to the faster


def test_the_reason_names_both_models_in_english_and_chinese() -> None:
    verdict = quality.Verdict(
        _result(LARGE, 9, 11.2), (_result(SMALL, 4, 25.0), _result(LARGE, 9, 11.2))
    )
    names = {SMALL: "Qwen2.5-Coder 0.5B", LARGE: "Qwen2.5-Coder 1.5B"}
    assert verdict.reason(names) == (
        "Answers with Qwen2.5-Coder 1.5B: 9/16 on the quality check at 11 tokens/s; "
        "Qwen2.5-Coder 0.5B scored 4/16."
    )
    zh = verdict.reason(names, "zh_CN")
    assert zh.startswith("用 Qwen2.5-Coder 1.5B 回答：质量检查 9/16") and "4/16" in zh


# -- kept per machine state ---------------------------------------------------------------------


@pytest.fixture
def pair_files(starter_models: Path) -> None:
    """The starter pair's files (present where the real lane ran; fetched like it otherwise)."""
    from engram.models import starter

    cat = catalogue.load()
    starter.fetch([cat.get(SMALL), cat.get(LARGE)], report=lambda _line: None)


def _entries() -> tuple[catalogue.ModelEntry, catalogue.ModelEntry]:
    cat = catalogue.load()
    return cat.get(SMALL), cat.get(LARGE)


def _keep(small: int = 4, large: int = 9, large_rate: float = 11.0) -> None:
    small_entry, large_entry = _entries()
    quality.keep(small_entry, _result(SMALL, small, 25.0))
    quality.keep(large_entry, _result(LARGE, large, large_rate))


@pytest.mark.usefixtures("pair_files")
def test_results_are_kept_per_model_file_and_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = _entries()
    assert quality.cached([small, large]) == {}
    _keep()
    kept = quality.cached([small, large])
    assert {k: (r.passed, r.tokens_per_s) for k, r in kept.items()} == {
        SMALL: (4, 25.0),
        LARGE: (9, 11.0),
    }
    verdict = quality.verdict([small, large])
    assert verdict is not None and verdict.chosen.model_id == LARGE

    with monkeypatch.context() as patched:
        patched.setattr(quality, "cpu", lambda: "another CPU|64|x86_64")
        assert quality.cached([small, large]) == {}  # another machine: checked again
    stat = small.main_file().stat()
    try:  # the same path, another file: checked again
        os.utime(small.main_file(), ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert set(quality.cached([small, large])) == {LARGE}
    finally:
        os.utime(small.main_file(), ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert set(quality.cached([small, large])) == {SMALL, LARGE}


@pytest.mark.usefixtures("pair_files")
def test_the_recommendation_answers_with_the_checked_choice_and_learns_as_well() -> None:
    cat = catalogue.load()
    machine = hardware.Machine(ram_total=8 * hardware.GB, ram_available=6 * hardware.GB,
                               disk_free=100 * hardware.GB, cores=2, simd="avx512")  # fmt: skip
    before = hardware.recommend(cat, machine)
    assert before is not None and (before.small, before.large) == (SMALL, LARGE)
    _keep()
    checked = hardware.probe(gpu=False).verdict
    assert checked is not None
    pair = hardware.recommend(cat, dataclasses.replace(machine, verdict=checked))
    assert pair is not None and (pair.small, pair.large) == (LARGE, LARGE)
    assert pair.reason.startswith("Answers with Qwen2.5 Coder 1.5B") and "4/16" in pair.reason
    assert pair.reason_in("zh_CN").startswith("用 Qwen2.5 Coder 1.5B")
    offer = hardware.offer(cat, dataclasses.replace(machine, verdict=checked))
    assert offer is not None and [e.id for e in offer.models][:1] == [LARGE]  # loaded once

    _keep(large_rate=5.0)  # the 1.5B too slow here: the 0.5B stands
    slow = hardware.probe(gpu=False).verdict
    assert slow is not None and slow.chosen.model_id == SMALL
    pair = hardware.recommend(cat, dataclasses.replace(machine, verdict=slow))
    assert pair is not None and (pair.small, pair.large) == (SMALL, LARGE)


def test_the_learning_model_is_never_smaller_than_the_answering_one() -> None:
    cat = catalogue.load()
    small, large, seven = cat.get(SMALL), cat.get(LARGE), cat.get("qwen2.5-7b-instruct")
    assert hardware.learner_for(large, small).id == LARGE
    assert hardware.learner_for(large, seven).id == "qwen2.5-7b-instruct"
    assert hardware.learner_for(small, large).id == LARGE
    assert hardware.learner_for(large, None).id == LARGE


@pytest.mark.usefixtures("pair_files")
def test_the_choice_is_applied_once_and_only_over_the_starter_default() -> None:
    store = settings.SettingsStore(settings.Settings())
    assert quality_check.pending(store.current)
    assert quality_check.adopt(store) is None  # nothing checked yet
    _keep()
    assert quality_check.pending(store.current)  # checked, not applied yet
    changed = quality_check.adopt(store)
    assert changed is not None and "Qwen2.5 Coder 1.5B" in str(changed)
    assert (store.current.small_model, store.current.large_model) == (LARGE, LARGE)
    store.choose_models(small=SMALL)  # the user goes back: it stays so
    assert quality_check.adopt(store) is None and store.current.small_model == SMALL
    assert not quality_check.pending(store.current)

    chose = settings.SettingsStore(tiny.settings())  # a model the user chose is never replaced
    assert not quality_check.pending(chose.current)


# -- engram models check ------------------------------------------------------------------------


@pytest.mark.usefixtures("pair_files")
def test_models_check_prints_the_kept_scores_and_the_choice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _keep()
    settings.save(settings.Settings())  # the starter default: the choice is applied
    assert main(["models", "check"]) == 0
    out = capsys.readouterr().out
    assert f"{SMALL:40} 4/16 passed, 25.0 tokens/s" in out
    assert f"{LARGE:40} 9/16 passed, 11.0 tokens/s" in out
    assert "Answers with Qwen2.5 Coder 1.5B" in out and "Engram now answers with" in out
    assert settings.load().small_model == LARGE
    assert main(["models", "recommend"]) == 0
    assert "Answers with Qwen2.5 Coder 1.5B Instruct (Q4_K_M): 9/16" in capsys.readouterr().out


def test_models_check_refuses_an_unknown_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "check", "no-such-model"]) == 2
    assert "no-such-model" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("starter_models")
def test_the_real_check_runs_the_tiny_model_through_the_real_turn() -> None:
    entry = catalogue.load().get(tiny.MODEL)
    seen: list[tuple[str, int, int]] = []
    prefs = tiny.settings()
    (result,) = quality_check.check([entry], prefs, lambda *p: seen.append(p), again=True)
    items = quality.items()
    assert result.model_id == tiny.MODEL and result.total == len(items)
    assert seen[-1] == (tiny.MODEL, len(items), len(items))
    assert result.tokens_per_s > 0 and result.seconds > 0
    assert 0 <= result.passed < len(items) and set(result.failed) <= {i.id for i in items}
    assert quality.cached([entry]) == {tiny.MODEL: result}  # kept: not run again
    assert quality_check.check([entry], prefs) == [result]
    assert not list(paths.data_dir().glob("engram.sqlite*"))  # the user's data untouched
