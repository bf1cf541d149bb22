"""Is this llama.cpp built for this CPU? One token decoded in a child process says so (and the
next 32, timed, are this machine's first decode-speed measurement: :mod:`engram.models.speed`).

A llama.cpp compiled for another processor (``-march=native`` on a newer machine, or AMX kernels
on a CPU whose hypervisor does not grant the tile state) dies with SIGILL at the first decode,
taking the whole app with it. The check loads a small GGUF and decodes one token in a child
process first: a crash there becomes a message with the way out, never a bare "Illegal
instruction". The answer is remembered beside the models for the llama.cpp library files it
was made with, so the check runs once per install, not once per start.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from engram.core import log, paths
from engram.core.atomic import atomic_write
from engram.core.errors import ModelLoadError, Problem, tr
from engram.models import preflight, speed

_log = log.get("models.build_check")
CHILD_ARG = "_check-llama-build"  # the launcher's hidden subcommand that runs the child
STAMP = "llama-build.json"
TIMEOUT_S = 300.0
_OK = "engram-llama-ok"
TIMED_TOKENS = 32  # decoded after the first, to measure this machine's decode speed
_REBUILD = tr(
    "Install Engram again for this computer: from a source checkout, delete "
    ".venv/.engram-llama and run installer/run.sh (it compiles llama.cpp with the portable "
    "flags of installer/llama_flags.sh); for the packaged app, download the build for this "
    "kind of computer."
)


def library_id() -> str:
    """A digest of the llama.cpp library files' names, sizes and times ('' when not found)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return ""
    lib = Path(next(iter(spec.submodule_search_locations))) / "lib"
    found = sorted(p for p in lib.glob("*") if p.is_file()) if lib.is_dir() else []
    digest = hashlib.sha256()
    for path in found:
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest() if found else ""


def command(model: Path) -> list[str]:
    """The child's command line, from a source install or the packaged app alike."""
    if getattr(sys, "frozen", False):
        return [sys.executable, CHILD_ARG, str(model)]
    return [sys.executable, "-m", "engram.launcher", CHILD_ARG, str(model)]


def check(model: Path, timeout: float = TIMEOUT_S) -> Problem | None:
    """Decode one token with ``model`` in a child process; what went wrong, or None."""
    start = time.monotonic()
    try:
        done = subprocess.run(
            command(model),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Problem(
            tr("llama.cpp did not decode one token of {model} within {seconds:.0f} s."),
            tr("The computer may be very busy; close other programs and try again."),
            model=model.name,
            seconds=timeout,
        )
    except OSError as exc:
        return Problem(
            tr("The llama.cpp check could not start ({error})."), error=exc.strerror or str(exc)
        )
    _log.info("llama.cpp check: exit %d in %.1f s", done.returncode, time.monotonic() - start)
    if done.returncode == 0 and _OK in done.stdout:
        _record_speed(model, done.stdout)
        return None
    if done.returncode < 0:
        number = -done.returncode
        if number == signal.SIGILL:
            return Problem(
                tr(
                    "llama.cpp stopped with an illegal instruction: it was compiled for a "
                    "different processor than this one."
                ),
                _REBUILD,
            )
        return Problem(
            tr("llama.cpp crashed ({signal}) decoding one token of {model}."),
            _REBUILD,
            signal=_signal_name(number),
            model=model.name,
        )
    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
    return Problem(
        tr("llama.cpp could not decode one token of {model} ({error})."),
        tr("Download the model again, or choose another one."),
        model=model.name,
        error=last[-300:],
    )


def _record_speed(model: Path, said: str) -> None:
    """The child timed its greedy tokens: this machine's first decode-speed measurement, so
    the first recommendation already knows how fast this computer is."""
    parts = said.split(_OK, 1)[1].split()
    try:
        tokens, seconds = int(parts[0]), float(parts[1])
    except (IndexError, ValueError):
        return
    if seconds > 0:
        speed.record(preflight.model_bytes(model), tokens, tokens / seconds)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def ensure(model: Path, again: bool = False) -> None:
    """Raise :class:`ModelLoadError` unless this llama.cpp library is known to run here.

    A passed check is remembered (``<models>/llama-build.json``) for the library files it ran
    with; a failed one is not, so the check runs again after a rebuild. ``again`` checks even
    when a passed check is remembered, and so does a data folder that has no decode speed yet
    for a model large enough to time (models shared with a new ``ENGRAM_HOME``): its first
    recommendation then knows how fast this computer is, not only its RAM.
    """
    library = library_id()
    stamp = paths.models_dir() / STAMP
    unmeasured = (
        not speed.samples()
        and model.is_file()
        and preflight.model_bytes(model) >= speed.MIN_MODEL_BYTES
    )
    try:
        remembered = json.loads(stamp.read_text(encoding="utf-8")).get("library")
        if library and remembered == library and not (again or unmeasured):
            return
    except (OSError, ValueError, AttributeError):
        pass
    problem = check(model)
    if problem is not None:
        raise ModelLoadError(problem.template, problem.hint_template, **problem.params)
    if library:
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(stamp) as handle:
                json.dump({"library": library, "model": model.name}, handle)
        except OSError as exc:  # a read-only models folder: the check simply runs again
            _log.warning("could not remember the llama.cpp check (%s)", type(exc).__name__)


def child(args: list[str]) -> int:
    """The child: load the GGUF and decode one token; print a marker when it worked."""
    if len(args) != 1:
        print(f"usage: engram {CHILD_ARG} MODEL.gguf", file=sys.stderr)
        return 2
    from llama_cpp import Llama

    from engram.models.background import thread_plan

    threads = thread_plan().foreground  # as the answering model runs
    try:
        llm = Llama(model_path=args[0], n_ctx=128, n_batch=16, n_threads=threads, verbose=False)
        llm.eval(llm.tokenize(b"Once upon a time", add_bos=True))
        start = time.perf_counter()
        for _ in range(TIMED_TOKENS):  # greedy: the first token proves the build, the rest time it
            llm.eval([llm.sample(temp=0.0)])
        seconds = time.perf_counter() - start
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"{_OK} {TIMED_TOKENS} {seconds:.6f}")
    return 0
