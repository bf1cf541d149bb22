"""Running a task sequence under four conditions, each in its own store, tasks in file order.

1. ``none``: the small model with no memory (each task is a new conversation);
2. ``raw``: plus recall over the raw messages of the earlier tasks (nothing is distilled);
3. ``distilled``: plus the large model's memories, distilled after each task, lessons left out;
4. ``lessons``: the same with the lessons in.

Every answer goes through ``Assistant.turn``, the path of the window and ``engram chat`` (tools
included when a task checks a tool call). Feedback follows the checked answer: a correction or
praise is the user's next message (the turn finds the signal in it), a thumb is a signal on that
answer; either makes the next job ask the distiller for a lesson.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.assistant.events import Failed, Finished, Recalled, ToolCalled, TurnStarted
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.distiller_backends import DistillerSource
from engram.assistant.learning.signals import Signal
from engram.assistant.tools import builtins
from engram.assistant.tools.base import ToolContext
from engram.assistant.tools.loop import Toolbox
from engram.assistant.tools.permissions import ONCE, Permissions
from engram.assistant.turn.pipeline import Assistant, ChatModel
from engram.assistant.turn.recall import Recall
from engram.core import log
from engram.core.cancel import CancelToken
from engram.evaluation.tasks import Call, Task, TaskSet, passes
from engram.memory.embed import Embedder
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.kinds import LESSON
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore

_log = log.get("evaluation.tasks")
CONDITIONS = ("none", "raw", "distilled", "lessons")
DISTILLED = frozenset({"distilled", "lessons"})
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Config:
    max_answer_tokens: int = 96
    memory_budget: int = 384


class _WithoutLessons(Recall):
    """Recall that never chooses a lesson (condition 3)."""

    def recall(
        self,
        query: str,
        budget: int,
        exclude_episodes: Collection[int] = (),
        exclude_memories: Collection[int] = (),
        situation: str = "",
    ) -> list[Recalled]:
        lessons = {m.id for m in self.store.memories(kinds=[LESSON], limit=100_000)}
        excluded = {*exclude_memories, *lessons}
        return super().recall(query, budget, exclude_episodes, excluded, situation)


@dataclass
class _Said:
    """One answer as the user saw it, with the tool calls made for it."""

    conversation_id: int
    episode_id: int
    text: str
    calls: list[Call]
    error: str = ""


class TaskRunner:
    """Runs task sets with a small chat model and a distiller (the large model)."""

    def __init__(
        self,
        small: ChatModel,
        distiller: DistillerSource,
        embedder: Embedder,
        out: Path,
        config: Config | None = None,
        progress: Progress = lambda done, total, note: None,
    ) -> None:
        self.small = small
        self.distiller = distiller
        self.embedder = embedder
        self.out = out
        self.config = config or Config()
        self.progress = progress

    def run(
        self, task_set: TaskSet, conditions: Collection[str] = CONDITIONS
    ) -> dict[str, list[dict[str, Any]]]:
        """condition -> one record per task, in file order (each condition starts afresh)."""
        chosen = [c for c in CONDITIONS if c in conditions]
        total, done = len(chosen) * len(task_set.tasks), 0
        self.progress(done, total, "starting")
        records: dict[str, list[dict[str, Any]]] = {}
        for condition in chosen:
            store = self._fresh_store(task_set, condition)
            try:
                assistant = self._assistant(store, task_set, condition)
                records[condition] = []
                for task in task_set.tasks:
                    record = self._task(store, assistant, task, condition)
                    records[condition].append(record)
                    done += 1
                    verdict = "pass" if record["passed"] else "fail"
                    self.progress(done, total, f"{condition} {task.id}: {verdict}")
            finally:
                store.conn.close()
        return records

    def _fresh_store(self, task_set: TaskSet, condition: str) -> MemoryStore:
        folder = self.out / "stores"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{task_set.path.stem}-{condition}.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        return MemoryStore.open(path, self.embedder)

    def _assistant(self, store: MemoryStore, task_set: TaskSet, condition: str) -> Assistant:
        count = self.small.count_tokens
        recall = None
        if condition != "none":
            recall = (_WithoutLessons if condition == "distilled" else Recall)(store, count)
        tools = None
        if any(t.check.tool is not None for t in task_set.tasks):
            tools = Toolbox(
                builtins.registry(),
                Permissions(ask=lambda _question: ONCE),
                ToolContext(store=store if recall else None, language=task_set.language),
            )
        return Assistant(
            EpisodeLog(store.conn),
            self.small,
            max_answer_tokens=self.config.max_answer_tokens,
            language=task_set.language,
            recall=recall,
            memory_budget=self.config.memory_budget,
            tools=tools,
        )

    def _task(
        self, store: MemoryStore, assistant: Assistant, task: Task, condition: str
    ) -> dict[str, Any]:
        said = _Said(0, 0, "", [])
        for message in task.messages:
            said = self._say(assistant, said.conversation_id, message)
        passed = not said.error and passes(task.check, said.text, said.calls)
        record: dict[str, Any] = {
            "task": task.id,
            "kind": task.kind,
            "category": task.kind,
            "teaches": task.teaches,
            "answer": said.text,
            "calls": [{"name": c.name, "arguments": c.arguments} for c in said.calls],
            "passed": passed,
            "success": float(passed),
            **({"error": said.error} if said.error else {}),
        }
        if task.feedback is not None:
            signal = Signal(task.feedback.kind, said.episode_id, task.feedback.text or None)
            record["signal"] = signal.kind
            detected = False
            if task.feedback.said:  # the turn looks for the signal in the message
                self._say(assistant, said.conversation_id, task.feedback.text)
                detected = bool(Outcomes(store).kinds_on(said.episode_id))
                record["signal_detected"] = detected
            if not detected:  # a thumb as the window sends it, or what the data says was meant
                assistant.signal(said.episode_id, signal.kind, signal.text)
        if condition in DISTILLED:
            reason = "outcome" if task.feedback is not None else "turns"
            record["memories_after"] = self._consolidate(store, said.conversation_id, reason)
        return record

    def _say(self, assistant: Assistant, conversation_id: int, text: str) -> _Said:
        said = _Said(conversation_id, 0, "", [])
        for event in assistant.turn(conversation_id, text):
            if isinstance(event, ToolCalled):
                said.calls.append(Call(event.name, event.arguments))
            elif isinstance(event, Finished):
                said.episode_id, said.text = event.episode_id, event.text
            elif isinstance(event, Failed):
                said.error = event.problem.message
                _log.warning("task answer failed: %s", said.error)
            elif isinstance(event, TurnStarted):
                said.conversation_id = event.conversation_id
        return said

    def _consolidate(self, store: MemoryStore, conversation_id: int, reason: str) -> int:
        """Distill the task's conversation now; the number of active memories after it."""
        queue = JobQueue(store.conn)
        queue.enqueue(conversation_id, reason=reason)
        while (job := queue.claim()) is not None:
            run_job(job, store, queue, self.distiller, CancelToken())
        return len(store.memories(limit=100_000))
