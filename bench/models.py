"""Benchmark Engram's model downloads, GGUF header reader and catalogue against their baselines.

Run: ``.venv/bin/python bench/models.py [--mb N]``. In one run, over real HTTP on 127.0.0.1 (the
test suite's hub stand-in): download throughput of ``engram.models.download`` (which also
verifies the sha256) against ``huggingface_hub.hf_hub_download`` (which checks only the size),
and the bytes each fetches again after the connection is cut halfway; the time to read a GGUF's
metadata with ``engram.models.gguf_import`` against llama.cpp loading the same file vocab-only; and
loading + validating the catalogue against parsing the same TOML without validation.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "desktop"), str(REPO / "tests")]
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ.setdefault("ENGRAM_HOME", tempfile.mkdtemp(prefix="engram-bench-"))

from engram.models import catalogue, download, gguf_import  # noqa: E402
from engram.models.catalogue import ModelEntry, ModelFile  # noqa: E402
from hub_server import HubServer  # noqa: E402

HUB_REPO = "bench/blob-GGUF"
SHARED_MODELS = os.environ["ENGRAM_MODELS_DIR"]


def best_of(runs: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def engram_download(server: HubServer, folder: Path) -> None:
    os.environ["ENGRAM_MODELS_DIR"] = str(folder)
    entry = ModelEntry(
        "blob", "Blob", ("small",), "gguf", (ModelFile("blob.gguf"),), hf_repo=HUB_REPO
    )
    options = download.Options(endpoint=server.url, retries=3, backoff=0.01)
    download.download(entry, options=options)


def hub_download(server: HubServer, folder: Path) -> None:
    from huggingface_hub import hf_hub_download

    with contextlib.redirect_stderr(io.StringIO()):  # its own progress bar
        hf_hub_download(HUB_REPO, "blob.gguf", cache_dir=folder, endpoint=server.url)


def measure_download(size_mb: int, reps: int) -> list[tuple[str, float, float]]:
    """MB/s (best of ``reps``, the two clients alternating so machine load hits both alike)."""
    size = size_mb * 1024 * 1024
    server = HubServer(lifetime=600).start()
    server.add(HUB_REPO, "blob.gguf", random.Random(7).randbytes(1024 * 1024) * size_mb)
    clients = (("engram download", engram_download), ("hf_hub_download", hub_download))
    times: dict[str, list[float]] = {name: [] for name, _ in clients}
    rows = []
    try:
        for _ in range(reps):
            for name, fetch in clients:
                times[name].append(best_of(1, lambda f=fetch: f(server, Path(tempfile.mkdtemp()))))
        for name, fetch in clients:
            server.faults.cut_after.append(size // 2)
            before = server.bytes_served()
            fetch(server, Path(tempfile.mkdtemp()))
            refetched = server.bytes_served() - before - size
            rows.append((name, size_mb / min(times[name]), refetched / 1024 / 1024))
    finally:
        server.stop()
        os.environ["ENGRAM_MODELS_DIR"] = SHARED_MODELS
    return rows


def measure_gguf() -> tuple[float, float]:
    path = catalogue.load().get("smollm2-135m-instruct").main_file()
    ours = best_of(5, lambda: gguf_import.read(path))

    def llama_vocab_only() -> None:
        from llama_cpp import Llama

        Llama(model_path=str(path), vocab_only=True, verbose=False).close()

    return ours, best_of(5, llama_vocab_only)


def measure_catalogue() -> tuple[float, float]:
    import tomllib

    text = catalogue.default_path().read_text(encoding="utf-8")
    return best_of(20, catalogue.load), best_of(20, lambda: tomllib.loads(text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=256, help="size of the downloaded file")
    parser.add_argument("--reps", type=int, default=5, help="downloads per client")
    args = parser.parse_args()
    rows = measure_download(args.mb, args.reps)
    gguf_ours, gguf_llama = measure_gguf()
    cat_ours, cat_toml = measure_catalogue()
    print(f"{'measurement':42} {'Engram':>12} {'baseline':>12}")
    (_, ours_speed, ours_again), (_, hub_speed, hub_again) = rows
    label = f"download {args.mb} MB, MB/s (best of {args.reps})"
    print(f"{label:42} {ours_speed:12.1f} {hub_speed:12.1f}")
    print(f"{'MB fetched again after a cut at 50 %':42} {ours_again:12.2f} {hub_again:12.2f}")
    label = "GGUF metadata read, ms (best of 5)"
    print(f"{label:42} {gguf_ours * 1e3:12.1f} {gguf_llama * 1e3:12.1f}")
    print(f"{'catalogue load + validate, ms':42} {cat_ours * 1e3:12.2f} {cat_toml * 1e3:12.2f}")
    print()
    print("baseline: hf_hub_download / llama.cpp vocab_only load / tomllib.loads without checks")
    print(f"download speed ratio (Engram / hf_hub_download): {ours_speed / hub_speed:.2f}")
    print(f"GGUF read speed-up (llama.cpp / Engram): {gguf_llama / gguf_ours:.1f}x")
    print(f"catalogue validation overhead (Engram / tomllib): {cat_ours / cat_toml:.1f}x")


if __name__ == "__main__":
    main()
