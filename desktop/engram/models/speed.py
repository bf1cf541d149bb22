"""How fast this machine decodes, measured from the answers it really gave.

Decoding one token reads every weight of the model once, so a machine's decode speed is close to
a number of model bytes per second: a model of twice the size decodes about half as many tokens
per second. Each answer long enough to time (``MIN_TOKENS``) of a local model that is not a tiny
demo (``MIN_MODEL_BYTES``), and the timed tokens of the first build check, add one sample each:
its tokens/s times the size of its GGUF; the median of the newest ``KEPT`` samples, in
``<data>/speed.json``, held steady within ``STEADY_BAND``, estimates the tokens/s of any other
model here. The first sample usually comes from the build check (32 timed tokens of the small
model, once per install, and again for a data folder with none yet); until there is one the
recommendations estimate the speed from the cores (``hardware.Machine``). Whoever shows a
recommendation can :func:`subscribe` to hear of each new sample and work it out again.
"""

from __future__ import annotations

import json
import statistics
import threading
from collections.abc import Callable
from pathlib import Path

from engram.core import log, paths
from engram.core.atomic import atomic_write

_log = log.get("models.speed")
FILE = "speed.json"
MIN_TOKENS = 24  # an answer shorter than this times its first tokens more than its speed
# A tiny model's speed is bound by per-token overheads, not by reading its weights: a 135M demo
# would promise a 4B model a third of its real speed.
MIN_MODEL_BYTES = 250_000_000
KEPT = 9
# The speed recommendations use (the "steady" rate) follows the median only once the median
# has moved more than this share away from it: a machine shared with other work times its
# answers far apart (11.8, 9.1 and 7.2 GB/s on this project's 2-core VM), and the pair shown
# on screen must not change back and forth with them.
STEADY_BAND = 0.25
_lock = threading.Lock()
_listeners: list[Callable[[], None]] = []


def _path() -> Path:
    return paths.data_dir() / FILE


def _read() -> dict[str, object]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _samples_of(data: dict[str, object]) -> list[float]:
    values = data.get("bytes_per_s", [])
    if not isinstance(values, list):
        return []
    return [float(v) for v in values if isinstance(v, (int, float)) and v > 0][-KEPT:]


def samples() -> list[float]:
    """The kept samples, in model bytes decoded per second (oldest first)."""
    return _samples_of(_read())


def bytes_per_second() -> float | None:
    """Model bytes this machine decodes per second, or None before any sample: the median of
    the samples, held steady (it moves only when the median leaves ``STEADY_BAND`` of it)."""
    data = _read()
    kept = _samples_of(data)
    if not kept:
        return None
    steady = data.get("steady")
    if isinstance(steady, (int, float)) and steady > 0:
        return float(steady)
    return statistics.median(kept)  # a file written before the steady rate was kept


def _steady(previous: object, median: float) -> float:
    """The steady rate after a new median: the one held while the median stays near it."""
    if not isinstance(previous, (int, float)) or previous <= 0:
        return median
    held = float(previous)
    return held if abs(median - held) <= STEADY_BAND * held else median


def record(model_bytes: int, tokens: int, tokens_per_s: float) -> None:
    """Add one answer's decode speed (``tokens`` generated at ``tokens_per_s`` by a model of
    ``model_bytes``); too short an answer, or a tiny model's, is not a measurement."""
    if tokens < MIN_TOKENS or tokens_per_s <= 0 or model_bytes < MIN_MODEL_BYTES:
        return
    with _lock:
        data = _read()
        kept = [*_samples_of(data), model_bytes * tokens_per_s][-KEPT:]
        steady = _steady(data.get("steady"), statistics.median(kept))
        try:
            with atomic_write(_path()) as handle:
                json.dump(
                    {"bytes_per_s": [round(v) for v in kept], "steady": round(steady)}, handle
                )
        except OSError as exc:  # a read-only data folder: speed stays unmeasured
            _log.warning("could not record the decode speed (%s)", type(exc).__name__)
            return
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener()
        except Exception:  # a broken listener must not stop the others (or the answer)
            _log.exception("a decode-speed listener failed")


def subscribe(listener: Callable[[], None]) -> Callable[[], None]:
    """Call ``listener()`` after each recorded sample, on the thread that recorded it (a model's
    or the build check's); returns the function that stops it."""
    with _lock:
        _listeners.append(listener)

    def unsubscribe() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return unsubscribe


def tokens_per_second(model_bytes: int, measured: float | None = None) -> float | None:
    """The estimated decode tokens/s of a model of ``model_bytes`` here (None: not measured)."""
    rate = bytes_per_second() if measured is None else measured
    return rate / model_bytes if rate and model_bytes > 0 else None
