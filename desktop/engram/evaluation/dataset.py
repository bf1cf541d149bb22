"""The questions of an evaluation and each sample's conversation in its own store."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engram.evaluation import locomo
from engram.memory.embed import Embedder
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Question:
    """One question of one sample, with a key that is stable across runs."""

    sample: locomo.Sample
    index: int
    qa: locomo.QA

    @property
    def key(self) -> str:
        return f"{self.sample.sample_id}/{self.index}"


def questions(samples: list[locomo.Sample], limit: int | None = None) -> list[Question]:
    """Every question of the samples in file order, the first ``limit`` of them when given."""
    found = [Question(s, i, qa) for s in samples for i, qa in enumerate(s.qa)]
    return found if limit is None else found[:limit]


@dataclass
class Ingested:
    """A sample stored as one conversation: its store, conversation and dia_id -> episode id."""

    store: MemoryStore
    conversation_id: int
    episodes: dict[str, int]

    def evidence(self, qa: locomo.QA) -> set[int]:
        return {self.episodes[e] for e in qa.evidence if e in self.episodes}

    def job_ends(self, sample: locomo.Sample, size: int) -> list[int]:
        """The last episode of each consolidation job: every ``size`` turns and each session end."""
        ends = []
        for session in sample.sessions:
            turns = session.turns
            ends += [self.episodes[t.dia_id] for t in turns[size - 1 :: size]]
            if turns and len(turns) % size:
                ends.append(self.episodes[turns[-1].dia_id])
        return ends


def open_sample(folder: Path, sample: locomo.Sample, embedder: Embedder) -> Ingested:
    """The sample's own store under ``folder``, ingesting the conversation on first use."""
    name = _UNSAFE.sub("_", sample.sample_id) or "sample"
    store = MemoryStore.open(folder / f"{name}.sqlite3", embedder)
    log = EpisodeLog(store.conn)
    found = log.titled(locomo.title_of(sample))
    if found is None:
        ids = locomo.ingest(store.conn, sample)
        found = log.titled(locomo.title_of(sample))
        assert found is not None
    else:  # a re-run: episodes were stored in turn order
        dia = [t.dia_id for s in sample.sessions for t in s.turns]
        ids = {d: e.id for d, e in zip(dia, log.episodes(found.id), strict=False)}
    EpisodeIndex(store.space).index_new()
    return Ingested(store, found.id, ids)
