"""Checks before llama.cpp loads a GGUF: which chat template to use, and whether it fits in RAM.

The header itself is parsed by :mod:`engram.models.gguf_import` (pure Python, no model load).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.core import log
from engram.core.errors import ModelLoadError, tr

_log = log.get("models.gguf")
TEMPLATE_KEY = "tokenizer.chat_template"
# Model weights need their file size in RAM plus the KV cache and scratch buffers.
RAM_FACTOR = 1.2
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)


def model_bytes(path: Path) -> int:
    """Bytes of a model: every part of a split GGUF (``…-00001-of-00003.gguf``), else the file."""
    found = _SPLIT.search(path.name)
    if not found:
        return path.stat().st_size
    stem, count = path.name[: found.start()], int(found[2])
    parts = (path.with_name(f"{stem}-{i:05d}-of-{count:05d}.gguf") for i in range(1, count + 1))
    return sum(part.stat().st_size for part in parts if part.is_file())


def resolve_template(meta: dict[str, Any], override: str | None, path: Path) -> str:
    """The chat template to use: the per-model override, else the GGUF's own; never a guess."""
    if override:
        return override
    template = meta.get(TEMPLATE_KEY)
    if isinstance(template, str) and template.strip():
        return template
    _log.warning("%s has no chat template in its metadata", path.name)
    raise ModelLoadError(
        tr("Model file {path} has no chat template, so Engram cannot tell how to format a chat."),
        tr(
            "Add a chat_template for this model in models.toml (copy it from the model's "
            "tokenizer_config.json), or choose a GGUF that includes one."
        ),
        path=path,
    )


def check_memory(
    path: Path, available: Callable[[], int] | None = None, factor: float = RAM_FACTOR
) -> None:
    """Refuse to load a model that does not fit in free RAM, before llama.cpp tries."""
    if available is None:
        import psutil

        free = int(psutil.virtual_memory().available)
    else:
        free = available()
    need = int(model_bytes(path) * factor)
    if need > free:
        raise ModelLoadError(
            tr("Model file {path} needs about {need} MB of memory but only {free} MB is free."),
            tr(
                "Close other programs, or choose a smaller model "
                "(a lower quantization) in Settings."
            ),
            path=path,
            need=need >> 20,
            free=free >> 20,
        )
