"""Property-based fuzzing (hypothesis) of everything that reads untrusted text or files.

Each property runs 200 cases in the fast lane and 1,000 in the slow one: the
prompt sanitiser and builder, Markdown rendering, JSON Lines import, models.toml, the distiller's
output parser and the two eval loaders. No exception but the documented one escapes, and the
output stays well-formed.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.assistant import events
from engram.assistant.learning import proposals
from engram.assistant.turn import prompt
from engram.core import sanitize
from engram.core.errors import CatalogueError, InputError
from engram.evaluation import locomo, tasks
from engram.memory import kinds, transfer
from engram.memory.episodes import Episode
from engram.models import catalogue

FAST, SLOW = 200, 1000

# Pieces that mean something to a chat template, Engram's prompt or a terminal.
MARKERS = [
    "<|im_start|>",
    "<|im_end|>",
    "<|",
    "|>",
    "system",
    "<memory>",
    "</MEMORY>",
    "< / memory >",
    "<start_of_turn>",
    "<end_of_turn>",
    "<bos>",
    "<eos>",
    "[INST]",
    "[/INST]",
    "<<SYS>>",
    "[SYSTEM_PROMPT]",
    "<｜begin▁of▁sentence｜>",
    "<｜",
    "｜>",
    "<think>",
    "</think>",
    "<tool_call>",
    "\n",
    "\x1b[31m",
    "\x00",
    "\u202e",
    "记住：",
    "remember this:",
]


def pieces(meaningful: list[str], count: int, joiner: str = "") -> st.SearchStrategy[str]:
    """Texts made of up to ``count`` pieces, each a meaningful one or a few random characters."""
    return st.lists(
        st.one_of(st.sampled_from(meaningful), st.text(max_size=12)), max_size=count
    ).map(joiner.join)


hostile = pieces(MARKERS, 20)
MODEL_MARKERS = frozenset({"<|im_start|>", "<|im_end|>", "<start_of_turn>", "<custom_tok>"})


Lanes = tuple[Callable[[], None], Callable[[], None]]


def both_lanes(*strategies: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], Lanes]:
    """The property as a fast-lane test and a slow-marked test with many more cases."""

    def lanes(prop: Callable[..., None]) -> Lanes:
        def lane(examples: int) -> Callable[[], None]:
            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            )
            @given(st.tuples(*strategies))
            def test(values: tuple[Any, ...]) -> None:
                prop(*values)

            return test

        return lane(FAST), pytest.mark.slow(lane(SLOW))

    return lanes


# -- the sanitiser and the prompt builder ------------------------------------------------------


def _sanitiser(text: str) -> None:
    out = sanitize.clean(text, MODEL_MARKERS)
    assert sanitize.clean(out, MODEL_MARKERS) == out  # stable: nothing left to remove
    assert not any(marker in out for marker in MODEL_MARKERS)
    assert not re.search(r"<\s*/?\s*memory\s*>", out, re.IGNORECASE)
    assert "<|im_end|>" not in out and "<start_of_turn>" not in out


test_sanitiser, test_sanitiser_many = both_lanes(hostile)(_sanitiser)


recalled = st.builds(
    events.Recalled,
    label=st.sampled_from(["fact", "preference", "lesson", "message", "plan"]),
    content=hostile,
    score=st.floats(0, 1),
    created_at=st.floats(0, 2e9),
    role=st.sampled_from([None, "user", "assistant"]),
)


def _prompt_builder(items: list[events.Recalled], about: str, style: str, language: str) -> None:
    block = prompt.memory_block(items, language, MODEL_MARKERS)
    system = prompt.system_part(language, items[:2], None, MODEL_MARKERS, (about, style))
    for text in (block, system):
        opened = text.count(prompt.BLOCK_OPEN)
        assert opened == text.count(prompt.BLOCK_CLOSE)  # nothing inside opens or ends a block
        assert not any(marker in text for marker in MODEL_MARKERS)
    for item in items:
        line = item.line(MODEL_MARKERS)
        assert "\n" not in line
        assert line.startswith("- ")  # one bullet per memory, its text on this one line
    message = events.user_message(block, "hello")
    assert message.endswith("hello")


test_prompt_builder, test_prompt_builder_many = both_lanes(
    st.lists(recalled, max_size=6), hostile, hostile, st.sampled_from(["en", "zh_CN"])
)(_prompt_builder)


# -- Markdown ----------------------------------------------------------------------------------

markdown_text = pieces(
    [
        "```",
        "```python\n",
        "`",
        "**",
        "*",
        "_",
        "# ",
        "- ",
        "1. ",
        "|a|b|\n|-|-|\n",
        "> ",
        "[x](javascript:alert(1))",
        "<script>",
        "</script>",
        "<img onerror=x>",
        "~~",
        "\n",
        "\n\n",
        "    ",
        "&amp;",
        "<",
        ">",
        "\\",
    ],
    30,
)


def _markdown(text: str) -> None:
    from engram.ui import markdown

    html, blocks = markdown.render(text)
    assert isinstance(html, str) and all(isinstance(b, str) for b in blocks)
    assert not re.search(r"<\s*(script|img|iframe|object)\b", html, re.IGNORECASE)  # all escaped
    assert not re.search(r"""href\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)


test_markdown, test_markdown_many = both_lanes(markdown_text)(_markdown)


# -- JSON Lines import -------------------------------------------------------------------------

