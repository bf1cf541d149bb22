"""``engram eval``: measure what Engram's memory adds on a LoCoMo-format data set or a task
sequence; a terminal adapter over :mod:`engram.evaluation.app` (the arguments, a progress bar,
what was written)."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engram.evaluation import app as evaluation

BAR_WIDTH = 24


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "eval", help="answer a LoCoMo-format data set or a task sequence with and without memory"
    )
    cmd.add_argument(
        "dataset",
        type=evaluation.dataset_path,
        help="LoCoMo-format or task-sequence JSON file, or tasks-en / tasks-zh (the shipped sets)",
    )
    cmd.add_argument("--small", help="small model id (catalogue; default: the one in Settings)")
    cmd.add_argument("--large", help="large model id (catalogue; default: the one in Settings)")
    cmd.add_argument(
        "--embedding", help="embedding model id (catalogue; default: the one in Settings)"
    )
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
        help="the conditions to run, comma-separated (default: all): for a task set "
        f"{','.join(evaluation.TASK_CONDITIONS)}; for LoCoMo "
        f"{','.join(evaluation.LOCOMO_CONDITIONS)}",
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


def _conditions(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    known = (*evaluation.TASK_CONDITIONS, *evaluation.LOCOMO_CONDITIONS)
    unknown = [c for c in chosen if c not in known]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown) or text!r}: choose from {', '.join(known)}"
        )
    return chosen


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
            eta = (now - began) / (done - done_then) * (total - done)
            left = f"ETA {evaluation.duration(eta)}"
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
    asked = evaluation.Evaluation(
        args.dataset,
        args.out,
        small=args.small,
        large=args.large,
        embedding=args.embedding,
        context=args.context,
        limit=args.limit,
        judge=args.judge,
        retrieval_only=args.retrieval_only,
        conditions=args.conditions,
        ceiling=args.ceiling,
        fresh=args.fresh,
    )
    progress = ProgressBar(sys.stderr)
    try:
        written = evaluation.run(asked, progress)
    finally:
        progress.close()
    if written.tables:
        print(written.tables)
    print(f"wrote {written.report} and {written.chart} in {written.seconds:.0f} s")
    return 0
