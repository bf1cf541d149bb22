"""Tool outcomes are signals (scripted model for exact sequences, real SQLite and fastembed): a call
that ends in an error judges its answer at once (``tool_error``); a tool result the next message
accepts (thanks, or simply going on without correcting or repeating) records ``tool_accepted``.
Both ride with the conversation's next job, which then asks the distiller for a lesson."""

from __future__ import annotations

import tiny
from engram.assistant.events import Finished, Recalling
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.tools import loop
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core.cancel import CancelToken
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.outcomes import Outcomes, waiting_kinds
from engram.memory.store import MemoryStore
from test_consolidation_support import ScriptedModel as ConsolidationModel
from test_consolidation_support import ScriptedSource, memories_answer
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

    failed = ask("Boom: blow something up", '{"tool": "boom", "arguments": {}}', "It failed.")
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


TOOL_LESSONS = [
    "When calling the echo tool, send the words in capitals, because it drops lowercase.",
    "When the echo tool returns nothing, call it again once, because it is flaky.",
    "When using the echo tool for names, keep their accents, because echo keeps Unicode.",
    "When the echo tool result is long, quote only its start, because the user skims.",
]


def test_lessons_are_chosen_by_the_message_and_the_tools_used_in_the_conversation(
    store: MemoryStore,  # noqa: F811
) -> None:
    model = ScriptedModel([])
    assistant = Assistant(
        EpisodeLog(store.conn),
        model,  # type: ignore[arg-type]
        recall=Recall(store, model.count_tokens),
        max_answer_tokens=32,
        memory_budget=400,
        tools=loop.Toolbox(_registry(ECHO)),
    )
    for lesson in TOOL_LESSONS:
        store.add(lesson, "lesson", importance=0.6, origin="local")

    def lessons_for(conversation: int, text: str, *replies: str) -> tuple[int, str]:
        model.replies += replies
        events = list(assistant.turn(conversation, text))
        block = next(e for e in events if isinstance(e, Recalling)).prompt.block
        done = next(e for e in events if isinstance(e, Finished))
        return Outcomes(store).conversation_of(done.episode_id) or 0, block

    question = "Could you say banana back to me?"
    plain, block = lessons_for(0, "Hello there", "Hi.")
    assert not any(lesson in block for lesson in TOOL_LESSONS)
    _plain, block = lessons_for(plain, question, "Banana.")
    assert not any(lesson in block for lesson in TOOL_LESSONS)  # no tool used in this chat

    used, _block = lessons_for(0, "Hello there, echo kumquat", ECHO_CALL, "It echoed kumquat.")
    _used, block = lessons_for(used, question, "Banana.")
    chosen = [lesson for lesson in TOOL_LESSONS if lesson in block]
    assert len(chosen) == 3  # chosen by the tool used, at most three
    # The same situation chooses the same lessons: the block is byte-identical.
    earlier = assistant._history(used)[:-2]
    assert assistant.prepare(question, earlier).parts.block == block


def test_accepted_tool_results_ride_with_the_next_job_which_asks_for_a_lesson(
    store: MemoryStore,  # noqa: F811
) -> None:
    model = ScriptedModel([])
    queue = JobQueue(store.conn)
    scheduler = Scheduler(queue, settings=lambda: tiny.settings(consolidate_every_turns=4))
    assistant = Assistant(
        EpisodeLog(store.conn),
        model,  # type: ignore[arg-type]
        recall=Recall(store, model.count_tokens),
        max_answer_tokens=32,
        tools=loop.Toolbox(_registry(ECHO)),
        scheduler=scheduler,
    )
    outcomes = Outcomes(store)

    def ask(conversation: int, text: str, *replies: str) -> tuple[int, int]:
        model.replies += replies
        done = next(e for e in assistant.turn(conversation, text) if isinstance(e, Finished))
        return outcomes.conversation_of(done.episode_id) or 0, done.episode_id

    # Four calls in one answer, accepted by going on: one signal on that answer, no job yet.
    calls = [ECHO_CALL.replace("kumquat", fruit) for fruit in ("fig", "lime", "plum", "kiwi")]
    chat, four = ask(0, "Echo the fruit four times", *calls, "Echoed it four times.")
    assert len(assistant.log.tool_steps(four)) == 4
    _chat, once = ask(chat, "Now echo it once", ECHO_CALL, "Echoed once.")
    assert outcomes.kinds_on(four) == {"tool_accepted"}
    assert queue.jobs() == [] and waiting_kinds(store.conn, chat) == {"tool_accepted"}
    ask(chat, "What is a kumquat?", "A small citrus fruit.")
    assert queue.jobs() == []  # tool outcomes never queue a job of their own
    # The conversation's next job (here every 4 turns) takes them and asks for a lesson.
    ask(chat, "And a lemon?", "A yellow citrus fruit.")
    [job] = queue.jobs("queued")
    assert job.reason == "turns"
    assert [(s.kind, s.answer_episode_id) for s in outcomes.of_job(job.id)] == [
        ("tool_accepted", four),
        ("tool_accepted", once),
    ]
    distiller = ConsolidationModel(memories_answer())
    claimed = queue.claim()
    assert claimed is not None
    result = run_job(claimed, store, queue, ScriptedSource(distiller), CancelToken())
    assert result.outcome == "done"
    system, request = distiller.calls[0][1]
    assert "in the same situation" in system["content"]
    assert f"[{four}] tool_accepted\n[{once}] tool_accepted" in request["content"]

    # An explicit signal in the same path queues its job at once, taking a waiting tool outcome.
    _chat, echoed = ask(chat, "Echo the lemon", ECHO_CALL, "It echoed lemon.")
    ask(chat, "Thanks, that worked!", "You're welcome.")
    [job] = queue.jobs("queued")
    assert job.reason == "outcome"
    assert {s.kind for s in outcomes.of_job(job.id)} == {"praise", "tool_accepted"}
    assert outcomes.kinds_on(echoed) == {"praise", "tool_accepted"}
