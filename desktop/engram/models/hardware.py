"""Hardware fit: what this machine has (RAM, disk, cores, GPU) and which models suit it."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engram.core import log, paths
from engram.core.errors import Problem, tr
from engram.models import files, speed
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
# Decode speeds a recommended pair must reach here, once this machine's speed is measured
# (models.speed): answers faster than people read, learning that keeps up in the background.
ANSWER_TOKENS_PER_S = 8.0
LEARN_TOKENS_PER_S = 2.5


@dataclass(frozen=True)
class Machine:
    """What the fit rules look at."""

    ram_total: int
    ram_available: int
    disk_free: int
    cores: int
    gpu: str | None = None
    decode_bytes_per_s: float | None = None  # measured from real answers (models.speed)

    def tokens_per_second(self, entry: ModelEntry) -> float | None:
        """The decode speed ``entry`` would have here (None: not measured, or not a GGUF)."""
        if entry.format != "gguf":
            return None
        return speed.tokens_per_second(entry.download_bytes(), self.decode_bytes_per_s)

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


def probe(models_dir: Path | None = None, gpu: bool = True) -> Machine:
    """Measure this machine now."""
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
    """The largest recommended pair whose RAM tier this machine reaches and, once its decode
    speed is measured, whose models run fast enough here (the small one answers at
    ``ANSWER_TOKENS_PER_S``, the large one learns at ``LEARN_TOKENS_PER_S``): a 2-core laptop
    with 24 GB gets the pair it can run, not a 4B + 7B pair at two tokens a second.

    Installed RAM is reported a little under the nominal size (8 GB shows as ~7.6), so a tier is
    reached at 90 % of its size.
    """
    reached = [p for p in cat.pairs if p.ram_gb * GB * TIER_REACHED <= machine.ram_total]
    quick = [p for p in reached if _fast_enough(cat, p, machine)]
    chosen = quick or reached[:1]
    return chosen[-1] if chosen else (cat.pairs[0] if cat.pairs else None)


def _fast_enough(cat: Catalogue, pair: Pair, machine: Machine) -> bool:
    for model_id, needed in ((pair.small, ANSWER_TOKENS_PER_S), (pair.large, LEARN_TOKENS_PER_S)):
        rate = machine.tokens_per_second(cat.get(model_id))
        if rate is not None and rate < needed:
            return False
    return True


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
