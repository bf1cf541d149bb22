"""Turn benchmark: time to first token with memory against raw llama-cpp-python, and its parts.

Run: ``.venv/bin/python bench/turn.py [--quick] [--reps N] [--model ID]``. In one run, on the small
model (the starter pair's Qwen2.5-Coder-0.5B unless ``--model`` names another, e.g. the tests'
``smollm2-135m-instruct``) and a temporary ENGRAM_HOME holding 100k memories (10k with ``--quick``):
facts, lessons and summaries with random unit vectors, a few hundred really embedded facts the
conversation asks about and sixteen embedded preferences (a user states few; recall gives the
closest of them to every message). Measures (1) time from message to first token of the real
``open_session`` -> ``Assistant.turn`` pipeline against raw ``create_chat_completion`` on the same
conversation without memory, at turns 1, 10 and 30; (2) recall + memory block + prompt counting
p50/p95, apart from generation; (3) prompt tokens llama.cpp re-evaluated per turn against the
prompt's total; (4) decode tokens/s of a longer answer, Engram's against raw llama-cpp-python's,
same model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))

from engram.assistant.events import Failed, Token, TurnStarted  # noqa: E402
from engram.assistant.session import Session, embedder_for, open_session  # noqa: E402
from engram.assistant.turn import prompt  # noqa: E402
from engram.core import heap, paths  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from engram.memory import db  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402
from engram.models import roles  # noqa: E402

TURNS = (1, 10, 30)
WINDOW = 2  # turns either side of 10 and 30 pooled into their sample
PEOPLE = ["sister", "brother", "mother", "father", "colleague", "neighbour", "friend", "cousin"]
NAMES = ["Anna", "Ben", "Chloe", "David", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas"]
CITIES = ["Lisbon", "Osaka", "Toronto", "Nairobi", "Oslo", "Lima", "Hanoi", "Porto"]
HOBBIES = ["piano", "climbing", "chess", "baking", "cycling", "pottery", "sailing", "birding"]
ZH = [
    "我的妹妹住在上海，喜欢弹钢琴。",
    "我对花生过敏。",
    "我每周三晚上去游泳。",
    "我女儿叫小雨，今年七岁。",
]
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "po", "an", "el", "in", "or"]
QUESTIONS = [
    "What does my {p} like to do on weekends?",
    "Where does my {p} live these days?",
    "Can you suggest a birthday present for my {p}?",
    "我{z}应该注意什么？",
]
ZH_TOPICS = ["妹妹", "过敏", "游泳", "女儿"]


def facts(count: int) -> list[str]:
    """Real sentences about the user's people (embedded for real), a few of them Chinese."""
    out = list(ZH)
    i = 0
    while len(out) < count:
        p, n = PEOPLE[i % len(PEOPLE)], NAMES[(i // 3) % len(NAMES)]
        c, h = CITIES[(i // 5) % len(CITIES)], HOBBIES[(i // 7) % len(HOBBIES)]
        out.append(f"My {p} {n} lives in {c} and has taken up {h} (note {i}).")
        i += 1
    return out


def preferences() -> list[str]:
    """A user's stated preferences, as few as a real user states (embedded for real): recall
    gives the closest of them to every message whatever their similarity, so thousands of
    random ones would tie at the noise floor and part a draft's recall from its message's."""
    return [f"I prefer {h} to anything else on a free weekend." for h in HOBBIES] + [
        f"I'd rather take the train than fly when I go to {c}." for c in CITIES
    ]


def filler(n: int, rng: np.random.Generator) -> list[str]:
    words = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES]
    picks = rng.integers(0, len(words), (n, 8))
    return [f"note {i}: " + " ".join(words[j] for j in row) for i, row in enumerate(picks)]


SITUATED_LESSONS = 2000


def situated(store: MemoryStore, ids: list[int], rng: np.random.Generator) -> None:
    """Six situations, each with a random unit vector, for each of the lessons ``ids``."""
    vecs = rng.standard_normal((6 * len(ids), store.embedder.dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    with db.transaction(store.conn):
        for n, memory_id in enumerate(ids):
            places = [f"situation {memory_id}.{k}" for k in range(6)]
            store.put_situations(memory_id, places, vecs[6 * n : 6 * n + 6])


def build_store(path: Path, total: int, real: int = 300, seed: int = 7) -> None:
    """``total`` memories at ``path``: facts, lessons and summaries with random unit vectors, plus
    ``real`` embedded facts and a few embedded preferences."""
    rng = np.random.default_rng(seed)
    store = MemoryStore(db.connect(path), embedder_for(Settings()))
    kinds = ["fact", "summary", "lesson", "fact", "summary"]
    stated = preferences()
    n = total - real - len(stated)
    contents = filler(n, rng)
    for start in range(0, n, 20_000):
        stop = min(n, start + 20_000)
        vecs = rng.standard_normal((stop - start, store.embedder.dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        kind = kinds[(start // 20_000) % len(kinds)]
        ids = store.add_many(contents[start:stop], kind, vectors=vecs)
        if kind == "lesson":  # ten times the most lesson situations hygiene keeps (200 x 6)
            situated(store, ids[:SITUATED_LESSONS], rng)
    store.add_many(facts(real), "profile", importance=0.7)  # embedded by the real model
    store.add_many(stated, "preference", importance=0.7)
    store.checkpoint()
    store.conn.close()


@contextmanager
def temp_home() -> Iterator[Path]:
    """A private ENGRAM_HOME for the run (under .cache when it exists), removed afterwards."""
    parent = REPO / ".cache" if (REPO / ".cache").is_dir() else None
    with tempfile.TemporaryDirectory(dir=parent, prefix="bench-home-") as tmp:
        os.environ["ENGRAM_HOME"] = tmp
        yield Path(tmp)


def message(rep: int, turn: int) -> str:
    q = QUESTIONS[(turn + rep) % len(QUESTIONS)]
    return q.format(p=PEOPLE[(turn * 3 + rep) % len(PEOPLE)], z=ZH_TOPICS[turn % len(ZH_TOPICS)])


@dataclass
class Samples:
    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, value: float) -> None:
        self.values.setdefault(key, []).append(value)

    def median(self, key: str) -> float:
        return statistics.median(self.values[key])

    def pct(self, key: str, q: float) -> float:
        return float(np.percentile(self.values[key], q))


def engram_ttft(
    session: Session, conversation: int, text: str, typed: bool = False
) -> tuple[float, int]:
    """Seconds from handing the message to ``Assistant.turn`` to its first token, and the
    conversation it went to. ``typed``: the window's prefetch ran while the message was typed
    (on the text without its last character), as it does in the app, before the clock starts."""
    if typed:
        session.assistant.prefetch(conversation, text[:-1])
    start = time.perf_counter()
    first = 0.0
    for event in session.assistant.turn(conversation, text):
        if isinstance(event, TurnStarted):
            conversation = event.conversation_id
        if isinstance(event, Token) and not first:
            first = time.perf_counter() - start
        if isinstance(event, Failed):
            raise RuntimeError(f"the turn failed: {event.problem.message}")
    return first or time.perf_counter() - start, conversation


def raw_ttft(llm: Any, messages: list[dict[str, str]], max_tokens: int) -> float:
    start = time.perf_counter()
    first = 0.0
    for chunk in llm.create_chat_completion(messages=messages, max_tokens=max_tokens, stream=True):
        if not first and chunk["choices"][0]["delta"].get("content"):
            first = time.perf_counter() - start
    return first or time.perf_counter() - start


def history(session: Session, conversation: int) -> list[dict[str, str]]:
    return [
        {"role": e.role, "content": e.content}
        for e in session.assistant.log.episodes(conversation)
        if e.role in ("user", "assistant") and e.content
    ]


def timed(samples: Samples, key: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    value = fn()
    samples.add(key, (time.perf_counter() - start) * 1000)
    return value


def assembly(session: Session, conversation: int, samples: Samples) -> None:
    """``Assistant.prepare`` (the app's whole prompt assembly) for every turn of a conversation."""
    assistant = session.assistant
    recall = assistant.recall
    assert recall is not None
    search = recall.recall

    def timed_recall(*args: Any, **kwargs: Any) -> Any:
        return timed(samples, "recall", partial(search, *args, **kwargs))

    recall.recall = timed_recall  # type: ignore[method-assign]  # times the part inside prepare
    said = [e for e in assistant.log.episodes(conversation) if e.role in ("user", "assistant")]
    try:
        for i in range(0, len(said), 2):
            prepared = timed(
                samples, "total", partial(assistant.prepare, said[i].content, said[:i])
            )
            samples.add("found", len(prepared.items))
    finally:
        del recall.recall


def run_turns(model_id: str, reps: int, samples: Samples) -> None:
    from llama_cpp import Llama

    from engram.models.background import thread_plan

    settings = Settings(language="en", max_answer_tokens=8, small_model=model_id)
    model_path = roles.entry_for(settings, "small").main_file()
    session = open_session(settings)
    heap.settle()  # as the app and `engram chat` do once their models are loaded
    threads = thread_plan().foreground
    raw = Llama(
        str(model_path),
        n_ctx=session.model.n_ctx,
        n_batch=512,
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
    )
    system = prompt.system_part("en")
    try:
        for rep in range(reps):
            typed = rep % 2 == 0  # alternate: with the prefetch while typing, and without
            key = "typed" if typed else "engram"
            conversation = 0
            for turn in range(1, max(TURNS) + WINDOW + 1):
                text = message(rep, turn)
                before = history(session, conversation) if conversation else []
                ours, conversation = engram_ttft(session, conversation, text, typed)
                plain = [{"role": "system", "content": system}, *before]
                theirs = raw_ttft(raw, [*plain, {"role": "user", "content": text}], 8)
                stats = session.model.last_stats
                assert stats is not None
                for target in TURNS:
                    if abs(turn - target) <= (WINDOW if target > 1 else 0):
                        samples.add(f"{key}{target}", ours)
                        samples.add(f"raw{target}", theirs)
                        samples.add(f"prompt{target}", stats.prompt_tokens)
                        samples.add(f"{key}_evaluated{target}", stats.evaluated_tokens)
                samples.add(f"{key}_prompt_all", stats.prompt_tokens)
                samples.add(f"{key}_evaluated_all", stats.evaluated_tokens)
            assembly(session, conversation, samples)
        decode_speed(session, raw, samples)
    finally:
        raw.close()
        session.close()


def decode_speed(session: Session, raw: Any, samples: Samples, tokens: int = 96) -> None:
    """Decode tokens/s of a longer answer at temperature 0: Engram's turn, then raw
    llama-cpp-python on the same model with the same messages (system part, memory block and
    question: decoding slows as the context grows), three times each, alternating."""
    question = "Write a short story about a lighthouse keeper and a storm."
    session.model.temperature = 0.0
    session.assistant.max_answer_tokens = tokens
    for _ in range(3):
        sent = session.assistant.prepare(question, []).parts.messages()
        list(session.assistant.turn(0, question))
        stats = session.model.last_stats
        assert stats is not None
        samples.add("decode_engram", stats.decode_tokens_per_s)
        first, count = 0.0, 0
        stream = raw.create_chat_completion(
            messages=sent,
            max_tokens=tokens,
            temperature=0.0,
            stream=True,
        )
        for chunk in stream:
            if chunk["choices"][0]["delta"].get("content"):
                count += 1
                first = first or time.perf_counter()
        samples.add("decode_raw", (count - 1) / (time.perf_counter() - first))


def report(samples: Samples, memories: int) -> None:
    print(f"\n{memories:,} memories; time from Enter to first token (median, ms)")
    print("  typed = Engram with the prefetch that runs while the user types (as in the app)")
    print("  engram = Engram without it; raw = llama-cpp-python, same conversation, no memory")
    print(
        f"{'turn':>6} {'typed':>9} {'engram':>9} {'raw':>9} {'prompt tok':>11}"
        f" {'eval typed':>11} {'eval engram':>12}"
    )
    for t in TURNS:
        print(
            f"{t:>6} {samples.median(f'typed{t}') * 1000:>9.1f}"
            f" {samples.median(f'engram{t}') * 1000:>9.1f}"
            f" {samples.median(f'raw{t}') * 1000:>9.1f} {samples.median(f'prompt{t}'):>11.0f}"
            f" {samples.median(f'typed_evaluated{t}'):>11.0f}"
            f" {samples.median(f'engram_evaluated{t}'):>12.0f}"
        )
    print("\nprompt assembly before generation (ms)")
    print(f"{'part':>22} {'p50':>8} {'p95':>8}")
    for key, name in (("recall", "Recall.recall"), ("total", "Assistant.prepare")):
        print(f"{name:>22} {samples.pct(key, 50):>8.2f} {samples.pct(key, 95):>8.2f}")
    print(f"{'items injected (mean)':>22} {statistics.mean(samples.values['found']):>8.1f}")
    print("\nratios (targets: TTFT engram/raw <= 1.15, assembly p95 <= 15 ms)")
    for t in TURNS:
        typed = samples.median(f"typed{t}") / samples.median(f"raw{t}")
        plain = samples.median(f"engram{t}") / samples.median(f"raw{t}")
        print(f"  turn {t:>2}: typed / raw TTFT = {typed:.2f}x   engram / raw = {plain:.2f}x")
    print(f"  assembly p95 = {samples.pct('total', 95):.1f} ms")
    ours, theirs = samples.median("decode_engram"), samples.median("decode_raw")
    print(
        f"  decode: engram {ours:.1f} tok/s, raw {theirs:.1f} tok/s = {ours / theirs:.2f}x"
        " (target >= 0.95)"
    )
    for key in ("typed", "engram"):
        evaluated = sum(samples.values[f"{key}_evaluated_all"])
        total = sum(samples.values[f"{key}_prompt_all"])
        print(
            f"  {key}: prompt tokens evaluated at Enter / total = {evaluated:,.0f} / {total:,.0f}"
            f" = {evaluated / total:.1%}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k memories instead of 100k")
    parser.add_argument(
        "--reps", type=int, default=2, help="conversations of 32 turns each (at least 2)"
    )
    parser.add_argument("--model", default=Settings().small_model, help="the small model's id")
    args = parser.parse_args()
    if args.reps < 2:  # the conversations alternate: with the prefetch while typing, and without
        parser.error("--reps needs at least 2: one conversation with the prefetch, one without")
    memories = 10_000 if args.quick else 100_000
    with temp_home():
        start = time.perf_counter()
        build_store(paths.database_path(), memories)
        print(f"built {memories:,} memories in {time.perf_counter() - start:.1f} s", flush=True)
        samples = Samples()
        run_turns(args.model, args.reps, samples)
    print(f"model: {args.model}")
    report(samples, memories)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
