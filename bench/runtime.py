"""Benchmark Engram's local runtime against raw llama-cpp-python on the same model.

Run: ``.venv/bin/python bench/runtime.py [--reps N] [--cycles N] [--model ID]`` (default: the
starter pair's Qwen2.5-Coder-0.5B; ``--model smollm2-135m-instruct`` for the tests' tiny model).
Measures, in one run and on the same model, threads and messages: time to first token at turns
1/10/30 of a conversation, decode speed, the cost of switching conversations with and without the
KV state cache, the size and cost of the state snapshots that cache keeps (Engram's compact ones
against llama-cpp-python's), foreground speed while a background generation runs behind the gate
(and the share of a foreground answer's time the background spends paused at the gate), and RSS
over repeated load/close.

``--native [DIR]`` measures instead what the portable llama.cpp (installer/llama_flags.sh) costs:
decode and prompt-evaluation tokens/s of the venv's library against one built with
``-DGGML_NATIVE=ON`` from the same sdist (``bench/build_native.sh DIR``). Each build runs in its
own child process (llama-cpp-python loads the library named by ``LLAMA_CPP_LIB_PATH`` at import),
both load the same GGUF with the same threads and context, and the runs alternate between them::

    .venv/bin/python bench/runtime.py --native [DIR] [--model ID ...] [--threads N ...]
        [--tokens 64] [--ctx 1024] [--reps 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))

from engram.models import catalogue  # noqa: E402
from engram.models.background import ForegroundGate, thread_plan  # noqa: E402
from engram.models.local import LocalModel  # noqa: E402

SYSTEM = {"role": "system", "content": "You are Engram, a helpful personal assistant."}
TURNS = (1, 10, 30)
WINDOW = 2  # turns measured either side of 10 and 30
NATIVE_DIR = REPO / ".cache" / "llama-native"  # bench/build_native.sh's default, git-ignored
DECODE_CHILD = "--decode-child"  # hidden: the child process of --native


def conversation(topic: str, turns: int) -> list[dict[str, str]]:
    """The messages of turn ``turns``: fixed history (same for both runtimes) plus a question."""
    messages = [SYSTEM]
    for i in range(1, turns):
        messages.append({"role": "user", "content": f"Question {i} about {topic}: any advice?"})
        messages.append({"role": "assistant", "content": f"Advice {i} on {topic}: keep it simple."})
    messages.append({"role": "user", "content": f"Question {turns} about {topic}: any advice?"})
    return messages


def engram_ttft(model: LocalModel, messages: list[dict[str, str]], tokens: int) -> float:
    list(model.stream_chat(messages, max_tokens=tokens, temperature=0))
    assert model.last_stats is not None and model.last_stats.first_token_s is not None
    return model.last_stats.first_token_s


def raw_stream(llm: Any, messages: list[dict[str, str]], tokens: int) -> tuple[float, float, int]:
    """Time to first token, total time and pieces of raw ``create_chat_completion``."""
    start = time.perf_counter()
    first, pieces = 0.0, 0
    for chunk in llm.create_chat_completion(
        messages=messages, max_tokens=tokens, temperature=0, stream=True
    ):
        if chunk["choices"][0]["delta"].get("content"):
            pieces += 1
            first = first or time.perf_counter() - start
    return first, time.perf_counter() - start, pieces


def bench_turns(path: Path, threads: int, reps: int) -> dict[str, float]:
    """TTFT around turns 1, 10 and 30 (a window of turns each), the two runtimes interleaved."""
    from llama_cpp import Llama

    samples: dict[str, list[float]] = {}
    for _ in range(reps):
        ours = LocalModel(path, n_ctx=4096, n_threads=threads)
        raw = Llama(
            str(path), n_ctx=4096, n_threads=threads, n_threads_batch=threads, verbose=False
        )
        for turn in range(1, max(TURNS) + WINDOW + 1):
            messages = conversation("gardening", turn)
            names = ("engram", "raw") if turn % 2 else ("raw", "engram")  # alternate the order
            for name in names:
                if name == "engram":
                    value = engram_ttft(ours, messages, 8)
                else:
                    value = raw_stream(raw, messages, 8)[0]
                for target in TURNS:
                    if abs(turn - target) <= (WINDOW if target > 1 else 0):
                        samples.setdefault(f"ttft_t{target}_{name}", []).append(value)
        ours.close()
        raw.close()
    return {k: statistics.median(v) for k, v in samples.items()}


def bench_decode(path: Path, threads: int, reps: int) -> dict[str, float]:
    from llama_cpp import Llama

    ours = LocalModel(path, n_ctx=2048, n_threads=threads, state_cache_mb=0)
    raw = Llama(str(path), n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False)
    messages = [SYSTEM, {"role": "user", "content": "Write a long essay about the sea."}]
    a_rates, b_rates = [], []
    for _ in range(reps):
        list(ours.stream_chat(messages, max_tokens=128, temperature=0))
        assert ours.last_stats is not None
        a_rates.append(ours.last_stats.decode_tokens_per_s)
        first, total, pieces = raw_stream(raw, messages, 128)
        b_rates.append((pieces - 1) / (total - first))
    ours.close()
    raw.close()
    return {
        "decode_tps_engram": statistics.median(a_rates),
        "decode_tps_raw": statistics.median(b_rates),
    }


def cancel_latency(model: LocalModel, messages: list[dict[str, str]], after: int = 3) -> float:
    """Seconds from the cancel flag turning true (after ``after`` pieces) to the stream's end."""
    flagged: list[float] = []
    for n, _piece in enumerate(model.stream_chat(messages, 400, lambda: bool(flagged)), 1):
        if n == after:
            flagged.append(time.perf_counter())
    return time.perf_counter() - flagged[0]


