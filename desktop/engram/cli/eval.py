"""``engram eval``: measure what Engram's memory adds on a LoCoMo-format data set."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engram.core import resources
from engram.core import settings as settings_mod
from engram.core.atomic import atomic_write, output_folder
from engram.core.errors import InputError, tr
from engram.core.settings import Settings
from engram.evaluation import dataset, locomo, models, report, runner, task_runner, tasks

BAR_WIDTH = 24
SHIPPED = {"tasks-en": "tasks_en.json", "tasks-zh": "tasks_zh.json"}  # in resources/eval


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "eval", help="answer a LoCoMo-format data set or a task sequence with and without memory"
    )
    cmd.add_argument(
        "dataset",
        type=dataset_path,
        help="LoCoMo-format or task-sequence JSON file, or tasks-en / tasks-zh (the shipped sets)",
    )
    cmd.add_argument("--small", help="small model id (catalogue; default: the one in Settings)")
    cmd.add_argument("--large", help="large model id (catalogue; default: the one in Settings)")
    cmd.add_argument(
        "--limit",
        type=int,
        help="only the first N questions (or the first N tests, with what teaches them)",
    )
    cmd.add_argument("--out", type=Path, default=Path("eval-out"), help="output folder")
    cmd.add_argument("--context", type=int, help="context tokens (default: the one in Settings)")
    cmd.add_argument(
        "--judge",
        action="store_true",
        help="the large model also judges each answer (correct/wrong) and plan adherence",
    )
    cmd.add_argument(
        "--retrieval-only", action="store_true", help="no answers: evidence recall@5/10/20 only"
    )
    cmd.add_argument(
        "--conditions",
        type=_conditions,
        default=task_runner.CONDITIONS,
        help="task sets: the conditions to run, comma-separated"
        f" ({','.join(task_runner.CONDITIONS)})",
    )
    cmd.add_argument(
        "--ceiling",
        type=Path,
        help="task sets: the same tests with what was taught said again in each question"
        " (PrefEval's *-reminder.json), run without memory as the ceiling",
    )
    cmd.add_argument(
        "--fresh",
        action="store_true",
        help="task sets: start over instead of resuming a stopped run in --out",
    )
    cmd.set_defaults(run=run)


def dataset_path(text: str) -> Path:
    """A data set's file: the path given, or a shipped task set by its name (``tasks-en``)."""
    given = Path(text)
    if text in SHIPPED and not given.exists():
        return Path(str(resources.path("eval", SHIPPED[text])))
    return given


def _conditions(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    unknown = [c for c in chosen if c not in task_runner.CONDITIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown) or text!r}: choose from {', '.join(task_runner.CONDITIONS)}"
        )
    return chosen


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s"


