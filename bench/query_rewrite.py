"""Query rewriting by the small model: LoCoMo evidence recall of the message search with the
question alone against the question helped by the small model's rewrite, and the rewrite's time.

    .venv/bin/python bench/query_rewrite.py ../shared/data/locomo-dev.json [--small ID] \
        [--out DIR]

For every question of categories 1-4 the small model (greedy, at most 40 tokens) writes two
rewrites: a hypothetical answer ("the one sentence from their chat that answers it") and the
words the answering message would contain. Each is tried as extra query text, and as a second
vector averaged with the question's (the keyword query then holds the rewrite's words too).
Printed: recall@5/10/20 and recall@10 per category for each variant, and the mean seconds a
rewrite took. Stores and rewrites are kept under ``--out`` (a second run reuses them).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from engram.assistant.session import embedder_for
from engram.core.atomic import atomic_write
from engram.core.settings import Settings
from engram.evaluation import dataset, locomo, metrics
from engram.memory.embed import normalize
from engram.memory.episode_index import EpisodeIndex
from engram.memory.search import Filters, Focus
from engram.models import roles

KS = (5, 10, 20)
CATEGORIES = (1, 2, 3, 4)
PROMPTS = {
    "answer": "Two friends, {a} and {b}, chatted over several months. Question about their chats: "
    "{q}\nWrite the one sentence from their chat that answers it, as the speaker said it. Reply "
    "with that sentence only.",
    "words": "Question: {q}\nWhich words would the chat message that answers this question "
    "contain? Reply with 6 to 10 words separated by commas, nothing else.",
}


def rewrites(
    llm: Any, questions: list[dataset.Question], style: str, cache: Path
) -> dict[str, dict[str, Any]]:
    """The rewrites of ``style`` (the missing ones written now, each saved to ``cache`` at once)
    and the seconds they took: ``{"rewrites": {key: text}, "seconds": {key: s}}``."""
    done = json.loads(cache.read_text()) if cache.exists() else {"rewrites": {}, "seconds": {}}
    for q in questions:
        if q.key in done["rewrites"]:
            continue
        text = PROMPTS[style].format(a=q.sample.speaker_a, b=q.sample.speaker_b, q=q.qa.question)
        start = time.perf_counter()
        reply = llm.create_chat_completion(
            messages=[{"role": "user", "content": text}], max_tokens=40, temperature=0.0
        )
        done["seconds"][q.key] = time.perf_counter() - start
        done["rewrites"][q.key] = str(reply["choices"][0]["message"]["content"]).strip()
        with atomic_write(cache) as handle:  # a stop mid-write leaves the last whole file
            json.dump(done, handle, ensure_ascii=False, indent=0)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--small", default="qwen2.5-coder-0.5b-instruct")
    parser.add_argument("--out", type=Path, default=Path("query-rewrite-out"))
    args = parser.parse_args(argv)
    settings = Settings(small_model=args.small)
    samples = locomo.load_locomo(args.data)
    questions = [q for q in dataset.questions(samples) if q.qa.category in CATEGORIES]
    args.out.mkdir(parents=True, exist_ok=True)
    from llama_cpp import Llama

    path = roles.entry_for(settings, "small").main_file()
    llm = Llama(str(path), n_ctx=1024, verbose=False)
    made = {s: rewrites(llm, questions, s, args.out / f"rewrites-{s}.json") for s in PROMPTS}
    llm.close()
    written = {style: m["rewrites"] for style, m in made.items()}
    recalls: dict[str, dict[int, dict[int, list[float]]]] = {}
    embedder = embedder_for(settings)
    for sample in samples:
        ingested = dataset.open_sample(args.out / "stores", sample, embedder)
        index = EpisodeIndex(ingested.store.space)
        only = Filters(statuses=None, conversation_id=ingested.conversation_id)
        for q in (q for q in questions if q.sample is sample):
            wanted = ingested.evidence(q.qa)
            if not wanted:
                continue
            asked = index.focus(q.qa.question)
            vector = index.query_vector(asked)
            assert vector is not None
            found = {"the question alone": index.search(asked, max(KS), only, vector=vector)}
            for style, rewritten in written.items():
                extra = index.focus(rewritten.get(q.key, ""))
                extra_vector = index.query_vector(extra) if extra.text.strip() else None
                terms = list(dict.fromkeys(asked.terms + extra.terms))
                both = Focus(f"{asked.text} {extra.text}", terms)
                found[f"+ {style}, as text"] = index.search(both, max(KS), only)
                if extra_vector is not None:
                    mean = normalize(vector + 0.5 * extra_vector)
                    found[f"+ {style}, vector averaged (0.5)"] = index.search(
                        Focus(asked.text, terms), max(KS), only, vector=mean
                    )
            for name, hits in found.items():
                ids = [h.episode.id for h in hits]
                for k in KS:
                    by_k = recalls.setdefault(name, {}).setdefault(k, {})
                    score = metrics.evidence_recall(wanted, set(ids[:k]))
                    by_k.setdefault(0, []).append(score)
                    by_k.setdefault(q.qa.category, []).append(score)
        ingested.store.conn.close()
    head = " | ".join(f"r@{k}" for k in KS) + " | " + " | ".join(f"c{c}@10" for c in CATEGORIES)
    print(f"| variant | {head} |")
    print("| --- |" + " ---: |" * (len(KS) + len(CATEGORIES)))
    for name, by_k in recalls.items():
        cells = [np.mean(by_k[k][0]) for k in KS] + [np.mean(by_k[10][c]) for c in CATEGORIES]
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in cells) + " |")
    for style, m in made.items():
        mean = float(np.mean(list(m["seconds"].values())))
        print(f"{style}: {mean:.2f} s per rewrite ({args.small}, this machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