def bench_cancel(path: Path, threads: int, reps: int) -> dict[str, float]:
    """Seconds from the cancel flag turning true to the stream ending (generation / prompt)."""
    model = LocalModel(path, n_ctx=4096, n_threads=threads, state_cache_mb=0)
    during_gen, during_prompt = [], []
    for i in range(reps):
        story = [SYSTEM, {"role": "user", "content": f"Tell story number {i}."}]
        during_gen.append(cancel_latency(model, story))
        start = time.perf_counter()
        long = [SYSTEM, {"role": "user", "content": f"{i} " + "word " * 2000}]
        list(model.stream_chat(long, 8, lambda t=start: time.perf_counter() - t > 0.3))
        during_prompt.append(time.perf_counter() - start - 0.3)
    model.close()
    return {
        "cancel_latency_generation_s": statistics.median(during_gen),
        "cancel_latency_prompt_s": statistics.median(during_prompt),
    }


def bench_switch(path: Path, threads: int) -> dict[str, float]:
    result = {}
    for label, cache_mb in (("cache", 256), ("nocache", 0)):
        model = LocalModel(path, n_ctx=4096, n_threads=threads, state_cache_mb=cache_mb)
        costs = []
        for turn in range(20, 26):  # alternate two conversations, one new turn each time
            for topic in ("cooking", "旅行"):
                costs.append(engram_ttft(model, conversation(topic, turn), 4))
        model.close()
        result[f"switch_ttft_{label}"] = statistics.median(costs[2:])
    return result


def bench_snapshots(path: Path, threads: int, conversations: int = 8) -> dict[str, float]:
    """Eight chats of 20 turns through a 256 MB state cache: time per snapshot, RSS held."""
    import types

    import llama_cpp
    import psutil

    result = {}
    for label in ("engram", "upstream"):
        gc.collect()
        rss = psutil.Process().memory_info().rss
        model = LocalModel(path, n_ctx=4096, n_threads=threads, state_cache_mb=256)
        if label == "upstream":  # llama-cpp-python's own snapshot, on the same model
            model.llama.save_state = types.MethodType(llama_cpp.Llama.save_state, model.llama)
        for topic in range(conversations):
            list(model.stream_chat(conversation(f"topic {topic}", 20), max_tokens=4))
        start = time.perf_counter()
        for _ in range(5):
            model.llama.save_state()
        result[f"snapshot_ms_{label}"] = (time.perf_counter() - start) / 5 * 1000
        held = model.llama.cache.cache_state.values()
        result[f"snapshot_mb_{label}"] = statistics.mean(
            (s.scores.nbytes + len(s.llama_state)) / 2**20 for s in held
        )
        result[f"cache_rss_mb_{label}"] = (psutil.Process().memory_info().rss - rss) / 2**20
        model.close()
        del model
    return result


