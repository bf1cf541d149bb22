"""The kinds of memory and each kind's policy, in one place.

A kind decides how many memories of it stay active (hygiene archives the weakest unpinned ones
beyond its cap), under which header of a turn's prompt it is recalled (lessons go under the
guidance header, in a block of their own; the rest under the memory header), whether the outcome
of an answer it went into is credited to it (a lesson rises when answers go well and is retired
when it hurts), and whether the distiller lists it among the memories it proposes (a summary has
a field of its own). Outside this policy: pinned memories of any kind go into the system part
under the profile header, and so does the current plan, under the plan header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from engram.core.prompts import GUIDANCE_HEADER, MEMORY_HEADER

# The table's CHECK constraint says the same (memory/migrations.py).
Kind = Literal["fact", "preference", "profile", "lesson", "summary", "plan"]
FACT: Kind = "fact"
PREFERENCE: Kind = "preference"
PROFILE: Kind = "profile"
LESSON: Kind = "lesson"
SUMMARY: Kind = "summary"
PLAN: Kind = "plan"
KINDS: tuple[Kind, ...] = get_args(Kind)


@dataclass(frozen=True)
class KindPolicy:
    """What Engram does with the memories of one kind."""

    cap: int  # active memories kept; hygiene archives the weakest unpinned ones beyond it
    header: str = MEMORY_HEADER  # the header it is recalled under in a turn's prompt
    credited: bool = False  # the outcome of an answer it went into is credited to it
    listed: bool = True  # the distiller proposes it in its list of memories


POLICIES: dict[str, KindPolicy] = {
    FACT: KindPolicy(cap=2000),
    PREFERENCE: KindPolicy(cap=2000),
    PROFILE: KindPolicy(cap=2000),
    LESSON: KindPolicy(cap=200, header=GUIDANCE_HEADER, credited=True),
    SUMMARY: KindPolicy(cap=300, listed=False),
    PLAN: KindPolicy(cap=50),
}
LISTED: tuple[Kind, ...] = tuple(k for k in KINDS if POLICIES[k].listed)
# The headers memories are recalled under in a turn's prompt, in the order of their blocks.
HEADERS: tuple[str, ...] = tuple(
    dict.fromkeys([MEMORY_HEADER, *(p.header for p in POLICIES.values())])
)
CREDITED: tuple[Kind, ...] = tuple(k for k in KINDS if POLICIES[k].credited)


def header_of(label: str) -> str:
    """The header a recalled item is given under (an earlier message, not a kind: the memory
    header)."""
    found = POLICIES.get(label)
    return found.header if found is not None else MEMORY_HEADER


def caps() -> dict[str, int]:
    """Each kind's cap."""
    return {kind: policy.cap for kind, policy in POLICIES.items()}
