"""Promises users care about: pause pauses, temporary chats leave nothing, corrections stick."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

import tiny
from engram.assistant import remembering
from engram.assistant.app import PAUSED, TEMPORARY
from engram.assistant.events import Finished, Remembered, TurnEvent
from engram.assistant.learning import distill
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import log, paths
from engram.core.errors import Problem
from engram.core.settings import Settings
from engram.memory import changes, transfer
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from engram.models.local import LocalModel
from test_chat_cli import _engram
from test_consolidation_support import ScriptedModel, minilm

SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
PIN = "4321"
PASSPORT = "E12345678"


@pytest.fixture(scope="module")
def model(starter_models: Path) -> Iterator[LocalModel]:
    loaded = LocalModel(starter_models / SMOL, n_ctx=2048, state_cache_mb=0)
    yield loaded
    loaded.close()


class Memory:
    """A switchable pause, as the settings hold it, and what the application's rule makes of it
    for each message (test_app.py holds the rule itself)."""

    def __init__(self) -> None:
        self.paused = False

    def settings(self) -> Settings:
        return tiny.settings(memory_paused=self.paused, consolidate_every_turns=2)

    def quiet(self) -> Problem | None:
        return PAUSED if self.paused else None


@pytest.fixture
def store(starter_models: Path, tmp_path: Path) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(tmp_path / "engram.db", minilm(starter_models))
    yield opened
    opened.conn.close()


def build(store: MemoryStore, model: LocalModel, memory: Memory) -> tuple[Assistant, JobQueue]:
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, memory.settings)
    assistant = Assistant(
        EpisodeLog(store.conn),
        model,
        max_answer_tokens=12,
        recall=Recall(store, model.count_tokens),
        scheduler=scheduler,
    )
    return assistant, queue


def run(
    assistant: Assistant, conversation_id: int, text: str, quiet: Problem | None = None
) -> list[TurnEvent]:
    events = list(assistant.turn(conversation_id, text, quiet=quiet))
    assert any(isinstance(e, Finished) for e in events), events
    return events


def learned_everything(store: MemoryStore, queue: JobQueue) -> ScriptedModel:
    """Distill every queued job with a distiller that keeps each user message as a memory."""

    def answer(messages: list[dict[str, str]]) -> dict[str, object]:
        lines = [line for line in messages[-1]["content"].splitlines() if "] user: " in line]
        return {
            "memories": [
                {
                    "kind": "fact",
                    "content": line.split("] user: ", 1)[1],
                    "importance": 4,
                    "episodes": [int(line[1 : line.index("]")])],
                }
                for line in lines
            ],
            "summary": "",
            "plan": {"goal": "", "steps": [], "current_step": 0},
        }

    scripted = ScriptedModel(answer)
    while (job := queue.claim()) is not None:
        episodes = queue.episodes(job)
        result, _raw = distill.distill(scripted, episodes)
        for candidate in result.candidates:
            store.add(candidate.content, candidate.kind, origin="local")
        queue.complete(job.id)
    return scripted


@pytest.mark.slow
def test_nothing_said_while_paused_is_ever_learned(store: MemoryStore, model: LocalModel) -> None:
    memory = Memory()
    assistant, queue = build(store, model, memory)
    conversation = assistant.new_conversation("bank")
    run(assistant, conversation, "My favourite colour is green.")
    memory.paused = True
    run(assistant, conversation, f"remember this: my bank PIN is {PIN}", memory.quiet())
    run(assistant, conversation, f"My passport number is {PASSPORT}.", memory.quiet())
    memory.paused = False
    run(assistant, conversation, "I like hiking on weekends.")
    assert assistant.scheduler is not None
    assistant.scheduler.on_exit()

    scripted = learned_everything(store, queue)
    sent = "\n".join(m["content"] for _kind, messages in scripted.calls for m in messages)
    assert "hiking" in sent and "green" in sent  # what was said unpaused is learned
    assert PIN not in sent and PASSPORT not in sent
    contents = " ".join(m.content for m in store.memories())
    assert "hiking" in contents
    assert PIN not in contents and PASSPORT not in contents
    # The messages themselves stay in the chat (recall of history can stay on).
    said = [e.content for e in assistant.log.episodes(conversation)]
    assert any(PIN in text for text in said)
    assert queue.enqueue_all() == []  # and the next exit finds nothing left to learn


def test_a_temporary_chat_is_not_learned_not_recalled_and_deleted(
    store: MemoryStore, model: LocalModel
) -> None:
    memory = Memory()
    assistant, queue = build(store, model, memory)
    temporary = assistant.new_conversation("scratch", temporary=True)
    conversation = assistant.log.conversation(temporary)
    assert conversation is not None and conversation.temporary
    run(assistant, temporary, "remember this: my locker code is 9911", TEMPORARY)
    run(assistant, temporary, "The locker code 9911 opens the blue locker.", TEMPORARY)
    assert queue.jobs() == [] and queue.enqueue_all() == []

    normal = assistant.new_conversation("normal")
    recall = assistant.recall
    assert recall is not None
    assert recall.episodes.search("locker code 9911", k=10) == []
    prepared = assistant.prepare("What is my locker code?", [])
    assert all("9911" not in item.content for item in prepared.items)
    run(assistant, normal, "What opens the blue locker?")

    assistant.delete_conversation(temporary)  # when it is left (test_app.py)
    assert assistant.log.conversation(temporary) is None
    rows = store.conn.execute("SELECT COUNT(*) FROM episodes WHERE content LIKE '%9911%'")
    assert rows.fetchall()[0][0] == 0
    assert assistant.log.conversation(normal) is not None


def test_a_corrected_dose_supersedes_the_old_one_and_says_what_changed(
    store: MemoryStore,
) -> None:
    conversation = EpisodeLog(store.conn).new_conversation("health").id

    def said(text: str) -> Remembered:  # "remember this: …", as the application keeps it
        return remembering.remember(store, conversation, None, text)

    old = said("I take 5 mg of warfarin daily")
    new = said("I take 50 mg of warfarin daily")
    assert new.memory_id != old.memory_id
    assert new.content == "I take 50 mg of warfarin daily"
    assert new.replaced_id == old.memory_id and new.change == ("5 mg", "50 mg")
    before = store.get(old.memory_id)
    assert before is not None and before.status == "superseded"
    assert before.superseded_by == new.memory_id and before.content.startswith("I take 5 mg")
    hits = [hit.memory.content for hit in store.search("warfarin dose", k=5)]
    assert hits[0] == "I take 50 mg of warfarin daily" and before.content not in hits
    # Said again, it is known: no new version.
    same = said("I take 50 mg of warfarin daily")
    assert same.memory_id == new.memory_id and same.replaced_id is None


def test_a_negation_is_an_update_and_a_paraphrase_is_not(store: MemoryStore) -> None:
    allergic = store.add("My wife is allergic to peanuts", "fact", origin="user")
    not_allergic = store.add("My wife is not allergic to peanuts", "fact", origin="user")
    assert not_allergic.id != allergic.id
    old = store.get(allergic.id)
    assert old is not None and old.status == "superseded"
    assert old.superseded_by == not_allergic.id
    assert store.replaced_by(not_allergic.id) == old
    tea = store.add("The user likes green tea a lot", "preference", origin="user")
    same = store.add("The user likes green tea a lot.", "preference", origin="user")
    assert same.id == tea.id


@pytest.mark.parametrize(
    ("first", "correction", "stored", "change"),
    [
        (
            "I take 50 mg of melatonin",
            "actually, I take 100 mg of melatonin",
            "I take 100 mg of melatonin",
            ("50 mg", "100 mg"),
        ),
        (
            "I take 50 mg of melatonin",
            "Correction: I take 100 mg of melatonin",
            "I take 100 mg of melatonin",
            ("50 mg", "100 mg"),
        ),
        ("我每天喝两杯咖啡", "其实我每天喝三杯咖啡", "我每天喝三杯咖啡", ("两杯", "三杯")),
        ("我每天喝两杯咖啡", "不对，我每天喝三杯咖啡", "我每天喝三杯咖啡", ("两杯", "三杯")),
    ],
)
def test_a_correction_said_the_natural_way_supersedes(
    store: MemoryStore, first: str, correction: str, stored: str, change: tuple[str, str]
) -> None:
    old = store.add(first, "fact", origin="user")
    new = store.add(correction, "fact", origin="user")
    assert new.content == stored and new.id != old.id
    assert store.replaced_by(new.id) == store.get(old.id)
    assert changes.update_between(old.content, new.content) == change
    active = [m.content for m in store.memories()]
    assert active == [stored]


def test_the_distiller_cannot_swallow_a_correction(store: MemoryStore) -> None:
    from engram.assistant.learning import reconcile
    from engram.assistant.learning.proposals import Candidate

    dose = store.add("The user takes 5 mg of warfarin daily", "fact", origin="local")
    candidate = Candidate("fact", "The user takes 50 mg of warfarin daily", 0.8, (1,), {})
    says_known = ScriptedModel(
        lambda _m: {}, lambda _m: {"decision": "skip", "target_id": dose.id, "content": ""}
    )
    decision = reconcile.decide(store, says_known, candidate, "en")
    assert decision.action == "supersede" and decision.target_id == dose.id
    written = reconcile.apply(
        store, decision, candidate, origin="local", conversation_id=None, job_id=1
    )
    assert written is not None and "50 mg" in written.content
    old = store.get(dose.id)
    assert old is not None and old.status == "superseded" and old.superseded_by == written.id


def test_memory_ids_are_never_reused(store: MemoryStore, tmp_path: Path) -> None:
    first = store.add("The user's cat is called Miso.", "fact", origin="user")
    newest = store.add("The user plays the cello.", "fact", origin="user")
    store.delete(newest.id)
    again = store.add("The user plays the violin.", "fact", origin="user")
    assert again.id > newest.id > first.id
    bulk = store.add_many(["One imported fact.", "Another imported fact."])
    store.delete(bulk[-1])
    runs = store.add("The user runs on Sundays.", "fact", origin="user")
    assert runs.id > bulk[-1]
    exported = tmp_path / "memories.jsonl"
    with exported.open("w", encoding="utf-8") as out:
        transfer.export_jsonl(store, out)
    store.delete(runs.id)
    assert transfer.import_jsonl(store, exported).added > 0
    ids = [row[0] for row in store.conn.execute("SELECT id FROM memories")]
    assert runs.id not in ids and max(ids) > runs.id


@pytest.mark.slow
def test_the_terminal_chat_leaves_no_text_in_the_log_and_only_private_files(
    starter_models: Path, engram_home: Path
) -> None:
    tiny.save(max_answer_tokens=16)  # any answer will do
    said = f"remember this: my bank PIN is {PIN}\nWhat is a good name for an aardvark?\n"
    result = _engram("chat", stdin=said, env_home=engram_home)
    assert result.returncode == 0, result.stderr
    log_text = Path(log.log_file()).read_text(encoding="utf-8")
    assert "conversation" in log_text or "loaded" in log_text  # the log was written
    assert PIN not in log_text and "aardvark" not in log_text
    for folder in (paths.data_dir(), paths.logs_dir()):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for file in (paths.database_path(), Path(log.log_file())):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file


@pytest.mark.slow
def test_a_temporary_terminal_chat_is_gone_when_it_ends(
    starter_models: Path, engram_home: Path
) -> None:
    result = _engram(
        "chat", "--temporary", stdin="remember this: my locker code is 9911\n", env_home=engram_home
    )
    assert result.returncode == 0, result.stderr
    assert "temporary chat" in result.stderr
    conn = apsw.Connection(str(paths.database_path()))
    try:
        assert conn.execute("SELECT COUNT(*) FROM conversations").fetchall() == [(0,)]
        assert conn.execute("SELECT COUNT(*) FROM episodes").fetchall() == [(0,)]
        assert conn.execute("SELECT COUNT(*) FROM memories").fetchall() == [(0,)]
    finally:
        conn.close()


def test_an_api_key_is_scrubbed_from_stored_errors_and_log_lines(store: MemoryStore) -> None:
    key = "sk-test-0123456789abcdef"
    log.secret(key)
    queue = JobQueue(store.conn)
    conversation = EpisodeLog(store.conn).new_conversation("x").id
    EpisodeLog(store.conn).append(conversation, "user", "hello there")
    job = queue.enqueue(conversation)
    assert job is not None
    failed = queue.fail(job, f"HTTP 400: invalid key {key} for this model")
    assert failed.last_error is not None and key not in failed.last_error
    assert log.SECRET_MARK in failed.last_error
    record = logging.LogRecord("engram.x", logging.WARNING, __file__, 1, "body: %s", (key,), None)
    assert log.Scrubbing().filter(record)
    assert key not in record.getMessage()


@pytest.mark.slow
def test_the_terminal_says_what_a_correction_changed(
    starter_models: Path, engram_home: Path
) -> None:
    said = (
        "remember this: I take 5 mg of warfarin daily\n"
        "remember this: I take 50 mg of warfarin daily\n"
    )
    result = _engram("chat", stdin=said, env_home=engram_home)
    assert result.returncode == 0, result.stderr
    assert "[remembered: I take 5 mg of warfarin daily]" in result.stderr
    assert "[updated: 5 mg → 50 mg]" in result.stderr


def test_forgetting_everything_also_empties_the_log(store: MemoryStore) -> None:
    folder = paths.logs_dir()
    (folder / "engram.log").write_text(f"an old Engram logged: my bank PIN is {PIN}\n")
    (folder / "engram.log.1").write_text(f"older: passport {PASSPORT}\n")
    (folder / "crash-2026-01-01.txt").write_text("Traceback ... 'my bank PIN'\n")
    store.add("The user's bank is Acme Bank.", "fact", origin="user")
    assert store.forget_all(episodes=True) == 1
    assert [p.name for p in folder.iterdir()] == ["engram.log"]
    assert PIN not in (folder / "engram.log").read_text()


def test_the_remember_tool_keeps_nothing_said_while_paused_or_in_a_temporary_chat(
    store: MemoryStore,
) -> None:
    from engram.assistant.events import ToolResult
    from engram.assistant.tools import loop
    from engram.assistant.tools import memory as memory_tools
    from engram.assistant.tools.base import ToolContext
    from engram.assistant.tools.permissions import ONCE, Permissions, Question
    from test_tools import ScriptedModel, _registry

    asked: list[Question] = []

    def kept(conversation: int, fact: str, quiet: Problem | None) -> ToolResult:
        """The model calls remember while it answers; the turn hands the tool the app's rule,
        and the user allows what may be kept (they are not asked about what may not)."""
        model = ScriptedModel(
            [f'{{"tool": "remember", "arguments": {{"content": "{fact}"}}}}', "Done."]
        )
        allow = Permissions(ask=lambda question: asked.append(question) or ONCE)
        tools = loop.Toolbox(
            _registry(*memory_tools.TOOLS), allow, context=ToolContext(store=store)
        )
        assistant = Assistant(EpisodeLog(store.conn), model, tools=tools)  # type: ignore[arg-type]
        events = assistant.turn(conversation, f"Keep in mind: {fact}", quiet=quiet)
        return next(e for e in events if isinstance(e, ToolResult))

    log = EpisodeLog(store.conn)
    bank, scratch = log.new_conversation("bank").id, log.new_conversation("s", temporary=True).id
    paused = kept(bank, f"The user's bank PIN is {PIN}.", PAUSED)
    assert paused.is_error and "paused" in paused.text
    temporary = kept(scratch, "The locker code is 9911.", TEMPORARY)
    assert temporary.is_error and "temporary" in temporary.text
    assert all(PIN not in m.content and "9911" not in m.content for m in store.memories())
    assert asked == []
    stored = kept(bank, "The user likes hiking.", None)
    assert not stored.is_error and "hiking" in stored.text
    assert [q.name for q in asked] == ["remember"]
    # the model's words the user allowed: not the user's own (test_untrusted_calls.py)
    assert [m.origin for m in store.memories()] == ["local"]