def _rate(model: LocalModel, messages: list[dict[str, str]]) -> float:
    list(model.stream_chat(messages, max_tokens=96, temperature=0))
    assert model.last_stats is not None
    return model.last_stats.decode_tokens_per_s


def _paused_share(gate: ForegroundGate, fg: LocalModel, messages: list[dict[str, str]]) -> float:
    """The share of a foreground answer's time the gated background spent waiting at the gate."""
    before = gate.paused_seconds
    list(fg.stream_chat(messages, max_tokens=96, temperature=0))
    assert fg.last_stats is not None
    # The background adds its wait when it wakes: give it the moment it needs to.
    deadline = time.perf_counter() + 2
    while gate.paused_seconds == before and time.perf_counter() < deadline:
        time.sleep(0.01)
    return (gate.paused_seconds - before) / fg.last_stats.total_s


def _with_background(bg: LocalModel, measure: Any) -> float:
    """``measure()`` while ``bg`` generates an endless story in another thread."""
    stop, started = threading.Event(), threading.Event()

    def work() -> None:
        story = [{"role": "user", "content": "Tell an endless story."}]
        while not stop.is_set():
            for _piece in bg.stream_chat(story, max_tokens=2000, cancelled=stop.is_set):
                started.set()

    thread = threading.Thread(target=work)
    thread.start()
    started.wait(60)
    try:
        return float(measure())
    finally:
        stop.set()
        thread.join()


def bench_background(path: Path, reps: int) -> dict[str, float]:
    """Foreground decode speed idle / with a gated background / with an ungated one, interleaved."""
    plan = thread_plan()
    messages = [SYSTEM, {"role": "user", "content": "Write a long essay about mountains."}]
    gate = ForegroundGate()
    fg = LocalModel(path, n_ctx=2048, n_threads=plan.foreground, gate=gate, state_cache_mb=0)
    gated = LocalModel(
        path, n_ctx=2048, n_threads=plan.background, gate=gate, background=True, state_cache_mb=0
    )
    free = LocalModel(path, n_ctx=2048, n_threads=plan.background, state_cache_mb=0)
    rows: dict[str, list[float]] = {"idle": [], "gated": [], "ungated": []}
    paused = []
    for _ in range(reps):
        rows["idle"].append(_rate(fg, messages))
        rows["gated"].append(_with_background(gated, lambda: _rate(fg, messages)))
        rows["ungated"].append(_with_background(free, lambda: _rate(fg, messages)))
        paused.append(_with_background(gated, lambda: _paused_share(gate, fg, messages)))
    for model in (fg, gated, free):
        model.close()
    out = {f"fg_tps_{k}": statistics.median(v) for k, v in rows.items()}
    out["bg_paused_share_of_fg_answer"] = statistics.median(paused)
    for k in ("gated", "ungated"):
        pairs = zip(rows[k], rows["idle"], strict=True)
        out[f"fg_ratio_{k}"] = statistics.median(a / b for a, b in pairs)
    return out


def bench_rss(path: Path, cycles: int) -> dict[str, float]:
    import psutil

    proc = psutil.Process()
    gc.collect()
    before = proc.memory_info().rss
    after_one = 0
    for i in range(cycles):
        model = LocalModel(path, n_ctx=2048, state_cache_mb=64)
        list(model.stream_chat([SYSTEM, {"role": "user", "content": "Hi"}], max_tokens=8))
        model.close()
        del model
        gc.collect()
        if i == 0:
            after_one = proc.memory_info().rss
    after = proc.memory_info().rss
    return {
        "rss_before_mb": before / 2**20,
        "rss_after_1_mb": after_one / 2**20,
        f"rss_after_{cycles}_mb": after / 2**20,
        "rss_growth_per_cycle_mb": (after - after_one) / 2**20 / max(1, cycles - 1),
    }


