"""Hardware fit: what this machine has (RAM, disk, cores, GPU) and which models suit it."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engram.core import log, paths
from engram.core.errors import Problem, tr
from engram.models.catalogue import Catalogue, ModelEntry, Pair

_log = log.get("models.hardware")
GB = 1_000_000_000
# Share of installed RAM one model may take and still "fit": the OS, the app and the other model
# need the rest. Up to TIGHT it runs but other programs may be pushed to swap.
FITS_SHARE = 0.5
TIGHT_SHARE = 0.8
FITS, TIGHT, NO_FIT = "fits", "tight", "does not fit"


@dataclass(frozen=True)
class Machine:
    """What the fit rules look at."""

    ram_total: int
    ram_available: int
    disk_free: int
    cores: int
    gpu: str | None = None

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
    """The largest recommended pair whose RAM tier this machine reaches.

    Installed RAM is reported a little under the nominal size (8 GB shows as ~7.6), so a tier is
    reached at 90 % of its size.
    """
    reached = [p for p in cat.pairs if p.ram_gb * GB * 0.9 <= machine.ram_total]
    return reached[-1] if reached else (cat.pairs[0] if cat.pairs else None)
