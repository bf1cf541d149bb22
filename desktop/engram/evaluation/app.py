"""The evaluation's use cases (``engram eval``): what Engram's memory adds, measured.

- A LoCoMo-format data set: every question answered under the conditions asked for (all four
  of :mod:`~engram.evaluation.runner` unless told) with the large model's verdicts when asked,
  or only the evidence recall of the search (``retrieval_only``);
- a task sequence (:mod:`~engram.evaluation.tasks`, PrefEval-style): the conditions asked for,
  and the ceiling when its reminder set is given.

The models and the context default to the user's Settings. A stopped run in the same folder is
taken up where it stopped (a task run with the same data, models and options; ``fresh`` starts
over), and every run ends with ``report.md`` and ``chart.png`` there. The terminal
(:mod:`engram.cli.eval`) turns its arguments into an :class:`Evaluation`, shows the progress
:func:`run` reports and says what it wrote; it imports nothing else of the evaluation (an import
contract).

The window's "What does memory add?" runs :func:`memory_effect`: a short check of the shipped task
set of the user's language with the user's models, without memory and with what they learn
(lessons included), as ``engram eval tasks-en --limit 8 --conditions none,lessons`` runs it, in a
temporary folder removed afterwards, so the user's own memories are never read or written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram.core import resources
from engram.core import settings as settings_mod
from engram.core.atomic import atomic_write, output_folder
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, tr
from engram.core.settings import Settings
from engram.evaluation import dataset, locomo, models, report, runner, task_runner, tasks

SHIPPED = {"tasks-en": "tasks_en.json", "tasks-zh": "tasks_zh.json"}  # in resources/eval
TASK_CONDITIONS = task_runner.CONDITIONS
LOCOMO_CONDITIONS = runner.CONDITIONS
Progress = models.Progress
# The short check: without memory, and with what was learned (lessons included), on the first
# tests of the shipped set (each with the tasks that teach it, in file order: ``first_tests``).
EFFECT_CONDITIONS = ("none", "lessons")
EFFECT_TESTS = 8


@dataclass(frozen=True)
class Evaluation:
    """One run as asked: the data set and the folder written to; the models and the context
    (None: the ones in Settings); only the first ``limit`` questions (or tests, with what
    teaches them); the large model as a ``judge`` too; no answers but the evidence recall
    (``retrieval_only``); the ``conditions`` to run (None: all those of the data set's kind);
    for a task set, the ``ceiling`` reminder set and whether to start afresh instead of
    resuming."""

    dataset: Path
    out: Path
    small: str | None = None
    large: str | None = None
    embedding: str | None = None
    context: int | None = None
    limit: int | None = None
    judge: bool = False
    retrieval_only: bool = False
    conditions: tuple[str, ...] | None = None
    ceiling: Path | None = None
    fresh: bool = False


@dataclass(frozen=True)
class Written:
    """What a run wrote (its report and chart), in how many seconds, and for the evidence
    recall its tables in Markdown (as in the report), to be shown."""

    report: Path
    chart: Path
    seconds: float
    tables: str = ""


@dataclass(frozen=True)
class EffectStep:
    """Where the short check is: loading the models (``condition`` ""), or the task it works
    on: the condition, a task that teaches or a test, its number among those of the condition
    and how many there are; ``done`` tasks of ``total`` are finished."""

    condition: str
    teaching: bool = False
    number: int = 0
    count: int = 0
    done: int = 0
    total: int = 0


@dataclass(frozen=True)
class Effect:
    """What the short check found: per condition, each test's kind and whether it passed (in
    file order); the command that runs the same check in a terminal; how long it took."""

    tests: dict[str, list[tuple[str, bool]]]
    command: str
    seconds: float

    @property
    def kinds(self) -> list[str]:
        """The kinds tested, in file order."""
        return list(dict.fromkeys(kind for kind, _ in self.tests[EFFECT_CONDITIONS[0]]))

    def passed(self, condition: str, kind: str | None = None) -> tuple[int, int]:
        """Tests passed under ``condition`` (of ``kind``, or all), and how many there were."""
        rows = [ok for k, ok in self.tests[condition] if kind is None or k == kind]
        return sum(rows), len(rows)


def memory_effect(
    language: str,
    step: Callable[[EffectStep], None],
    cancel: CancelToken,
    tests: int = EFFECT_TESTS,
) -> Effect | None:
    """The short check in ``language`` ("en" or "zh") with the models in Settings: the first
    ``tests`` tests of the shipped set with what teaches them, answered without memory and with
    lessons by the same runner as ``engram eval`` (feedback said in words is only the next
    message). It runs in a temporary folder, removed when it ends, stopped or not; ``step``
    hears where it is; None when ``cancel`` stopped it."""
    name = "tasks-zh" if language == "zh" else "tasks-en"
    task_set = tasks.first_tests(tasks.load(dataset_path(name)), tests)
    plan = [(c, t) for c in EFFECT_CONDITIONS for t in task_set.tasks]
    settings = settings_mod.load()

    def progress(done: int, total: int, _note: str) -> None:
        if done < total:
            condition, task = plan[done]
            same = [t for c, t in plan if c == condition and t.teaches == task.teaches]
            step(EffectStep(condition, task.teaches, same.index(task) + 1, len(same), done, total))

    step(EffectStep(""))
    start = time.perf_counter()
    out = Path(tempfile.mkdtemp(prefix="engram-memory-effect-"))
    try:
        with models.loaded(settings) as loaded:
            if cancel.cancelled:
                return None
            evaluation = task_runner.TaskRunner(
                loaded.small, loaded.distiller(), loaded.embedder, out, progress=progress,
                cancel=cancel,
            )  # fmt: skip
            records = evaluation.run(task_set, EFFECT_CONDITIONS)
    except task_runner.StoppedError:
        return None
    finally:
        shutil.rmtree(out, ignore_errors=True)
    asked = Evaluation(
        Path(name), out, settings.small_model, settings.large_model, settings.embedding_model,
        limit=tests, conditions=EFFECT_CONDITIONS,
    )  # fmt: skip
    found = {
        c: [(r["kind"], bool(r["passed"])) for r in rows if not r["teaches"]]
        for c, rows in records.items()
    }
    return Effect(found, _command(asked).strip("`"), time.perf_counter() - start)


def dataset_path(text: str) -> Path:
    """A data set's file: the path given, or a shipped task set by its name (``tasks-en``)."""
    given = Path(text)
    if text in SHIPPED and not given.exists():
        return Path(str(resources.path("eval", SHIPPED[text])))
    return given


