"""Load: a 5 MB message and a big import, Engram against the previous approach, in one run.

    .venv/bin/python bench/load.py [--mb 5] [--episodes 20000]

Each case runs in its own process so its peak memory (ru_maxrss) is its own. "previous" embeds
the whole text (the model tokenises all of it, then reads 512 tokens) and embeds every message
without a vector before the first search; Engram cuts the text at ``MAX_EMBED_CHARS`` and
embeds ``INDEX_PER_TURN`` messages before a search, the rest in the background.

The turn cases send the 5 MB message through a whole turn (``Assistant.turn``: intent, recall,
storing, signals) with a model that answers at once, so they time Engram's own work; the real
model's reading and answering come on top. "previous" reads the whole message in every
text-scanning step (search terms, intent rules), as often as each step asks; Engram reads its
first ``QUERY_CHARS`` (terms, worked out once a turn) and ``HEAD_CHARS`` (intent) characters.
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
from typing import Any


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


class _Answers:
    """A chat model that answers every prompt at once (the turn cases time Engram's own work)."""

    n_ctx = 4096

    def __init__(self) -> None:
        from engram.models.capabilities import Capabilities  # engram loads in the cases only

        self.capabilities = Capabilities()

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def stream_chat(self, messages: object, max_tokens: int = 0, cancelled: object = None) -> Any:
        yield "Noted."

    def prefill(self, messages: object, cancelled: object = None, tools: object = None) -> int:
        return 0


def _turn(name: str, text: str) -> None:
    """One turn with ``text`` as the message, after one with a short message."""
    from engram.assistant import intent
    from engram.assistant.turn.pipeline import Assistant
    from engram.assistant.turn.recall import Recall
    from engram.core import paths
    from engram.core.cancel import CancelToken
    from engram.memory import embed
    from engram.memory import text as textmod
    from engram.memory.episodes import EpisodeLog
    from engram.memory.store import MemoryStore
    from engram.models import catalogue

    if name == "turn-5mb-previous":  # every step reads the whole message, each time it asks
        textmod.QUERY_CHARS = sys.maxsize
        textmod._terms = textmod._terms.__wrapped__  # type: ignore[assignment]
        intent.HEAD_CHARS = sys.maxsize
    embedder = embed.minilm(catalogue.load().get("all-minilm-l6-v2-int8").folder())
    store = MemoryStore.open(paths.database_path(), embedder)
    assistant = Assistant(
        EpisodeLog(store.conn), _Answers(), recall=Recall(store, lambda t: len(t) // 4)
    )
    chat = assistant.new_conversation("load")
    list(assistant.turn(chat, "Good morning, what is on today?", CancelToken()))
    started = time.perf_counter()
    list(assistant.turn(chat, text, CancelToken()))
    _report(name, time.perf_counter() - started)


def _report(name: str, took: float) -> None:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name:18} {took:8.2f} s   peak RSS {peak:6.0f} MB")


def _case(name: str, mb: float, episodes: int) -> None:
    import numpy as np

    from engram.assistant.readable import INDEX_PER_TURN
    from engram.assistant.turn.recall import Recall
    from engram.core import paths
    from engram.memory import embed
    from engram.memory.episode_index import EpisodeIndex
    from engram.memory.episodes import EpisodeLog
    from engram.memory.store import MemoryStore
    from engram.models import catalogue

    if name.startswith("turn-5mb"):
        _turn(name, _text(mb))
        return
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
            recall = Recall(store, lambda t: len(t) // 4)
            recall.catch_up()  # as the turn does before it recalls
            recall.recall("garden recipe", 400)
            assert store.index is not None and store.index.count("episodes") == INDEX_PER_TURN
    _report(name, time.perf_counter() - started)


CASES = [
    "embed-previous",
    "embed-engram",
    "turn-5mb-previous",
    "turn-5mb-engram",
    "turn-previous",
    "turn-engram",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=5)
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--case")
    parser.add_argument("--only", nargs="+", choices=CASES, help="run only these cases")
    args = parser.parse_args()
    if args.case:
        _case(args.case, args.mb, args.episodes)
        return
    print(f"{args.mb:g} MB message; first turn after importing {args.episodes:,} messages")
    for case in args.only or CASES:
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "ENGRAM_HOME": home}
            command = [sys.executable, __file__, "--case", case, "--mb", str(args.mb)]
            command += ["--episodes", str(args.episodes)]
            subprocess.run(command, env=env, check=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "desktop"))
    main()