def decode_child(path: str, threads: int, ctx: int) -> None:
    """Child of ``--native``: load once; per "run N" line on stdin, evaluate the prompt and
    decode N greedy tokens, and answer with one JSON line (the library is the one
    ``LLAMA_CPP_LIB_PATH`` names, or the venv's)."""
    import hashlib

    import llama_cpp
    import numpy as np

    llm = llama_cpp.Llama(
        path, n_ctx=ctx, n_threads=threads, n_threads_batch=threads, verbose=False
    )
    text = "\n".join(m["content"] for m in conversation("the sea", 8))
    prompt = llm.tokenize(f"{text}\nWrite a long essay about the sea.".encode())
    maps = Path("/proc/self/maps").read_text().split("\n")
    library = next((line.split()[-1] for line in maps if "libggml-cpu" in line), "?")
    system = llama_cpp.llama_print_system_info().decode().strip(" |")
    print(json.dumps({"library": library, "system": system}), flush=True)
    for line in sys.stdin:
        if not line.startswith("run "):
            break
        llm.reset()  # the next eval drops the whole KV cache
        start = time.perf_counter()
        llm.eval(prompt)
        evaluated = time.perf_counter()
        out: list[int] = []
        for _ in range(int(line.split()[1])):
            logits = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
            out.append(int(np.ctypeslib.as_array(logits, shape=(llm.n_vocab(),)).argmax()))
            llm.eval(out[-1:])
        end = time.perf_counter()
        result = {
            "prompt_tokens": len(prompt),
            "prompt_tps": len(prompt) / (evaluated - start),
            "decode_tps": len(out) / (end - evaluated),
            "digest": hashlib.sha256(str(out).encode()).hexdigest()[:12],
        }
        print(json.dumps(result), flush=True)
    llm.close()


