"""From settings to a loaded model: which catalogue entry plays which role, checked first."""

from __future__ import annotations

from engram.core.errors import ModelFileError, Problem, tr
from engram.core.settings import Settings
from engram.models import catalogue, files, gguf_import
from engram.models.background import ForegroundGate, thread_plan
from engram.models.local import LocalModel


def entry_for(
    settings: Settings, role: str, cat: catalogue.Catalogue | None = None
) -> catalogue.ModelEntry:
    """The catalogue entry the settings assign to ``role`` ("small", "large" or "embedding")."""
    cat = cat or catalogue.load()
    entry = cat.get(settings.model_for(role))
    require_role(entry, role, chosen_in_settings=True)
    return entry


def require_role(entry: catalogue.ModelEntry, role: str, chosen_in_settings: bool) -> None:
    """Refuse ``entry`` for a role it was not made for: chosen in the settings, the hint says
    to choose another there; else it names the roles the model can play."""
    if role not in entry.roles:
        raise ModelFileError(
            tr("{name} cannot play the {role} role."),
            (
                tr("Choose another model for it in Settings.")
                if chosen_in_settings
                else tr("It can be: {roles}.")
            ),
            name=entry.name,
            role=role,
            roles=", ".join(entry.roles),
        )


# Background prompt evaluation pauses between batches; small batches lose little when it does.
BACKGROUND_BATCH = 64


def load_local(
    settings: Settings,
    role: str,
    cat: catalogue.Catalogue | None = None,
    *,
    gate: ForegroundGate | None = None,
    background: bool = False,
) -> LocalModel:
    """Verify and load the GGUF model of a role.

    The foreground (small) and background (large) models share ``gate``: the background one
    pauses while the foreground one works, and each gets its share of the cores.
    """
    entry = entry_for(settings, role, cat)
    files.verify(entry)
    plan = thread_plan()
    return LocalModel(
        entry.main_file(),
        n_ctx=min(settings.context_size, entry.context_length),
        n_threads=plan.background if background else (settings.threads or plan.foreground),
        n_gpu_layers=settings.gpu_layers,
        chat_template=entry.chat_template,
        gate=gate,
        background=background,
        **({"n_batch": BACKGROUND_BATCH} if background else {}),
    )


# Below this a model distilling memories mostly invents them ("I am learning the violin" became
# "The user is a professional musician" with the 135M starter).
MIN_LEARNING_PARAMS = 1_000_000_000


def parameter_count(entry: catalogue.ModelEntry) -> int | None:
    """Parameters of an installed GGUF model, from its headers (every part of a split file)."""
    parts = [entry.folder() / spec.path for spec in entry.files if spec.path.endswith(".gguf")]
    if entry.format != "gguf" or not parts or not all(p.is_file() for p in parts):
        return None
    return sum(gguf_import.read(part).parameter_count for part in parts)


def learning_problem(settings: Settings, cat: catalogue.Catalogue | None = None) -> Problem | None:
    """Why background learning would write only what a too-small model invents, or None.

    A server or cloud model is the user's choice and counts as capable. Raw messages are
    recalled and "remember this:" stores the user's words whatever this says.
    """
    if settings.cloud.enabled or not settings.large_model:
        return None
    entry = entry_for(settings, "large", cat)
    params = parameter_count(entry)
    if params is None or params >= MIN_LEARNING_PARAMS:
        return None
    return Problem(
        tr("Learning starts with a larger model: {name} ({params}) is too small to learn from."),
        tr(
            "Install a large model of at least 1B parameters in Settings → Models. Until then "
            'earlier messages are still recalled and "remember this:" keeps your own words.'
        ),
        name=entry.name,
        params=f"{params / 1e6:.0f}M",
    )
