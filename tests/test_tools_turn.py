"""Tools inside a turn: the steps are stored as ``tool`` episodes linked to their answer (real
SQLite), found by search and given to the distiller; the real starter model runs the grammar
fallback; the tool list costs a turn without a call nothing but its prefix."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.assistant.events import Finished, Recalling, Token, ToolCalled, ToolResult, TurnEvent
from engram.assistant.session import Session, open_session
from engram.assistant.tools import builtins, loop
from engram.assistant.tools.base import ToolContext
from engram.assistant.turn.pipeline import Assistant
from engram.core import paths, resources
from engram.memory import db
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from test_tools import ECHO, ScriptedModel, _registry


@pytest.fixture
def session(starter_models: Path) -> Iterator[Session]:
    opened = open_session(tiny.settings(max_answer_tokens=48))
    assert opened.store is not None, opened.memory_problem
    yield opened
    opened.close()


def test_steps_are_stored_as_tool_episodes_linked_to_the_answer() -> None:
    conn = db.connect(paths.database_path())
    try:
        log = EpisodeLog(conn)
        model = ScriptedModel(
            [
                '{"tool": "echo", "arguments": {"text": 3}}',
                '{"tool": "echo", "arguments": {"text": "kumquat"}}',
                "It echoed kumquat.",
            ]
        )
        toolbox = loop.Toolbox(_registry(ECHO))
        assistant = Assistant(log, model, max_answer_tokens=32, tools=toolbox)  # type: ignore[arg-type]
        events = list(assistant.turn(0, "Echo kumquat please"))
        finished = next(e for e in events if isinstance(e, Finished))
        assert finished.text == "It echoed kumquat."
        assert [type(e) for e in events if isinstance(e, ToolCalled | ToolResult)] == [
            ToolCalled,
            ToolResult,
            ToolCalled,
            ToolResult,
        ]
        stored = log.episodes(events[0].conversation_id)  # type: ignore[union-attr]
        assert [e.role for e in stored] == ["user", "tool", "tool", "assistant"]
        assert stored[1].content.startswith('echo {"text": 3}\n→ error: The arguments of echo')
        assert stored[2].content == 'echo {"text": "kumquat"}\n→ echo: kumquat'
        steps = log.tool_steps(finished.episode_id)
        assert [s.id for s in steps] == [stored[1].id, stored[2].id]
        # The next turn's history shows the conversation, not the tool steps.
        model.replies.append("Sure.")
        list(assistant.turn(stored[0].conversation_id, "thanks"))
        roles = [m["role"] for m in model.prompts[-1]]
        assert roles == ["system", "user", "assistant", "user"]
        # Rewinding the message removes its steps too.
        assistant.rewind(stored[0].conversation_id, stored[0].id)
        assert log.episodes(stored[0].conversation_id) == []
    finally:
        conn.close()


def test_tool_episodes_are_searchable_and_reach_the_distiller(session: Session) -> None:
    store = session.store
    assert store is not None
    model = ScriptedModel(
        ['{"tool": "calculator", "arguments": {"expression": "1234 * 5678"}}', "It is 7006652."]
    )
    toolbox = loop.Toolbox(builtins.registry(), context=ToolContext(store=store))
    assistant = Assistant(session.assistant.log, model, max_answer_tokens=32, tools=toolbox)  # type: ignore[arg-type]
    events = list(assistant.turn(0, "What is 1234 times 5678?"))
    conversation = events[0].conversation_id  # type: ignore[union-attr]
    hits = EpisodeIndex(store.space).search("7006652", k=5, mode="text")
    assert any(h.episode.role == "tool" for h in hits)
    queue = JobQueue(session.conn)
    stored = session.assistant.log.episodes(conversation)
    job = queue.enqueue(conversation, stored[-1].id)
    assert job is not None
    assert "tool" in [e.role for e in queue.episodes(job)]


def test_remember_and_recall_tools_use_the_users_memory(session: Session) -> None:
    store = session.store
    assert store is not None
    registry = builtins.registry()
    ctx = ToolContext(store=store, conversation_id=0)
    kept = registry.call("remember", {"content": "The user's bike is a red Brompton."}, ctx)
    assert not kept.is_error and "Stored as memory #" in kept.text
    found = registry.call("recall", {"query": "what bike does the user ride"}, ctx)
    assert "red Brompton" in found.text and "[memory #" in found.text
    off = registry.call("recall", {"query": "bike"}, ToolContext())
    assert off.is_error and "Memory is off" in off.text


def test_the_recall_tool_reads_back_what_the_user_told_not_lessons_or_its_own_answers(
    session: Session,
) -> None:
    """As the turn's own recall: a lesson reaches an answer through its lessons block, and
    Engram's earlier answer only when the user asks what it said (the real 0.5B, given both by
    the recall tool, answered a plan question with an earlier answer behind "TL;DR:")."""
    store = session.store
    assert store is not None
    log = session.assistant.log
    earlier = log.new_conversation().id
    log.append(earlier, "user", "Which bike should I buy for commuting in Amsterdam?")
    log.append(earlier, "assistant", "A Dutch city bike with a chain guard suits commuting.")
    store.add("Start every bike answer with a one-line 'TL;DR:' summary.", "lesson",
              origin="local")  # fmt: skip
    store.add("The user commutes by bike in Amsterdam.", origin="local")
    ctx = ToolContext(store=store, conversation_id=0)
    registry = builtins.registry()
    found = registry.call("recall", {"query": "bike for commuting in Amsterdam"}, ctx).text
    assert "commutes by bike" in found and "Which bike should I buy" in found
    assert "TL;DR" not in found and "Dutch city bike" not in found
    asked = registry.call("recall", {"query": "which bike did you recommend"}, ctx).text
    assert "Dutch city bike" in asked


@pytest.mark.slow
def test_the_starter_model_runs_the_grammar_fallback_whatever_it_emits(session: Session) -> None:
    model = session.model
    toolbox = loop.Toolbox(builtins.registry(disabled={"files_list", "files_search", "files_read"}))
    toolbox.context = ToolContext(store=session.store)
    assert toolbox.format_of(model) == "json"  # SmolLM2's template renders no tools
    assistant = session.assistant
    assistant.tools = toolbox
    for question in ("What is 17.5% of 240? Use the calculator.", "What day is it today?"):
        events: list[TurnEvent] = list(assistant.turn(0, question))
        finished = [e for e in events if isinstance(e, Finished)]
        assert len(finished) == 1, events
        called = [e for e in events if isinstance(e, ToolCalled)]
        results = [e for e in events if isinstance(e, ToolResult)]
        assert len(called) == len(results) <= toolbox.max_steps
        streamed = "".join(e.text for e in events if isinstance(e, Token))
        assert streamed == finished[0].text and not streamed.lstrip().startswith("{")
        stored = assistant.log.episodes(events[0].conversation_id)  # type: ignore[union-attr]
        assert [e.role for e in stored].count("tool") == len(results)
        assert stored[-1].role == "assistant" and stored[-1].content == finished[0].text
        recalling = next(e for e in events if isinstance(e, Recalling))
        assert '"tool": "<tool name>"' in recalling.prompt.system


@pytest.mark.slow
def test_only_the_tools_a_message_may_call_are_in_its_prompt(session: Session) -> None:
    """A message that may call no tool gets no tool list (offered all seven, the real 0.5B
    answered 11 of 16 everyday messages with a call), so a chat of them keeps one prefix: a
    second turn re-evaluates only its new words. A message that may call the calculator is told
    of it alone."""
    model = session.model
    assistant = session.assistant
    assistant.tools = loop.Toolbox(builtins.registry(), max_steps=0)
    events = list(assistant.turn(0, "Say hello."))
    conversation = events[0].conversation_id  # type: ignore[union-attr]
    said = list(assistant.turn(conversation, "I went to the dentist yesterday."))
    parts = next(e for e in said if isinstance(e, Recalling)).prompt
    assert "calculator" not in parts.system + parts.tools
    stats = model.last_stats
    assert stats is not None and stats.evaluated_tokens < 150, stats  # the new words only
    said = list(assistant.turn(conversation, "What is 17.5% of 240?"))
    parts = next(e for e in said if isinstance(e, Recalling)).prompt
    described = parts.system + parts.tools
    assert "calculator" in described
    assert not {"datetime", "recall", "remember", "files_read"} & set(re.findall(r"\w+", described))


def test_new_tool_settings_give_a_new_toolbox_keeping_who_is_asked(
    session: Session, tmp_path: Path
) -> None:
    import dataclasses

    before = session.assistant.tools
    assert before is not None

    def ask(_question: object) -> str:
        return "deny"

    session.ask = ask  # as open_session(ask=...) keeps it
    tools = dataclasses.replace(session.settings.tools, folders=(str(tmp_path),), max_steps=2)
    session.apply(dataclasses.replace(session.settings, tools=tools))
    after = session.assistant.tools
    assert after is not None and after is not before
    assert after.context.folders == (tmp_path,) and after.max_steps == 2
    assert after.permissions.ask is ask
    off = dataclasses.replace(session.settings.tools, enabled=False)
    session.apply(dataclasses.replace(session.settings, tools=off))
    assert session.assistant.tools is None
    session.apply(dataclasses.replace(session.settings, tools=tools))  # on again
    again = session.assistant.tools
    assert again is not None and again.permissions.ask is ask


@pytest.mark.slow
def test_a_real_model_with_a_hermes_template_gets_the_tools_from_its_template(
    small_model_path: Path,
) -> None:
    """SmolLM2 speaks ChatML, so it can run with Qwen2.5's official template: the tool list is
    then rendered by the template (``tools=``), and the loop handles whatever the model says."""
    from engram.models.local import LocalModel

    template = (Path(__file__).parent / "data" / "templates" / "tools-qwen2.5.jinja").read_text()
    model = LocalModel(small_model_path, n_ctx=2048, chat_template=template, state_cache_mb=0)
    conn = db.connect(paths.database_path())
    try:
        toolbox = loop.Toolbox(
            builtins.registry(disabled={"files_list", "files_search", "files_read"})
        )
        assert toolbox.format_of(model) == "hermes"
        assistant = Assistant(EpisodeLog(conn), model, max_answer_tokens=48, tools=toolbox)
        chat = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
        llm = model.llama
        specs = toolbox.template_tools(model, "en", {"calculator"})
        with_tools = llm.detokenize(model.prompt_tokens(chat, specs))
        assert b"<tools>" in with_tools and b'"calculator"' in with_tools
        assert b"<tools>" not in llm.detokenize(model.prompt_tokens(chat))
        events = list(assistant.turn(0, "Use the calculator: what is 6 times 7?"))
        finished = [e for e in events if isinstance(e, Finished)]
        assert len(finished) == 1 and "<tool_call>" not in finished[0].text
        results = [e for e in events if isinstance(e, ToolResult)]
        stored = assistant.log.episodes(events[0].conversation_id)  # type: ignore[union-attr]
        assert [e.role for e in stored].count("tool") == len(results)
    finally:
        conn.close()
        model.close()


def test_the_prompt_keeps_its_guards_after_a_tool_call(small_model_path: Path) -> None:
    """An assistant turn that only calls a tool has no text: it must not send the prompt down
    the path for templates that rewrite text, which cleans every part, Engram's own markers in
    the system part included (the memory block's guards vanished after any call with Qwen)."""
    from engram.models.local import LocalModel

    template = (Path(__file__).parent / "data" / "templates" / "tools-qwen2.5.jinja").read_text()
    model = LocalModel(small_model_path, n_ctx=2048, chat_template=template, state_cache_mb=0)
    try:
        header = resources.read_text("prompts", "memory_header_en.txt").strip()
        block = f"{header}\n<memory>\n1. The user likes tea.\n</memory>"
        call = {"type": "function", "function": {"name": "calculator", "arguments": {"a": 1}}}
        chat = [
            {"role": "system", "content": "Rules."},
            {"role": "user", "content": f"{block}\n\nWhat is 6 times 7?"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "name": "calculator", "content": "42"},
        ]
        text = model.llama.detokenize(model.prompt_tokens(chat), special=True).decode()
        assert block in text and "<tool_call>" in text and "42" in text
    finally:
        model.close()
