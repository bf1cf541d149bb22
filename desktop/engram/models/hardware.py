"""Hardware fit: what this machine has (RAM, disk, cores, GPU) and which models suit it."""

from __future__ import annotations

import dataclasses
import functools
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engram.core import log, paths
from engram.core.errors import Problem, tr
from engram.models import catalogue, files, quality, speed
from engram.models.catalogue import Catalogue, ModelEntry, Pair

_log = log.get("models.hardware")
GB = 1_000_000_000
# Share of installed RAM one model may take and still "fit": the OS, the app and the other model
# need the rest. Up to TIGHT it runs but other programs may be pushed to swap.
FITS_SHARE = 0.5
TIGHT_SHARE = 0.8
FITS, TIGHT, NO_FIT = "fits", "tight", "does not fit"
# Installed RAM is reported a little under the nominal size (8 GB shows as ~7.6).
TIER_REACHED = 0.9
# For the download-time estimate when nothing was measured: 40 Mbit/s, a common home line.
ASSUMED_BYTES_PER_S = 5_000_000
# Decode speeds a recommended pair must reach here (measured by models.speed, else estimated from
# the cores): answers faster than people read, learning that keeps up in the background.
ANSWER_TOKENS_PER_S = 8.0
LEARN_TOKENS_PER_S = 2.5
# Until a speed is measured: model bytes one llama.cpp decode thread reads per second, by the
# widest vector instructions the CPU has, at the low end of what CPUs of that kind do (one
# AVX-512 thread of this project's 2-core EPYC VM decodes ~11 GB/s of the 0.5B; an older AVX2
# laptop core ~4). The answering model gets the physical cores minus one (models.background's
# thread plan, without counting SMT siblings), and the memory bus caps them all together
# (dual-channel DDR4 gives llama.cpp ~25-35 GB/s). Low on purpose: a 4B recommended to a machine
# where it answers at 4 tokens/s costs a 2.5 GB download and a bad first hour; a pair too small
# is corrected by the first answer long enough to time.
THREAD_BYTES_PER_S = {"avx512": 4.5e9, "avx2": 3.5e9, "neon": 3.5e9, "": 1.5e9}
ASSUMED_MEMORY_BYTES_PER_S = 25e9
SIMD_NAMES = {"avx512": "AVX-512", "avx2": "AVX2", "neon": "NEON"}


@dataclass(frozen=True)
class Machine:
    """What the fit rules look at."""

    ram_total: int
    ram_available: int
    disk_free: int
    cores: int
    gpu: str | None = None
    decode_bytes_per_s: float | None = None  # measured from real answers (models.speed)
    simd: str = ""  # the widest vector instructions: "avx512", "avx2", "neon" or "" (older)
    verdict: quality.Verdict | None = None  # the answering models' check here (models.quality)

    @property
    def decode_threads(self) -> int:
        """The threads the answering model decodes with here, counted low: the physical cores
        minus one (an SMT machine gives it all of its physical cores)."""
        return max(1, self.cores - 1)

    @property
    def estimated_bytes_per_s(self) -> float:
        """Model bytes this machine should decode per second, from its cores and vector
        instructions alone (low on purpose; no GPU counted)."""
        per_thread = THREAD_BYTES_PER_S.get(self.simd, THREAD_BYTES_PER_S[""])
        return min(self.decode_threads * per_thread, ASSUMED_MEMORY_BYTES_PER_S)

    @property
    def measured(self) -> bool:
        """Whether the decode speed was measured here (else it is estimated from the cores)."""
        return bool(self.decode_bytes_per_s)

    @property
    def bytes_per_s(self) -> float:
        """Model bytes decoded per second here: measured once an answer was timed, else the
        estimate from the cores."""
        return self.decode_bytes_per_s or self.estimated_bytes_per_s

    def tokens_per_second(self, entry: ModelEntry) -> float | None:
        """The decode speed ``entry`` would have here, measured or estimated (None: not a
        GGUF)."""
        if entry.format != "gguf":
            return None
        return speed.tokens_per_second(entry.download_bytes(), self.bytes_per_s)

    def describe_speed(self) -> Problem:
        """How fast this machine decodes and where the number comes from (``str()`` is
        English; the window translates it)."""
        if self.decode_bytes_per_s:
            return Problem(
                tr("{rate:.1f} GB of model weights a second, measured here"),
                rate=self.decode_bytes_per_s / GB,
            )
        simd: object = SIMD_NAMES.get(self.simd, self.simd) if self.simd else Problem(tr("no AVX2"))
        return Problem(
            tr(
                "about {rate:.1f} GB of model weights a second, estimated from {cores} cores "
                "({simd}); not measured yet"
            ),
            rate=self.estimated_bytes_per_s / GB,
            cores=self.cores,
            simd=simd,
        )

    def describe(self) -> Problem:
        """One line for people (``str()`` is English; the window translates it)."""
        return Problem(
            tr(
                "{ram:.1f} GB RAM ({free:.1f} GB free), {disk:.1f} GB free disk, {cores} cores{gpu}"
            ),
            ram=self.ram_total / GB,
            free=self.ram_available / GB,
            disk=self.disk_free / GB,
            cores=self.cores,
            gpu=f", GPU: {self.gpu}" if self.gpu else "",
        )


