"""From settings to a loaded model: which catalogue entry plays which role, checked first."""

from __future__ import annotations

from engram.core.errors import ModelFileError, tr
from engram.core.settings import Settings
from engram.models import catalogue, files
from engram.models.background import ForegroundGate, thread_plan
from engram.models.local import LocalModel


def entry_for(
    settings: Settings, role: str, cat: catalogue.Catalogue | None = None
) -> catalogue.ModelEntry:
    """The catalogue entry the settings assign to ``role`` ("small", "large" or "embedding")."""
    cat = cat or catalogue.load()
    model_id = {
        "small": settings.small_model,
        "large": settings.large_model,
        "embedding": settings.embedding_model,
    }[role]
    entry = cat.get(model_id)
    if role not in entry.roles:
        raise ModelFileError(
            tr("{name} cannot play the {role} role."),
            tr("Choose another model for it in Settings."),
            name=entry.name,
            role=role,
        )
    return entry


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
        chat_template=entry.chat_template,
        gate=gate,
        background=background,
        **({"n_batch": BACKGROUND_BATCH} if background else {}),
    )
