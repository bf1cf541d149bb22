"""A tool call the model writes as text is never shown as text, well-formed or not, in the window
and in ``engram chat``: it is read and run, or the answer ends with what was said before it and
the user is told in a sentence that the model tried to use a tool (the real 0.5B wrote
```` ```json ({"name": "calculator", "arguments": [...]}) ```` after a recalled message)."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest
from pytestqt.qtbot import QtBot

import tiny
from engram.assistant.app import Engram, LoadedModels
from engram.assistant.events import CallNotRead, Event, Finished, Token, TurnStarted
from engram.assistant.tools import builtins, calculator, calls, loop
from engram.cli import chat as chat_cli
from engram.core.cancel import CancelToken
from test_crash_recovery import _open, _use
from test_tools import ScriptedModel, _registry, _run

# What a call looks like when it leaks: its keys, a JSON fence, the tag.
LEAKED = re.compile(r'"(?:name|tool|arguments|parameters)"|```json|<tool_call>', re.IGNORECASE)
ANSWER_TIMEOUT_MS = 60_000

MALFORMED = [
    # The real 0.5B, asked "What is my locker code?" with the code among its notes:
    '["calculator", {"expression": "my locker code is 4711", "parameters": {"type": "object"}}]',
    # ... and to "一袋大米通常有多重？", a lesson as the tool's name:
    '{"name": "重量请用公斤说，不要用斤或者磅", "arguments": {"value": "1.5公斤"}}',
    '```json ({"name": "calculator", "arguments": ["2+2"]})```',
    '```json\n({"name": "calculator", "arguments": ["2+2"]})\n```',
    '{"name": "calculator", "arguments": {"expression": 2+2}}',
    '({"name": "calculator", "arguments": {"expression": "2+2"}})',
    '[{"name": "calculator", "arguments": {"expression": "2+2"}}]',
    '{ "tool" : "calculator" , "arguments" : {"expression": "2+2"',
    '<tool_call>{"name": "calculator", "arguments": }</tool_call>',
]


@pytest.mark.parametrize("fmt", [calls.JSON, calls.HERMES, calls.LLAMA3])
@pytest.mark.parametrize("call", MALFORMED)
@pytest.mark.parametrize("before", ["", "Let me work that out. ", "Sure:\n\n"])
def test_a_call_written_anywhere_in_the_text_is_held_back_whole(
    fmt: str, call: str, before: str
) -> None:
    splitter = calls.Splitter(fmt)
    text = before + call + " It is 4."
    shown = "".join(splitter.feed(text[i : i + 3]) for i in range(0, len(text), 3))
    tail, held = splitter.finish()
    assert shown + tail == before  # what came before is shown, none of the call
    assert held.startswith(call[:3]) and not LEAKED.search(shown + tail)
    assert splitter.opened_with_call == (not before)


@pytest.mark.parametrize(
    "text",
    [
        'A person as JSON: {"name": "Ada", "born": 1815}.',
        "f(x) = [1, 2] and {a} with `code` and a < b <b>bold</b>",
        "```python\nprint({'name': 1})\n```\n",
        '```json\n{"city": "Paris"}\n```',
    ],
)
def test_text_that_only_looks_alike_is_shown_as_it_is(text: str) -> None:
    splitter = calls.Splitter(calls.JSON)
    splitter.feed("Here: ")  # not the start of the answer
    shown = "".join(splitter.feed(text[i : i + 2]) for i in range(0, len(text), 2))
    tail, held = splitter.finish()
    assert (shown + tail, held) == (text, "")


@pytest.mark.parametrize("call", MALFORMED)
def test_after_some_words_a_call_that_cannot_be_used_ends_the_answer_and_is_told(
    call: str,
) -> None:
    """The message asks for no tool (the model reached for one after a recalled message): the
    words before the call stay, the call is neither shown nor run, the user is told."""
    model = ScriptedModel([f"Miso weighs 4.2 kg. {call}"])
    events, steps = _run(model, loop.Toolbox(_registry(calculator.TOOL)), "What is my cat called?")
    assert "".join(e for e in events if isinstance(e, str)) == "Miso weighs 4.2 kg. "
    assert not steps and [type(e) for e in events if not isinstance(e, str)] == [CallNotRead]


@pytest.mark.parametrize("call", MALFORMED)
def test_a_call_written_again_where_words_were_asked_for_is_never_shown(call: str) -> None:
    """The message asks for no tool; the model opens with a call, is asked for the answer as
    text, and writes a call again (the real 0.5B, to "I went to the dentist yesterday, she
    fixed a filling.": '({"name": "calculator", …})'): it is not shown, and the user is told."""
    model = ScriptedModel(['{"name": "calculator", "arguments": {}}', f"Noted. {call} Done."])
    statement = "I went to the dentist yesterday, she fixed a filling."
    events, steps = _run(model, loop.Toolbox(_registry(calculator.TOOL)), statement)
    assert "".join(e for e in events if isinstance(e, str)) == "Noted. "
    assert not steps and [type(e) for e in events if not isinstance(e, str)] == [CallNotRead]


def test_a_well_formed_call_the_message_asks_for_is_run_and_never_shown() -> None:
    reply = 'Sure: ```json ({"tool": "calculator", "arguments": {"expression": "6*7"}})```'
    model = ScriptedModel([reply, "It is 42."])
    events, steps = _run(model, loop.Toolbox(_registry(calculator.TOOL)), "then calculate it")
    assert [s.output.text for s in steps] == ["6*7 = 42"]
    assert not LEAKED.search("".join(e for e in events if isinstance(e, str)))


@pytest.mark.parametrize("call", MALFORMED)
def test_without_tools_a_call_written_anyway_ends_the_answer_unshown(call: str) -> None:
    text = f"Miso weighs 4.2 kg. {call} It is 8.4 kg."
    events = list(calls.never_shown(iter(text[i : i + 3] for i in range(0, len(text), 3))))
    assert "".join(e for e in events if isinstance(e, str)) == "Miso weighs 4.2 kg. "
    assert isinstance(events[-1], CallNotRead)


def test_without_tools_a_json_answer_is_text() -> None:
    text = 'Here it is:\n{"name": "Ada", "born": 1815}\n```json\n{"city": "Paris"}\n```'
    shown = list(calls.never_shown(iter(text)))
    assert all(isinstance(piece, str) for piece in shown) and "".join(map(str, shown)) == text


@pytest.mark.slow
def test_the_application_never_shows_a_call_when_tools_are_off(
    loaded_models: LoadedModels,
) -> None:
    app = Engram(tiny.settings(), models=loaded_models)
    app.open()
    try:
        assert app.session is not None
        app.session.assistant.tools = None
        app.session.assistant.model = ScriptedModel(  # type: ignore[assignment]
            [f"Miso weighs 4.2 kg. {MALFORMED[1]}"]
        )
        events = list(app.send(0, "What is my cat called?", CancelToken()))
        shown = "".join(e.text for e in events if isinstance(e, Token))
        (finished,) = [e for e in events if isinstance(e, Finished)]
        assert shown.strip() == finished.text.strip() == "Miso weighs 4.2 kg."
        assert any(isinstance(e, CallNotRead) for e in events)
    finally:
        app.close()


def test_the_terminal_tells_that_the_model_tried_a_tool() -> None:
    app = chat_cli._Chat(app=None)  # type: ignore[arg-type]  # _shown only reads events
    events: list[Event] = [TurnStarted(1, 1), Token("Miso weighs 4.2 kg. "), CallNotRead(),
                           Finished(2, "Miso weighs 4.2 kg. ", (), ())]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert chat_cli._shown(iter(events), app, 1, False, False) == 0
    assert out.getvalue() == "Miso weighs 4.2 kg. \n"
    assert "the model tried to use a tool" in err.getvalue()


@pytest.mark.slow
def test_the_window_never_shows_a_raw_call_and_says_the_model_tried_a_tool(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, loaded_models)
    try:
        _use(window, ScriptedModel([f"Miso weighs 4.2 kg. {MALFORMED[0]}"]))
        tools = loop.Toolbox(builtins.registry(disabled={"files_read"}))
        window.worker.app.session.assistant.tools = tools  # type: ignore[union-attr]
        window.submit("What is my cat called?")
        qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
        _user, answer = window.chat.bubbles()
        assert answer.text.strip() == "Miso weighs 4.2 kg." and not LEAKED.search(answer.text)
        assert answer.marker.text() == (
            "The model tried to use a tool, but what it wrote could not be used."
        )
    finally:
        window.close()


@pytest.mark.real
@pytest.mark.slow
def test_the_real_small_model_after_a_recalled_message_shows_no_call_as_text(
    coder: LoadedModels,
) -> None:
    from engram.assistant.session import open_session
    from engram.assistant.tools.base import ToolContext
    from engram.core.settings import Settings

    settings = Settings(temperature=0.0, max_answer_tokens=96)
    opened = open_session(settings, small=coder.small, embedder=coder.embedder)
    try:
        assert opened.store is not None
        toolbox = loop.Toolbox(builtins.registry(disabled={"files_list", "files_search",
                                                           "files_read"}))  # fmt: skip
        toolbox.context = ToolContext(store=opened.store)
        opened.assistant.tools = toolbox
        list(opened.assistant.turn(0, "My cat Miso weighs 4.2 kg and my dog Rex 11.5 kg."))
        for question in ("How much do Miso and Rex weigh together?", "What is 15% of 240?"):
            events = list(opened.assistant.turn(0, question))  # a new chat: Miso is recalled
            shown = "".join(e.text for e in events if isinstance(e, Token))
            finished = [e for e in events if isinstance(e, Finished)]
            assert len(finished) == 1 and finished[0].text.strip(), events
            assert not LEAKED.search(shown), shown
    finally:
        opened.close()


PERSON = '{"name": "Ada Lovelace", "born": 1815, "known_for": "the first program"}'


@pytest.mark.parametrize("fmt", [calls.JSON, calls.HERMES])
def test_an_answer_that_opens_with_json_data_is_the_answer(fmt: str) -> None:
    """An object the user asked for is text: it neither names a tool nor is followed by
    arguments. One that names a registered tool is a call, whatever comes next."""
    splitter = calls.Splitter(fmt, ["calculator", "datetime"])
    shown = "".join(splitter.feed(PERSON[i : i + 3]) for i in range(0, len(PERSON), 3))
    tail, held = splitter.finish()
    assert (shown + tail, held, splitter.opened_with_call) == (PERSON, "", False)
    named = '{"name": "calculator", "expression": "2+2"}'
    splitter = calls.Splitter(fmt, ["calculator"])
    assert "".join(splitter.feed(named[i : i + 3]) for i in range(0, len(named), 3)) == ""
    assert splitter.opened_with_call
    # Undecided while the name may still be a tool's: nothing of it is shown.
    undecided = calls.Splitter(fmt, ["calculator"])
    assert undecided.feed('{"name": "calc') == "" and not undecided.calling


def test_in_the_llama3_format_a_name_key_opens_a_call() -> None:
    splitter = calls.Splitter(calls.LLAMA3, ["calculator"])
    assert splitter.feed('{"name": "Ada"') == "" and splitter.opened_with_call


def test_json_data_asked_for_is_answered_without_a_call_or_a_rewrite() -> None:
    """Before, an answer opening with ``{`` was taken for a call: generated again as a forced
    call under the tools' grammar, or (no tool allowed) written again with ``{`` banned."""
    request = "Give me a JSON object about Ada Lovelace with her name and birth year."
    model = ScriptedModel([PERSON])
    events, steps = _run(model, loop.Toolbox(_registry(calculator.TOOL)), request)
    assert "".join(e for e in events if isinstance(e, str)) == PERSON
    assert steps == [] and len(model.prompts) == 1 and "grammar" not in model.options[0]
    assert not any(isinstance(e, CallNotRead) for e in events)
