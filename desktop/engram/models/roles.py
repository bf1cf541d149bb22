"""From settings to a loaded model: which catalogue entry plays which role, checked first."""

from __future__ import annotations

from engram.core.errors import ModelFileError
from engram.core.settings import Settings
from engram.models import catalogue, files
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
            f"{entry.name} cannot play the {role} role.",
            "Choose another model for it in Settings.",
        )
    return entry


def load_local(settings: Settings, role: str, cat: catalogue.Catalogue | None = None) -> LocalModel:
    """Verify and load the GGUF model of a role."""
    entry = entry_for(settings, role, cat)
    files.verify(entry)
    return LocalModel(
        entry.main_file(),
        n_ctx=min(settings.context_size, entry.context_length),
        n_threads=settings.threads or None,
        chat_template=entry.chat_template,
    )
