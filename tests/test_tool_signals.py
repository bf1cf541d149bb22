"""Tool outcomes are signals (scripted model for exact sequences, real SQLite and fastembed): a call
that ends in an error judges its answer at once (``tool_error``); a tool result the next message
accepts (thanks, or simply going on without correcting or repeating) records ``tool_accepted``."""

from __future__ import annotations

from engram.assistant.events import Finished
from engram.assistant.recall import Recall
from engram.assistant.tools import loop
from engram.assistant.turn import Assistant
from engram.memory.episodes import EpisodeLog
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore
from test_lessons import store  # noqa: F401  (shared fixture)
from test_memory_store import embedder  # noqa: F401  (shared fixture)
from test_tools import BOOM, ECHO, ScriptedModel, _registry

ECHO_CALL = '{"tool": "echo", "arguments": {"text": "kumquat"}}'


def test_tool_errors_and_accepted_results_are_signals_on_the_answer(
    store: MemoryStore,  # noqa: F811
) -> None:
    model = ScriptedModel([])
    toolbox = loop.Toolbox(_registry(ECHO, BOOM))
    assistant = Assistant(
        EpisodeLog(store.conn),
        model,  # type: ignore[arg-type]
        recall=Recall(store, model.count_tokens),
        max_answer_tokens=32,
        tools=toolbox,
    )
    outcomes = Outcomes(store)
    conversation = 0

    def ask(text: str, *replies: str) -> int:
        nonlocal conversation
        model.replies += replies
        events = list(assistant.turn(conversation, text))
        done = next(e for e in events if isinstance(e, Finished))
        conversation = outcomes.conversation_of(done.episode_id) or 0
        return done.episode_id

    failed = ask("Blow something up", '{"tool": "boom", "arguments": {}}', "It failed.")
    assert outcomes.kinds_on(failed) == {"tool_error"}  # at once, before any reply
    echoed = ask("Echo the fruit", ECHO_CALL, "It echoed kumquat.")
    assert outcomes.kinds_on(failed) == {"tool_error"}  # an error result is never accepted
    assert outcomes.kinds_on(echoed) == set()
    thanked = ask("Thanks, that worked! Now echo it again", ECHO_CALL, "Echoed again.")
    assert outcomes.kinds_on(echoed) == {"praise", "tool_accepted"}
    corrected = ask("No, that's wrong: echo the lemon", ECHO_CALL, "It echoed lemon.")
    assert outcomes.kinds_on(thanked) == {"correction"}
    plain = ask("What is a kumquat?", "A small citrus fruit.")
    assert outcomes.kinds_on(corrected) == {"tool_accepted"}  # went on: accepted
    ask("And a lemon?", "A yellow citrus fruit.")
    assert outcomes.kinds_on(plain) == set()  # no tool, no tool signal
