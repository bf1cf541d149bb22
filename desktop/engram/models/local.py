"""A local GGUF model run in-process by llama.cpp (llama-cpp-python).

A ``Llama`` is not thread-safe: one :class:`LocalModel` belongs to one thread, which serializes
its calls. Cancel is cooperative: the stream checks a flag between tokens.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engram.core import log
from engram.core.errors import ModelFileError, ModelLoadError

_log = log.get("models.local")
GGUF_MAGIC = b"GGUF"
Message = dict[str, str]
CancelCheck = Callable[[], bool]


def default_threads() -> int:
    """Physical-ish cores for the foreground model, leaving one for the UI and background work."""
    cores = os.cpu_count() or 2
    return max(1, cores - 1) if cores > 2 else cores


def check_gguf(path: Path) -> None:
    """Fail fast, with a clear message, on a missing or non-GGUF file."""
    if not path.is_file():
        raise ModelFileError(f"Model file {path} is missing.")
    with path.open("rb") as fh:
        head = fh.read(4)
    if head != GGUF_MAGIC:
        raise ModelFileError(f"Model file {path} is not a GGUF file (it may be damaged).")


class LocalModel:
    """One loaded GGUF model."""

    def __init__(
        self,
        path: Path,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        chat_template: str | None = None,
    ) -> None:
        check_gguf(path)
        from llama_cpp import Llama

        self.path = path
        self._lock = threading.Lock()
        kwargs: dict[str, Any] = {}
        if chat_template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            kwargs["chat_handler"] = Jinja2ChatFormatter(
                template=chat_template, eos_token="", bos_token=""
            ).to_chat_handler()
        threads = n_threads or default_threads()
        try:
            self._llm = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=n_gpu_layers,
                use_mmap=True,
                verbose=False,
                **kwargs,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelLoadError(
                f"llama.cpp could not load {path} ({exc}).",
                "The file may be truncated, damaged or of an unsupported architecture; "
                "download it again or choose another model.",
            ) from exc
        self.n_ctx = n_ctx
        _log.info("loaded %s (ctx %d, %d threads)", path.name, n_ctx, threads)

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for a piece of text."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def stream_chat(
        self,
        messages: Sequence[Message],
        max_tokens: int = 512,
        cancelled: CancelCheck = lambda: False,
        temperature: float = 0.7,
    ) -> Iterator[str]:
        """Yield the answer's text pieces as they are generated; stop early when cancelled."""
        with self._lock:
            stream = self._llm.create_chat_completion(
                messages=list(messages),  # type: ignore[arg-type]
                max_tokens=max_tokens,
                temperature=temperature,
                stream=True,
            )
            try:
                for chunk in stream:
                    if cancelled():
                        break
                    delta = chunk["choices"][0]["delta"]  # type: ignore[index]
                    text = delta.get("content")  # type: ignore[union-attr]
                    if text:
                        yield str(text)
            finally:
                stream.close()  # type: ignore[union-attr]

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        llm: Any = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()
            del self._llm
