"""Benchmark consolidation: the starter model as distiller, and reconciliation on fixed cases.

Run: ``.venv/bin/python bench/consolidation.py [--jobs N]``. In one run and on the same model and
conversations (10 turns each, English and Chinese) it measures Engram's distiller (schema grammar,
cleaning, reconciliation, store writes) against a baseline that asks raw llama-cpp-python for the
same JSON without a grammar: seconds per job, the share of answers that parse and validate, and
the duplicates written when the same conversations are consolidated a second time. Then a scripted
distiller drives reconciliation through a fixed set of add/update/supersede/skip cases, against a
baseline without the similarity guard.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-")

from engram.assistant.learning import distill, reconcile  # noqa: E402
from engram.assistant.learning.consolidation import ConsolidationWorker  # noqa: E402
from engram.assistant.learning.distiller_backends import LocalDistiller  # noqa: E402
from engram.core import paths  # noqa: E402
from engram.memory import embed  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.memory.jobs import JobQueue  # noqa: E402
from engram.memory.store import MemoryStore  # noqa: E402
from engram.models import catalogue, schema_check  # noqa: E402
from engram.models.background import LazyModel  # noqa: E402
from engram.models.local import LocalModel  # noqa: E402

LIMITS = distill.Limits(memories=4, chars=100)
EN = [
    ("My name is Lena and I work as a nurse.", "Nice to meet you, Lena."),
    ("I live in Berlin with my husband Tom.", "Berlin is a great city."),
    ("We have a dog called Rex.", "Rex sounds lovely."),
    ("I prefer tea over coffee.", "Noted."),
    ("Please keep your answers short.", "Sure."),
    ("I want to run a half marathon in October.", "Great goal!"),
    ("Right now I can run 8 km.", "A good base."),
    ("I am allergic to peanuts.", "I will remember that."),
    ("My sister Anna lives in Vienna.", "Nice."),
    ("Actually, Rex is a cat, not a dog.", "Sorry, Rex the cat then."),
]
ZH = [
    ("我叫王芳，是一名老师。", "你好，王芳。"),
    ("我住在上海。", "上海很好。"),
    ("我喜欢喝绿茶。", "记下了。"),
    ("我每天早上六点起床。", "很早。"),
    ("我打算明年学开车。", "好目标！"),
    ("我有一个女儿，五岁。", "真好。"),
    ("我不吃辣。", "记住了。"),
    ("周末我常去爬山。", "很健康。"),
    ("我在学日语。", "加油。"),
    ("不对，我住在杭州，不是上海。", "抱歉，是杭州。"),
]


def open_store(embedder: embed.FastEmbedder) -> MemoryStore:
    return MemoryStore.open(paths.database_path(), embedder)


def distiller_run(store: MemoryStore, path: Path, jobs: int) -> dict[str, float]:
    """Engram: queue ``jobs`` conversations, run the worker, then the same episodes again."""
    log = EpisodeLog(store.conn)
    queue = JobQueue(store.conn)
    for i in range(jobs):
        conversation = log.new_conversation()
        for user, assistant in EN if i % 2 == 0 else ZH:
            log.append(conversation.id, "user", user)
            log.append(conversation.id, "assistant", assistant)
        queue.enqueue(conversation.id)
    model = LocalModel(path, n_ctx=2048, background=True, state_cache_mb=0)
    lazy: LazyModel[LocalModel] = LazyModel(lambda: model, 3600)
    seconds = []
    for round_ in range(2):
        if round_:
            store.conn.execute("UPDATE consolidation_jobs SET status = 'queued', attempts = 0")
            before = len(store.memories(statuses=None))
        worker = ConsolidationWorker(
            lambda: open_store(store.embedder), LocalDistiller(lazy), poll=0.05, limits=LIMITS
        )
        start = time.perf_counter()
        worker.start()
        while queue.counts().get("queued", 0) + queue.counts().get("running", 0):
            time.sleep(0.1)
            if queue.next_due() and queue.next_due() > time.time():  # type: ignore[operator]
                break  # only failed jobs remain (waiting for their backoff)
        worker.stop()
        seconds.append((time.perf_counter() - start) / jobs)
    after = store.memories(statuses=None)
    duplicates = len(after) - before
    for memory in after:
        print(f"  #{memory.id} {memory.status:10} {memory.kind:10} {memory.content}")
    done = queue.counts().get("done", 0)
    model.close()
    return {
        "s_per_job": seconds[0],
        "parsed_share": done / jobs,
        "duplicates_second_run": float(duplicates),
        "memories": float(before),
    }


def baseline_run(path: Path, jobs: int) -> dict[str, float]:
    """Raw llama-cpp-python: the same prompt asking for JSON, no grammar, parsed and validated."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(path), n_ctx=2048, verbose=False)
    wanted = distill.schema(LIMITS)
    ok = 0
    start = time.perf_counter()
    for i in range(jobs):
        turns = EN if i % 2 == 0 else ZH
        transcript = "\n".join(
            f"[{2 * n + k + 1}] {role}: {text}"
            for n, pair in enumerate(turns)
            for k, (role, text) in enumerate(zip(("user", "assistant"), pair, strict=True))
        )
        language = "en" if i % 2 == 0 else "zh_CN"
        messages: Any = [
            {"role": "system", "content": distill.prompt("distill", language)},
            {"role": "user", "content": transcript},
        ]
        reply = llm.create_chat_completion(messages, max_tokens=LIMITS.max_tokens, temperature=0)
        try:
            value = json.loads(reply["choices"][0]["message"]["content"] or "")
            ok += not schema_check.errors(value, wanted)
        except ValueError:
            pass
    elapsed = (time.perf_counter() - start) / jobs
    llm.close()
    return {"s_per_job": elapsed, "parsed_share": ok / jobs}