def duration(seconds: float) -> str:
    """``4m05s``, ``1h02m``."""
    minutes, seconds = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s"


def run(asked: Evaluation, progress: Progress) -> Written:
    """Run the evaluation of ``asked.dataset``, a task sequence or a LoCoMo-format set;
    ``progress`` hears the units done, of how many, and what just happened.

    What is wrong with the request (a limit under 1, an output folder that is a file, a data
    set that cannot be read or has no questions, an answers file of something else) is raised
    before a model loads."""
    if asked.limit is not None and asked.limit < 1:
        raise InputError(tr("--limit must be at least 1."))
    task_set = tasks.is_task_file(asked.dataset)
    asked = _with_conditions(asked, TASK_CONDITIONS if task_set else LOCOMO_CONDITIONS)
    output_folder(asked.out)
    if task_set:
        return _tasks(asked, progress)
    chosen = dataset.questions(locomo.load_locomo(asked.dataset), asked.limit)
    if not chosen:
        raise InputError(
            tr("{path} has no questions."), tr('Check the file\'s "qa" lists.'), path=asked.dataset
        )
    if asked.retrieval_only:
        return _retrieval(asked, chosen, progress)
    return _answers(asked, chosen, progress)


def _retrieval(asked: Evaluation, chosen: list[dataset.Question], progress: Progress) -> Written:
    """Evidence recall@k of every chosen question: retrieval.json, the report and its chart."""
    start = time.perf_counter()
    settings = _with_settings(asked)[1]
    recalls = runner.retrieval_only(chosen, settings, asked.out, progress)
    with atomic_write(asked.out / "retrieval.json") as handle:
        json.dump({"records": recalls}, handle, ensure_ascii=False, indent=1)
    title = f"engram eval --retrieval-only: {asked.dataset.name}"
    report.write_retrieval(asked.out, recalls, runner.RECALL_KS, title)
    tables = report.retrieval_markdown(recalls, runner.RECALL_KS)
    return _written(asked.out, time.perf_counter() - start, tables)


