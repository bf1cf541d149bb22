"""Recall lab: evidence recall of retrieval variants on a LoCoMo-format set, as an ablation table.

Run: .venv/bin/python bench/recall_lab.py /work/shared/data/locomo-dev.json
Embeddings are cached under /tmp/recall_lab (keyed by text), so a variant runs in seconds. The
keyword side is SQLite FTS5 with Engram's own index text and query terms (engram.memory.text).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import apsw
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))

from engram.memory import embed  # noqa: E402
from engram.memory import text as textmod  # noqa: E402

CACHE = Path("/tmp/recall_lab")
KS = (5, 10, 20)
POOL = 50


@dataclass
class Turn:
    dia: str
    speaker: str
    text: str
    session: int
    date: str
    caption: str


@dataclass
class Conv:
    sid: str
    speakers: tuple[str, str]
    turns: list[Turn]
    qa: list[dict[str, object]]
    vecs: dict[str, np.ndarray] = field(default_factory=dict)
    fts: apsw.Connection | None = None


@dataclass(frozen=True)
class Variant:
    name: str
    doc: str = "plain"  # which text is embedded per turn
    index: str = "plain"  # which text goes to the keyword index
    drop_names: bool = False  # speaker names out of the keyword query
    fusion: str = "rrf"  # rrf | z
    w_text: float = 1.0  # weight of the keyword side in z fusion
    multi: bool = False  # a turn's vector score is the max over its own and its context vector
    neighbours: float = 0.0  # share of a hit's score given to the turns next to it
    session: float = 0.0  # weight of the session's best score added to each turn
    prf: float = 0.0  # pseudo-relevance feedback: mix of the top-3 vectors into the query
    qstrip: bool = False  # speaker names out of the embedded query too
    ctx_weight: float = 0.0  # keyword index: the previous turn as a second column of this weight
    stop: bool = False  # a longer stop-word list for the keyword query
    common: float = 0.0  # words in more than this share of the turns leave both queries
    before: float | None = None  # the previous turn's share when it differs from the next's
    pool: int = POOL  # candidates per retriever
    qwords: bool = False  # question words out of the embedded query
    fill: bool = False  # a keyword-only candidate gets its real similarity, z-scored alike
    spread: float = 0.0  # each earlier pick from the same session discounts a turn by this share


def load(path: Path) -> list[Conv]:
    convs = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        c = raw["conversation"]
        turns = []
        n = 1
        while f"session_{n}" in c:
            for t in c[f"session_{n}"]:
                cap = t.get("blip_caption") or ""
                turns.append(
                    Turn(t["dia_id"], t["speaker"], t["text"], n, c[f"session_{n}_date_time"], cap)
                )
            n += 1
        convs.append(
            Conv(str(raw["sample_id"]), (c["speaker_a"], c["speaker_b"]), turns, raw["qa"])
        )
    return convs


def doc_text(conv: Conv, i: int, how: str) -> str:
    t = conv.turns[i]
    own = f"{t.speaker}: {t.text}"
    if "caption" in how and t.caption:
        own += f" [shares a photo: {t.caption}]"
    if how.startswith("prev") and i > 0 and conv.turns[i - 1].session == t.session:
        p = conv.turns[i - 1]
        return f"{p.speaker}: {p.text}\n{own}"
    if how.startswith("date"):
        return f"({t.date}) {own}"
    if how.startswith("bare"):
        return t.text + (f" [a photo: {t.caption}]" if "caption" in how and t.caption else "")
    return own


def embedder() -> embed.FastEmbedder:
    return embed.minilm(
        Path(os.environ.get("ENGRAM_MODELS_DIR", REPO / ".cache/models")) / "all-minilm-l6-v2-int8"
    )


_EMB: list[embed.FastEmbedder] = []


def vectors(texts: list[str]) -> np.ndarray:
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npy"
    if path.exists():
        return np.load(path)
    if not _EMB:
        _EMB.append(embedder())
    out = _EMB[0].embed(texts)
    CACHE.mkdir(exist_ok=True)
    np.save(path, out)
    return out


def fts(conv: Conv, how: str) -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(body, ctx,"
        " tokenize='porter unicode61 remove_diacritics 2')"
    )
    with conn:
        for i, t in enumerate(conv.turns):
            prev = conv.turns[i - 1].text if i and conv.turns[i - 1].session == t.session else ""
            conn.execute(
                "INSERT INTO f(rowid, body, ctx) VALUES (?, ?, ?)",
                (i, textmod.index_text(doc_text(conv, i, how)), textmod.index_text(prev)),
            )
    return conn


EXTRA_STOP = set(
    [
        "about",
        "after",
        "again",
        "all",
        "also",
        "am",
        "any",
        "because",
        "been",
        "before",
        "being",
        "both",
        "can",
        "could",
        "during",
        "each",
        "few",
        "further",
        "here",
        "into",
        "just",
        "kind",
        "likely",
        "more",
        "most",
        "much",
        "no",
        "nor",
        "not",
        "now",
        "off",
        "once",
        "only",
        "other",
        "out",
        "over",
        "own",
        "same",
        "should",
        "some",
        "such",
        "than",
        "then",
        "there",
        "these",
        "those",
        "through",
        "too",
        "under",
        "until",
        "up",
        "very",
        "would",
        "yet",
    ]
)


def keyword(
    conn: apsw.Connection, query: str, names: set[str], var: Variant
) -> list[tuple[int, float]]:
    terms = [
        t
        for t in textmod.query_terms(query)
        if t not in names and not (var.stop and t in EXTRA_STOP)
    ]
    match = textmod.fts_match(terms)
    if not match:
        return []
    cols = "{body ctx}" if var.ctx_weight else "{body}"
    rows = conn.execute(
        "SELECT rowid, -bm25(f, 1.0, ?) FROM f WHERE f MATCH ? ORDER BY bm25(f, 1.0, ?) LIMIT ?",
        (var.ctx_weight, f"{cols} : ({match})", var.ctx_weight, var.pool),
    )
    return [(int(r), float(s)) for r, s in rows]


def z(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    v = np.array(list(scores.values()))
    sd = float(v.std()) or 1.0
    return {i: (s - float(v.mean())) / sd for i, s in scores.items()}


def rank(conv: Conv, var: Variant, question: str, qvec: np.ndarray) -> list[int]:
    docs = conv.vecs[var.doc]
    sims = docs @ qvec
    if var.multi:
        sims = np.maximum(sims, conv.vecs["plain"] @ qvec)
    if var.prf:
        top = np.argsort(-sims)[:3]
        q2 = qvec + var.prf * docs[top].mean(axis=0)
        q2 /= np.linalg.norm(q2)
        sims = docs @ q2
    near = np.argsort(-sims)[: var.pool]
    names = {n.lower() for n in conv.speakers} if var.drop_names else set()
    assert conv.fts is not None
    lex = keyword(conv.fts, question, names, var)
    scores: dict[int, float] = {}
    if var.fusion == "rrf":
        for r, i in enumerate(near, 1):
            scores[int(i)] = scores.get(int(i), 0.0) + 1 / (60 + r)
        for r, (i, _) in enumerate(lex, 1):
            scores[i] = scores.get(i, 0.0) + 1 / (60 + r)
    else:
        zv = z({int(i): float(sims[i]) for i in near})
        zl = z(dict(lex))
        lo_v, lo_l = min(zv.values(), default=0.0), min(zl.values(), default=0.0)
        if var.fill:
            pool_sims = np.array([sims[i] for i in near])
            mean, sd = float(pool_sims.mean()), float(pool_sims.std()) or 1.0
            for i in zl:
                zv.setdefault(i, min((float(sims[i]) - mean) / sd, max(zv.values())))
        for i in set(zv) | set(zl):
            scores[i] = zv.get(i, lo_v) + var.w_text * zl.get(i, lo_l)
        floor = min(scores.values(), default=0.0)
        scores = {i: s - floor for i, s in scores.items()}
    if var.session:
        best: dict[int, float] = {}
        for i, s in scores.items():
            sess = conv.turns[i].session
            best[sess] = max(best.get(sess, -9.0), s)
        scores = {i: s + var.session * best[conv.turns[i].session] for i, s in scores.items()}
    if var.neighbours:
        lift = dict(scores)
        for i, s in scores.items():
            for j in (i - 1, i + 1):
                if 0 <= j < len(conv.turns) and conv.turns[j].session == conv.turns[i].session:
                    share = var.before if j < i and var.before is not None else var.neighbours
                    lift[j] = max(lift.get(j, -9.0), scores.get(j, -9.0), share * s)
        scores = lift
    ranked = sorted(scores, key=lambda i: -scores[i])
    if var.spread:
        picked: list[int] = []
        left = dict(scores)
        seen: dict[int, int] = {}
        while left and len(picked) < 40:
            best = max(
                left, key=lambda i: left[i] * (1 - var.spread) ** seen.get(conv.turns[i].session, 0)
            )
            picked.append(best)
            del left[best]
            seen[conv.turns[best].session] = seen.get(conv.turns[best].session, 0) + 1
        ranked = picked + sorted(left, key=lambda i: -scores[i])
    return ranked


def evaluate(convs: list[Conv], var: Variant, cats: set[int]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for conv in convs:
        for how in {var.doc, "plain"}:
            if how not in conv.vecs:
                conv.vecs[how] = vectors([doc_text(conv, i, how) for i in range(len(conv.turns))])
        conv.fts = fts(conv, var.index)
        index = {t.dia: i for i, t in enumerate(conv.turns)}
        qs = [q for q in conv.qa if int(q.get("category", 0)) in cats]
        strip = {n for n in conv.speakers} if var.qstrip else set()
        qvecs = vectors(
            [
                _without(
                    str(q["question"]),
                    strip
                    | (QUESTION_WORDS if var.qwords else set())
                    | common_words(conv, str(q["question"]), var.common),
                )
                for q in qs
            ]
        )
        for q, qv in zip(qs, qvecs, strict=True):
            wanted = {index[e] for e in q.get("evidence", []) if e in index}  # type: ignore[attr-defined]
            if not wanted:
                continue
            ranked = rank(conv, var, str(q["question"]), qv)
            for k in KS:
                r = len(wanted & set(ranked[:k])) / len(wanted)
                out.setdefault(f"all@{k}", []).append(r)
                out.setdefault(f"c{q['category']}@{k}", []).append(r)
    return out


QUESTION_WORDS = {"what", "when", "where", "who", "which", "how", "why", "did", "does", "do"}


def common_words(conv: Conv, query: str, share: float) -> set[str]:
    if not share:
        return set()
    assert conv.fts is not None
    n = len(conv.turns)
    out = set()
    for t in textmod.query_terms(query):
        df = conv.fts.execute(
            "SELECT COUNT(*) FROM f WHERE f MATCH ?", (textmod.fts_match([t]),)
        ).fetchall()[0][0]
        if df > share * n:
            out.add(t)
    return out


def _without(text: str, names: set[str]) -> str:
    import re

    if not names:
        return text
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")('s)?\b", re.I)
    return " ".join(pat.sub("", text).split())


def row(var: Variant, res: dict[str, list[float]], base: dict[str, list[float]] | None) -> str:
    m = {k: float(np.mean(v)) for k, v in res.items()}
    cells = [f"{m[f'all@{k}']:.3f}" for k in KS]
    cells += [f"{m.get(f'c{c}@10', 0):.3f}" for c in (1, 2, 3, 4)]
    if base:
        b = float(np.mean(base["all@10"]))
        cells.append(f"{m['all@10'] - b:+.3f}")
    return f"| {var.name} | " + " | ".join(cells) + " |"


VARIANTS: list[Callable[[Variant], Variant]] = []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    convs = load(args.path)
    cats = {1, 2, 3, 4}
    base = Variant("baseline: speaker-prefixed turn, RRF")
    engram = Variant(
        "Engram: common words out, context column, z fusion, sitting, neighbours",
        fusion="z",
        common=0.25,
        session=0.3,
        neighbours=0.6,
        ctx_weight=0.3,
    )
    variants = [
        base,
        replace(base, name="+ speaker names out of the keyword query", drop_names=True),
        replace(base, name="+ words in >25% of turns out of both queries", common=0.25),
        replace(base, name="+ z-scored score fusion", fusion="z"),
        replace(base, name="+ previous turn in the embedding", doc="prev"),
        replace(base, name="+ max(own, with previous turn) vector", doc="prev", multi=True),
        replace(base, name="+ session date in the embedding", doc="date"),
        replace(base, name="+ photo captions (vector and keyword)", doc="caption", index="caption"),
        replace(base, name="+ pseudo-relevance feedback 0.5", prf=0.5),
        replace(base, name="+ longer stop-word list", stop=True),
        replace(base, name="+ previous turn as a keyword column (0.3)", ctx_weight=0.3),
        engram,
        replace(engram, name="Engram without common-word removal", common=0.0),
        replace(engram, name="Engram with RRF instead of z fusion", fusion="rrf"),
        replace(engram, name="Engram without the sitting lift", session=0.0),
        replace(engram, name="Engram without neighbours", neighbours=0.0),
        replace(engram, name="Engram without the keyword context column", ctx_weight=0.0),
        replace(engram, name="Engram + max(own, with previous) vector", doc="prev", multi=True),
        replace(engram, name="Engram + session date in the embedding", doc="date"),
        replace(engram, name="Engram + photo captions", doc="caption", index="caption"),
        replace(engram, name="Engram, keyword weight 1.3", w_text=1.3),
        replace(engram, name="Engram, keyword weight 0.8", w_text=0.8),
        replace(engram, name="Engram, previous turn lifted 0.4", before=0.4),
        replace(engram, name="Engram, previous turn lifted 0.8", before=0.8),
        replace(engram, name="Engram, pools of 100", pool=100),
        replace(engram, name="Engram, pools of 30", pool=30),
        replace(engram, name="Engram, question words out of the embedded query", qwords=True),
        replace(
            engram, name="Engram, keyword-only candidates get their real similarity", fill=True
        ),
        replace(engram, name="Engram, spread over sessions 0.1", spread=0.1),
        replace(engram, name="Engram, spread over sessions 0.25", spread=0.25),
    ]
    if args.only:
        variants = [v for v in variants if args.only in v.name]
    print(
        "| variant | r@5 | r@10 | r@20 | multi-hop@10 | temporal@10 | open@10 | single@10 | Δr@10 |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base_res = None
    for var in variants:
        res = evaluate(convs, var, cats)
        if base_res is None:
            base_res = res
        print(row(var, res, base_res), flush=True)


if __name__ == "__main__":
    main()
