"""A local GGUF model run in-process by llama.cpp (llama-cpp-python).

A ``Llama`` is not thread-safe: one :class:`LocalModel` belongs to one thread, which serializes
its calls. Cancel is cooperative: the stream checks a flag between tokens, and llama.cpp's abort
callback checks it between graph nodes while a prompt is evaluated. The chat template always comes
from the GGUF or an explicit override, never from llama-cpp-python's silent llama-2 fallback.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.core import log, sanitize
from engram.core.errors import EngramError, InputError, ModelLoadError, Problem, tr
from engram.core.messages import Message
from engram.models import (
    build_check,
    chat_shape,
    gguf_import,
    llama_load,
    preflight,
    schema_check,
    speed,
    splice,
)
from engram.models.background import ForegroundGate
from engram.models.capabilities import Capabilities

_log = log.get("models.local")
Tools = Sequence[dict[str, Any]] | None  # OpenAI-style tool specs for templates that render them
CancelCheck = Callable[[], bool]
MIN_ANSWER_TOKENS = 16
# Structured requests per model whose greedy answer failed (it would fail again word for word).
GREEDY_FAILURES_KEPT = 64
# Token counts remembered per model, for texts up to this many characters.
COUNT_CACHE_ENTRIES = 4096
COUNT_CACHE_CHARS = 4000
# How a tool call opens, in any family's format, bare or in a Markdown fence, and the made-up
# markup a small model writes for one (Qwen2.5-Coder-0.5B: "<function-name>recall</…>").
CALL_OPENINGS = (
    "{", "<tool_call>", "<|python_tag|>", "```json\n{", "```\n{",
    "<function", "<tools>", "<tool>", "<arguments>",
)  # fmt: skip
# Tokens a text-only answer may not start with (it may use none of the first two anywhere): a
# text answer opening with "<" is a made-up call or a tag the model echoes. "{" stays allowed
# after the first token: code and JSON need it ("Write a JSON object for …" got "Mark the
# person's name as Ana …" from the 0.5B while it was banned), and a call written into the text
# is never shown (assistant.tools.calls). Sampled at 0.7 after the calculator, the 0.5B opened
# with a quote ('"1234 * 5678 equals 7006652."') and quoted every later answer of the chat.
_NOT_TEXT = ("<tool_call>", "<|python_tag|>", "{", "```", "<", '"', "“")


class StructuredOutputError(EngramError):
    """The model produced no JSON that matches the schema."""


class GenerationCancelledError(EngramError):
    """A generation whose result the caller needs was cancelled before it finished."""


@dataclass
class CallStats:
    """What one generation cost: for the UI's details and the evaluation."""

    prompt_tokens: int
    reused_tokens: int
    max_tokens: int
    generated_tokens: int = 0
    first_token_s: float | None = None
    total_s: float = 0.0
    cancelled: bool = False

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens llama.cpp had to evaluate (the rest came from the KV cache)."""
        return self.prompt_tokens - self.reused_tokens

    @property
    def decode_tokens_per_s(self) -> float:
        decode_s = self.total_s - (self.first_token_s or 0.0)
        return (self.generated_tokens - 1) / decode_s if decode_s > 0 else 0.0


class LocalModel:
    """One loaded GGUF model.

    ``state_cache_mb`` keeps KV states of recent conversations in RAM so switching back to one
    does not re-evaluate its whole history. With a ``gate``, a foreground model holds the gate
    while it works; a ``background`` model waits on it between tokens and yields during prompts.
    """

    def __init__(
        self,
        path: Path,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        chat_template: str | None = None,
        *,
        state_cache_mb: int = 256,
        gate: ForegroundGate | None = None,
        background: bool = False,
        n_batch: int = 512,
    ) -> None:
        info = gguf_import.read(path)  # a missing or damaged file fails here, before llama.cpp
        template = preflight.resolve_template(info.metadata, chat_template, path)
        preflight.check_memory(path)
        build_check.ensure(path)  # a llama.cpp built for another CPU would kill the process
        import llama_cpp

        llama_load.route_llama_log()
        self.path = path
        self._bytes = preflight.model_bytes(path)
        self.chat_template = template
        self.gate = gate
        self.background = background
        self.last_stats: CallStats | None = None
        self._reading: CallStats | None = None  # the answer whose prompt is being read
        self.temperature, self.top_p = 0.7, 0.95  # answers' sampling (Settings → Answers)
        self._lock = threading.Lock()
        self._abort_check: CancelCheck | None = None
        threads = n_threads or llama_load.default_threads()
        self._llm: Any = llama_load.open_llama(
            path,
            info.architecture,
            n_ctx=n_ctx,
            n_batch=min(n_batch, n_ctx),
            threads=threads,
            n_gpu_layers=n_gpu_layers,
        )
        llm = self._llm
        try:
            self._formatter, self._eos_text = llama_load.formatter(llm, template, path)
        except ModelLoadError:
            self.close()
            raise
        # What the template accepts (a system role, non-alternating turns): chats are fitted to it.
        self._shape = chat_shape.probe(lambda chat: self._render(chat, None)[0])
        # Kept as attributes: ctypes callbacks must outlive the context that calls them.
        self._abort_fn = llama_cpp.ggml_abort_callback(self._should_abort)
        self._no_abort = llama_cpp.ggml_abort_callback()
        if state_cache_mb > 0:
            from llama_cpp.llama_cache import LlamaRAMCache

            llm.set_cache(LlamaRAMCache(capacity_bytes=state_cache_mb << 20))
        self.n_ctx = n_ctx
        self._splicer = splice.Splicer(llm)
        # What the prompt sanitiser removes from untrusted text for this model.
        self.prompt_markers = sanitize.model_markers(self._splicer.control_texts, template)
        self.capabilities = Capabilities(
            chat_template=template, stats=True, reading=True, markers=self.prompt_markers
        )
        self._token_counts = functools.lru_cache(maxsize=COUNT_CACHE_ENTRIES)(self._tokenized)
        self._not_text: Any = None  # the token ids text_only bans (found when first needed)
        # structured(): its sampling seeds (a fresh load draws the same ones) and the requests
        # whose greedy answer failed.
        self._seeds = random.Random(llm._seed)
        self._greedy_failed: dict[bytes, None] = {}
        _log.info("loaded %s (ctx %d, %d threads)", path.name, n_ctx, threads)

    @property
    def closed(self) -> bool:
        return not hasattr(self, "_llm")

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for a piece of text.

        Remembered for short texts: every turn counts the same history messages and memory
        lines again (about 90 counts per prompt at 30 turns).
        """
        if len(text) > COUNT_CACHE_CHARS:
            return self._tokenized(text)
        return self._token_counts(text)

    def _tokenized(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, messages: Sequence[Message], tools: Tools = None) -> list[int]:
        """The exact tokens a chat becomes, through the model's chat template (with ``tools``
        rendered by the template when given).

        Message contents are untrusted: only the template's own text may yield special tokens
        (see :mod:`engram.models.splice`).
        """
        chat = chat_shape.fit(list(messages), self._shape)
        # An empty text (a turn that only calls a tool) is left as it is: a sentinel there would
        # be rendered where the template renders nothing, and the prompt would fall back to the
        # path that cleans every part, Engram's own headers and delimiters included.
        texts = [m.get("content") if isinstance(m.get("content"), str) else None for m in chat]
        texts = [t if t else None for t in texts]
        # The second attempt is for templates that trim contents (Llama 3's "| trim").
        for attempt in (texts, [t.strip() if t is not None else None for t in texts]):
            real: list[Message] = [
                m if t is None else {**m, "content": t} for m, t in zip(chat, attempt, strict=True)
            ]
            masked: list[Message] = [
                m if t is None else {**m, "content": splice.sentinel(i)}
                for i, (m, t) in enumerate(zip(chat, attempt, strict=True))
            ]
            prompt, added_special = self._render(real, tools)
            rendered = splice.split_rendered(self._render(masked, tools)[0], attempt)
            if rendered is not None and rendered.text == prompt:
                return self._splicer.tokens(rendered, add_special=not added_special)
        # A template that rewrites contents: the whole prompt is tokenised, its contents cleaned.
        _log.debug("%s: the chat template rewrites message text", self.path.name)
        cleaned: list[Message] = [
            m if t is None else {**m, "content": sanitize.clean(t, self.prompt_markers)}
            for m, t in zip(chat, texts, strict=True)
        ]
        prompt, added_special = self._render(cleaned, tools)
        tokens: list[int] = self._llm.tokenize(
            prompt.encode("utf-8"), add_bos=not added_special, special=True
        )
        return tokens

    def _render(self, chat: list[Message], tools: Tools) -> tuple[str, bool]:
        """The chat through the template: the prompt's text and whether it holds the BOS."""
        import jinja2

        messages: Any = chat
        specs: Any = list(tools) if tools else None
        try:
            # Hybrid thinking templates (Qwen3) then answer without a <think> block.
            result = self._formatter(messages=messages, tools=specs, enable_thinking=False)
        except (ValueError, jinja2.TemplateError) as exc:
            raise InputError(
                tr("The chat template of {name} cannot format this conversation ({error})."),
                tr("Check the message roles, or fix chat_template for this model in models.toml."),
                name=self.path.name,
                error=str(exc),
            ) from exc
        return result.prompt, bool(result.added_special)

    def reading(self) -> tuple[int, int] | None:
        """How far the answer being written has read its prompt, (tokens read, prompt tokens),
        until its first token; None otherwise. Safe from any thread: it reads two numbers."""
        stats = self._reading
        if stats is None:
            return None
        total = stats.prompt_tokens
        return min(max(int(self._llm.n_tokens), stats.reused_tokens), total), total

    def fit_max_tokens(self, prompt_len: int, max_tokens: int) -> int:
        """Clamp an answer length to the context left after the prompt; refuse a prompt too long."""
        room = self.n_ctx - prompt_len
        if room < MIN_ANSWER_TOKENS:
            raise InputError(
                tr(
                    "The conversation ({tokens} tokens) does not fit the model's context window "
                    "of {context} tokens."
                ),
                tr("Shorten the message or start a new conversation."),
                tokens=prompt_len,
                context=self.n_ctx,
            )
        if max_tokens > room:
            _log.info("answer limited to %d tokens (context %d)", room, self.n_ctx)
        return min(max_tokens, room)

    def stream_chat(
        self,
        messages: Sequence[Message],
        max_tokens: int = 512,
        cancelled: CancelCheck = lambda: False,
        temperature: float | None = None,
        grammar: Any = None,
        tools: Tools = None,
        text_only: bool = False,
        seed: int | None = None,
    ) -> Iterator[str]:
        """Yield the answer's text pieces as they are generated; stop early when cancelled.
        ``temperature`` None samples as the user chose (:attr:`temperature`, :attr:`top_p`);
        ``seed`` None samples with the next seed of llama.cpp's chain.
        ``text_only``: no token opens a tool call (``{``, ``<tool_call>``), and the first is
        neither a Markdown fence nor only white space, so the answer is text.

        Per-call numbers (prompt tokens, reused tokens, time to first token) are in
        :attr:`last_stats` once the stream ends.
        """
        if self.closed:
            raise ModelLoadError(
                tr("{name} was closed."), tr("Load the model again."), name=self.path.name
            )
        tokens = self.prompt_tokens(messages, tools)
        limit = self.fit_max_tokens(len(tokens), max_tokens)
        hold = self.gate.foreground() if self.gate and not self.background else nullcontext()
        with self._lock, hold:
            stats = CallStats(len(tokens), self._reusable(tokens), limit)
            self.last_stats = stats
            start = time.perf_counter()
            try:
                heat = self.temperature if temperature is None else temperature
                self._reading = stats
                if text_only:
                    yield from self._text_answer(tokens, stats, cancelled, heat, start)
                else:
                    yield from self._generate(
                        tokens, stats, cancelled, heat, grammar, start, seed=seed
                    )
            finally:
                self._reading = None
                stats.total_s = time.perf_counter() - start
            if not (self.background or grammar is not None or stats.cancelled):
                # A free answer of the foreground model times this machine's decoding (a
                # background model pauses for the foreground; a grammar slows sampling).
                speed.record(self._bytes, stats.generated_tokens, stats.decode_tokens_per_s)

    def prefill(
        self,
        messages: Sequence[Message],
        cancelled: CancelCheck = lambda: False,
        tools: Tools = None,
    ) -> int:
        """Evaluate a prompt ahead of time (e.g. while the user types); returns tokens evaluated.

        A later :meth:`stream_chat` whose prompt starts the same way reuses the work: only the
        part after the common prefix is evaluated then. Stops early when ``cancelled``.
        """
        from llama_cpp import Llama

        if self.closed:
            return 0
        tokens = self.prompt_tokens(messages, tools)
        hold = self.gate.foreground() if self.gate and not self.background else nullcontext()
        with self._lock, hold:
            llm = self._llm
            prefix = int(Llama.longest_token_prefix(llm._input_ids.tolist(), tokens))
            todo = tokens[prefix:]
            if not todo:
                return 0
            llm.n_tokens = prefix
            self._set_abort(cancelled)
            try:
                llm.eval(todo)
            except RuntimeError as exc:
                if str(exc) != "llama_decode returned 2":  # 2 = aborted by our callback
                    raise
                return 0
            finally:
                self._set_abort(None)
            return len(todo)

    def _text_answer(
        self,
        tokens: list[int],
        stats: CallStats,
        cancelled: CancelCheck,
        temperature: float,
        start: float,
    ) -> Iterator[str]:
        """An answer that is text (see :meth:`stream_chat`): its first token is chosen under
        the :meth:`_text_only` processor, the rest without one and stopped at a call's tag.
        A Python logits processor on every token cost ~6 % of the decoding speed; the answer
        is the same (greedy) unless it would have opened a call mid-way."""
        llm = self._llm
        self._set_abort(cancelled)
        try:
            chosen = llm.generate(
                tokens, temp=temperature, top_p=self.top_p,
                logits_processor=self._text_only(len(tokens)),
            )  # fmt: skip
            first = next(chosen, None)
            chosen.close()
        except RuntimeError as exc:
            if str(exc) != "llama_decode returned 2":  # 2 = aborted by our callback
                raise
            stats.cancelled = True
            return
        finally:
            self._set_abort(None)
        stats.first_token_s = time.perf_counter() - start
        self._reading = None
        if first is None or first == llm.token_eos() or cancelled():
            stats.cancelled = cancelled()
            return
        try:
            shown = llm.detokenize([first], prev_tokens=tokens).decode("utf-8")
        except UnicodeDecodeError:  # a character cut across tokens: the whole answer as before
            ban = self._text_only(len(tokens))
            yield from self._generate(tokens, stats, cancelled, temperature, None, start, ban)
            return
        stats.generated_tokens = 1
        yield shown
        if stats.max_tokens > 1:
            stats.max_tokens -= 1  # for the rest
            try:
                yield from self._generate([*tokens, first], stats, cancelled, temperature, None,
                                          start, stop=_NOT_TEXT[:2])  # fmt: skip
            finally:
                stats.max_tokens += 1

    def _generate(
        self,
        tokens: list[int],
        stats: CallStats,
        cancelled: CancelCheck,
        temperature: float,
        grammar: Any,
        start: float,
        processor: Any = None,
        stop: tuple[str, ...] = (),
        seed: int | None = None,
    ) -> Iterator[str]:
        gate = self.gate if self.background else None
        while True:  # runs again only after yielding a prompt evaluation to the foreground
            self._set_abort(lambda: cancelled() or bool(gate and gate.busy))
            stream = self._llm.create_completion(
                prompt=tokens,
                max_tokens=stats.max_tokens,
                temperature=temperature,
                top_p=self.top_p,
                stop=[*([self._eos_text] if self._eos_text else []), *stop],
                grammar=grammar,
                logits_processor=processor,
                stream=True,
                seed=seed,
            )
            try:
                for chunk in stream:
                    if stats.first_token_s is None:
                        self._reading = None
                        self._set_abort(None)
                        stats.first_token_s = time.perf_counter() - start
                    if cancelled():
                        stats.cancelled = True
                        return
                    choice = chunk["choices"][0]
                    stats.generated_tokens += choice["finish_reason"] is None
                    text = choice["text"]
                    if text:
                        yield str(text)
                    if gate:
                        gate.wait_idle(cancelled)
                return
            except RuntimeError as exc:
                if str(exc) != "llama_decode returned 2":  # 2 = aborted by our callback
                    raise
                if cancelled():
                    stats.cancelled = True
                    return
                _log.debug("background prompt evaluation yields to the foreground")
                if gate:
                    gate.wait_idle(cancelled)
            finally:
                self._set_abort(None)
                stream.close()

    def _text_only(self, prompt_len: int) -> Any:
        """A logits processor that keeps an answer from being a tool call (see stream_chat)."""
        import numpy as np
        from llama_cpp import LogitsProcessorList

        if self._not_text is None:
            llm, anywhere, first = self._llm, [], []
            for token in range(llm.n_vocab()):
                text = llm.detokenize([token], special=True).decode("utf-8", "replace")
                if text.lstrip().startswith(_NOT_TEXT[:2]):
                    anywhere.append(token)
                elif text.lstrip().startswith(_NOT_TEXT[2:]) or (text and not text.strip()):
                    first.append(token)
            self._not_text = (np.array(anywhere, np.intc), np.array(anywhere + first, np.intc))
        anywhere_ids, first_ids = self._not_text

        def text_only(input_ids: Any, scores: Any) -> Any:
            scores[first_ids if len(input_ids) == prompt_len else anywhere_ids] = -np.inf
            return scores

        return LogitsProcessorList([text_only])

    def structured(
        self,
        messages: Sequence[Message],
        json_schema: dict[str, Any],
        max_tokens: int = 512,
        cancelled: CancelCheck = lambda: False,
        attempts: int = 3,
    ) -> dict[str, Any]:
        """A JSON object that validates against ``json_schema``, generated under a grammar.

        The first attempt is greedy and each retry samples (temperature 0.6) with a seed of its
        own, so no attempt repeats another: a request asked again after its greedy answer failed
        (a learning job the queue retries) only samples, and the seeds come from this model's own
        sequence (llama.cpp's chain goes back to a snapshot's seed when the state cache restores
        one, and a request asked again sampled the very answers that had failed).
        """
        from llama_cpp.llama_grammar import LlamaGrammar

        grammar = LlamaGrammar.from_json_schema(
            json.dumps(schema_check.for_grammar(json_schema)), verbose=False
        )
        request = hashlib.sha256(
            json.dumps([list(messages), json_schema, max_tokens], sort_keys=True).encode()
        ).digest()
        greedy = request not in self._greedy_failed
        detail: Problem | str = ""
        for attempt in range(attempts):
            temperature = 0.0 if greedy and attempt == 0 else 0.6
            seed = self._seeds.randrange(2**32)
            text = "".join(
                self.stream_chat(
                    messages, max_tokens, cancelled, temperature, grammar=grammar, seed=seed
                )
            )
            if cancelled():
                raise GenerationCancelledError(
                    tr("{name} stopped: cancelled."), name=self.path.name
                )
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                detail = Problem(
                    tr("not JSON ({error}; the answer may have hit the length limit)"),
                    error=exc.msg,
                )
            else:
                problems = schema_check.errors(value, json_schema)
                if not problems and isinstance(value, dict):
                    return value
                detail = "; ".join(problems[:3]) if problems else Problem(tr("not a JSON object"))
            _log.warning(
                "structured output attempt %d failed: %s", attempt + 1, log.private(str(detail))
            )
            if temperature == 0.0:
                self._greedy_failed[request] = None
                if len(self._greedy_failed) > GREEDY_FAILURES_KEPT:
                    del self._greedy_failed[next(iter(self._greedy_failed))]
        raise StructuredOutputError(
            tr("{name} gave no valid structured answer ({detail})."),
            tr("Try again, allow a longer answer, or choose a larger model for this role."),
            name=self.path.name,
            detail=detail,
        )

    @property
    def llama(self) -> Any:
        """The llama-cpp-python model underneath (its tokenizer, its KV cache): for benchmarks
        and tests that check tokens; Engram itself goes through this class's methods."""
        return self._llm

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        llm: Any = getattr(self, "_llm", None)
        if llm is not None:
            llm.set_cache(None)
            llm.close()
            del self._llm

    def _reusable(self, tokens: list[int]) -> int:
        """Prompt tokens llama.cpp will take from the live KV cache or the state cache."""
        from llama_cpp import Llama

        llm = self._llm
        best = Llama.longest_token_prefix(llm._input_ids.tolist(), tokens)
        if llm.cache is not None:
            try:
                item = llm.cache[tokens]
            except KeyError:
                pass
            else:
                best = max(best, Llama.longest_token_prefix(item.input_ids.tolist(), tokens))
        return min(int(best), len(tokens) - 1)  # the last prompt token is always evaluated

    def _should_abort(self, _data: object) -> bool:
        check = self._abort_check
        return bool(check and check())

    def _set_abort(self, check: CancelCheck | None) -> None:
        import llama_cpp

        self._abort_check = check
        callback = self._abort_fn if check else self._no_abort
        llama_cpp.llama_set_abort_callback(self._llm.ctx, callback, None)