def _answers(asked: Evaluation, chosen: list[dataset.Question], progress: Progress) -> Written:
    """Every chosen question answered (and judged) under every condition, answers.json
    resumed; the report and chart of the chosen questions' records."""
    start = time.perf_counter()
    asked, settings = _with_settings(asked)
    conditions = asked.conditions or LOCOMO_CONDITIONS
    with models.loaded(settings) as loaded:
        evaluation = runner.Runner(loaded, asked.out, progress=progress, judge=asked.judge)
        answers = evaluation.run(chosen, conditions)
    keys = {q.key for q in chosen}
    records = {
        c: [by[c] for k, by in answers.data["answers"].items() if k in keys and c in by]
        for c in conditions
    }
    title = f"engram eval: {asked.dataset.name}, small {asked.small}, large {asked.large}"
    report.write(asked.out, records, title)
    return _written(asked.out, time.perf_counter() - start)


def _tasks(asked: Evaluation, progress: Progress) -> Written:
    """A task sequence under the chosen conditions (and the ceiling): tasks.json, the report
    and its chart; a stopped run of the same data, models and options resumes where it
    stopped."""
    task_set = tasks.load(asked.dataset)
    ceiling = tasks.load(asked.ceiling) if asked.ceiling is not None else None
    if asked.limit is not None:
        task_set = tasks.first_tests(task_set, asked.limit)
        ceiling = ceiling and tasks.first_tests(ceiling, asked.limit)
    asked, settings = _with_settings(asked)
    named = models.identities(settings)
    run_id = json.dumps(
        [_digest(asked.dataset), asked.ceiling and _digest(asked.ceiling), named, asked.limit,
         asked.context, asked.conditions]
    )  # fmt: skip
    start = time.perf_counter()
    with models.loaded(settings) as loaded:
        evaluation = task_runner.TaskRunner(
            loaded.small, loaded.distiller(), loaded.embedder, asked.out, progress=progress
        )
        resume = None if asked.fresh else run_id
        records = evaluation.run(
            task_set, asked.conditions or TASK_CONDITIONS, ceiling=ceiling, resume=resume
        )
    took = time.perf_counter() - start
    with atomic_write(asked.out / "tasks.json") as handle:
        json.dump({"records": records, "models": named}, handle, ensure_ascii=False, indent=1)
    title = f"engram eval: {asked.dataset.name}, small {asked.small}, large {asked.large}"
    about = {
        f"{role} model": name for role, name in named.items()
    } | {
        "answers": "greedy (temperature 0): the same models give the same answers",
        "wall time": duration(took) + ("" if asked.fresh else " (this run; a resumed run"
                                       " counts only what it did)"),
        "reproduce": _command(asked),
    }  # fmt: skip
    report.write_tasks(asked.out, records, title, about)
    return _written(asked.out, took)


def _with_conditions(asked: Evaluation, known: tuple[str, ...]) -> Evaluation:
    """The request with its conditions in the data set's order (all of them when none were
    named); a condition of the other kind of data set is refused."""
    named = asked.conditions or known
    unknown = [c for c in named if c not in known]
    if unknown:
        raise InputError(
            tr("{conditions}: not a condition of {path}."),
            tr("Choose from {known}."),
            conditions=", ".join(unknown),
            path=asked.dataset.name,
            known=", ".join(known),
        )
    return dataclasses.replace(asked, conditions=tuple(c for c in known if c in named))


def _with_settings(asked: Evaluation) -> tuple[Evaluation, Settings]:
    """The request with the models and context it leaves to the user's Settings named, and
    those settings with the request's models and context."""
    user = settings_mod.load()
    settings = dataclasses.replace(
        user,
        small_model=asked.small or user.small_model,
        large_model=asked.large or user.large_model,
        embedding_model=asked.embedding or user.embedding_model,
        context_size=asked.context or user.context_size,
    )
    named = dataclasses.replace(
        asked,
        small=settings.small_model,
        large=settings.large_model,
        embedding=settings.embedding_model,
        context=settings.context_size,
    )
    return named, settings


def _written(out: Path, seconds: float, tables: str = "") -> Written:
    return Written(out / "report.md", out / "chart.png", seconds, tables)


def _command(asked: Evaluation) -> str:
    """The command that runs this evaluation again."""
    words = ["engram eval", str(asked.dataset), "--small", str(asked.small)]
    words += ["--large", str(asked.large), "--embedding", str(asked.embedding)]
    if asked.limit is not None:
        words += ["--limit", str(asked.limit)]
    if asked.conditions is not None and asked.conditions != TASK_CONDITIONS:
        words += ["--conditions", ",".join(asked.conditions)]
    if asked.ceiling is not None:
        words += ["--ceiling", str(asked.ceiling)]
    return "`" + " ".join(words) + "`"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
