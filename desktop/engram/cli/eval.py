"""``engram eval``: measure what Engram's memory adds on a LoCoMo-format data set."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from engram.assistant.evaluation import dataset, report, runner
from engram.assistant.session import embedder_for
from engram.core.atomic import atomic_write
from engram.core.errors import InputError
from engram.core.settings import Settings
from engram.memory import locomo
from engram.models import roles


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("eval", help="answer a LoCoMo-format data set with and without memory")
    cmd.add_argument("dataset", type=Path, help="LoCoMo-format JSON file")
    cmd.add_argument("--small", default=Settings.small_model, help="small model id (catalogue)")
    cmd.add_argument("--large", default=Settings.large_model, help="large model id (catalogue)")
    cmd.add_argument("--limit", type=int, help="only the first N questions")
    cmd.add_argument("--out", type=Path, default=Path("eval-out"), help="output folder")
    cmd.add_argument("--context", type=int, default=Settings.context_size, help="context tokens")
    cmd.add_argument(
        "--retrieval-only", action="store_true", help="no answers: evidence recall@5/10/20 only"
    )
    cmd.set_defaults(run=run)


def _progress(line: str) -> None:
    print(f"\r\x1b[K{line}" if sys.stderr.isatty() else line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1.")
    samples = locomo.load_locomo(args.dataset)
    chosen = dataset.questions(samples, args.limit)
    if not chosen:
        raise InputError(f"{args.dataset} has no questions.", 'Check the file\'s "qa" lists.')
    settings = Settings(small_model=args.small, large_model=args.large, context_size=args.context)
    embedder = embedder_for(settings)
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.retrieval_only:
        records = runner.retrieval_only(chosen, embedder, args.out, _progress)
        with atomic_write(args.out / "retrieval.json") as handle:
            json.dump({"records": records}, handle, ensure_ascii=False, indent=1)
        report.write_retrieval(args.out, records, runner.RECALL_KS)
    else:
        small = roles.load_local(settings, "small")
        try:
            large = roles.load_local(settings, "large")
            try:
                evaluation = runner.Runner(small, large, embedder, args.out, progress=_progress)
                answers = evaluation.run(chosen)
            finally:
                large.close()
        finally:
            small.close()
        keys = {q.key for q in chosen}
        summary = report.summarize(
            {
                c: [by[c] for k, by in answers.data["answers"].items() if k in keys and c in by]
                for c in runner.CONDITIONS
            }
        )
        title = f"engram eval: {args.dataset.name}, small {args.small}, large {args.large}"
        report.write(args.out, summary, title)
    took = time.perf_counter() - start
    print(f"wrote {args.out / 'report.md'} and {args.out / 'chart.png'} in {took:.0f} s")
    return 0
