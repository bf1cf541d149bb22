"""What the reading benchmarks share (bench/reading.py, bench/tool_routing.py): their command
line, and how a margin is calibrated on a development set."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path


def arguments(doc: str, dev: Sequence[Path], target: float) -> argparse.Namespace:
    """``--set`` (the development sets by default), ``--model``, ``--calibrate``, ``--target``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--set", type=Path, nargs="*", default=list(dev))
    parser.add_argument("--model", default="use-multilingual-v3")
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--target", type=float, default=target)
    return parser.parse_args()


def above(margins: Iterable[float], target: float, count: int) -> float:
    """The smallest margin (rounded up to three places) that at most ``target`` of ``count``
    innocent messages reach, given the ``margins`` they scored; -1.0 when none need leaving
    out."""
    ranked = sorted(margins, reverse=True)
    allowed = int(target * count)
    # just above the margin of the first innocent message past what is allowed
    return round(ranked[allowed] + 0.001, 3) if len(ranked) > allowed else -1.0