def _child_answer(proc: subprocess.Popen[str], name: str) -> dict[str, Any]:
    """The child's next JSON line (llama.cpp may print other lines to stdout)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("{"):
            return dict(json.loads(line))
    raise RuntimeError(f"{name} build: child exited with {proc.wait()} (see its stderr above)")


def bench_native(
    path: Path, threads: int, ctx: int, tokens: int, reps: int, native: Path
) -> dict[str, Any]:
    """Portable (venv) vs native llama.cpp, one child each, runs alternating ABBA."""
    builds = {"portable": None, "native": native}
    procs: dict[str, subprocess.Popen[str]] = {}
    for name, lib in builds.items():
        env = {k: v for k, v in os.environ.items() if k != "LLAMA_CPP_LIB_PATH"}
        if lib is not None:
            env["LLAMA_CPP_LIB_PATH"] = str(lib)
        command = [sys.executable, __file__, DECODE_CHILD, str(path), str(threads), str(ctx)]
        procs[name] = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in procs}

    def run(name: str, n: int) -> dict[str, Any]:
        proc = procs[name]
        assert proc.stdin is not None
        proc.stdin.write(f"run {n}\n")
        proc.stdin.flush()
        return _child_answer(proc, name)

    try:
        info = {name: _child_answer(proc, name) for name, proc in procs.items()}
        for name in procs:  # warm-up: page in the weights, first-call allocations
            run(name, 4)
        for rep in range(reps):
            order = ("portable", "native") if rep % 2 == 0 else ("native", "portable")
            for name in order:
                runs[name].append(run(name, tokens))
    finally:
        for proc in procs.values():
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
    result: dict[str, Any] = {"info": info, "prompt_tokens": runs["portable"][0]["prompt_tokens"]}
    for name, rows in runs.items():
        for key in ("decode_tps", "prompt_tps"):
            result[f"{key}_{name}"] = statistics.median(r[key] for r in rows)
    pairs = zip(runs["portable"], runs["native"], strict=True)
    ratios = [a["decode_tps"] / b["decode_tps"] for a, b in pairs]  # each pair ran back to back
    result["decode_ratio_range"] = (min(ratios), max(ratios))
    digests = {name: {r["digest"] for r in rows} for name, rows in runs.items()}
    if any(len(d) > 1 for d in digests.values()):
        result["tokens"] = "tokens differ between runs of one build"
    elif digests["portable"] != digests["native"]:
        result["tokens"] = "tokens differ between builds"
    else:
        result["tokens"] = ""
    return result


def _cpu() -> str:
    """Model name and the SIMD flags that matter for ggml, from /proc/cpuinfo."""
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().split("\n"):
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())  # the first CPU's
    flags = set(fields.get("flags", "").split())
    wanted = ("avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
    have = " ".join(f"{f}{'+' if f in flags else '-'}" for f in wanted)
    return f"{fields.get('model name', '?')}, {os.cpu_count()} CPUs; {have}"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main_native(args: argparse.Namespace) -> None:
    native = Path(args.native)
    if not any(native.glob("libllama.so*")):
        sys.exit(f"no libllama.so in {native}: run bench/build_native.sh {native} first")
    models = catalogue.load()
    print(f"cpu: {_cpu()}")
    print(f"load average before: {_load()}")
    print(f"{args.tokens} tokens decoded, context {args.ctx}, median of {args.reps} runs each\n")
    head = ("decode p", "decode n", "ratio", "prompt p", "prompt n", "ratio", "pairs")
    first = True
    for model_id in args.model:
        path = models.get(model_id).main_file()
        for threads in args.threads:
            r = bench_native(path, threads, args.ctx, args.tokens, args.reps, native)
            if first:
                first = False
                for name, info in r["info"].items():
                    print(f"{name}: {info['library']}\n  {info['system']}")
                print(f"prompt: {r['prompt_tokens']} tokens\n")
                print(f"{'model':30} {'threads':>7} " + " ".join(f"{h:>9}" for h in head))
            decode = (r["decode_tps_portable"], r["decode_tps_native"])
            prompt = (r["prompt_tps_portable"], r["prompt_tps_native"])
            cells = (*decode, decode[0] / decode[1], *prompt, prompt[0] / prompt[1])
            note = f"  ({r['tokens']})" if r["tokens"] else ""
            spread = "{:.2f}-{:.2f}".format(*r["decode_ratio_range"])
            numbers = " ".join(f"{c:>9.2f}" for c in cells)
            print(f"{model_id:30} {threads:>7} {numbers} {spread:>9}{note}")
    print("\ntok/s, p = portable, n = native; ratio = p / n of the medians (decode goal >= 0.90);")
    print("pairs: lowest and highest decode p / n of the runs made back to back")
    print(f"load average after: {_load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument(
        "--model",
        nargs="+",
        default=["qwen2.5-coder-0.5b-instruct"],
        help="the model (with --native: the models) to measure",
    )
    native = parser.add_argument_group("portable against native llama.cpp")
    native.add_argument(
        "--native",
        nargs="?",
        const=str(NATIVE_DIR),
        metavar="DIR",
        help=f"compare with the library in DIR (default {NATIVE_DIR}) instead of the suite",
    )
    native.add_argument("--threads", nargs="+", type=int, default=[thread_plan().foreground])
    native.add_argument("--tokens", type=int, default=64, help="decoded per run")
    native.add_argument("--ctx", type=int, default=1024)
    args = parser.parse_args()
    if args.native is not None:
        main_native(args)
        return
    path = catalogue.load().get(args.model[0]).main_file()
    threads = thread_plan().foreground
    print(f"model {path.name}, {threads} foreground thread(s), reps {args.reps}\n")
    results: dict[str, float] = {}
    results.update(bench_turns(path, threads, args.reps))
    results.update(bench_decode(path, threads, args.reps))
    results.update(bench_cancel(path, threads, args.reps))
    results.update(bench_switch(path, threads))
    results.update(bench_snapshots(path, threads))
    results.update(bench_background(path, max(3, args.reps)))
    results.update(bench_rss(path, args.cycles))
    ratios = {
        f"ttft turn {t} engram/raw (<= 1.10)": results[f"ttft_t{t}_engram"]
        / results[f"ttft_t{t}_raw"]
        for t in TURNS
    }
    ratios["decode engram/raw (>= 0.95)"] = results["decode_tps_engram"] / results["decode_tps_raw"]
    ratios["switch ttft nocache/cache (speed-up)"] = (
        results["switch_ttft_nocache"] / results["switch_ttft_cache"]
    )
    ratios["snapshot time upstream/engram"] = (
        results["snapshot_ms_upstream"] / results["snapshot_ms_engram"]
    )
    ratios["RSS of 8 cached chats upstream/engram"] = (
        results["cache_rss_mb_upstream"] / results["cache_rss_mb_engram"]
    )
    ratios["fg tps with gated bg / idle (>= 0.90)"] = results.pop("fg_ratio_gated")
    ratios["fg tps with ungated bg / idle"] = results.pop("fg_ratio_ungated")
    print(f"{'measure':32} {'value':>12}")
    for key, value in results.items():
        unit = "s" if "ttft" in key or key.endswith("_s") else ""
        print(f"{key:32} {value:>12.4f}{unit}")
    print("\nratios")
    for key, value in ratios.items():
        print(f"{key:42} {value:>8.3f}")


if __name__ == "__main__":
    if sys.argv[1:2] == [DECODE_CHILD]:
        decode_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