class Scripted:
    """Says ``decision`` about the first memory it is shown."""

    def __init__(self, decision: str, content: str = "") -> None:
        self.decision = decision
        self.content = content
        self.asked = 0

    def structured(self, messages: Any, json_schema: Any, max_tokens: int = 256) -> dict[str, Any]:
        self.asked += 1
        shown = messages[-1]["content"].split("EXISTING:\n[", 1)[1].split("]", 1)[0]
        return {"decision": self.decision, "target_id": int(shown), "content": self.content}


CASES = [  # existing memory, candidate, what the scripted model says, expected final memories
    ("The user lives in Berlin.", "The user lives in Berlin.", "add",
     ["The user lives in Berlin."]),
    ("The user lives in Berlin.", "the user lives in berlin", "add",
     ["The user lives in Berlin."]),
    ("The user has a dog called Rex.", "The user has a dog named Rex.", "add",
     ["The user has a dog called Rex."]),
    ("The user lives in Berlin.", "The user moved to Munich.", "supersede",
     ["The user moved to Munich."]),
    ("The user has a cat.", "The user has two cats.", "update", ["The user has two cats."]),
    ("The user likes tea.", "The user is allergic to peanuts.", "skip",
     ["The user is allergic to peanuts.", "The user likes tea."]),
    ("用户住在上海。", "用户住在上海", "add", ["用户住在上海。"]),
    ("用户住在上海。", "用户搬到了杭州。", "supersede", ["用户搬到了杭州。"]),
]  # fmt: skip


def reconcile_cases(embedder: embed.FastEmbedder, guard: bool) -> tuple[int, int]:
    """(correct cases, model calls) on a fresh store per case."""
    correct = calls = 0
    original = reconcile.guard
    if not guard:
        reconcile.guard = lambda *_args: None  # type: ignore[assignment]
    try:
        for n, (existing, new, says, expected) in enumerate(CASES):
            store = MemoryStore.open(paths.data_dir() / f"case{guard}{n}.sqlite", embedder)
            store.add(existing, "fact", origin="local")
            model = Scripted(says, new if says in ("update", "supersede") else "")
            candidate = distill.Candidate("fact", new, 0.6, ())
            decision = reconcile.decide(store, model, candidate, "en")
            reconcile.apply(
                store, decision, candidate, origin="local", conversation_id=None, job_id=0
            )
            correct += sorted(m.content for m in store.memories()) == sorted(expected)
            calls += model.asked
            store.conn.close()
    finally:
        reconcile.guard = original
    return correct, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2, help="conversations of 10 turns")
    args = parser.parse_args()
    path = catalogue.load().get("smollm2-135m-instruct").main_file()
    embedder = embed.minilm(catalogue.load().get("all-minilm-l6-v2-int8").folder())
    store = open_store(embedder)
    print(f"distiller {path.name}, {args.jobs} job(s) of 10 turns, limits {LIMITS}\n")
    engram = distiller_run(store, path, args.jobs)
    base = baseline_run(path, args.jobs)
    good, asked = reconcile_cases(embedder, guard=True)
    good_ng, asked_ng = reconcile_cases(embedder, guard=False)
    print(f"{'measure':40} {'engram':>10} {'baseline':>10}")
    for key in ("s_per_job", "parsed_share"):
        print(f"{key:40} {engram[key]:>10.3f} {base[key]:>10.3f}")
    print(f"{'duplicates_second_run':40} {engram['duplicates_second_run']:>10.0f} {'-':>10}")
    print(f"{'memories_written':40} {engram['memories']:>10.0f} {'-':>10}")
    print(f"{'reconcile_cases_correct (of ' + str(len(CASES)) + ')':40} {good:>10} {good_ng:>10}")
    print(f"{'reconcile_model_calls':40} {asked:>10} {asked_ng:>10}")
    print("\nratios (engram / baseline)")
    print(f"{'s_per_job':40} {engram['s_per_job'] / base['s_per_job']:>10.3f}")
    share = engram["parsed_share"] / base["parsed_share"] if base["parsed_share"] else float("inf")
    print(f"{'parsed_share':40} {share:>10.3f}")
    print(f"{'reconcile_cases_correct':40} {good / max(1, good_ng):>10.3f}")
    store.conn.close()


if __name__ == "__main__":
    main()
