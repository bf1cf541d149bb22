"""The Markdown report and chart of an evaluation: per condition and category, and the headline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engram.assistant.evaluation import chart, metrics
from engram.core.atomic import atomic_write

FIELDS = (
    "f1",
    "exact",
    "evidence_recall",
    "utilization",
    "prompt_tokens",
    "first_token_s",
    "total_s",
)
LABELS = {
    "recent": "1. small, recent turns",
    "episodes": "2. small + memory (raw messages)",
    "consolidated": "3. small + memory (consolidated)",
    "large": "4. large, recent turns",
}
Summary = dict[str, dict[str, dict[str, Any]]]


def summarize(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> Summary:
    """condition -> group ("all", "category N") -> n and the mean of each field."""
    return {c: metrics.summarize(rows, FIELDS) for c, rows in records.items()}


def _cell(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def headline(summary: Summary) -> list[str]:
    """Condition 3 minus condition 1 in F1 points; condition 3 against 4 and their cost."""

    def overall(condition: str, field: str) -> float | None:
        value = summary.get(condition, {}).get("all", {}).get(field)
        return float(value) if value is not None else None

    lines = []
    c1, c3, c4 = (overall(c, "f1") for c in ("recent", "consolidated", "large"))
    if c1 is not None and c3 is not None:
        lines.append(f"- Memory gain (3 − 1): {100 * (c3 - c1):+.1f} F1 points.")
    t3, t4 = overall("consolidated", "total_s"), overall("large", "total_s")
    if c3 is not None and c4 is not None and t3 and t4:
        lines.append(
            f"- Small + consolidated memory against the large model: F1 {c3:.3f} vs {c4:.3f}"
            f" at {t3 / t4:.2f}× its time per question."
        )
    return lines


def markdown(summary: Summary, title: str) -> str:
    """The report: the headline, one table over all questions, one F1 table per category."""
    conditions = [c for c in LABELS if c in summary]
    out = [f"# {title}", "", *headline(summary), ""]
    out += [
        "| condition | n | F1 | exact | evidence recall | memory used | prompt tokens |"
        " first token s | total s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in conditions:
        row = summary[c]["all"]
        cells = [_cell(row[f], 1 if f == "prompt_tokens" else 3) for f in FIELDS]
        out.append(f"| {LABELS[c]} | {row['n']} | " + " | ".join(cells) + " |")
    groups = _groups(summary)
    out += ["", "F1 per category:", "", "| condition | " + " | ".join(groups) + " |"]
    out.append("| --- |" + " ---: |" * len(groups))
    for c in conditions:
        cells = [
            f"{_cell(summary[c].get(g, {}).get('f1'))} ({summary[c].get(g, {}).get('n', 0)})"
            for g in groups
        ]
        out.append(f"| {LABELS[c]} | " + " | ".join(cells) + " |")
    colours = ", ".join(f"{chart.COLOUR_NAMES[i]} = {LABELS[c]}" for i, c in enumerate(conditions))
    out += [
        "",
        f"Chart `chart.png`: F1 per group ({', '.join(groups)}, left to right); {colours}.",
        "Grid lines at 0.25, 0.5, 0.75 and 1.",
        "",
    ]
    return "\n".join(out)


def retrieval_markdown(records: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> str:
    fields = [f"recall@{k}" for k in ks]
    summary = metrics.summarize(records, fields)
    out = ["# Evidence recall over raw messages (hybrid search)", ""]
    out += ["| group | n | " + " | ".join(fields) + " |", "| --- | ---: |" + " ---: |" * len(ks)]
    for group, row in summary.items():
        out.append(f"| {group} | {row['n']} | " + " | ".join(_cell(row[f]) for f in fields) + " |")
    colours = ", ".join(f"{chart.COLOUR_NAMES[i]} = {f}" for i, f in enumerate(fields))
    out += ["", f"Chart `chart.png`: {', '.join(summary)} left to right; {colours}.", ""]
    return "\n".join(out)


def _groups(summary: Summary) -> list[str]:
    found = {g for by in summary.values() for g in by}
    return sorted(found, key=lambda g: (g != "all", g))


def write(out: Path, summary: Summary, title: str) -> None:
    """report.md and chart.png (F1 per category and condition) in ``out``."""
    with atomic_write(out / "report.md") as handle:
        handle.write(markdown(summary, title))
    conditions = [c for c in LABELS if c in summary]
    chart.write(
        out / "chart.png",
        [[summary[c].get(g, {}).get("f1") for c in conditions] for g in _groups(summary)],
    )


def write_retrieval(out: Path, records: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> None:
    """report.md and chart.png (recall@k per category) for ``--retrieval-only``."""
    with atomic_write(out / "report.md") as handle:
        handle.write(retrieval_markdown(records, ks))
    summary = metrics.summarize(records, [f"recall@{k}" for k in ks])
    chart.write(out / "chart.png", [[row[f"recall@{k}"] for k in ks] for row in summary.values()])
