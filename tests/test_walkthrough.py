"""A new user's first minutes in a real window (issue 48): Xvfb, the real starter pair, a fresh
data folder, English and then 简体中文.

``tests/walkthrough_driver.py`` runs Engram as ``engram`` starts it, on Xvfb with
``QT_QPA_PLATFORM=xcb``, clicks through it like a new user and writes what each step showed
(read from the widgets) and a screenshot of the whole screen per step. The screenshots are kept
as test artefacts in ``$ENGRAM_TEST_ARTEFACTS/walkthrough/LANGUAGE`` (else
``.cache/walkthrough/LANGUAGE``); the tests below assert on the report, one behaviour each.
Each language is walked once per run (about a minute on two cores); no learning job runs in it
(the driver says how the learning toast is fed instead).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

import xvfb
from conftest import MODELS_DIR, REPO
from engram.assistant.turn import utilization
from engram.models import catalogue

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("walkthrough")]

LOCALES = {"en": "en_US.UTF-8", "zh_CN": "zh_CN.UTF-8"}
DRIVER = Path(__file__).with_name("walkthrough_driver.py")
WALK_S = 540  # the whole walk; a hung one fails its tests instead of the run
ARTEFACTS = "ENGRAM_TEST_ARTEFACTS"


@dataclass
class Walked:
    """One language's walk: what the driver reported, where its screenshots are, its output."""

    report: dict[str, Any]
    shots: Path
    home: Path
    output: str

    def step(self, name: str) -> dict[str, Any]:
        """What step ``name`` saw; fails saying where the walk stopped when it never got there."""
        steps = self.report.get("steps", {})
        error = self.report.get("error")
        if name not in steps or (error and error["step"] == name):
            where = error["what"] if error else self.output[-2000:]
            pytest.fail(f"the walkthrough did not finish step {name!r}: {where}")
        return steps[name]


def artefacts(language: str) -> Path:
    """Where a language's screenshots are kept after the run (emptied first)."""
    root = Path(os.environ.get(ARTEFACTS) or REPO / ".cache")
    folder = root / "walkthrough" / language
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


