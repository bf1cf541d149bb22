"""Loading LoCoMo-format conversation sets and ingesting a sample as conversations and episodes."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import apsw

from engram.core.errors import InputError, tr
from engram.memory import db
from engram.memory.episodes import EpisodeLog

_SESSION = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    speaker: str
    dia_id: str
    text: str


@dataclass(frozen=True)
class Session:
    number: int
    date_time: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class QA:
    """One question; ``plan_step`` (an Engram extension) is the plan step the user is on."""

    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int
    plan_step: str | None = None


@dataclass(frozen=True)
class Sample:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    qa: tuple[QA, ...]


def load_locomo(path: Path) -> list[Sample]:
    """Samples from a LoCoMo JSON file (sessions under ``conversation`` or at the sample's top)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(
            tr("Cannot read the LoCoMo file {path} ({error})."),
            tr("Check the path and that the file is UTF-8 JSON."),
            path=path,
            error=exc,
        ) from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise InputError(
            tr("{path} is not a LoCoMo file (expected a list of samples)."),
            tr("Point to a LoCoMo-format JSON file."),
            path=path,
        )
    try:
        return [_sample(raw, n) for n, raw in enumerate(data)]
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        # OverflowError: a category of Infinity (Python's JSON reads it) is no whole number
        raise InputError(
            tr("{path} is not a LoCoMo file ({error})."),
            tr("Point to a LoCoMo-format JSON file."),
            path=path,
            error=repr(exc),
        ) from exc


def _sample(raw: dict[str, Any], n: int) -> Sample:
    conv = raw.get("conversation", raw)
    sessions = []
    for key, turns in conv.items():
        match = _SESSION.match(key)
        if match and isinstance(turns, list):
            number = int(match.group(1))
            sessions.append(
                Session(
                    number,
                    str(conv.get(f"{key}_date_time", "")),
                    tuple(
                        Turn(_text(t, "speaker"), _text(t, "dia_id"), _text(t, "text"))
                        for t in turns
                    ),
                )
            )
    qa = tuple(
        QA(
            str(q["question"]),
            str(q.get("answer", q.get("adversarial_answer", ""))),
            tuple(str(e) for e in q.get("evidence", [])),
            int(q.get("category", 0)),
            str(q.get("plan_step") or "").strip() or None,
        )
        for q in raw.get("qa", [])
    )
    return Sample(
        str(raw.get("sample_id", n)),
        str(conv["speaker_a"]),
        str(conv["speaker_b"]),
        tuple(sorted(sessions, key=lambda s: s.number)),
        qa,
    )


def _text(turn: dict[str, Any], key: str) -> str:
    """A turn's field, which must be text (an id given as a list or number is refused)."""
    value = turn[key]
    if not isinstance(value, str):
        raise ValueError(f"turn {key} must be a string, not {type(value).__name__}")
    return value


def session_time(text: str) -> float:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as a Unix time (now if unreadable)."""
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(text.strip(), fmt).timestamp()
        except ValueError:
            continue
    return time.time()


def ingest(conn: apsw.Connection, sample: Sample) -> dict[str, int]:
    """Store a sample as one conversation; returns dia_id -> episode id.

    Each episode reads "Speaker: text", stored as the user's (two people talk, neither is the
    assistant, whose own answers recall treats apart); its time is its session's date.
    """
    ids: dict[str, int] = {}
    log = EpisodeLog(conn)
    with db.transaction(conn):
        start = session_time(sample.sessions[0].date_time) if sample.sessions else time.time()
        conversation = log.new_conversation(title_of(sample), at=start).id
        for session in sample.sessions:
            when = session_time(session.date_time)
            for offset, turn in enumerate(session.turns):
                said = f"{turn.speaker}: {turn.text}"
                ids[turn.dia_id] = log.append(conversation, "user", said, at=when + offset).id
    return ids


def title_of(sample: Sample) -> str:
    """The title of the conversation a sample is stored as."""
    return f"LoCoMo {sample.sample_id}"