@dataclass(frozen=True)
class Fit:
    """How one model suits a machine."""

    level: str  # FITS, TIGHT or NO_FIT
    reason: Problem  # one sentence (``str()`` is English; the window translates it)


def free_disk_bytes(path: Path) -> int:
    """Free bytes on the filesystem holding ``path`` (the nearest existing parent)."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def detect_gpu() -> str | None:
    """A cheap GPU check: an NVIDIA driver tool on PATH, or llama.cpp built with GPU offload."""
    if shutil.which("nvidia-smi"):
        return "NVIDIA"
    try:
        import llama_cpp

        if llama_cpp.llama_supports_gpu_offload():
            return "llama.cpp GPU offload"
    except (ImportError, OSError, AttributeError) as exc:  # pragma: no cover - broken install
        _log.debug("llama.cpp GPU probe failed: %s", exc)
    return None


@functools.cache
def detect_simd() -> str:
    """The widest vector instructions llama.cpp uses on this CPU ("avx512", "avx2", "neon"),
    or "" when older or unknown (read once: the CPU does not change while Engram runs)."""
    arch = platform.machine().lower()
    if arch in ("arm64", "aarch64"):
        return "neon"
    flags = ""
    try:
        if os.path.exists("/proc/cpuinfo"):
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
                flags = next((line for line in cpuinfo if line.startswith("flags")), "")
        elif platform.system() == "Darwin":
            flags = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.leaf7_features", "machdep.cpu.features"],
                capture_output=True, text=True, timeout=2, check=False,
            ).stdout  # fmt: skip
        elif platform.system() == "Windows":
            import ctypes

            present = ctypes.windll.kernel32.IsProcessorFeaturePresent  # type: ignore[attr-defined]
            # PF_AVX512F_INSTRUCTIONS_AVAILABLE = 41, PF_AVX2_INSTRUCTIONS_AVAILABLE = 40
            return "avx512" if present(41) else "avx2" if present(40) else ""
    except (OSError, subprocess.SubprocessError, AttributeError) as exc:
        _log.debug("could not read the CPU's vector instructions: %s", type(exc).__name__)
    words = set(flags.lower().split())
    if "avx512f" in words:
        return "avx512"
    return "avx2" if "avx2" in words else ""


def probe(models_dir: Path | None = None, gpu: bool = True) -> Machine:
    """Measure this machine now (with what the quality check found here, when it ran)."""
    import psutil

    memory = psutil.virtual_memory()
    cores = psutil.cpu_count(logical=False) or os.cpu_count() or 1
    return Machine(
        ram_total=int(memory.total),
        ram_available=int(memory.available),
        disk_free=free_disk_bytes(models_dir or paths.models_dir()),
        cores=int(cores),
        gpu=detect_gpu() if gpu else None,
        decode_bytes_per_s=speed.bytes_per_second(),
        simd=detect_simd(),
        verdict=quality.verdict(quality.candidates(catalogue.load())),
    )


def fit(entry: ModelEntry, machine: Machine, installed: bool = False) -> Fit:
    """Whether ``entry`` runs well on ``machine``, with the reason in one sentence."""
    need = entry.ram_gb * GB
    total = machine.ram_total
    if not installed and entry.download_bytes() > machine.disk_free:
        return Fit(
            NO_FIT,
            Problem(
                tr("needs {size:.1f} GB of disk, {free:.1f} GB free"),
                size=entry.download_bytes() / GB,
                free=machine.disk_free / GB,
            ),
        )
    need_gb, total_gb = entry.ram_gb, total / GB
    if need > total * TIGHT_SHARE:
        return Fit(
            NO_FIT,
            Problem(
                tr("needs {need:g} GB of {total:.1f} GB RAM; the system would swap"),
                need=need_gb,
                total=total_gb,
            ),
        )
    if need > total * FITS_SHARE:
        return Fit(
            TIGHT,
            Problem(
                tr("needs {need:g} GB of {total:.1f} GB RAM; close other programs while it runs"),
                need=need_gb,
                total=total_gb,
            ),
        )
    if need > machine.ram_available:
        return Fit(
            TIGHT,
            Problem(
                tr("needs {need:g} GB of {total:.1f} GB RAM, but only {free:.1f} GB are free now"),
                need=need_gb,
                total=total_gb,
                free=machine.ram_available / GB,
            ),
        )
    return Fit(
        FITS,
        Problem(tr("needs {need:g} GB of {total:.1f} GB RAM"), need=need_gb, total=total_gb),
    )


def recommend(cat: Catalogue, machine: Machine) -> Pair | None:
    """The one recommended pair for this machine state, wherever it is shown (the welcome
    panel, the model manager and ``engram models recommend`` all come here, through
    :func:`offer`): the largest pair whose models run fast enough here (the small one answers
    at ``ANSWER_TOKENS_PER_S``, the large one learns at ``LEARN_TOKENS_PER_S``, at the measured
    decode speed, else at the estimate from the cores) among those whose RAM tier the machine
    reaches; when none is, the smallest. The cores and the speed come before the RAM: a 2-core
    laptop with 24 GB gets the pair it can run, not a 4B + 7B pair at two tokens a second.

    Installed RAM is reported a little under the nominal size (8 GB shows as ~7.6), so a tier is
    reached at 90 % of its size. Once the quality check ran here (``machine.verdict``) and
    checked the pair's answering model, the pair answers with the model it chose instead
    (:func:`answering`).
    """
    tiers = reached(cat, machine)
    quick = [p for p in tiers if not too_slow(cat, p, machine)]
    chosen = quick or tiers[:1]
    pair = chosen[-1] if chosen else (cat.pairs[0] if cat.pairs else None)
    return None if pair is None else answering(cat, pair, machine.verdict)


def answering(cat: Catalogue, pair: Pair, found: quality.Verdict | None) -> Pair:
    """``pair`` answering with the model the quality check chose on this machine, when the
    check scored the pair's own answering model too (a pair to download is not second-guessed);
    its learning model stays at least as capable (:func:`learner_for`), and its reason is the
    check's, in both languages."""
    if found is None or pair.small not in {r.model_id for r in found.results}:
        return pair
    chosen = cat.get(found.chosen.model_id)
    learner = learner_for(chosen, cat.get(pair.large))
    names = {entry.id: entry.name for entry in cat.models}
    return dataclasses.replace(
        pair,
        small=chosen.id,
        large=learner.id,
        reason=found.reason(names, "en"),
        reason_zh=found.reason(names, "zh_CN"),
    )


