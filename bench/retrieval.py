"""Retrieval benchmark: hybrid search latency, recall and insert rate; LoCoMo evidence recall.

Run: .venv/bin/python bench/retrieval.py [--max 100000] [--skip-quality]
Latency uses synthetic clustered 384-dim unit vectors (no embedding time); the baseline is exact
float32 numpy top-k over the same vectors in memory. Quality uses tests/data/synthetic_locomo.json
with the real all-MiniLM-L6-v2 model.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

from engram.evaluation import locomo  # noqa: E402
from engram.memory import db, embed  # noqa: E402
from engram.memory.episode_index import EpisodeIndex  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.memory.search import Filters  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402

DIM = 384
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "po", "an", "el", "in", "or"]
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES][:2500]


class _NoEmbedder:
    model_id = "bench/synthetic-384"
    dim = DIM

    def embed(self, texts: object) -> embed.Vectors:
        raise RuntimeError("the latency bench passes vectors explicitly")


def clustered(n: int, rng: np.random.Generator, spread: float = 0.8) -> np.ndarray:
    """Unit vectors in clusters of about 50, like real sentence embeddings of related facts."""
    centers = rng.standard_normal((max(1, n // 50), DIM)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        noise = rng.standard_normal((stop - start, DIM)).astype(np.float32) / np.sqrt(DIM)
        block = centers[rng.integers(0, len(centers), stop - start)] + spread * noise
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def texts(n: int, rng: np.random.Generator) -> list[str]:
    picks = np.minimum(rng.zipf(1.3, (n, 8)) - 1, len(WORDS) - 1)
    return [f"memory {i}: " + " ".join(WORDS[j] for j in row) for i, row in enumerate(picks)]


def pct(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples) * 1000, q))


def latency(n: int, folder: Path, rng: np.random.Generator, queries: int = 100) -> dict[str, float]:
    vectors = clustered(n, rng)
    contents = texts(n, rng)
    path = folder / f"bench-{n}.sqlite3"
    store = MemoryStore(db.connect(path), _NoEmbedder())
    start = time.perf_counter()
    for i in range(0, n, 20_000):
        store.add_many(contents[i : i + 20_000], vectors=vectors[i : i + 20_000])
    insert_rate = n / (time.perf_counter() - start)
    store.checkpoint()
    size = sum(p.stat().st_size for p in folder.glob(f"bench-{n}.sqlite3*"))
    picks = rng.integers(0, n, queries)
    qs = vectors[picks] + 0.3 * rng.standard_normal((queries, DIM)).astype(np.float32) / np.sqrt(
        DIM
    )
    qs = (qs / np.linalg.norm(qs, axis=1, keepdims=True)).astype(np.float32)
    qtext = [" ".join(contents[i].split()[2:5]) for i in picks]
    store.search(qtext[0], k=10, vector=qs[0])  # loads the code cache
    hybrid, floor, recall = [], [], []
    assert store.index is not None
    for q, t in zip(qs, qtext, strict=True):
        t0 = time.perf_counter()
        store.search(t, k=10, vector=q, filters=Filters())
        hybrid.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        scores = vectors @ q
        exact = np.argpartition(-scores, 10)[:10]
        exact = exact[np.argsort(-scores[exact])]
        floor.append(time.perf_counter() - t0)
        got = {i for i, _ in store.index.knn("memories", q, 10)}
        recall.append(len(got & {int(i) + 1 for i in exact}) / 10)
    store.conn.close()
    for p in folder.glob(f"bench-{n}.sqlite3*"):
        p.unlink()
    return {
        "n": n,
        "p50": pct(hybrid, 50),
        "p95": pct(hybrid, 95),
        "np50": pct(floor, 50),
        "np95": pct(floor, 95),
        "min": pct(hybrid, 0),
        "npmin": pct(floor, 0),
        "recall": float(np.mean(recall)),
        "insert": insert_rate,
        "bytes": size / n,
    }


def quality(model_dir: Path, data: Path) -> dict[str, dict[int, float]]:
    """Evidence recall@5/10/20 over raw episodes: vector only, hybrid, text only (each with the
    episode search's sitting lift and neighbours)."""
    embedder = embed.minilm(model_dir)
    modes = {"vector": "vector", "hybrid (score fusion)": "hybrid", "BM25": "text"}
    hits: dict[str, dict[int, list[float]]] = {m: {5: [], 10: [], 20: []} for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(db.connect(Path(tmp) / "q.sqlite3"), embedder)
        for sample in locomo.load_locomo(data):
            ids = locomo.ingest(store.conn, sample)
            episodes = EpisodeIndex(store.space)
            episodes.index_new()
            first = min(ids.values())
            conversation = EpisodeLog(store.conn).by_id([first])[first].conversation_id
            filters = Filters(statuses=None, conversation_id=conversation)
            for qa in sample.qa:
                wanted = {ids[e] for e in qa.evidence if e in ids}
                if not wanted:
                    continue
                for name, mode in modes.items():
                    found = [
                        h.episode.id for h in episodes.search(qa.question, 20, filters, mode=mode)
                    ]
                    for k in (5, 10, 20):
                        hits[name][k].append(len(wanted & set(found[:k])) / len(wanted))
        store.conn.close()
    return {name: {k: float(np.mean(v)) for k, v in ks.items()} for name, ks in hits.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max", type=int, default=1_000_000, help="largest store size to measure")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    blas = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    print(f"OPENBLAS_CORETYPE={blas}, numpy {np.__version__}")
    rng = np.random.default_rng(7)
    results = []
    with tempfile.TemporaryDirectory(
        dir=REPO / ".cache" if (REPO / ".cache").is_dir() else None
    ) as tmp:
        for n in (10_000, 100_000, 1_000_000):
            if n <= args.max:
                results.append(latency(n, Path(tmp), rng))
                r = results[-1]
                print(f"  measured n={n:,}", flush=True)
    print(
        f"\n{'memories':>10} {'hybrid p50':>11} {'hybrid p95':>11} {'numpy p50':>10}"
        f" {'numpy p95':>10} {'hybrid min':>11} {'numpy min':>10} {'recall@10':>10}"
        f" {'insert/s':>10} {'bytes/mem':>10}"
    )
    for r in results:
        print(
            f"{r['n']:>10,} {r['p50']:>9.2f}ms {r['p95']:>9.2f}ms {r['np50']:>8.2f}ms"
            f" {r['np95']:>8.2f}ms {r['min']:>9.2f}ms {r['npmin']:>8.2f}ms {r['recall']:>10.3f}"
            f" {r['insert']:>10,.0f} {r['bytes']:>10,.0f}"
        )
    if not args.skip_quality:
        model = REPO / ".cache" / "models" / "all-minilm-l6-v2-int8"
        scores = quality(model, REPO / "tests" / "data" / "synthetic_locomo.json")
        print(f"\n{'LoCoMo-format evidence recall':32} {'@5':>6} {'@10':>6} {'@20':>6}")
        for name, ks in scores.items():
            print(f"{name:32} {ks[5]:>6.3f} {ks[10]:>6.3f} {ks[20]:>6.3f}")
    print("\nratios (target: p95 at 100k <= 2x numpy p95, recall >= 0.98, p95 at 1M <= 100 ms)")
    for r in results:
        print(
            f"  n={r['n']:>9,}: hybrid p95 / numpy p95 = {r['p95'] / r['np95']:.2f}x,"
            f" (best-case {r['min'] / r['npmin']:.2f}x), recall@10 = {r['recall']:.3f},"
            f" p95 = {r['p95']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
