"""llama-cpp-python's ``Llama`` with KV-state snapshots that hold only what a restore needs.

The state cache (``LlamaRAMCache``) keeps a snapshot of the context after every completion so that
switching back to a conversation skips its prompt. Upstream ``save_state`` copies every row of the
logits buffer into each snapshot: ``n_batch`` x vocabulary floats, 100 MB for SmolLM2 and 300 MB
for Qwen, on top of ~23 MB of KV cache for a 1,000-token chat. The cache counts only the KV bytes
against its capacity, so a 256 MB cache could hold gigabytes, and every answer ended with a
100 MB copy. A restore never reads those rows: ``load_state`` marks the context as needing
evaluation, so ``Llama.generate`` evaluates at least the last prompt token again, which writes
fresh logits. A snapshot here keeps the last row only (``load_state`` broadcasts it over the rows
it restores) and the KV bytes are written once, straight into the snapshot. Import this module
lazily, like llama_cpp itself.
"""

from __future__ import annotations

import ctypes

import llama_cpp
import numpy as np
from llama_cpp.llama import LlamaState


class CompactLlama(llama_cpp.Llama):
    """A ``Llama`` whose ``save_state`` keeps the KV cache, the tokens and one row of logits."""

    def save_state(self) -> LlamaState:
        # np.empty leaves the pages untouched: llama.cpp fills them in a C call that releases the
        # GIL, so a 20-100 MB snapshot never holds up the UI thread (zeroing or copying it would).
        ctx = self._ctx.ctx
        size = int(llama_cpp.llama_state_get_size(ctx))
        buffer = np.empty(size, dtype=np.uint8)
        pointer = buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))
        written = int(llama_cpp.llama_state_get_data(ctx, pointer, size))
        if written > size:
            raise RuntimeError("llama.cpp wrote more state than it announced")
        return LlamaState(
            input_ids=self.input_ids.copy(),
            scores=self._scores[-1:, :].copy(),
            n_tokens=self.n_tokens,
            llama_state=buffer[:written],  # type: ignore[arg-type]  # load_state reads any buffer
            llama_state_size=written,
            seed=self._seed,
        )
