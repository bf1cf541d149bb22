"""Calibrate an embedding model's similarity floors, per language, against all-MiniLM-L6-v2's.

Engram's floors (``engram.memory.embed.Floors``: when a memory counts as relevant, a lesson as
near, two statements as one) were set by hand for all-MiniLM-L6-v2 on English. The same cosine
means something else in another model's space, and in another language: the Universal Sentence
Encoder puts unrelated Chinese sentences at about 0.2, MiniLM at 0.5-0.7. A floor is carried over
by what it admits, two ways: the share of a corpus's sentence pairs (nearly all unrelated: what
chance admits) at or above it under MiniLM in English, and the share of related pairs (a
question and the memory that answers it) at or above it. A model that tells related pairs apart
less sharply than MiniLM cannot match both: matched on chance it drops true matches that MiniLM
keeps, matched on the related pairs it admits more chance pairs. The new model's floor in a
language is the cosine halfway between the two. The guards (``Floors.guards``: the floors
past which a memory is replaced, merged or skipped) are never carried below MiniLM's own: the
high end of a space is thin in any corpus, and a guard set too low loses what the user said;
they are carried on chance pairs alone. So are the lesson floors (``Floors.strict``): a lesson
given where it does not belong changes the answer. The corpus is the development data in the
repository: the task sets' messages and feedback, the phrasing sets' messages and the requests
they answer, and the bilingual recall set's memories and questions (never a blind set).

    .venv/bin/python bench/calibrate_floors.py [--model use-multilingual-v3] [--check]

prints the ``[model.floors.<lang>]`` tables for models.toml; ``--check`` compares them with the
catalogue's and exits 1 when one differs by more than 0.01.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from engram.assistant.session import embedder_of
from engram.memory.embed import MINILM_FLOORS, Embedder, Floors
from engram.models import catalogue

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "all-minilm-l6-v2-int8"
LANGUAGES = {"en": "en", "zh": "zh"}
TOLERANCE = 0.01


def corpus(language: str) -> list[str]:
    """The development texts in ``language`` ("en" or "zh"), each once, in file order."""
    texts: list[str] = []
    tasks = json.loads((ROOT / f"resources/eval/tasks_{language}.json").read_text("utf-8"))
    for task in tasks["tasks"]:
        texts += task.get("messages", [])
        feedback = task.get("feedback") or {}
        if feedback.get("text"):
            texts.append(feedback["text"])
    phrasings = json.loads((ROOT / f"resources/eval/phrasings_{language}.json").read_text("utf-8"))
    for item in phrasings["items"]:
        texts += [item["text"], item["context"]["user"]]
    recall = json.loads((ROOT / "bench/data/bilingual_recall_dev.json").read_text("utf-8"))
    texts += [m["text"] for m in recall["memories"] if m["lang"] == language]
    texts += [q["text"] for q in recall["questions"] if q["lang"] == language]
    return list(dict.fromkeys(t.strip() for t in texts if t.strip()))


def pair_cosines(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The cosines of every unordered pair of distinct texts, sorted."""
    vectors = embedder.embed(texts)
    sims = vectors @ vectors.T
    upper = np.triu_indices(len(texts), k=1)
    return np.sort(sims[upper])


def related_cosines(embedder: Embedder, language: str, same_language: bool) -> np.ndarray:
    """The cosines of the bilingual recall set's questions in ``language`` with the memories
    that answer them (only those in the same language with ``same_language``), sorted."""
    recall = json.loads((ROOT / "bench/data/bilingual_recall_dev.json").read_text("utf-8"))
    memories = {m["id"]: m for m in recall["memories"]}
    pairs = [
        (q["text"], memories[q["memory"]]["text"])
        for q in recall["questions"]
        if q["lang"] == language
        and (not same_language or memories[q["memory"]]["lang"] == language)
    ]
    vectors = embedder.embed([text for pair in pairs for text in pair])
    return np.sort(np.einsum("ij,ij->i", vectors[0::2], vectors[1::2]))


def carried(reference: np.ndarray, target: np.ndarray, floor: float) -> float:
    """The cosine of ``target`` that admits the share of pairs ``floor`` admits in
    ``reference`` (both sorted); a floor above every reference pair maps beyond the target's
    highest pair by the same margin."""
    admitted = len(reference) - int(np.searchsorted(reference, floor, side="left"))
    if admitted == 0:
        return float(min(1.0, target[-1] + (floor - reference[-1])))
    return float(target[len(target) - admitted])


def kept_alike(reference: np.ndarray, target: np.ndarray, floor: float) -> float:
    """The cosine of ``target`` that keeps the share of related pairs ``floor`` keeps in
    ``reference`` (both sorted)."""
    kept = float(np.mean(reference >= floor))
    return float(np.quantile(target, 1.0 - kept))


def calibrate(model: str) -> dict[str, Floors]:
    cat = catalogue.load()
    minilm = embedder_of(cat.get(REFERENCE))
    chance = pair_cosines(minilm, corpus("en"))
    related = related_cosines(minilm, "en", same_language=True)
    embedder = embedder_of(cat.get(model))
    result = {}
    for language in LANGUAGES:
        target = pair_cosines(embedder, corpus(language))
        target_related = related_cosines(embedder, language, same_language=False)
        values = {}
        for name in Floors.cosines():
            floor = getattr(MINILM_FLOORS, name)
            by_chance = carried(chance, target, floor)
            if name in Floors.guards():
                values[name] = round(max(by_chance, floor), 3)
            elif name in Floors.strict():
                values[name] = round(by_chance, 3)
            else:
                by_kept = kept_alike(related, target_related, floor)
                values[name] = round((by_chance + by_kept) / 2, 3)
        result[language] = MINILM_FLOORS.replaced(values)
    return result


def toml(floors: dict[str, Floors]) -> str:
    lines = []
    for language, values in floors.items():
        lines.append(f"[model.floors.{language}]")
        lines += [f"{name} = {getattr(values, name)}" for name in Floors.cosines()]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="use-multilingual-v3")
    parser.add_argument("--check", action="store_true", help="compare with models.toml")
    args = parser.parse_args()
    found = calibrate(args.model)
    print(toml(found))
    if not args.check:
        return 0
    stored = catalogue.load().get(args.model).floors
    off = [
        f"{language}.{name}: models.toml {stored.get(language, {}).get(name)}, now {value}"
        for language, floors in found.items()
        for name in Floors.cosines()
        if abs(stored.get(language, {}).get(name, 9.0) - (value := getattr(floors, name)))
        > TOLERANCE
    ]
    print("\n".join(off) or "models.toml holds these floors")
    return 1 if off else 0


if __name__ == "__main__":
    sys.exit(main())
