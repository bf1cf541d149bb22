"""The Markdown report and chart of an evaluation: per condition and category, and the headline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engram.core.atomic import atomic_write
from engram.evaluation import chart, metrics
from engram.evaluation.judge import UNANSWERABLE

COLUMNS = {
    "f1": "F1",
    "exact": "exact",
    "judge": "judge",
    "evidence_recall": "evidence recall",
    "utilization": "memory used",
    "plan_adherence": "plan adherence",
    "prompt_tokens": "prompt tokens",
    "first_token_s": "first token s",
    "total_s": "total s",
}
FIELDS = tuple(COLUMNS)
LABELS = {
    "recent": "1. small, recent turns",
    "episodes": "2. small + memory (raw messages)",
    "consolidated": "3. small + memory (consolidated)",
    "large": "4. large, recent turns",
}
PLAN_METHODS = {
    "judge": "the large model's verdict",
    "lexical": "lexical proxy: the answer repeats at least half of the step's content words",
}
Records = Mapping[str, Sequence[Mapping[str, Any]]]  # condition -> answer records
Summary = dict[str, dict[str, dict[str, Any]]]


def summarize(records: Records) -> Summary:
    """condition -> group ("all", "category N") -> n and the mean of each field."""
    return {c: metrics.summarize(rows, FIELDS) for c, rows in records.items()}


def _cell(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _judged(summary: Summary) -> bool:
    return any(by.get("all", {}).get("judge") is not None for by in summary.values())


def headline(summary: Summary) -> list[str]:
    """Conditions 3 and 2 minus condition 1 in points; condition 3 against 4 and their cost."""

    def overall(condition: str, field: str) -> float | None:
        value = summary.get(condition, {}).get("all", {}).get(field)
        return float(value) if value is not None else None

    scores = ["f1", "judge"] if _judged(summary) else ["f1"]
    names = {"f1": "F1", "judge": "judge"}
    gains: dict[str, list[str]] = {"3 − 1": [], "2 − 1, raw messages": []}
    versus = []
    for field in scores:
        c1, c2, c3, c4 = (overall(c, field) for c in LABELS)  # the conditions in order
        for label, with_memory in zip(gains, (c3, c2), strict=True):
            if c1 is not None and with_memory is not None:
                gains[label].append(f"{100 * (with_memory - c1):+.1f} {names[field]} points")
        if c3 is not None and c4 is not None:
            versus.append(f"{names[field]} {c3:.3f} vs {c4:.3f}")
    lines = [f"- Memory gain ({label}): {', '.join(g)}." for label, g in gains.items() if g]
    t3, t4 = overall("consolidated", "total_s"), overall("large", "total_s")
    if versus and t3 and t4:
        lines.append(
            f"- Small + consolidated memory against the large model: {', '.join(versus)}"
            f" at {t3 / t4:.2f}× its time per question."
        )
    return lines


def judge_sanity(records: Records) -> list[str]:
    """How often the judge agrees with exact match and with F1 > 0.5 (a check on the judge).

    Cohen's kappa goes with each share: a judge that says "wrong" to nearly everything agrees
    often with metrics that are nearly always 0, and only kappa shows it.
    """
    judged = [r for rows in records.values() for r in rows if r.get("judge") is not None]
    if not judged:
        return []

    def agrees(name: str, pairs: list[tuple[float, float]]) -> str:
        share, kappa = metrics.agreement(pairs)
        return f"{name} on {100 * share:.0f}% (κ {_cell(kappa, 2)})"

    exact = agrees("exact match", [(r["judge"], r["exact"]) for r in judged])
    f1 = agrees("F1 > 0.5", [(r["judge"], float(r["f1"] > 0.5)) for r in judged])
    correct = sum(r["judge"] for r in judged) / len(judged)
    return [
        f"- Judge: {len(judged)} verdicts, {100 * correct:.0f}% correct; it agrees with {exact}"
        f" and with {f1}.",
    ]


def plan_note(records: Records) -> list[str]:
    """Which questions have a plan step and how their adherence was scored."""
    methods = Counter(
        r["plan_method"] for rows in records.values() for r in rows if r.get("plan_method")
    )
    if not methods:
        return ["- Plan adherence: no question with a plan step."]
    how = "; ".join(f"{PLAN_METHODS.get(m, m)} ({n})" for m, n in sorted(methods.items()))
    return [f"- Plan adherence (answers to questions with a plan step): {how}."]


def markdown(records: Records, title: str) -> str:
    """The report: the headline, one table over all questions, tables per category."""
    summary = summarize(records)
    conditions = [c for c in LABELS if c in summary]
    fields = [f for f in FIELDS if f != "judge" or _judged(summary)]
    out = [f"# {title}", "", *headline(summary), *judge_sanity(records), *plan_note(records), ""]
    out += [
        "| condition | n | " + " | ".join(COLUMNS[f] for f in fields) + " |",
        "| --- | ---: |" + " ---: |" * len(fields),
    ]
    for c in conditions:
        row = summary[c]["all"]
        cells = [_cell(row[f], 1 if f == "prompt_tokens" else 3) for f in fields]
        out.append(f"| {LABELS[c]} | {row['n']} | " + " | ".join(cells) + " |")
    for field in ("f1", "judge") if _judged(summary) else ("f1",):
        out += ["", f"{COLUMNS[field]} per category:", ""]
        out += _group_table(summary, {c: LABELS[c] for c in conditions}, field)
    out += ["", "Chart `chart.png`: F1 per condition and category.", ""]
    return "\n".join(out)


# The usual LoCoMo retrieval metric leaves out category 5 (adversarial: no true answer).
CORE = {"categories 1-4": (1, 2, 3, 4)}
SOURCES = {
    "": "raw messages (the episode search)",
    "memories ": "memories, each counting for its source messages",
    "both ": "memories and messages merged as a turn merges them",
}


def _group_table(summary: Summary, labels: Mapping[str, str], field: str) -> list[str]:
    """One row per condition (``labels``), one column per group: the mean of ``field`` (n)."""
    groups = _groups(summary)
    out = ["| condition | " + " | ".join(groups) + " |", "| --- |" + " ---: |" * len(groups)]
    for condition, label in labels.items():
        by = summary[condition]
        cells = [f"{_cell(by.get(g, {}).get(field))} ({by.get(g, {}).get('n', 0)})" for g in groups]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out


def retrieval_markdown(records: Sequence[Mapping[str, Any]], ks: Sequence[int]) -> str:
    """One table per source the records have: recall@k for all, categories 1-4 and each."""
    out = ["# Evidence recall of the hybrid search", ""]
    for source, label in SOURCES.items():
        fields = [f"{source}recall@{k}" for k in ks]
        if not any(fields[0] in r for r in records):
            continue
        summary = metrics.summarize(records, fields, CORE)
        out += [f"## Over {label}", ""]
        out += ["| group | n | " + " | ".join(f"recall@{k}" for k in ks) + " |"]
        out += ["| --- | ---: |" + " ---: |" * len(ks)]
        for group, row in summary.items():
            cells = " | ".join(_cell(row[f]) for f in fields)
            out.append(f"| {group} | {row['n']} | {cells} |")
        out.append("")
    out += ["Chart `chart.png`: recall@k per category over raw messages.", ""]
    return "\n".join(out)


def _groups(summary: Summary) -> list[str]:
    found = {g for by in summary.values() for g in by}
    return sorted(found, key=lambda g: (g != "all", g))


def _group_label(group: str) -> str:
    """A group's label under its bars; the unanswerable category says so."""
    return f"{group}\nunanswerable" if group == f"category {UNANSWERABLE}" else group