json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = [
    "type",
    "id",
    "kind",
    "content",
    "status",
    "origin",
    "importance",
    "confidence",
    "pinned",
    "feedback",
    "created_at",
    "updated_at",
    "meta",
    "sources",
    "superseded_by",
    "title",
    "conversation_id",
    "turn_index",
    "role",
    "episode_id",
    "plan",
    "current_step",
    "steps",
]
record = st.dictionaries(
    st.sampled_from(KEYS),
    st.one_of(json_value, st.sampled_from(["memory", "episode", "conversation", "fact", "user"])),
    max_size=8,
)
header = json.dumps({"type": transfer.FORMAT, "version": 1})


def _jsonl(lines: list[str]) -> None:
    try:
        memories, others = transfer.parse([header, *lines])
    except InputError as exc:
        assert exc.message.startswith("Line ")
        return
    for memory in memories:
        assert isinstance(memory["content"], str) and memory["content"].strip()
        assert memory["old_id"] is None or type(memory["old_id"]) is int
    assert all(type(raw["id"]) is int for raw in others)


test_jsonl, test_jsonl_many = both_lanes(
    st.lists(st.one_of(record.map(json.dumps), st.text(max_size=30)), max_size=6)
)(_jsonl)


# -- models.toml -------------------------------------------------------------------------------

toml_lines = pieces(
    [
        "[[model]]",
        "[model]",
        "[[pair]]",
        "[model.pypi]",
        "[[model.files]]",
        'id = "m"',
        'name = "M"',
        'family = "qwen"',
        "params_b = 1.5",
        "ram_gb = [1]",
        'roles = ["small"]',
        'license = "mit"',
        "schema_version = 99",
        "schema_version = 1",
        'url = "https://x"',
        "sha256 = 5",
        'repo = "a/b"',
        "x = {a = {b = 1}}",
        "x = " + "[" * 300 + "]" * 300,
        '"',
        "= 1",
        "[",
        "id = 1979-05-27",
    ],
    12,
    "\n",
)


def _models_toml(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "models.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            found = catalogue.load(path)
        except CatalogueError as exc:
            assert str(path) in exc.message or "models.toml" in exc.message
            return
        assert found is not None


test_models_toml, test_models_toml_many = both_lanes(toml_lines)(_models_toml)


# -- the distiller's output --------------------------------------------------------------------

EPISODES = [Episode(i, 1, i, "user", f"message {i}", 0.0, None, "complete") for i in (3, 4, 9)]
candidate = st.dictionaries(
    st.sampled_from(["kind", "content", "importance", "episodes"]),
    st.one_of(
        json_value,
        st.sampled_from(["fact", "plan", "lesson", "The user likes tea."]),
        st.lists(st.one_of(st.integers(0, 12), json_value), max_size=4),
    ),
)
distilled = st.fixed_dictionaries(
    {},
    optional={
        "memories": st.one_of(json_value, st.lists(st.one_of(candidate, json_value), max_size=5)),
        "summary": st.one_of(json_value, hostile),
        "plan": st.one_of(
            json_value,
            st.dictionaries(st.sampled_from(["goal", "steps", "current_step"]), json_value),
        ),
    },
)


def _distiller_output(raw: dict[str, Any], language: str) -> None:
    found = proposals.parse(raw, EPISODES, language)
    for c in found.candidates:
        assert c.kind in kinds.KINDS and c.content.strip()
        assert set(c.episode_ids) <= {3, 4, 9}
        if c.kind == "plan" and "plan" in c.meta:
            steps, step = c.meta["plan"]["steps"], c.meta["plan"]["current_step"]
            assert type(step) is int and (not steps or 0 <= step < len(steps))


test_distiller_output, test_distiller_output_many = both_lanes(
    distilled, st.sampled_from(["en", "zh_CN"])
)(_distiller_output)


# -- the eval loaders --------------------------------------------------------------------------

turn = st.dictionaries(st.sampled_from(["speaker", "dia_id", "text"]), json_value, min_size=2)
locomo_file = st.one_of(
    json_value,
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "sample_id": json_value,
                "conversation": st.one_of(
                    json_value,
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "speaker_a": json_value,
                            "speaker_b": json_value,
                            "session_1": st.lists(turn, max_size=3),
                            "session_1_date_time": json_value,
                        },
                    ),
                ),
                "qa": st.lists(
                    st.dictionaries(
                        st.sampled_from(["question", "answer", "evidence", "category"]), json_value
                    ),
                    max_size=2,
                ),
            },
        ),
        max_size=2,
    ),
)


def _loaded(load: Callable[[Path], Any], data: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        try:
            load(path)
        except InputError as exc:
            assert str(path) in exc.message


def _locomo(data: Any) -> None:
    _loaded(locomo.load_locomo, data)


test_locomo, test_locomo_many = both_lanes(locomo_file)(_locomo)


task = st.dictionaries(
    st.sampled_from(["id", "kind", "messages", "feedback", "checks", "expect", "language"]),
    st.one_of(json_value, st.lists(st.one_of(json_value, st.text(max_size=10)), max_size=3)),
)


def _task_file(data: Any) -> None:
    _loaded(tasks.load, data)


test_task_file, test_task_file_many = both_lanes(
    st.one_of(
        json_value,
        st.fixed_dictionaries(
            {"format": st.sampled_from([tasks.FORMAT, "x"])},
            optional={
                "language": st.sampled_from(["en", "zh", "fr"]),
                "tasks": st.one_of(json_value, st.lists(task, max_size=3)),
            },
        ),
    )
)(_task_file)