def learner_for(chosen: ModelEntry, large: ModelEntry | None) -> ModelEntry:
    """The learning model to go with ``chosen`` answering: ``large``, unless it is smaller than
    the answering model (learning stays at least as capable; size stands for capability within
    the catalogue's families) and ``chosen`` can learn; then ``chosen`` plays both roles."""
    if large is None:
        return chosen
    if "large" in chosen.roles and large.download_bytes() < chosen.download_bytes():
        return chosen
    return large


def reached(cat: Catalogue, machine: Machine) -> list[Pair]:
    """The pairs whose RAM tier this machine reaches, smallest first."""
    return [p for p in cat.pairs if p.ram_gb * GB * TIER_REACHED <= machine.ram_total]


def too_slow(cat: Catalogue, pair: Pair, machine: Machine) -> list[tuple[ModelEntry, float]]:
    """The pair's models that would run too slowly here, with their tokens/s (the small one
    below ``ANSWER_TOKENS_PER_S``, the large one below ``LEARN_TOKENS_PER_S``)."""
    slow = []
    for model_id, needed in ((pair.small, ANSWER_TOKENS_PER_S), (pair.large, LEARN_TOKENS_PER_S)):
        entry = cat.get(model_id)
        rate = machine.tokens_per_second(entry)
        if rate is not None and rate < needed:
            slow.append((entry, rate))
    return slow