def write(out: Path, records: Records, title: str) -> None:
    """report.md and chart.png (F1 per category and condition) in ``out``."""
    with atomic_write(out / "report.md") as handle:
        handle.write(markdown(records, title))
    summary = summarize(records)
    conditions = [c for c in LABELS if c in summary]
    groups = _groups(summary)
    chart.write(
        out / "chart.png",
        chart.Chart(
            "F1 per condition and category",
            [_group_label(g) for g in groups],
            [LABELS[c] for c in conditions],
            [[summary[c].get(g, {}).get("f1") for c in conditions] for g in groups],
            subtitle=title,
        ),
    )


def write_retrieval(
    out: Path, records: Sequence[Mapping[str, Any]], ks: Sequence[int], title: str
) -> None:
    """report.md and chart.png (recall@k per category) for ``--retrieval-only``."""
    with atomic_write(out / "report.md") as handle:
        handle.write(retrieval_markdown(records, ks))
    fields = [f"recall@{k}" for k in ks]
    summary = metrics.summarize(records, fields, CORE)
    chart.write(
        out / "chart.png",
        chart.Chart(
            "Evidence recall@k of the search over raw messages",
            [_group_label(g) for g in summary],
            fields,
            [[row[f] for f in fields] for row in summary.values()],
            subtitle=title,
        ),
    )