@pytest.fixture(scope="session")
def walks(x_display: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
    Callable[[str], Walked]
]:  # fmt: skip
    """Walk a language once per run, in a fresh data folder, on the shared display."""
    done: dict[str, Walked] = {}

    def walk(language: str) -> Walked:
        if language not in done:
            home = tmp_path_factory.mktemp(f"walkthrough-home-{language}")
            shots = artefacts(language)
            env = xvfb.environment(
                x_display, ENGRAM_HOME=str(home), ENGRAM_MODELS_DIR=str(MODELS_DIR),
                LANG=LOCALES[language],
            )  # fmt: skip
            for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
                env.pop(name, None)
            try:
                ran = subprocess.run(
                    [sys.executable, str(DRIVER), str(shots)], env=env, capture_output=True,
                    text=True, timeout=WALK_S, check=False,
                )  # fmt: skip
                output = f"exit code {ran.returncode}\n{ran.stdout}{ran.stderr}"
            except subprocess.TimeoutExpired as exc:
                output = f"the walk took more than {WALK_S} s: {exc.stderr!r}"
            for log in sorted((home / "data" / "logs").glob("*.log")):  # a crash is said here
                output += f"\n{log.name}:\n{log.read_text(errors='replace')[-3000:]}"
            try:
                report = json.loads((shots / "report.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                report = {}
            done[language] = Walked(report, shots, home, output)
        return done[language]

    yield walk


@pytest.fixture(params=list(LOCALES))
def walked(request: pytest.FixtureRequest, walks: Callable[[str], Walked]) -> Walked:
    return walks(request.param)


def _chat_names(text: str) -> set[str]:
    """The answering and learning models a recommendation names (by their catalogue names)."""
    names = {e.name for e in catalogue.load().models if {"small", "large"} & set(e.roles)}
    found = {name for name in names if name in text}
    return {name for name in found if not any(name != other and name in other for other in found)}


def test_the_walk_reaches_its_end_with_a_screenshot_of_every_step(walked: Walked) -> None:
    assert "seconds" in walked.report, f"the walk ended early: {walked.output[-4000:]}"
    assert "error" not in walked.report, walked.report["error"]["traceback"]
    assert walked.report["language"] == walked.shots.name
    shots = walked.report["shots"]
    assert len(shots) >= 20
    for name in shots:
        image = QImage(str(walked.shots / name))
        assert (image.width(), image.height()) == xvfb.SCREEN
        sampled = {image.pixel(x, y) for x in range(0, 1280, 9) for y in range(0, 800, 9)}
        assert len(sampled) > 20, f"{name} is blank"


def test_the_main_model_manager_and_memory_windows_fit_an_800_px_screen(walked: Walked) -> None:
    for step, key in (("first_start", "main_window"), ("model_manager", "window"),
                      ("memory_browser", "window")):  # fmt: skip
        placed = walked.step(step)[key]
        assert placed["inside"], f"{step}: {placed['frame']} is not inside {placed['screen']}"


def test_the_welcome_panel_shows_one_recommendation_while_the_window_settles(
    walked: Walked,
) -> None:
    """From the first frame to 8 s after the model is ready (sampled every 200 ms) the panel
    says one thing, the model manager's recommendation: a pair to fetch, or nothing when it is
    the pair in use."""
    start, manager = walked.step("first_start"), walked.step("model_manager")
    samples = start["welcome"]
    assert any(s["ready"] for s in samples) and any(not s["ready"] for s in samples)
    offers = {s["offer"] for s in samples if not s["checking"]}
    assert len(offers) == 1, offers
    recommended = _chat_names(manager["pair"])
    assert len(recommended) == 2, manager["pair"]
    (offer,) = offers
    # The quality check never speaks (or runs) before the model can answer.
    assert all(s["answering"] == "" for s in samples if not s["ready"])
    in_use = manager["pair_button"]["enabled"] is False
    if in_use:
        assert offer == ""  # nothing to fetch or switch to
    else:
        assert _chat_names(offer) == recommended


@pytest.mark.xfail(
    strict=False,
    reason="issue 48: the first answers' timed speed replaces the build check's, and the "
    "recommendation changes on screen (the starter pair, then Qwen2.5 1.5B + Qwen3 4B 2507, on "
    "the 2-core VM); it holds only when both speeds are close",
)
def test_the_recommendation_is_the_same_after_the_first_answers(walked: Walked) -> None:
    manager, later = walked.step("model_manager"), walked.step("models_again")
    assert _chat_names(later["pair"]) == _chat_names(manager["pair"])
    assert walked.step("new_chat")["welcome_now"]["offer"] == ""  # the pair in use still


def test_the_recommendation_is_one_in_the_window_and_the_terminal(walked: Walked) -> None:
    """At the end of the walk the welcome panel, the model manager and ``engram models
    recommend`` (in the same data folder) name the same pair."""
    manager = walked.step("models_again")
    welcome = walked.step("new_chat")["welcome_now"]
    env = dict(os.environ, ENGRAM_HOME=str(walked.home), ENGRAM_MODELS_DIR=str(MODELS_DIR))
    said = subprocess.run(
        [sys.executable, "-m", "engram", "models", "recommend"], env=env, capture_output=True,
        text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    ids = {e.id: e.name for e in catalogue.load().models}
    lines = [line.split() for line in said.splitlines() if line.startswith("  ")]
    terminal = {ids[words[1]] for words in lines if words[0] in ("small", "large")}
    assert terminal == _chat_names(manager["pair"])
    if manager["pair_enabled"]:
        assert _chat_names(welcome["offer"]) == terminal


def test_the_model_manager_offers_remove_and_no_use_for_the_pair_in_use(walked: Walked) -> None:
    manager = walked.step("model_manager")
    installed = {model_id: row for model_id, row in manager["rows"].items() if row["installed"]}
    assert set(manager["in_use"].values()) <= set(installed)
    for model_id, row in installed.items():
        assert row["remove_shown"] and row["remove_enabled"], model_id
    button = manager["pair_button"]
    if _chat_names(manager["pair"]) == {installed[manager["in_use"][r]]["name"]
                                        for r in ("small", "large")}:  # fmt: skip
        assert not button["enabled"] and button["tip"]  # its tooltip says it is in use


def test_the_memory_browser_adds_a_memory_in_the_users_own_words(walked: Walked) -> None:
    browser = walked.step("memory_browser")
    assert browser["empty_state"]  # a fresh data folder: what memories are, not an empty table
    assert browser["dialog_came"] and browser["add_dialog"] == "AddMemoryDialog"
    assert not browser["add_enabled_empty"]  # Add once there is text
    from walkthrough_driver import WORDS

    assert browser["added"]["content"] == WORDS[walked.shots.name]["added"]
    assert browser["editor"] == browser["added"]["content"] and browser["rows"] == 1


def test_a_remembered_fact_is_said_and_the_answer_streams(walked: Walked) -> None:
    remember, ask = walked.step("remember"), walked.step("ask")
    assert remember["notice_shown"]
    from walkthrough_driver import WORDS

    fact = WORDS[walked.shots.name]["remember"]
    assert any(part in remember["notice"] for part in (fact[-12:], fact[-6:]))
    lengths = ask["streamed_lengths"]
    assert len([n for n in lengths if n > 0]) >= 3, lengths  # words came while it was written
    assert lengths == sorted(lengths) and lengths[-1] <= len(ask["answer"]) + 1


def test_the_chips_are_one_per_memory_messages_apart_and_used_only_when_agreed(
    walked: Walked,
) -> None:
    from walkthrough_driver import WORDS

    words = WORDS[walked.shots.name]
    for step in ("ask", "regenerate"):
        seen = walked.step(step)
        answer = seen["new_text"] if step == "regenerate" else seen["answer"]
        chips = seen["chips"]
        memories = [c for c in chips if c["memory_id"] is not None]
        messages = [c for c in chips if c["memory_id"] is None]
        assert len({c["memory_id"] for c in memories}) == len(memories)  # one chip per memory
        # The remembered fact is one chip, its memory, holding the message it was made from.
        remembered = [c for c in memories if words["remember"] in c["folded"]]
        assert len(remembered) == 1, chips
        assert words["remember"] not in [c["content"] for c in messages]
        assert any(c["content"] == words["said"] for c in messages), chips  # said, not a memory
        for chip in messages:  # a quote on a chip of its own kind, with no memory menu
            assert chip["earlier"] and not chip["menu"] and chip["text"].startswith("“")
        for chip in memories:
            assert not chip["earlier"] and chip["menu"]
        for chip in chips:  # outlined exactly when the answer agrees with it
            agreed = any(utilization.agrees(answer, text)
                         for text in (chip["content"], *chip["folded"]))  # fmt: skip
            assert (chip["style"] == "chip_used") == agreed, (chip, answer)


def test_bad_asks_what_was_wrong_and_the_regenerated_answer_starts_unjudged(
    walked: Walked,
) -> None:
    bad, regenerated = walked.step("mark_bad"), walked.step("regenerate")
    assert bad["dialog_came"] and bad["vote"] == -1
    assert bad["bad_checked"] and not bad["good_checked"]
    assert bad["status_message"]  # the verdict was noted, and the window says so
    assert regenerated["replaced"] and regenerated["vote"] == 0
    assert not regenerated["good_checked"] and not regenerated["bad_checked"]
    assert regenerated["thumbs_under_pointer"] == []  # nothing looks pressed under the pointer


def test_a_bad_answer_offers_the_large_model_in_place(walked: Walked) -> None:
    bad, regenerated = walked.step("mark_bad"), walked.step("regenerate")
    assert len(bad["ask_large"]) == 1  # in the answer marked bad, once
    assert regenerated["vote"] == 0 and regenerated["offered"].count(bad["ask_large"][0]) == 0


def test_regenerate_keeps_the_old_answer_within_reach(walked: Walked) -> None:
    """The new answer says 2/2; one click back shows the old one (marked as replaced), one
    forward the new one; the chat does not grow, and opened again it has both."""
    regenerated, reopened = walked.step("regenerate"), walked.step("reopen")
    old = regenerated["old_text"]
    assert regenerated["earlier"] == [old] and regenerated["position"] == "2/2"
    back = regenerated["back"]
    assert back["shown"] == old and back["position"] == "1/2" and back["marker"]
    assert regenerated["forward_shown"] == regenerated["new_text"]
    assert regenerated["answers_on_screen"] == 1
    assert reopened["reopened_earlier"] == [old]


def test_a_new_chat_shows_nothing_of_the_last_and_a_reopened_chat_the_same_chips(
    walked: Walked,
) -> None:
    new = walked.step("new_chat")
    assert new["stats_before"]  # the first chat's answer had its speed and context
    assert new["bubbles"] == 0 and new["stats"] == "" and new["stats_tip"] == ""
    assert not new["stats_shown"] and new["welcome"]
    reopened = walked.step("reopen")
    assert reopened["stats_new_chat"] == ""
    assert reopened["live_chips"] and reopened["reopened_chips"] == reopened["live_chips"]


def test_a_deleted_memory_leaves_the_browser_empty_with_its_buttons_off(walked: Walked) -> None:
    deleted = walked.step("delete_memory")
    assert deleted["before"]["rows"] == 2 and deleted["dialog_came"]
    assert deleted["rows"] == 1 and deleted["editor"] == ""
    assert not any(deleted[key] for key in ("editor_enabled", "save", "pin", "delete"))


def test_learning_shows_its_step_and_its_result_stays_whole(walked: Walked) -> None:
    """Scripted statuses (the driver's): a step in the status bar, then a result that is still
    there after a passing toast would have gone, with the memory's words whole, Manage and
    Undo; Undo says what it did."""
    learned = walked.step("learning_result")
    assert "2" in learned["step_text"] and "3" in learned["step_text"]  # checking 2 of 3
    assert learned["toast_shown"]
    memory = next(c for c in walked.step("regenerate")["chips"] if c["memory_id"] is not None)
    assert memory["content"] in learned["toast"]
    assert {"manage", "undo_learning"} <= set(learned["toast_links"])  # review it, or undo it
    assert learned["after_undo"] and learned["after_undo"] != learned["toast"]  # says it undid


def test_what_memory_adds_runs_in_the_window_with_a_progress_bar_and_cancels(
    walked: Walked,
) -> None:
    """Started from the model manager, the short check shows a bar that has a share to fill
    and moves past loading the models; Cancel stops it, keeping nothing (the walk does not
    wait for a result: the check takes minutes)."""
    effect = walked.step("memory_effect")
    assert effect["window"]["inside"]
    assert effect["running"] and effect["bar"] and effect["bar_range"][1] > 0
    assert len(effect["said"]) >= 2, effect["said"]  # a step after loading the models
    assert effect["buttons_running"] != effect["buttons"]  # Cancel in Start's place
    assert effect["buttons_stopped"] == effect["buttons"] and not effect["chart"]
    assert effect["stopped"] not in effect["said"]  # it says it stopped
