"""The application layer (``engram.assistant.app.Engram``): every use case of the window and the
terminal, and the three rules they share. The window's model worker and ``engram chat`` are
adapters that make these calls, so what holds here holds in both: "remember this" and /remember
keep the user's words the same way, "forget that" archives with an undo, a thumb, Remember and
an idle chat follow the one "may this be learned?" rule while memory is paused, off, or the chat
is temporary."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tiny
from engram.assistant import intent
from engram.assistant.app import (
    PAUSED,
    TEMPORARY,
    Engram,
    LoadedModels,
    MemoryState,
    answer_broke,
)
from engram.assistant.events import (
    Event,
    Failed,
    Finished,
    Forgotten,
    NothingToForget,
    NotRemembered,
    Remembered,
    TurnStarted,
)
from engram.assistant.learn import NOTHING_NEW
from engram.assistant.memories import backups, open_memories, open_store, pause_memory
from engram.assistant.remembering import USER_IMPORTANCE
from engram.assistant.tools.permissions import DENY, Question
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, Problem, tr
from engram.core.settings import SettingsStore, ToolSettings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from test_crash_recovery import BreakingModel

Open = Callable[..., Engram]


@pytest.fixture
def open_app(loaded_models: LoadedModels) -> Iterator[Open]:
    """Open an Engram on the shared models that learns in the background (the tiny large model
    is too small to learn from, so its jobs wait in the queue where a test can read them)."""
    opened: list[Engram] = []

    def make(**prefs: Any) -> Engram:
        app = Engram(
            tiny.settings(max_answer_tokens=8, consolidate_every_turns=50, **prefs),
            models=loaded_models,
            on_status=lambda _status: None,
        )
        app.open()
        opened.append(app)
        return app

    yield make
    for app in opened:
        app.close()


def _send(app: Engram, conversation_id: int, text: str) -> list[Event]:
    return list(app.send(conversation_id, text, CancelToken()))


def _store(app: Engram) -> MemoryStore:
    assert app.session is not None and app.session.store is not None
    return app.session.store


def _jobs(app: Engram) -> JobQueue:
    return JobQueue(_store(app).conn)


def _signals(app: Engram) -> list[tuple[int, str]]:
    rows = _store(app).conn.execute("SELECT answer_episode_id, kind FROM signals ORDER BY id")
    return [(int(answer), str(kind)) for answer, kind in rows]


def _rows(sql: str, *params: object) -> list[tuple[object, ...]]:
    conn = db.connect(paths.database_path())
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _answered(events: list[Event]) -> tuple[int, int]:
    """(conversation, answer episode) of a message that was answered."""
    started = next(e for e in events if isinstance(e, TurnStarted))
    finished = next(e for e in events if isinstance(e, Finished))
    return started.conversation_id, finished.episode_id


# -- what a message asks for, read once ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "remember", "forget", "correction", "praise"),
    [
        ("remember this: my sister is called Ann", "my sister is called Ann", False, False, False),
        ("Please remember: I take the 8:10 train", "I take the 8:10 train", False, False, False),
        ("记住：我对花生过敏", "我对花生过敏", False, False, False),
        ("请记住这个，我周三有课", "我周三有课", False, False, False),
        ("Do you remember my sister?", None, False, False, False),
        ("forget that", None, True, False, False),
        ("忘掉这个", None, True, False, False),
        ("forget that I said I like tea, I love it", None, False, False, False),
        ("No, that's wrong. I said Tuesday.", None, False, True, False),
        ("不对，我说的是周二", None, False, True, False),
        ("Actually, I moved to Shanghai last year.", None, False, True, False),
        ("That's not right", None, False, True, False),
        ("你又错了", None, False, True, False),
        ("What is actually in a croissant?", None, False, False, False),
        ("I like wrong-way driving games", None, False, False, False),
        ("今天天气不错", None, False, False, False),
        ("我记住了", None, False, False, False),
        ("That worked, thanks!", None, False, False, True),
        ("谢谢，很有用", None, False, False, True),
        ("No thanks, that's fine.", None, False, False, False),
        ("What is the capital of France?", None, False, False, False),
    ],
)
def test_a_message_is_read_for_what_it_asks_in_both_languages(
    text: str, remember: str | None, forget: bool, correction: bool, praise: bool
) -> None:
    assert intent.read(text) == intent.Intent(text, remember, forget, correction, praise)


@pytest.mark.slow
def test_each_message_is_read_for_intent_once(
    open_app: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = open_app()
    reads: list[str] = []
    real = intent.read

    def counted(text: str) -> intent.Intent:
        reads.append(text)
        return real(text)

    monkeypatch.setattr(intent, "read", counted)
    chat, _answer = _answered(_send(app, 0, "remember this: my sister is called Ann"))
    _send(app, chat, "No, that's wrong: she is called Anna.")
    _send(app, chat, "forget that")
    assert reads == [
        "remember this: my sister is called Ann",
        "No, that's wrong: she is called Anna.",
        "forget that",
    ]
    reasons = [job.reason for job in _jobs(app).jobs()]
    assert reasons == ["remember", "correction"]  # the scheduler got what was read


# -- the user's own words --------------------------------------------------------------------------


@pytest.mark.slow
def test_remember_this_and_slash_remember_keep_the_users_words_alike(open_app: Open) -> None:
    app = open_app()
    events = _send(app, 0, "remember this: my locker code is 4711")
    said = next(e for e in events if isinstance(e, TurnStarted))
    told = next(e for e in events if isinstance(e, Remembered))
    assert told.content == "my locker code is 4711"
    assert any(isinstance(e, Finished) for e in events)  # and it was answered
    chat, typed = app.memories.remember(
        said.conversation_id, "/remember I live in Oslo", "I live in Oslo"
    )
    assert chat == said.conversation_id and isinstance(typed, Remembered)
    store = _store(app)
    for remembered, episode in ((told, said.user_episode_id), (typed, None)):
        memory = store.get(remembered.memory_id)
        assert memory is not None and memory.origin == "user" and memory.kind == "fact"
        assert memory.importance == USER_IMPORTANCE
        sources = [s.episode_id for s in store.sources(memory.id)]
        assert episode is None or sources == [episode]
    line = [e for e in app.chats.messages(chat) if e.role == "user"][-1]
    assert line.content == "/remember I live in Oslo"  # the command is where it came from
    assert [s.episode_id for s in store.sources(typed.memory_id)] == [line.id]
    new_chat, slash = app.memories.remember(0, "/remember I cycle to work", "I cycle to work")
    assert new_chat not in (0, chat) and isinstance(slash, Remembered)  # a chat titled after it


@pytest.mark.slow
def test_remember_this_is_acknowledged_in_its_language_and_a_question_is_answered(
    open_app: Open,
) -> None:
    """The 0.5B answered "Remember this: I am allergic to peanuts." with "Remember to avoid
    peanuts." and "记住：…" with a remark that it was no note: a memory kept as said is
    acknowledged without the model, unless the message also asks something."""
    app = open_app()
    for said, reply in (
        ("Remember this: I am allergic to peanuts.", "Got it, I'll remember that."),
        ("记住：我每周六上午十点上小提琴课。", "好的，我记住了。"),
    ):
        events = _send(app, 0, said)
        assert any(isinstance(e, Remembered) for e in events)
        finished = next(e for e in events if isinstance(e, Finished))
        assert finished.text == reply
        assert app.chats.messages(_answered(events)[0])[-1].content == reply  # stored as the answer
    asked = _send(app, 0, "remember this: my sister is Ana. What should I get her?")
    assert any(isinstance(e, Remembered) for e in asked)
    assert next(e for e in asked if isinstance(e, Finished)).text != "Got it, I'll remember that."
    temporary = app.chats.new("", temporary=True)  # nothing is kept: the model answers
    events = _send(app, temporary, "remember this: my bank PIN is 4321")
    assert [e for e in events if isinstance(e, NotRemembered)] == [NotRemembered(TEMPORARY)]
    assert next(e for e in events if isinstance(e, Finished)).text != "Got it, I'll remember that."


@pytest.mark.slow
def test_forget_that_archives_with_an_undo_and_what_stays_forgotten_is_deleted(
    open_app: Open,
) -> None:
    app = open_app()
    chat, _typed = app.memories.remember(0, "/remember my bike is blue", "my bike is blue")
    before = len(app.chats.messages(chat))
    (forgotten,) = _send(app, chat, "forget that")  # the message, as in the window
    assert isinstance(forgotten, Forgotten) and forgotten.content == "my bike is blue"
    assert len(app.chats.messages(chat)) == before  # "forget that" is no turn
    store = _store(app)
    memory = store.get(forgotten.memory_id)
    assert memory is not None and memory.status == "archived"
    assert store.memories() == []  # never recalled while archived
    app.memories.undo_forget(forgotten)
    memory = store.get(forgotten.memory_id)
    assert memory is not None and memory.status == "active"
    again = app.memories.forget_last(chat)  # "that" is still what the undo brought back
    assert isinstance(again, Forgotten) and again.memory_id == forgotten.memory_id
    app.memories.undo_forget(again)

    _chat, kept = app.memories.remember(chat, "/remember my car is green", "my car is green")
    assert isinstance(kept, Remembered)
    gone = app.memories.forget_last(chat)  # the terminal's /forget
    assert isinstance(gone, Forgotten) and gone.memory_id == kept.memory_id
    app.memories.purge_forgotten()  # the undo is no longer offered
    assert store.get(kept.memory_id) is None
    assert store.get(forgotten.memory_id) is not None  # the undone one stays


@pytest.mark.slow
def test_after_an_answer_forget_that_means_the_memory_it_used(open_app: Open) -> None:
    app = open_app()
    bike = _store(app).add("The user's bike is a red Brompton.", "fact", origin="local").id
    chat, _tea = app.memories.remember(0, "/remember I like green tea", "I like green tea")
    events = _send(app, chat, "What bike do I ride, my red Brompton?")
    finished = next(e for e in events if isinstance(e, Finished))
    assert bike in [item.memory_id for item in finished.recalled]
    found = next(iter(_send(app, chat, "forget that")))
    assert isinstance(found, Forgotten) and found.memory_id == bike  # what the answer was given


# -- may this be learned? --------------------------------------------------------------------------


def test_the_one_rule_follows_the_memory_state() -> None:
    off = Problem(tr("No embedding model."))
    assert MemoryState("on").quiet() is None
    assert MemoryState("on").quiet(temporary=True) == TEMPORARY
    assert MemoryState("paused").quiet() == PAUSED
    assert MemoryState("paused").quiet(temporary=True) == TEMPORARY
    said = MemoryState("off", off).quiet(temporary=True)
    assert said is not None and said.params["why"] == off and "Memory is off" in said.message
    assert MemoryState.of(off, paused=True) == MemoryState("off", off)
    assert MemoryState.of(None, paused=True) == MemoryState("paused")
    assert "paused" in PAUSED.message and "Settings → Memory" in PAUSED.hint


@pytest.mark.slow
def test_while_paused_nothing_is_learned_and_every_use_case_says_why(open_app: Open) -> None:
    app = open_app(memory_paused=True)
    assert app.memory == MemoryState("paused")
    events = _send(app, 0, "remember this: my bank PIN is 4321")
    assert [e for e in events if isinstance(e, NotRemembered)] == [NotRemembered(PAUSED)]
    chat, answer = _answered(events)
    assert app.memories.remember(chat, "/remember my PIN is 4321", "my PIN is 4321")[1] == (
        NotRemembered(PAUSED)
    )
    assert app.chats.messages(chat)[-1].content != "/remember my PIN is 4321"  # nothing stored
    assert (
        app.learning.judge(answer, "thumbs_up") == PAUSED
    )  # a thumb, in the window and the terminal
    assert app.learning.learn_now(chat) == PAUSED  # Remember
    app.learning.idle(chat)
    assert _signals(app) == [] and _jobs(app).jobs() == []
    assert all(e.excluded for e in app.chats.messages(chat))  # never learned, even after resuming

    app.apply_settings(tiny.settings(max_answer_tokens=8, consolidate_every_turns=50))
    assert app.memory == MemoryState("on")
    _chat, later = _answered(_send(app, chat, "I like hiking on weekends."))
    assert app.learning.judge(later, "thumbs_up") is None and _signals(app) == [
        (later, "thumbs_up")
    ]
    assert app.learning.learn_now(chat) == NOTHING_NEW  # the thumb queued a job for all of it
    (job,) = _jobs(app).jobs()
    read = " ".join(e.content for e in _jobs(app).episodes(job))
    assert "hiking" in read and "4321" not in read


@pytest.mark.slow
def test_what_is_left_is_queued_at_exit_unless_memory_is_paused(open_app: Open) -> None:
    app = open_app()
    _send(app, 0, "My favourite colour is green.")
    app.apply_settings(tiny.settings(max_answer_tokens=8, memory_paused=True))
    app.close()
    assert _rows("SELECT reason FROM consolidation_jobs") == []
    paused = open_app()  # the next start: the pause is the file's, whatever its settings say
    assert paused.memory == MemoryState("paused", elsewhere=True)
    pause_memory(SettingsStore.load(), False)  # engram memory resume
    paused.close()  # not paused: what was said is persisted for the next start
    assert _rows("SELECT reason FROM consolidation_jobs") == [("exit",)]


@pytest.mark.slow
def test_a_temporary_chat_learns_nothing_and_is_deleted_when_left(open_app: Open) -> None:
    app = open_app()
    chat = app.chats.new("scratch", temporary=True)
    events = _send(app, chat, "remember this: my locker code is 9911")
    assert [e for e in events if isinstance(e, NotRemembered)] == [NotRemembered(TEMPORARY)]
    _chat, answer = _answered(events)
    assert app.learning.judge(answer, "thumbs_down", "too short") == TEMPORARY
    assert app.learning.learn_now(chat) == TEMPORARY
    asked = app.chats.messages(chat)[0]
    regenerated = list(app.resend(chat, asked.id, asked.content, CancelToken()))
    assert any(isinstance(e, Finished) for e in regenerated)
    app.learning.idle(chat)
    assert _signals(app) == [] and _jobs(app).jobs() == []  # a regenerate judged nothing
    app.chats.leave(chat)
    assert app.chats.messages(chat) == []
    assert _rows("SELECT COUNT(*) FROM conversations") == [(0,)]
    normal, _answer = _answered(_send(app, 0, "Name a colour."))
    app.chats.leave(normal)
    assert app.chats.messages(normal)  # a normal chat stays
    still_open = app.chats.new("scratch", temporary=True)
    app.close()  # a temporary chat lives no longer than the Engram that made it
    assert _rows("SELECT id FROM conversations") == [(normal,)] and still_open


@pytest.mark.slow
def test_without_memory_engram_answers_and_says_memory_is_off(loaded_models: LoadedModels) -> None:
    app = Engram(
        tiny.settings(max_answer_tokens=8, embedding_model="no-such-model"),
        models=LoadedModels(loaded_models.small),
    )
    opened = app.open()
    try:
        assert opened.memory.mode == "off" and opened.memory.problem is not None
        events = list(app.send(0, "remember this: my locker code is 4711", CancelToken()))
        (refused,) = [e for e in events if isinstance(e, NotRemembered)]
        assert "Memory is off" in refused.problem.message
        chat, answer = _answered(events)
        assert app.learning.judge(answer, "thumbs_up") == refused.problem
        assert isinstance(next(iter(app.send(chat, "forget that", CancelToken()))), NothingToForget)
    finally:
        app.close()


# -- temporary chats left by a crash, "This is wrong" -------------------------------------------

# A temporary chat in another Engram process: said in, then left open until the test kills it.
TEMPORARY_CHAT = """
import dataclasses, sys
from engram.assistant.app import Engram
from engram.core import settings
from engram.core.cancel import CancelToken