TASK_LABELS = {
    "none": "1. small, no memory",
    "raw": "2. small + raw messages",
    "distilled": "3. small + distilled memories",
    "lessons": "4. small + memories and lessons",
    "ceiling": "5. small, told again in the question (ceiling)",
}


def _rate(rows: Sequence[Mapping[str, Any]]) -> float | None:
    return metrics.mean(float(r["passed"]) for r in rows) if rows else None


def _share(rows: Sequence[Mapping[str, Any]], key: str) -> str:
    """How many of the rows have ``key`` true, as "k/n"."""
    return f"{sum(bool(r.get(key)) for r in rows)}/{len(rows)}" if rows else "–"


def _interval(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return "–"
    low, high = metrics.wilson(sum(bool(r["passed"]) for r in rows), len(rows))
    return f"{low:.2f}–{high:.2f}"


def _lessons_line(records: Records) -> list[str]:
    """Lessons stored, recalled into the tests and how those answers did, and signals found."""
    out = []
    for c in ("distilled", "lessons"):
        rows = records.get(c, [])
        if not rows:
            continue
        stored = rows[-1].get("lessons_after", 0)
        given = [r for r in rows if not r["teaches"] and r.get("lessons_recalled")]
        passed = sum(bool(r["passed"]) for r in given)
        out.append(
            f"- {TASK_LABELS[c]}: {stored} lessons stored (each passed the lesson check); a lesson"
            f" was recalled into {len(given)} tests, {passed} of them passed."
        )
        if any(r.get("as_condition") for r in rows):
            out.append(
                f"- {TASK_LABELS[c]}: no lesson was ever stored, so its prompts, answers and"
                f" memories are those of {TASK_LABELS['distilled']} (taken, not asked again)."
            )
        if recited := [r for r in rows if r.get("recited")]:
            out.append(
                f"- {TASK_LABELS[c]}: {len(recited)} answers began by reciting their prompt and"
                f" were asked again without memory; {sum(bool(r['passed']) for r in recited)}"
                " of them passed."
            )
    learning = [r for c in ("distilled", "lessons") for r in records.get(c, [])]
    signalled = [r for r in learning if "signal" in r]
    said = [r for r in signalled if "signal_detected" in r]
    if said:
        found = sum(bool(r["signal_detected"]) for r in said)
        out.append(
            f"- Feedback said in words (conditions 3 and 4): Engram's own detection found {found}"
            f" of {len(said)}; a missed one teaches nothing (nothing is sent in its place)."
        )
    return out


def tasks_markdown(records: Records, title: str, about: Mapping[str, str] | None = None) -> str:
    """A task-sequence report: success per condition on the tests with n and a 95 % interval
    (against the ceiling when one was run), how often what was taught reached a test, lessons,
    per kind, and every task's verdict under each condition. ``about``: lines naming the run
    (models with their sha256, sampling, wall time, the command)."""
    conditions = [c for c in TASK_LABELS if c in records]
    out = [f"# {title}", ""]
    out += [f"- {name}: {value}" for name, value in (about or {}).items()]
    tests = {c: [r for r in records[c] if not r["teaches"]] for c in conditions}
    rate = {c: _rate(tests[c]) for c in conditions}
    for better, worse in (("lessons", "none"), ("lessons", "distilled"), ("distilled", "none")):
        if rate.get(better) is not None and rate.get(worse) is not None:
            gain = 100 * (rate[better] - rate[worse])  # type: ignore[operator]
            out.append(
                f"- {TASK_LABELS[better]} against {TASK_LABELS[worse]}: {gain:+.1f} points on"
                f" {len(tests[better])} tests (95 % intervals {_interval(tests[better])} and"
                f" {_interval(tests[worse])})."
            )
    out += _lessons_line(records)
    ceiling = rate.get("ceiling")
    out += [
        "",
        "| condition | tests passed | 95 % interval | of the ceiling | taught memory recalled"
        " | teaching tasks passed | all |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in conditions:
        taught = [r for r in records[c] if r["teaches"]]
        passed, everything = (
            f"{_cell(_rate(rows))} ({sum(r['passed'] for r in rows)}/{len(rows)})"
            for rows in (tests[c], records[c])
        )
        own = rate[c]
        of_ceiling = f"{own / ceiling:.2f}" if ceiling and own is not None else "–"
        recalled = _share(tests[c], "taught") if c not in ("none", "ceiling") else "–"
        out.append(
            f"| {TASK_LABELS[c]} | {passed} | {_interval(tests[c])} | {of_ceiling} | {recalled}"
            f" | {_cell(_rate(taught))} ({sum(r['passed'] for r in taught)}/{len(taught)})"
            f" | {everything} |"
        )
    out += [
        "",
        "Taught memory recalled: tests whose answer was given a memory or a message from a"
        " teaching task of the same kind (for PrefEval: the stated preference reached the"
        " question).",
    ]
    summary = {c: metrics.summarize(tests[c], ("success",)) for c in conditions}
    out += ["", "Success on the tasks that test, per kind:", ""]
    out += _group_table(summary, {c: TASK_LABELS[c] for c in conditions}, "success")
    out += ["", "Every task (✓ passed, ✗ failed; * taught: feedback or a set-up):", ""]
    out += ["| task | kind | " + " | ".join(c for c in conditions) + " |"]
    out += ["| --- | --- |" + " :---: |" * len(conditions)]
    by_task = {c: {r["task"]: r for r in records[c]} for c in conditions}
    main = [c for c in conditions if c != "ceiling"] or conditions
    for row in records[main[0]] if conditions else []:
        marks = [
            ("✓" if found["passed"] else "✗") if (found := by_task[c].get(row["task"])) else "–"
            for c in conditions
        ]
        star = "*" if row["teaches"] else ""
        out.append(f"| {row['task']}{star} | {row['kind']} | " + " | ".join(marks) + " |")
    out += ["", "Chart `chart.png`: success on the tasks that test, per condition and kind.", ""]
    return "\n".join(out)


def write_tasks(
    out: Path, records: Records, title: str, about: Mapping[str, str] | None = None
) -> None:
    """report.md and chart.png (success per condition and kind) of a task-sequence run."""
    with atomic_write(out / "report.md") as handle:
        handle.write(tasks_markdown(records, title, about))
    conditions = [c for c in TASK_LABELS if c in records]
    summary = {
        c: metrics.summarize([r for r in records[c] if not r["teaches"]], ("success",))
        for c in conditions
    }
    groups = _groups(summary)
    chart.write(
        out / "chart.png",
        chart.Chart(
            "Success on the tasks that test, per condition and kind",
            groups,
            [TASK_LABELS[c] for c in conditions],
            [[summary[c].get(g, {}).get("success") for c in conditions] for g in groups],
            subtitle=title,
        ),
    )
