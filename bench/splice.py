"""Spliced prompt tokenisation against the whole-prompt tokenisation it replaced, on one model.

Run: ``.venv/bin/python bench/splice.py [--turns N] [--reps N] [--model PATH]``. Builds a
conversation of N user/assistant turns (default 30) with a system part, checks that both ways
give the same tokens, then prints the median time of each (the spliced one renders the template
twice and tokenises each stretch of plain text separately) and the one-off cost of reading the
vocabulary's special tokens at load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

STARTER = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    from engram.core import paths
    from engram.models.local import LocalModel
    from engram.models.splice import Splicer

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--model", type=Path, default=paths.models_dir() / STARTER)
    args = parser.parse_args()
    model = LocalModel(args.model, n_ctx=8192, state_cache_mb=0)
    start = time.perf_counter()
    Splicer(model.llama)
    load_ms = (time.perf_counter() - start) * 1000
    messages = [{"role": "system", "content": "You are Engram, a helpful assistant. " * 20}]
    for i in range(args.turns):
        messages.append({"role": "user", "content": f"Tell me fact {i} about octopuses, please."})
        messages.append({"role": "assistant", "content": f"Fact {i}: they have three hearts. " * 3})
    messages.append({"role": "user", "content": "Thanks!"})

    def whole() -> list[int]:
        text, added_special = model._render(messages, None)
        tokens: list[int] = model.llama.tokenize(
            text.encode(), add_bos=not added_special, special=True
        )
        return tokens

    def spliced() -> list[int]:
        return model.prompt_tokens(messages)

    same = whole() == spliced()
    print(f"{len(messages)} messages, {len(whole())} tokens; identical tokens: {same}")
    for name, fn in (("whole prompt, special=True (before)", whole), ("spliced (Engram)", spliced)):
        times = []
        for _ in range(args.reps):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000)
        print(f"{name:38s} median {statistics.median(times):6.2f} ms")
    print(f"reading the special tokens at load: {load_ms:.1f} ms")
    model.close()


if __name__ == "__main__":
    os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
    main()