class ProgressBar:
    """Progress on a stream: a bar with done/total and the time left on a terminal, else lines.

    The time left is extrapolated from the units done since the first report of this run, so
    work skipped on a resume does not make it look faster than it is.
    """

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.perf_counter) -> None:
        self.stream = stream
        self.clock = clock
        self.tty = stream.isatty()
        self.start: tuple[float, int] | None = None
        self.open = False  # a bar is on the terminal's last line

    def __call__(self, done: int, total: int, note: str) -> None:
        now = self.clock()
        if self.start is None:
            self.start = (now, done)
        if not self.tty:
            print(f"[{done}/{total}] {note}", file=self.stream, flush=True)
            return
        began, done_then = self.start
        left = "ETA --"
        if done > done_then:
            left = f"ETA {_duration((now - began) / (done - done_then) * (total - done))}"
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        line = f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done}/{total} {left}  {note}"
        columns = shutil.get_terminal_size().columns
        self.stream.write(f"\r\x1b[K{line[: columns - 1]}")
        self.stream.flush()
        self.open = True

    def close(self) -> None:
        """End the bar's line so that what follows starts on a new one."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError(tr("--limit must be at least 1."))
    output_folder(args.out)
    if tasks.is_task_file(args.dataset):
        return _run_tasks(args)
    samples = locomo.load_locomo(args.dataset)
    chosen = dataset.questions(samples, args.limit)
    if not chosen:
        raise InputError(
            tr("{path} has no questions."), tr('Check the file\'s "qa" lists.'), path=args.dataset
        )
    settings = _settings(args)
    start = time.perf_counter()
    progress = ProgressBar(sys.stderr)
    try:
        if args.retrieval_only:
            recalls = runner.retrieval_only(chosen, settings, args.out, progress)
            with atomic_write(args.out / "retrieval.json") as handle:
                json.dump({"records": recalls}, handle, ensure_ascii=False, indent=1)
            title = f"engram eval --retrieval-only: {args.dataset.name}"
            report.write_retrieval(args.out, recalls, runner.RECALL_KS, title)
            print(report.retrieval_markdown(recalls, runner.RECALL_KS))
        else:
            with models.loaded(settings) as loaded:
                evaluation = runner.Runner(loaded, args.out, progress=progress, judge=args.judge)
                answers = evaluation.run(chosen)
            keys = {q.key for q in chosen}
            records = {
                c: [by[c] for k, by in answers.data["answers"].items() if k in keys and c in by]
                for c in runner.CONDITIONS
            }
            title = f"engram eval: {args.dataset.name}, small {args.small}, large {args.large}"
            report.write(args.out, records, title)
    finally:
        progress.close()
    took = time.perf_counter() - start
    print(f"wrote {args.out / 'report.md'} and {args.out / 'chart.png'} in {took:.0f} s")
    return 0


def _run_tasks(args: argparse.Namespace) -> int:
    """A task sequence under the chosen conditions (and the ceiling): report.md, chart.png and
    tasks.json; a stopped run resumes where it stopped."""
    task_set = tasks.load(args.dataset)
    ceiling = tasks.load(args.ceiling) if args.ceiling is not None else None
    if args.limit is not None:
        task_set = tasks.first_tests(task_set, args.limit)
        ceiling = ceiling and tasks.first_tests(ceiling, args.limit)
    settings = _settings(args)
    named = models.identities(settings)
    run_id = json.dumps(
        [_digest(args.dataset), args.ceiling and _digest(args.ceiling), named, args.limit,
         args.context, args.conditions]
    )  # fmt: skip
    start = time.perf_counter()
    progress = ProgressBar(sys.stderr)
    try:
        with models.loaded(settings) as loaded:
            evaluation = task_runner.TaskRunner(
                loaded.small, loaded.distiller(), loaded.embedder, args.out, progress=progress
            )
            resume = None if args.fresh else run_id
            records = evaluation.run(task_set, args.conditions, ceiling=ceiling, resume=resume)
    finally:
        progress.close()
    took = time.perf_counter() - start
    with atomic_write(args.out / "tasks.json") as handle:
        json.dump({"records": records, "models": named}, handle, ensure_ascii=False, indent=1)
    title = f"engram eval: {args.dataset.name}, small {args.small}, large {args.large}"
    about = {
        f"{role} model": name for role, name in named.items()
    } | {
        "answers": "greedy (temperature 0): the same models give the same answers",
        "wall time": _duration(took) + ("" if args.fresh else " (this run; a resumed run"
                                         " counts only what it did)"),
        "reproduce": _command(args),
    }  # fmt: skip
    report.write_tasks(args.out, records, title, about)
    print(f"wrote {args.out / 'report.md'} and {args.out / 'chart.png'} in {took:.0f} s")
    return 0


def _settings(args: argparse.Namespace) -> Settings:
    """The user's settings with the models and context the command names; fills ``args`` in."""
    chosen = settings_mod.load()
    args.small = args.small or chosen.small_model
    args.large = args.large or chosen.large_model
    args.context = args.context or chosen.context_size
    return dataclasses.replace(
        chosen, small_model=args.small, large_model=args.large, context_size=args.context
    )


def _command(args: argparse.Namespace) -> str:
    """The command that runs this evaluation again."""
    words = ["engram eval", str(args.dataset), "--small", args.small, "--large", args.large]
    if args.limit is not None:
        words += ["--limit", str(args.limit)]
    if tuple(args.conditions) != task_runner.CONDITIONS:
        words += ["--conditions", ",".join(args.conditions)]
    if args.ceiling is not None:
        words += ["--ceiling", str(args.ceiling)]
    return "`" + " ".join(words) + "`"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