def pair_models(cat: Catalogue, pair: Pair) -> tuple[ModelEntry, ...]:
    """The distinct models of a pair (one model playing both roles is loaded once)."""
    ids = dict.fromkeys((pair.small, pair.large, pair.embedding))
    return tuple(cat.get(model_id) for model_id in ids)


def pair_fit(cat: Catalogue, pair: Pair, machine: Machine) -> Fit:
    """Whether a pair's models, loaded together, leave the system room on ``machine``.

    The line is :data:`TIGHT_SHARE` of installed RAM for all of them together (the per-model
    :func:`fit` allows each half, counting on the other model needing the rest).
    """
    need = round(sum(entry.ram_gb for entry in pair_models(cat, pair)), 1)
    total = machine.ram_total / GB
    if need * GB > machine.ram_total * TIGHT_SHARE:
        return Fit(
            NO_FIT,
            Problem(
                tr("together need {need:g} GB of {total:.1f} GB RAM; the system would swap"),
                need=need,
                total=total,
            ),
        )
    return Fit(
        FITS, Problem(tr("together need {need:g} GB of {total:.1f} GB RAM"), need=need, total=total)
    )


def installed(entry: ModelEntry) -> bool:
    """Every file of the model is present with its catalogue size (no hashing)."""
    return all(files.problem(entry, spec, deep=False) is None for spec in entry.files)


@dataclass(frozen=True)
class Offer:
    """The recommended pair for this machine as a first-run panel shows it."""

    pair: Pair
    models: tuple[ModelEntry, ...]  # distinct models, small first
    missing: tuple[ModelEntry, ...]  # those still to download
    fit: Fit

    @property
    def download_bytes(self) -> int:
        """What is left to download (exact where the catalogue pins sizes)."""
        return sum(entry.download_bytes() for entry in self.missing)

    def download_seconds(self, bytes_per_s: float = ASSUMED_BYTES_PER_S) -> float:
        """Estimated download time at ``bytes_per_s`` (measured, or the assumed home line)."""
        return self.download_bytes / max(bytes_per_s, 1.0)


def offer(cat: Catalogue, machine: Machine) -> Offer | None:
    """The pair to offer on this machine, what of it is missing and how long fetching takes."""
    pair = recommend(cat, machine)
    if pair is None:
        return None
    models = pair_models(cat, pair)
    missing = tuple(entry for entry in models if not installed(entry))
    return Offer(pair, models, missing, pair_fit(cat, pair, machine))
