"""Reading the user's words: is a reply a correction or a standing instruction?

On a phrasing set (``resources/eval/phrasings_<lang>.json``: replies to an exchange, labelled
correction, instruction, preference, praise or ordinary, most ordinary ones look-alikes), for
the rules alone (``intent.read``), the meaning reader alone (the embedder's nearest prototype
sentences, ``assistant/reading/meaning.py``) and as the turn reads (``reading.read``: the
meaning where the embedder reads the language, else the rules):

- detected: corrections and instructions read as one (recall);
- ordinary taken: ordinary messages read as one (what the issue's goal bounds at 0.05);
- others taken: preferences and praise read as one.

``--calibrate`` finds, on a development set, the smallest margin at which the meaning reader
takes at most ``--target`` of the messages that correct nothing (ordinary, preference, praise)
and prints it for models.toml (``correction_margin`` in ``[model.floors.<lang>]``). Without it
the margin is the catalogue's. A blind set (``bench/data/blind/``) is only ever measured.

    .venv/bin/python bench/reading.py [--set FILE ...] [--model ID] [--calibrate]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import margins
from engram.assistant import intent
from engram.assistant.reading import MeaningReader, read
from engram.assistant.reading.meaning import CORRECTING
from engram.assistant.session import embedder_of
from engram.memory.embed import floors_of
from engram.models import catalogue

ROOT = Path(__file__).resolve().parents[1]
DEV = [ROOT / "resources/eval/phrasings_en.json", ROOT / "resources/eval/phrasings_zh.json"]
CORRECTS = {"correction", "instruction"}
TARGET = 0.05


def _rate(hits: list[bool]) -> str:
    return f"{sum(hits)}/{len(hits)} ({sum(hits) / max(len(hits), 1):.2f})"


def report(items: list[dict[str, Any]], found: dict[str, list[bool]]) -> None:
    labels = [i["label"] for i in items]
    for name, hits in found.items():
        detected = [h for h, label in zip(hits, labels, strict=True) if label in CORRECTS]
        ordinary = [h for h, label in zip(hits, labels, strict=True) if label == "ordinary"]
        others = [
            h for h, label in zip(hits, labels, strict=True) if label in ("preference", "praise")
        ]
        print(
            f"  {name:8} detected {_rate(detected)}  ordinary taken {_rate(ordinary)}"
            f"  others taken {_rate(others)}"
        )


def calibrate(items: list[dict[str, Any]], reader: MeaningReader, target: float) -> float:
    """The smallest margin at which at most ``target`` of the messages that correct nothing
    read as correcting."""
    acts = [reader.read(i["text"]) for i in items]
    innocent = [
        a.margin
        for a, i in zip(acts, items, strict=True)
        if a and i["label"] not in CORRECTS and a.act in CORRECTING
    ]
    return margins.above(innocent, target, sum(1 for i in items if i["label"] not in CORRECTS))


def main() -> int:
    args = margins.arguments(__doc__, DEV, TARGET)
    embedder = embedder_of(catalogue.load().get(args.model))
    reader = MeaningReader.of(embedder)
    for path in args.set:
        data = json.loads(path.read_text("utf-8"))
        items = data["items"]
        language = data["language"]
        margin = floors_of(embedder, language).correction_margin
        if args.calibrate:
            margin = calibrate(items, reader, args.target)
            print(f"[model.floors.{language.split('_')[0]}] correction_margin = {margin}")
        act = {i["id"]: reader.read(i["text"]) for i in items}
        meaning = [
            bool(a and a.act in CORRECTING and a.margin >= margin)
            for a in (act[i["id"]] for i in items)
        ]
        rules = [intent.read(i["text"]).correction for i in items]
        turn = (
            [
                r if act[i["id"]] is None else m
                for r, m, i in zip(rules, meaning, items, strict=True)
            ]
            if args.calibrate
            else [read(i["text"], embedder).correction for i in items]
        )
        print(f"{path.name} ({args.model}, margin {margin}):")
        report(items, {"rules": rules, "meaning": meaning, "turn": turn})
    return 0


if __name__ == "__main__":
    sys.exit(main())