app = Engram(dataclasses.replace(settings.load(), max_answer_tokens=4))
app.open()
chat = app.chats.new("scratch", temporary=True)
for _event in app.send(chat, "a secret said in a temporary chat", CancelToken()):
    pass
print(chat, flush=True)
sys.stdin.readline()  # open until killed
"""


@pytest.mark.slow
def test_a_temporary_chat_left_by_a_killed_process_is_gone_at_the_next_start(
    open_app: Open,
) -> None:
    kept = open_app()
    normal, _answer = _answered(_send(kept, 0, "Name a colour."))
    with subprocess.Popen(
        [sys.executable, "-c", TEMPORARY_CHAT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            left = int(child.stdout.readline())
            open_app().close()  # another Engram starts while the child's temporary chat is open
            assert _rows("SELECT id FROM conversations WHERE temporary = 1") == [(left,)]
        finally:
            child.kill()  # a crash: nothing of the child's clean-up runs
    conn = db.connect(paths.database_path())
    try:  # what a window shows first, before its session starts: never the temporary chat
        latest = EpisodeLog(conn).latest_conversation()
        assert latest is not None and latest.id == normal
    finally:
        conn.close()
    assert _rows("SELECT temporary FROM conversations WHERE id = ?", left) == [(1,)]
    open_app()  # the next start
    assert _rows("SELECT id FROM conversations") == [(normal,)]
    assert _rows("SELECT COUNT(*) FROM episodes WHERE content LIKE '%secret%'") == [(0,)]


@pytest.mark.slow
def test_this_is_wrong_is_a_memory_wrong_signal_that_retires_the_memory(open_app: Open) -> None:
    app = open_app()
    bike = _store(app).add("The user's bike is a red Brompton.", "fact").id
    chat, answer = _answered(_send(app, 0, "What bike do I ride, my red Brompton?"))
    assert app.learning.judge(answer, "memory_wrong", memory_id=bike) is None
    assert _signals(app) == [(answer, "memory_wrong")]
    memory = _store(app).get(bike)  # retired at once, its harm counted; the browser shows it
    assert memory is not None and memory.feedback == -1 and memory.status == "archived"
    stored = _rows("SELECT text, job_id FROM signals")
    assert stored == [("The user's bike is a red Brompton.", None)]  # what was wrong
    assert _jobs(app).jobs() == []  # it judges a memory: no lesson is asked for
    temporary = app.chats.new(temporary=True)
    _chat, other = _answered(_send(app, temporary, "What bike do I ride?"))
    assert app.learning.judge(other, "memory_wrong", memory_id=bike) == TEMPORARY
    assert chat and _signals(app) == [(answer, "memory_wrong")]


@pytest.mark.slow
def test_a_model_failing_mid_answer_ends_the_turn_in_words_for_both_front_ends(
    open_app: Open,
) -> None:
    app = open_app()
    assert app.session is not None
    app.session.assistant.model = BreakingModel("Tides rise twice a")  # type: ignore[assignment]
    app.session.assistant.tools = None
    events = _send(app, 0, "Why are there two tides a day?")
    assert isinstance(events[0], TurnStarted)
    *_, failed = events
    assert isinstance(failed, Failed) and failed.text == "Tides rise twice a"
    assert failed.problem.template == answer_broke(started=True).template
    assert str(failed.problem.params["path"]).endswith(".log")


# -- tools ---------------------------------------------------------------------------------------


def test_a_tool_asks_the_front_end_with_its_answers_token_also_after_tools_are_turned_on(
    loaded_models: LoadedModels, tmp_path: Path
) -> None:
    """The front end is asked with the token of the answer that waits, so its Stop ends the
    wait (the window's prompt); the toolbox made when tools are turned on asks it too."""
    from test_tools import ScriptedModel

    asked: list[tuple[str, CancelToken]] = []
    saved: list[dict[str, str]] = []

    def ask(question: Question, cancel: CancelToken) -> str:
        asked.append((question.name, cancel))
        return DENY

    # Without memory: nothing is recalled (or embedded) for the answer.
    off = tiny.settings(embedding_model="no-such-model", tools=ToolSettings(enabled=False))
    lent = LoadedModels(loaded_models.small)
    app = Engram(off, models=lent, ask=ask, on_permissions=saved.append)
    app.open()
    try:
        assert app.session is not None and app.session.assistant.tools is None
        shared = ToolSettings(folders=(str(tmp_path),))
        assert not app.apply_settings(dataclasses.replace(off, tools=shared))
        call = '{"tool": "files_list", "arguments": {}}'
        app.session.assistant.model = ScriptedModel([call, "Done."])  # type: ignore[assignment]
        cancel = CancelToken()
        events = list(app.send(0, "Which folders do I share?", cancel))
        assert isinstance(events[-1], Finished)
        assert asked == [("files_list", cancel)]
        assert saved == [{"files_list": DENY}]  # kept where the front end keeps the choices
    finally:
        app.close()


# -- without a session: the user's memories --------------------------------------------------------


def test_editing_a_lessons_words_drops_the_example_of_the_old_ones() -> None:
    settings = tiny.settings()
    example = {"asked": "List ways to save energy.", "answer": "- Turn off lights"}
    store = open_store(settings)
    try:
        lesson = store.add(
            "Use bullet points starting with '- '.", "lesson",
            meta={"applies_to": ["List ways to save energy."], "example": example},
        )  # fmt: skip
    finally:
        store.conn.close()
    mine = open_memories(settings)
    try:
        mine.save(lesson.id, "Use bullet points starting with '- '.", 0.9)  # the same words
        assert mine.get(lesson.id).meta["example"] == example  # type: ignore[union-attr]
        mine.save(lesson.id, "Number every list: '1.', '2.', '3.'.", 0.9)
        edited = mine.get(lesson.id)
        assert edited is not None and "example" not in edited.meta
        assert edited.meta["applies_to"] == ["List ways to save energy."]
    finally:
        mine.close()


def test_an_export_to_a_file_is_written_whole_or_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    settings = tiny.settings()
    store = open_store(settings)
    try:
        store.add("The user's sister is called Ann.", "fact")
    finally:
        store.conn.close()
    mine = open_memories(settings)
    try:
        folder = tmp_path / "folder"
        folder.mkdir()
        with pytest.raises(InputError, match="is a folder, not a file"):
            mine.export_to(folder)
        with pytest.raises(InputError, match="does not exist"):
            mine.export_to(tmp_path / "missing" / "memories.jsonl")
        target = folder / "memories.md"
        target.write_text("an earlier export", "utf-8")
        assert mine.export_to(target, markdown=True) == 1
        assert "sister is called Ann" in target.read_text("utf-8")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["engram-home", "folder"]
        assert [p.name for p in folder.iterdir()] == ["memories.md"]  # no temporary file left
    finally:
        mine.close()


# -- settings that apply without reopening the session ---------------------------------------------


def test_learning_with_small_models_applies_at_once_without_reopening(open_app: Open) -> None:
    app = open_app(backups_kept=0)
    session = app.session
    assert session is not None and session.learning is not None
    assert session.learning.worker.source.state() == "too small"  # the tiny large model waits
    assert not app.apply_settings(dataclasses.replace(app.settings, learn_with_small_models=True))
    assert app.session is session  # the models stayed loaded
    worker = session.learning.worker
    assert worker.is_alive() and worker.source.state() == "not loaded"  # it will learn now
    app.apply_settings(dataclasses.replace(app.settings, learn_with_small_models=False))
    assert session.learning.worker.source.state() == "too small" and not worker.is_alive()


def test_turning_automatic_backups_on_backs_up_at_once_without_reopening(open_app: Open) -> None:
    app = open_app(backups_kept=0)  # off: nothing is written when the session opens
    session = app.session
    assert session is not None and session.backups is not None
    assert session.backups.wait() is None and backups() == []
    assert not app.apply_settings(dataclasses.replace(app.settings, backups_kept=2))
    assert app.session is session
    assert session.backups.wait() is not None and len(backups()) == 1
    # Not due again under the same interval; due at once when the interval is shortened to 0.
    app.apply_settings(dataclasses.replace(app.settings, backups_kept=3))
    assert session.backups.wait() is None and len(backups()) == 1
    app.apply_settings(dataclasses.replace(app.settings, backup_every_hours=0))
    assert session.backups.wait() is not None and len(backups()) == 2
