"""``engram eval``: measure what Engram's memory adds on a LoCoMo-format data set."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engram.core.atomic import atomic_write, output_folder
from engram.core.errors import InputError, tr
from engram.core.settings import Settings
from engram.evaluation import dataset, locomo, models, report, runner, task_runner, tasks

BAR_WIDTH = 24


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "eval", help="answer a LoCoMo-format data set or a task sequence with and without memory"
    )
    cmd.add_argument("dataset", type=Path, help="LoCoMo-format or task-sequence JSON file")
    cmd.add_argument("--small", default=Settings.small_model, help="small model id (catalogue)")
    cmd.add_argument("--large", default=Settings.large_model, help="large model id (catalogue)")
    cmd.add_argument("--limit", type=int, help="only the first N questions (or tasks)")
    cmd.add_argument("--out", type=Path, default=Path("eval-out"), help="output folder")
    cmd.add_argument("--context", type=int, default=Settings.context_size, help="context tokens")
    cmd.add_argument(
        "--judge",
        action="store_true",
        help="the large model also judges each answer (correct/wrong) and plan adherence",
    )
    cmd.add_argument(
        "--retrieval-only", action="store_true", help="no answers: evidence recall@5/10/20 only"
    )
    cmd.set_defaults(run=run)


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
    settings = Settings(small_model=args.small, large_model=args.large, context_size=args.context)
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
    """A task sequence under the four conditions: report.md, chart.png and tasks.json."""
    task_set = tasks.load(args.dataset)
    if args.limit is not None:
        task_set = tasks.TaskSet(task_set.path, task_set.language, task_set.tasks[: args.limit])
    settings = Settings(small_model=args.small, large_model=args.large, context_size=args.context)
    start = time.perf_counter()
    progress = ProgressBar(sys.stderr)
    try:
        with models.loaded(settings) as loaded:
            evaluation = task_runner.TaskRunner(
                loaded.small, loaded.distiller(), loaded.embedder, args.out, progress=progress
            )
            records = evaluation.run(task_set)
    finally:
        progress.close()
    with atomic_write(args.out / "tasks.json") as handle:
        json.dump({"records": records}, handle, ensure_ascii=False, indent=1)
    title = f"engram eval: {args.dataset.name}, small {args.small}, large {args.large}"
    report.write_tasks(args.out, records, title)
    took = time.perf_counter() - start
    print(f"wrote {args.out / 'report.md'} and {args.out / 'chart.png'} in {took:.0f} s")
    return 0
