"""Running a task sequence under four conditions, each in its own store, tasks in file order.

1. ``none``: the small model with no memory (each task is a new conversation);
2. ``raw``: plus recall over the raw messages of the earlier tasks (nothing is distilled);
3. ``distilled``: plus the large model's memories, distilled after each task, lessons left out;
4. ``lessons``: the same with the lessons in.

Every answer goes through ``Assistant.turn``, the path of the window and ``engram chat`` (tools
included when a task checks a tool call). Feedback follows the checked answer: a correction or
praise is the user's next message (the turn finds the signal in it), a thumb is a signal on that
answer; either makes the next job ask the distiller for a lesson.

Each record also says what the answer was given: the memories and messages recalled for it, how
many were lessons, and whether any came from a teaching task of the same kind (``taught``: the
stated preference reached the question). After every task the record is saved with a copy of the
condition's store, so a stopped run resumes at the next task (``resume=True``) and gives the same
answers it would have given without the stop. A cancel (the token given) stops the answer or the
distillation under way and raises :class:`StoppedError`; the task it stopped in is not
recorded.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.assistant.events import (
    Event,
    Failed,
    Finished,
    Recalled,
    Recalling,
    ToolCalled,
    TurnStarted,
)
from engram.assistant.learning.consolidation import run_job
from engram.assistant.learning.distiller_backends import DistillerSource
from engram.assistant.learning.signals import Signal
from engram.assistant.tools import builtins
from engram.assistant.tools.base import ToolContext
from engram.assistant.tools.loop import Toolbox
from engram.assistant.tools.permissions import ONCE, Permissions
from engram.assistant.turn.chat_model import ChatModel
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import log
from engram.core.atomic import atomic_write
from engram.core.cancel import CancelToken
from engram.evaluation.models import Progress
from engram.evaluation.tasks import Call, Task, TaskSet, passes
from engram.memory import backup
from engram.memory.embed import Embedder
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.kinds import LESSON
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore

_log = log.get("evaluation.tasks")
CONDITIONS = ("none", "raw", "distilled", "lessons")
CEILING = "ceiling"  # the tests with what was taught in the question, no memory
DISTILLED = frozenset({"distilled", "lessons"})
Records = dict[str, list[dict[str, Any]]]
SAVED = "tasks-progress.json"


@dataclass(frozen=True)
class Config:
    max_answer_tokens: int = 96
    memory_budget: int = 384


@dataclass
class Said:
    """One answer as the user saw it, with the tool calls made for it."""

    conversation_id: int
    episode_id: int
    text: str
    calls: list[Call]
    error: str = ""
    recalled: tuple[Recalled, ...] = ()
    recited: bool = False  # it began by reciting its prompt and was asked again without memory


class StoppedError(Exception):
    """The run was cancelled; what it had finished is saved (when resumable)."""


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
        cancel: CancelToken | None = None,
    ) -> None:
        self.small = small
        self.distiller = distiller
        self.embedder = embedder
        self.out = out
        self.config = config or Config()
        self.progress = progress
        self.cancel = cancel or CancelToken()

    def run(
        self,
        task_set: TaskSet,
        conditions: Collection[str] = CONDITIONS,
        *,
        ceiling: TaskSet | None = None,
        resume: str | None = None,
    ) -> Records:
        """condition -> one record per task, in file order (each condition starts afresh).

        ``ceiling``: the same tests with what was taught said again in each question, answered
        without memory (records under "ceiling"). ``resume``: what identifies this run (data,
        models, settings); the records and stores a stopped run with the same identity saved in
        ``out`` are taken up where it stopped.
        """
        plan = [(c, task_set) for c in CONDITIONS if c in conditions]
        plan += [(CEILING, ceiling)] if ceiling is not None else []
        records = self._saved(resume) if resume is not None else {}
        total = sum(len(s.tasks) for _c, s in plan)
        done = sum(min(len(records.get(c, [])), len(s.tasks)) for c, s in plan)
        self.progress(done, total, "resuming" if done else "starting")
        for condition, chosen in plan:
            rows = records.setdefault(condition, [])
            if len(rows) >= len(chosen.tasks):
                continue
            if not rows and (same := self._as_without_lessons(condition, records, chosen)):
                rows += same
                self._save_records(records, resume)
                done += len(same)
                self.progress(done, total, f"{condition}: no lesson was stored, as without them")
                continue
            store = self._store(condition, restored=bool(rows))
            try:
                assistant = self._assistant(store, chosen, condition)
                for task in chosen.tasks[len(rows) :]:
                    row = self._task(store, assistant, task, condition, rows)
                    if self.cancel.cancelled:  # cut short: neither recorded nor saved
                        raise StoppedError
                    rows.append(row)
                    self._save(store, condition, records, resume)
                    done += 1
                    verdict = "pass" if rows[-1]["passed"] else "fail"
                    self.progress(done, total, f"{condition} {task.id}: {verdict}")
            finally:
                store.conn.close()
        return {c: records[c] for c, _s in plan}

    def _as_without_lessons(
        self, condition: str, records: Records, chosen: TaskSet
    ) -> list[dict[str, Any]]:
        """Condition 4's records when condition 3 ran the whole set and never stored a lesson
        (PrefEval's preferences): its prompts were the same, so are its answers and its store,
        which is copied rather than computed again; [] otherwise."""
        before = records.get("distilled", [])
        if condition != "lessons" or len(before) != len(chosen.tasks):
            return []
        if any(r.get("lessons_after", 1) or r["lessons_recalled"] for r in before):
            return []
        source, path = self._store_path("distilled"), self._store_path(condition)
        copy = backup.backup(source, _copies(path), keep=1) if source.exists() else None
        if copy is None:
            return []
        shutil.copyfile(copy, path)
        return [{**r, "as_condition": "distilled"} for r in before]

    def _store_path(self, condition: str) -> Path:
        return self.out / "stores" / f"{condition}.sqlite3"

    def _store(self, condition: str, restored: bool) -> MemoryStore:
        """The condition's store: fresh, or the copy saved after its last finished task."""
        path = self._store_path(condition)
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        if restored:
            shutil.copyfile(backup.listed(_copies(path))[0], path)
        return MemoryStore.open(path, self.embedder)

    def _saved(self, resume: str) -> Records:
        """The records of a stopped run with the same identity whose store copies are there."""
        try:
            saved = json.loads((self.out / SAVED).read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(saved, dict) or saved.get("run") != resume:
            return {}
        records = saved.get("records", {})
        return {
            c: rows
            for c, rows in records.items()
            if rows and backup.listed(_copies(self._store_path(c)))
        }

    def _save(
        self, store: MemoryStore, condition: str, records: Records, resume: str | None
    ) -> None:
        """After a finished task: a copy of the store, then the records that go with it."""
        if resume is None:
            return
        path = self._store_path(condition)
        backup.backup(path, _copies(path), keep=1)
        self._save_records(records, resume)

    def _save_records(self, records: Records, resume: str | None) -> None:
        if resume is not None:
            with atomic_write(self.out / SAVED) as handle:
                json.dump({"run": resume, "records": records}, handle, ensure_ascii=False)

    def _assistant(self, store: MemoryStore, task_set: TaskSet, condition: str) -> Assistant:
        count = self.small.count_tokens
        recall = None
        if condition not in ("none", CEILING):
            # Condition 3 ("distilled") recalls what was learned but never a lesson.
            recall = Recall(store, count, lessons=condition != "distilled")
        tools = None
        if any(t.check.tool is not None for t in task_set.tasks):
            tools = Toolbox(
                builtins.registry(memory_on=recall is not None),
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
        self,
        store: MemoryStore,
        assistant: Assistant,
        task: Task,
        condition: str,
        earlier: Sequence[dict[str, Any]],
    ) -> dict[str, Any]:
        said = Said(0, 0, "", [])
        for message in task.messages:
            said = self._say(assistant, said.conversation_id, message)
        passed = not said.error and passes(task.check, said.text, said.calls)
        taught = {r["conversation"] for r in earlier if r["teaches"] and r["kind"] == task.kind}
        record: dict[str, Any] = {
            "task": task.id,
            "kind": task.kind,
            "category": task.kind,
            "teaches": task.teaches,
            "conversation": said.conversation_id,
            "answer": said.text,
            "calls": [{"name": c.name, "arguments": c.arguments} for c in said.calls],
            "passed": passed,
            "success": float(passed),
            "recalled": len(said.recalled),
            "lessons_recalled": sum(item.label == LESSON for item in said.recalled),
            "recited": said.recited,
            "taught": bool(taught & _conversations(store, said.recalled)),
            **({"error": said.error} if said.error else {}),
        }
        if task.feedback is not None:
            signal = Signal(task.feedback.kind, said.episode_id, task.feedback.text or None)
            record["signal"] = signal.kind
            if task.feedback.said:
                # Only the user's next message: what the turn does not read in it is a lesson
                # missed, never filled in from what the data says was meant.
                self._say(assistant, said.conversation_id, task.feedback.text)
                record["signal_detected"] = bool(Outcomes(store).kinds_on(said.episode_id))
            else:  # a thumb, sent as the window sends a click
                assistant.judgments.signal(said.episode_id, signal.kind, signal.text)
        if condition in DISTILLED:
            reason = "outcome" if task.feedback is not None else "turns"
            record["memories_after"] = learn(
                store, self.distiller, said.conversation_id, reason, self.cancel
            )
            record["lessons_after"] = len(store.memories(kinds=[LESSON], limit=100_000))
        return record

    def _say(self, assistant: Assistant, conversation_id: int, text: str) -> Said:
        return heard(assistant.turn(conversation_id, text, self.cancel), conversation_id)


def heard(events: Iterable[Event], conversation_id: int = 0) -> Said:
    """What a turn's ``events`` said (``Assistant.turn``'s, or ``Engram.send``'s) in a chat
    (0: the new chat the turn starts)."""
    said = Said(conversation_id, 0, "", [])
    for event in events:
        if isinstance(event, ToolCalled):
            said.calls.append(Call(event.name, event.arguments))
        elif isinstance(event, Recalling):
            said.recited = bool(said.recalled) and not event.items
            said.recalled = event.items
        elif isinstance(event, Finished):
            said.episode_id, said.text = event.episode_id, event.text
        elif isinstance(event, Failed):
            said.error = event.problem.message
            _log.warning("answer failed: %s", said.error)
        elif isinstance(event, TurnStarted):
            said.conversation_id = event.conversation_id
    return said


def learn(
    store: MemoryStore,
    distiller: DistillerSource,
    conversation_id: int,
    reason: str,
    cancel: CancelToken | None = None,
) -> int:
    """Run the learning job of a chat's new messages now, as the learning thread would
    (``reason``: why it was queued); the number of active memories after it. A cancel stops
    the job (it goes back to the queue) and claims no other."""
    cancel = cancel or CancelToken()
    queue = JobQueue(store.conn)
    queue.enqueue(conversation_id, reason=reason)
    while not cancel.cancelled and (job := queue.claim()) is not None:
        run_job(job, store, queue, distiller, cancel)
    return len(store.memories(limit=100_000))


def _copies(store: Path) -> Path:
    """Where the copy of a condition's store after its last finished task is kept."""
    return store.with_name(store.name + ".saved")


def _conversations(store: MemoryStore, items: Sequence[Recalled]) -> set[int]:
    """The conversations the recalled memories were learned in and the messages were said in."""
    memory_ids = [i.memory_id for i in items if i.memory_id is not None]
    found = {
        s.conversation_id
        for sources in store.sources_of(memory_ids).values()
        for s in sources
        if s.conversation_id is not None
    }
    for memory_id in memory_ids:
        memory = store.get(memory_id)
        if memory is not None and memory.conversation_id is not None:
            found.add(memory.conversation_id)
    episode_ids = [i.episode_id for i in items if i.episode_id is not None and not i.memory_id]
    found |= {e.conversation_id for e in EpisodeLog(store.conn).by_id(episode_ids).values()}
    return found
