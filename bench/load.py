"""Load: a 5 MB message and a big import, Engram against the previous approach, in one run.

    .venv/bin/python bench/load.py [--mb 5] [--episodes 20000]

Each case runs in its own process so its peak memory (ru_maxrss) is its own. "previous" embeds
the whole text (the model tokenises all of it, then reads 512 tokens) and embeds every message
without a vector before the first search; Engram cuts the text at ``MAX_EMBED_CHARS`` and
embeds ``INDEX_PER_TURN`` messages before a search, the rest in the background.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _text(mb: float) -> str:
    rng = random.Random(0)
    words = [
        "river",
        "mountain",
        "coffee",
        "music",
        "book",
        "green",
        "tea",
        "city",
        "quiet",
        "market",
        "bridge",
        "stone",
    ]
    out, size = [], 0
    while size < mb * 1_000_000:
        word = rng.choice(words) + str(rng.randrange(1000))
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def _case(name: str, mb: float, episodes: int) -> None:
    import numpy as np

    from engram.assistant.turn.recall import INDEX_PER_TURN, Recall
    from engram.core import paths
    from engram.memory import embed
    from engram.memory.episode_index import EpisodeIndex
    from engram.memory.episodes import EpisodeLog
    from engram.memory.store import MemoryStore
    from engram.models import catalogue

    embedder = embed.minilm(catalogue.load().get("all-minilm-l6-v2-int8").folder())
    embedder.embed(["warm up"])
    started = time.perf_counter()
    if name.startswith("embed"):
        text = _text(mb)
        started = time.perf_counter()
        if name == "embed-previous":
            np.asarray(list(embedder._load().embed([text])))
        else:
            embedder.embed([text])
    else:
        store = MemoryStore.open(paths.database_path(), embedder)
        log = EpisodeLog(store.conn)
        chat = log.new_conversation("imported").id
        rng = random.Random(1)
        words = [
            "trip",
            "dinner",
            "garden",
            "school",
            "doctor",
            "movie",
            "weekend",
            "recipe",
            "family",
            "work",
        ]
        for i in range(episodes):
            log.append(chat, "user", f"Note {i}: " + " ".join(rng.choices(words, k=12)))
        started = time.perf_counter()
        if name == "turn-previous":
            EpisodeIndex(store.space).index_new()
            Recall(store, lambda t: len(t) // 4).episodes.search("garden recipe", 10)
        else:
            Recall(store, lambda t: len(t) // 4).recall("garden recipe", 400)
            assert store.index is not None and store.index.count("episodes") == INDEX_PER_TURN
    took = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name:16} {took:8.2f} s   peak RSS {peak:6.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=5)
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--case")
    args = parser.parse_args()
    if args.case:
        _case(args.case, args.mb, args.episodes)
        return
    print(f"{args.mb:g} MB message; first turn after importing {args.episodes:,} messages")
    for case in ("embed-previous", "embed-engram", "turn-previous", "turn-engram"):
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "ENGRAM_HOME": home}
            command = [sys.executable, __file__, "--case", case, "--mb", str(args.mb)]
            command += ["--episodes", str(args.episodes)]
            subprocess.run(command, env=env, check=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "desktop"))
    main()
