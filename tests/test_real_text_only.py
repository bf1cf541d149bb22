"""An answer written as text (after a tool's result, or instead of a call nobody asked for) may
still hold code: the real 0.5B writes a C function's braces and a JSON object."""

from __future__ import annotations

import numpy as np
import pytest

from engram.assistant.app import LoadedModels
from engram.models.local import LocalModel

pytestmark = [pytest.mark.real, pytest.mark.slow]


@pytest.fixture
def small(coder: LoadedModels) -> LocalModel:
    """The real 0.5B, loaded once per worker (conftest)."""
    return coder.small


@pytest.mark.parametrize(
    ("asked", "wanted"),
    [
        ("Write a C function that returns the larger of two ints. Start with one sentence.", "{"),
        (
            "Show a JSON object for a person named Ana, aged 31,"
            " after one sentence of explanation.",
            '"name": "Ana"',
        ),
    ],
)
def test_a_text_only_answer_may_write_braces(small: LocalModel, asked: str, wanted: str) -> None:
    said = "".join(small.stream_chat([{"role": "user", "content": asked}], 120, text_only=True))
    assert wanted in said and "{" in said, said


@pytest.mark.parametrize(
    "asked",
    ["Tell me a short story about a lighthouse keeper.", "用两句话介绍一下长城。"],
)
def test_only_the_first_token_is_constrained_and_the_answer_opens_the_same(
    small: LocalModel, asked: str
) -> None:
    """The first token is chosen under the processor, the rest freely (a processor on every token
    cost ~6 % of the decoding speed): greedy, the answer opens with the token the processor on
    every token gives, and it does not open with a call, a fence or white space. Later tokens
    are compared by nothing here: on some CPUs two greedy runs of the same prompt part where two
    tokens' logits differ in their last bits."""
    messages = [{"role": "user", "content": asked}]
    small.prefill(messages)
    said = "".join(small.stream_chat(messages, 60, temperature=0.0, text_only=True))
    assert small.last_stats is not None and small.last_stats.generated_tokens > 1
    tokens = small.prompt_tokens(messages)
    everywhere = small.llama.create_completion(
        prompt=tokens, max_tokens=1, temperature=0.0, top_p=small.top_p,
        stop=[small._eos_text], logits_processor=small._text_only(len(tokens)),
    )  # fmt: skip
    first = everywhere["choices"][0]["text"]
    assert first and said.startswith(first)
    assert said[:1].strip() and not said.startswith(("{", "```", "<"))
    assert len(said) > len(first)  # the rest came without the processor


def test_a_text_only_answer_never_opens_with_a_quote(small: LocalModel) -> None:
    """Sampled at the app's 0.7 after the calculator, the 0.5B opened with a quote ('"1234 *
    5678 equals 7006652."') and then quoted every later answer of the chat."""
    llm = small.llama
    first = small._text_only(3)[0](np.zeros(3, np.intc), np.zeros(llm.n_vocab(), np.float32))
    later = small._text_only(3)[0](np.zeros(4, np.intc), np.zeros(llm.n_vocab(), np.float32))
    quotes = [
        token
        for token in range(llm.n_vocab())
        if llm.detokenize([token], special=True).decode("utf-8", "replace").lstrip()[:1]
        in ('"', "“")
    ]
    assert quotes and all(first[token] == -np.inf for token in quotes)
    assert all(later[token] == 0 for token in quotes)  # a quotation inside an answer is fine
