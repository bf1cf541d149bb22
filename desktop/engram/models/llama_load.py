"""Loading a GGUF into llama.cpp for :class:`~engram.models.local.LocalModel`: the ``Llama``
itself (a damaged file or an unsupported architecture is a message), its chat template as a
formatter, llama.cpp's own log routed to Engram's, and the threads a foreground model takes.

llama_cpp is imported inside the functions that need it (never at import time of this module).
"""

from __future__ import annotations

import atexit
import functools
import logging
import sys
from pathlib import Path
from typing import Any

from engram.core import log
from engram.core.errors import ModelLoadError, tr
from engram.models.background import thread_plan


@atexit.register
def _close_llama_devnull() -> None:
    """Close the two /dev/null files llama_cpp opens when imported and never closes (its
    ``_utils`` silences the loader with them), before the interpreter's teardown reports them
    as unclosed files. Nothing of llama_cpp writes to them at exit: they serve model loading."""
    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        file = getattr(utils, name, None)
        if file is not None:
            file.close()


# ggml's WARN and ERROR, one level lower in Engram's log: llama.cpp calls routine events (its
# graph sizes, an aborted decode) warnings and errors; a real failure raises in Python anyway.
_LLAMA_LEVELS = {2: logging.DEBUG, 3: logging.INFO}


class _Unsilenced:
    """What llama-cpp-python's ``suppress_stdout_stderr`` becomes: nothing. It points the
    process's stdout and stderr (the file descriptors and ``sys.stdout``) at /dev/null while a
    model loads, for every thread: ``engram chat`` printed no answer at all while the learning
    thread loaded the 1.5B, and two loads that overlap can leave the terminal silenced for good.
    llama.cpp's own messages go to Engram's log instead (:func:`route_llama_log`)."""

    def __init__(self, disable: bool = True) -> None:
        del disable

    def __enter__(self) -> _Unsilenced:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None


@functools.cache  # once per process; the cache keeps the ctypes callback alive
def route_llama_log() -> Any:
    """Send llama.cpp's own warnings and errors to Engram's log, not to the terminal: an aborted
    prompt evaluation (a cancel, or the background model yielding) is routine, yet llama.cpp
    reports it as an error ("decode: removing memory module entries ...") on stderr. Its
    bindings' process-wide silencing is turned off (:class:`_Unsilenced`)."""
    import ctypes

    import llama_cpp
    import llama_cpp._internals
    import llama_cpp.llama
    import llama_cpp.llama_chat_format

    for module in (llama_cpp._internals, llama_cpp.llama, llama_cpp.llama_chat_format):
        module.suppress_stdout_stderr = _Unsilenced  # type: ignore[attr-defined]
    logger = log.get("models.llama_cpp")

    def forward(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        if level in _LLAMA_LEVELS:
            logger.log(_LLAMA_LEVELS[level], "%s", text.decode("utf-8", "replace").rstrip())

    callback = llama_cpp.llama_log_callback(forward)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    return callback


def default_threads() -> int:
    """Threads for the foreground model (see :func:`engram.models.background.thread_plan`)."""
    return thread_plan().foreground


def open_llama(
    path: Path, architecture: str, *, n_ctx: int, n_batch: int, threads: int, n_gpu_layers: int
) -> Any:
    """The file loaded by llama.cpp (its KV-state snapshots compact: ``CompactLlama``)."""
    from engram.models.compact_llama import CompactLlama

    try:
        return CompactLlama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_batch=n_batch,
            n_threads=threads,
            n_threads_batch=threads,
            n_gpu_layers=n_gpu_layers,
            use_mmap=True,
            verbose=False,
        )
    except (ValueError, RuntimeError) as exc:
        raise ModelLoadError(
            tr("llama.cpp could not load {path} (architecture {architecture!r}: {error})."),
            tr(
                "The file may be truncated or damaged, or this llama.cpp does not support its "
                "architecture; download it again or choose another model."
            ),
            path=path,
            architecture=architecture,
            error=str(exc),
        ) from exc


def formatter(llm: Any, template: str, path: Path) -> tuple[Any, str]:
    """The chat template as llama-cpp-python's formatter, with the model's end-of-text token's
    text (its BOS and EOS come from the vocabulary); raises when the template is invalid."""
    import jinja2
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos = llm.token_eos()
    eos_text = llm._model.token_get_text(eos) if eos != -1 else ""
    bos = llm.token_bos()
    try:
        formatting = Jinja2ChatFormatter(
            template=template,
            eos_token=eos_text,
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )
    except jinja2.TemplateError as exc:
        raise ModelLoadError(
            tr("The chat template for {path} is invalid ({error})."),
            tr(
                "Fix chat_template for this model in models.toml, or remove it to use the "
                "template inside the GGUF."
            ),
            path=path,
            error=str(exc),
        ) from exc
    return formatting, eos_text
