"""Answering every question under the four conditions, consolidating in between, resumably.

1. ``recent``: the small model with the most recent turns that fit its context;
2. ``episodes``: the same, plus Engram's memory block from raw-message retrieval only;
3. ``consolidated``: the same after the large model distilled the conversation (memories too);
4. ``large``: the large model with the recent-turns window.
Each answer is written to the answers file as soon as it exists; a re-run skips it. With a judge,
each record also gets the large model's verdict; a re-run with a judge gives the records of an
earlier run their verdicts without answering again. Questions with a ``plan_step`` get a plan
adherence score: the judge's when there is one, else the lexical proxy (``judge.covers_step``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.assistant import events
from engram.assistant.learning.consolidation import run_job
from engram.assistant.session import embedder_for
from engram.assistant.turn import utilization
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import EPISODE_WEIGHT, Recall
from engram.core import log
from engram.core.atomic import atomic_write
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, InputError, tr
from engram.core.settings import Settings
from engram.core.stream_filter import visible
from engram.evaluation import metrics
from engram.evaluation.dataset import Ingested, Question, open_sample
from engram.evaluation.judge import Judge, covers_step
from engram.evaluation.models import Models, Progress
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.kinds import PLAN
from engram.memory.records import EpisodeHit, Hit
from engram.memory.search import Filters
from engram.memory.text import text_language

_log = log.get("evaluation")
CONDITIONS = ("recent", "episodes", "consolidated", "large")
BEFORE_CONSOLIDATION = ("recent", "episodes", "large")
RECALL_KS = (5, 10, 20)
_SCORE_NAMES = (("judge", "judge"), ("plan_adherence", "plan"))


@dataclass(frozen=True)
class Config:
    max_answer_tokens: int = 48
    memory_budget: int = 384
    job_turns: int = 12  # turns per consolidation job: a job must fit the large model


class Answers:
    """The answers file: {"answers": {question key: {condition: record}}}, rewritten atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"answers": {}}
        if path.exists():
            try:
                self.data = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(self.data.get("answers"), dict):
                    raise ValueError("no 'answers' object")
            except ValueError as exc:
                raise InputError(
                    tr("{path} is not an answers file of `engram eval` ({error})."),
                    tr("Move it away or choose another --out folder."),
                    path=path,
                    error=exc,
                ) from exc

    def get(self, key: str, condition: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.data["answers"].get(key, {}).get(condition)
        return found

    def put(self, key: str, condition: str, record: dict[str, Any]) -> None:
        self.data["answers"].setdefault(key, {})[condition] = record
        with atomic_write(self.path) as handle:
            json.dump(self.data, handle, ensure_ascii=False, indent=1)

    def records(self, condition: str) -> list[dict[str, Any]]:
        return [by[condition] for by in self.data["answers"].values() if condition in by]


class Runner:
    """Runs the evaluation of some questions with a loaded small and large model."""

    def __init__(
        self,
        loaded: Models,
        out: Path,
        config: Config | None = None,
        progress: Progress = lambda done, total, note: None,
        judge: bool = False,
    ) -> None:
        self.loaded = loaded
        self.out = out
        self.config = config or Config()
        self.progress = progress
        self.judge = Judge(loaded.large) if judge else None
        self.answers = Answers(out / "answers.json")
        self._done = self._total = 0

    def run(self, chosen: list[Question], conditions: Sequence[str] = CONDITIONS) -> Answers:
        """Answer and score every chosen question under the ``conditions`` (all four unless
        told), skipping what is done; the conversations are consolidated only for the third."""
        units = [(q, c) for q in chosen for c in CONDITIONS if c in conditions]
        self._total = len(units)
        self._done = sum(
            1 for q, c in units if (r := self.answers.get(q.key, c)) and not self._unscored(q, r)
        )
        self.progress(self._done, self._total, "resuming" if self._done else "starting")
        for q, condition in units:
            found = self.answers.get(q.key, condition)
            if found is not None and self._unscored(q, found):
                self._score(q, found)
                self.answers.put(q.key, condition, found)
                self._step(f"{q.key} {condition}: scored the earlier answer{_scores(found)}")
        by_sample: dict[str, list[Question]] = {}
        for q in chosen:
            by_sample.setdefault(q.sample.sample_id, []).append(q)
        for group in by_sample.values():
            keys = {q.key for q in group}
            todo = [(q, c) for q, c in units if q.key in keys and not self.answers.get(q.key, c)]
            if not todo:
                continue
            sample = open_sample(self.out / "stores", group[0].sample, self.loaded.embedder)
            try:
                for phase in (BEFORE_CONSOLIDATION, ("consolidated",)):
                    if phase == ("consolidated",) and any(c in phase for _, c in todo):
                        self.consolidate(sample, group[0])
                    # One condition after another: its prompts all start with the same
                    # system part and recent turns, which llama.cpp then reads once.
                    for q, condition in sorted(todo, key=lambda unit: CONDITIONS.index(unit[1])):
                        if condition in phase:
                            record = self.answer(sample, q, condition)
                            self._score(q, record)
                            self.answers.put(q.key, condition, record)
                            self._step(
                                f"{q.key} {condition}: f1 {record['f1']:.2f}{_scores(record)}"
                            )
            finally:
                sample.store.conn.close()
        return self.answers

    def _step(self, note: str) -> None:
        self._done += 1
        self.progress(self._done, self._total, note)

    def _unscored(self, q: Question, record: dict[str, Any]) -> bool:
        """Whether this run adds a score to the record: a verdict, or plan adherence."""
        if self.judge is not None and "judge" not in record:
            return True
        if q.qa.plan_step is None:
            return False
        method = record.get("plan_method")
        return method is None or (self.judge is not None and method != "judge")

    def _score(self, q: Question, record: dict[str, Any]) -> None:
        """Add the verdict and plan adherence this run gives (a failed verdict is left out)."""
        answer, step = record["answer"], q.qa.plan_step
        try:
            if self.judge is not None and "judge" not in record:
                record["judge"] = self.judge.correct(
                    q.qa.question, q.qa.answer, answer, q.qa.category
                )
            if step is not None and self._unscored(q, record):
                if self.judge is not None:
                    adherence = self.judge.follows_plan(q.qa.question, step, answer)
                else:
                    adherence = covers_step(answer, step)
                method = "judge" if self.judge is not None else "lexical"
                record.update(plan_step=step, plan_adherence=adherence, plan_method=method)
        except EngramError as exc:  # the next run with --judge asks again
            _log.warning("%s: no verdict (%s)", q.key, exc.message)

    def consolidate(self, sample: Ingested, question: Question) -> None:
        """Distill the conversation in short jobs with the large model (done jobs are kept)."""
        queue = JobQueue(sample.store.conn)
        for end in sample.job_ends(question.sample, self.config.job_turns):
            queue.enqueue(sample.conversation_id, end)
        queue.recover()
        source = self.loaded.distiller()
        while (job := queue.claim()) is not None:
            self.progress(
                self._done, self._total, f"consolidating {question.sample.sample_id}: job {job.id}"
            )
            run_job(job, sample.store, queue, source, CancelToken())
        active = len(sample.store.memories(limit=100_000))
        _log.info("%s: %d memories after consolidation", question.sample.sample_id, active)

    def answer(self, sample: Ingested, q: Question, condition: str) -> dict[str, Any]:
        """Ask one question under one condition; the record holds the answer and its numbers."""
        model = self.loaded.large if condition == "large" else self.loaded.small
        log = EpisodeLog(sample.store.conn)
        episodes = log.episodes(sample.conversation_id)
        with_memory = condition in ("episodes", "consolidated")
        assistant = Assistant(
            log,
            model,
            max_answer_tokens=self.config.max_answer_tokens,
            language=text_language(q.qa.question),
            recall=Recall(sample.store, model.count_tokens) if with_memory else None,
            memory_budget=self.config.memory_budget,
        )
        # The app's own prompt assembly. Raw-message retrieval sees no memory at all; after
        # consolidation pinned memories and the current plan are in the system part, as in a turn.
        raw = condition == "episodes"
        prepared = assistant.prepare(
            q.qa.question,
            episodes,
            exclude_memories=(
                [m.id for m in sample.store.memories(statuses=None, limit=100_000)] if raw else []
            ),
            system_memories=not raw,
        )
        items, parts, window = prepared.items, prepared.parts, prepared.window
        plan = next((m for m in prepared.in_system if m.label == PLAN), None)
        error = ""
        try:
            answer = visible(  # scored as the user would see it: no reasoning, no markup
                "".join(
                    model.stream_chat(
                        parts.messages(), max_tokens=self.config.max_answer_tokens, temperature=0.0
                    )
                )
            )
        except EngramError as exc:  # e.g. a prompt over the context: a failed answer, scored 0
            answer, error = "", exc.message
            _log.warning("%s %s: %s", q.key, condition, error)
        stats = model.last_stats
        shown = window | self._provenance(sample, [*prepared.in_system, *items])
        return {
            "question": q.qa.question,
            "gold": q.qa.answer,
            "category": q.qa.category,
            "answer": answer,
            "f1": metrics.token_f1(answer, q.qa.answer),
            "exact": metrics.exact_match(answer, q.qa.answer),
            "evidence_recall": metrics.evidence_recall(sample.evidence(q.qa), shown),
            "injected": len(items),
            "utilization": (len(utilization.used(answer, items)) / len(items) if items else None),
            "prompt_tokens": stats.prompt_tokens if stats and not error else None,
            "first_token_s": stats.first_token_s if stats and not error else None,
            "total_s": stats.total_s if stats and not error else None,
            **({"plan_memory": plan.content} if plan else {}),
            **({"error": error} if error else {}),
        }

    @staticmethod
    def _provenance(sample: Ingested, items: list[events.Recalled]) -> set[int]:
        """The episodes behind what was injected: messages directly, memories via their sources."""
        found = {i.episode_id for i in items if i.episode_id is not None}
        for item in items:
            if item.memory_id is not None:
                found |= {
                    s.episode_id
                    for s in sample.store.sources(item.memory_id)
                    if s.episode_id is not None
                }
        return found


def retrieval_only(
    chosen: list[Question],
    settings: Settings,
    out: Path,
    progress: Progress = lambda done, total, note: None,
) -> list[dict[str, Any]]:
    """Evidence recall@5/10/20 of each question, per source the store has.

    ``recall@k``: the first k raw messages of the episode search. When the store holds memories
    (distilled by an earlier full run in the same folder), also ``memories recall@k``: the source
    messages of the first k memories, and ``both recall@k``: the first k items of both lists
    merged as a turn merges them (relevance scaled per list, messages weighed by
    ``recall.EPISODE_WEIGHT``), each memory counting for its source messages.
    """
    embedder = embedder_for(settings)  # no model answers: only the stores are searched
    records: list[dict[str, Any]] = []
    by_sample: dict[str, list[Question]] = {}
    for q in chosen:
        by_sample.setdefault(q.sample.sample_id, []).append(q)
    done = 0
    progress(done, len(chosen), "retrieval")
    for group in by_sample.values():
        sample = open_sample(out / "stores", group[0].sample, embedder)
        try:
            for q in group:
                wanted = sample.evidence(q.qa)
                if wanted:
                    records.append(_recalls(sample, q, wanted))
            done += len(group)
            progress(done, len(chosen), f"retrieval over {group[0].sample.sample_id} done")
        finally:
            sample.store.conn.close()
    return records


def _recalls(sample: Ingested, q: Question, wanted: set[int]) -> dict[str, Any]:
    """One question's record: key, category and recall@k per source."""
    top = max(RECALL_KS)
    episodes = EpisodeIndex(sample.store.space)
    vector = episodes.query_vector(q.qa.question)
    messages = episodes.search(
        q.qa.question,
        top,
        Filters(statuses=None, conversation_id=sample.conversation_id),
        vector=vector,
    )
    record: dict[str, Any] = {"key": q.key, "category": q.qa.category}
    ranked: dict[str, list[set[int]]] = {"": [{h.episode.id} for h in messages]}
    if sample.store.counts()[0]:
        memories = sample.store.search(q.qa.question, top, vector=vector)
        ranked["memories "] = [
            {s.episode_id for s in h.sources if s.episode_id is not None} for h in memories
        ]
        merged = list(zip(_scaled(memories), ranked["memories "], strict=True))
        merged += [
            (EPISODE_WEIGHT * s, {h.episode.id})
            for s, h in zip(_scaled(messages), messages, strict=True)
        ]
        ranked["both "] = [found for _, found in sorted(merged, key=lambda m: -m[0])]
    for source, found in ranked.items():
        for k in RECALL_KS:
            record[f"{source}recall@{k}"] = metrics.evidence_recall(wanted, set().union(*found[:k]))
    return record


def _scaled(hits: Sequence[Hit] | Sequence[EpisodeHit]) -> list[float]:
    """Scores as a share of the best one (as the turn scales each list)."""
    best = max((h.score for h in hits), default=0.0) or 1.0
    return [h.score / best for h in hits]


def _scores(record: dict[str, Any]) -> str:
    """The verdict and plan adherence of a record for a progress line ('' when it has none)."""
    found = [f"{name} {record[field]:.0f}" for field, name in _SCORE_NAMES if field in record]
    return "".join(f", {f}" for f in found)
