"""One turn: store the message, recall memories, assemble the prompt, stream the answer, record.

The pipeline yields typed events (see ``events``) that the desktop window and the terminal both
consume. Memory is optional: without a :class:`~engram.assistant.turn.recall.Recall` the turn is
plain chat with the conversation so far.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Collection, Generator, Iterator, Sequence

from engram.assistant import events, intent, reading
from engram.assistant.events import (
    CallNotRead,
    Cancelled,
    Failed,
    Finished,
    Recalling,
    Truncated,
    TurnEvent,
    TurnStarted,
)
from engram.assistant.intent import Intent
from engram.assistant.learning import signals
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.tools import calls
from engram.assistant.tools import loop as tool_loop
from engram.assistant.tools.permissions import RECALLED
from engram.assistant.tools.route import Route
from engram.assistant.turn import context, prompt, recitation, utilization
from engram.assistant.turn.answering import (
    Answering,
    Prepared,
    asked_before,
    noted,
    shown,
    suspects,
)
from engram.assistant.turn.chat_model import ChatModel, answer_stats, declared_model
from engram.assistant.turn.judgments import Judgments
from engram.assistant.turn.prefetch import Drafted
from engram.assistant.turn.recall import Recall
from engram.core import log
from engram.core.errors import EngramError, Problem, StoreError, tr
from engram.core.stream_filter import StreamFilter
from engram.memory.episodes import Episode, EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.kinds import PLAN
from engram.memory.outcomes import Outcomes
from engram.memory.text import query_terms

_log = log.get("assistant.turn")
TITLE_CHARS = 60
# A message with fewer content words than this is searched together with the previous one.
SHORT_QUERY_TERMS = 4
LARGE = "large"  # the episodes.model marker of an escalated answer


def title_for(text: str) -> str:
    """A conversation title from its first message: the first line, shortened."""
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def query_for(text: str, history: list[Episode]) -> str:
    """The search query: the message, plus the previous user message when it is terse."""
    if len(query_terms(text)) >= SHORT_QUERY_TERMS:
        return text
    previous = next((e.content for e in reversed(history) if e.role == "user"), "")
    return f"{previous[:300]}\n{text}" if previous else text


class Assistant:
    """Runs turns for the conversations in one episode log with one model (and memory)."""

    def __init__(
        self,
        log_: EpisodeLog,
        model: ChatModel,
        max_answer_tokens: int = 512,
        language: str = "en",
        recall: Recall | None = None,
        memory_budget: int = 384,
        scheduler: Scheduler | None = None,
        tools: tool_loop.Toolbox | None = None,
    ) -> None:
        self.log = log_
        self._model = declared_model(model)
        self.max_answer_tokens = max_answer_tokens
        self.language = language
        self.custom: tuple[str, str] = ("", "")  # the user's "about me" and "how to answer"
        self.recall = recall
        self.memory_budget = memory_budget if recall else 0
        self.scheduler = scheduler
        self.judgments = Judgments(log_, recall, scheduler)
        self.tools = tools  # the model may call these while it answers
        self._answer_excluded = False  # the message being answered is never learned from
        self.drafted = Drafted()  # the prompt prepared while the message was typed

    @property
    def model(self) -> ChatModel:
        """The model that answers (another one may answer a turn: ``escalate_to``)."""
        return self._model

    @model.setter
    def model(self, model: ChatModel) -> None:
        self._model = declared_model(model)

    def turn(
        self,
        conversation_id: int,
        message: str | Intent,
        cancelled: Callable[[], bool] = lambda: False,
        escalate_to: ChatModel | None = None,
        *,
        quiet: Problem | None = None,
    ) -> Iterator[TurnEvent]:
        """Answer one user message, yielding events as they happen. The message is read for
        what it asks once: by the caller (an :class:`~engram.assistant.intent.Intent`, as the
        application passes it) or here.

        ``conversation_id`` 0 starts a new conversation titled after the message.
        ``escalate_to`` answers this one message with another (larger) model, with the same
        memory; the answer is marked as the large model's. With ``quiet`` (why nothing said now
        may be learned, decided by :mod:`engram.assistant.app`) the message and its answer are
        stored excluded: never judged, distilled or counted towards learning.
        """
        store = self.recall.store if self.recall is not None else None
        said = (
            message
            if isinstance(message, Intent)
            else reading.read(message, store.embedder if store is not None else None)
        )
        text = said.text
        model = declared_model(escalate_to) if escalate_to is not None else self.model
        if not text.strip():
            yield Failed(Problem(tr("The message is empty."), tr("Type something before sending.")))
            return
        if not conversation_id:
            conversation_id = self.log.new_conversation(title_for(text)).id
        earlier = self._history(conversation_id)
        # Recall before the message is stored, exactly as the prefetch did while it was typed:
        # the same choice gives the same prompt, and llama.cpp reuses what it evaluated then.
        kept = quiet is None and said.remember is not None
        prepared = self.prepare(text, earlier, model, kept=kept)
        now = Answering(conversation_id, model, prepared, quiet, noted(said, quiet))
        now.marker = LARGE if escalate_to is not None else None
        if model is self.model:
            now.items, now.parts = self.drafted.reuse(
                conversation_id, text, now.items, now.parts, self._block
            )
        self._answer_excluded = quiet is not None
        user_episode = self.log.append(conversation_id, "user", text, excluded=quiet is not None)
        if quiet is None:
            self.judgments.previous(earlier, said)
        self._plan_in_use(prepared.in_system)
        yield TurnStarted(conversation_id, user_episode.id, escalate_to is not None)
        _log.debug("prompt for conversation %d: %s", conversation_id, now.parts.tokens)
        yield Recalling(tuple(now.items), now.parts, tuple(prepared.in_system))
        if prepared.fitted.truncated_chars:
            yield Truncated(prepared.fitted.truncated_chars)
        try:
            yield from self._answer(now, text, cancelled)
        except EngramError as exc:
            yield self._failed(now, exc)
            return
        except GeneratorExit:
            # The consumer went away mid-answer (window closed): keep what was said.
            self._store(now, "cancelled")
            raise
        yield from self._finish(now, said, cancelled())

    def _answer(
        self, now: Answering, text: str, cancelled: Callable[[], bool]
    ) -> Iterator[TurnEvent]:
        """Stream the answer into ``now.pieces``. One that opens by reciting a lesson, a header,
        a memory rule, the message or an earlier question, or that ends having said nothing but
        a tag, is held back and asked again without the memory block (:mod:`.recitation`)."""
        guard = (
            recitation.Guard.of(
                suspects(now.items, now.parts),
                [text, *asked_before(now.items), *(m["content"] for m in now.parts.examples)],
            )
            if now.parts.block and now.noted is None
            else None
        )
        while True:
            holder = recitation.Holder(guard)
            stream = (
                iter([now.noted])
                if now.noted is not None
                else self._stream(
                    now.model, now.parts, now.conversation_id, cancelled, now.steps, now.quiet,
                    now.prepared.route,
                )
            )  # fmt: skip
            for piece in stream:
                if isinstance(piece, CallNotRead) and holder.said_nothing():
                    break  # nothing but a tag, then a call nobody reads: no answer
                if not isinstance(piece, str):  # a tool ran: the answer stands as it is
                    yield from shown(holder.release(), now.pieces)
                    yield piece
                elif visible := now.shown.feed(piece):
                    if (ready := holder.feed(visible)) is None:
                        break
                    yield from shown(ready, now.pieces)
            else:
                rest = now.shown.finish()
                ready = holder.feed(rest) if rest else []
                if ready is not None and not holder.said_nothing():
                    yield from shown([*ready, *holder.release()], now.pieces)
                    return
            if isinstance(stream, Generator):
                stream.close()  # stops generating
            if cancelled():
                return
            _log.info("an answer recited its prompt or said nothing; again without memory")
            now.items, guard, now.shown = [], None, StreamFilter()
            now.parts = dataclasses.replace(now.parts, block="", examples=()).counted(
                now.model.count_tokens
            )
            yield Recalling((), now.parts, tuple(now.prepared.in_system))

    def _failed(self, now: Answering, exc: EngramError) -> Failed:
        """The answer failed: what it said so far is kept (unless the store fails too)."""
        said_so_far, stored = "".join(now.pieces), 0
        chips: tuple[tuple[events.Recalled, ...], tuple[events.Recalled, ...]] = ((), ())
        with contextlib.suppress(StoreError):  # the answer's failure is the one to report
            stored = self._store(now, "error")
            chips = self._shown(said_so_far, now.items, now.prepared.in_system)
        return Failed(exc.problem, said_so_far, *chips, stored)

    def _finish(self, now: Answering, said: Intent, stopped: bool) -> Iterator[TurnEvent]:
        """Store the answer, its signals and what it was given, and say it is done."""
        answer = "".join(now.pieces)
        try:
            episode_id = self._store(now, "cancelled" if stopped else "complete")
            if now.quiet is None and any(step.output.is_error for step in now.steps):
                self.judgments.record(signals.Signal("tool_error", episode_id))
            self._learn(now.conversation_id, episode_id, said)
        except StoreError as exc:  # a full disk: the answer stays on screen, said unsaved
            _log.warning("answer of conversation %d not saved: %s", now.conversation_id, type(exc))
            yield Failed(exc.problem, answer)
            return
        # The chips, as the answer shows them again when its chat is opened later (chips()).
        shown_given, used = self._shown(answer, now.items, now.prepared.in_system)
        if stopped:
            yield Cancelled(episode_id, answer, shown_given, used)
            return
        stats = answer_stats(now.model)  # a local model's numbers for this answer
        yield Finished(
            episode_id,
            answer,
            shown_given,
            tuple(used),
            now.shown.reasoning,
            stats,
            now.model.n_ctx,
        )

    def _stream(
        self,
        model: ChatModel,
        parts: events.PromptParts,
        conversation_id: int,
        cancelled: Callable[[], bool],
        steps: list[tool_loop.Step],
        quiet: Problem | None,
        routed: Route,
    ) -> Iterator[tool_loop.LoopEvent]:
        """The answer's text pieces; with tools, also each call the model makes and its result
        (``routed``: the tools it may call, see :func:`tool_loop.answer`)."""
        if self.tools is None or not tool_loop.can_call(model):  # a call is still never shown
            return calls.never_shown(model.stream_chat(
                parts.messages(), max_tokens=self.max_answer_tokens, cancelled=cancelled
            ))  # fmt: skip
        markers = prompt.markers_of(model)
        return tool_loop.answer(
            self.tools,
            model,
            parts.messages(),
            request=parts.user,
            language=self.language,
            conversation_id=conversation_id,
            max_tokens=self.max_answer_tokens,
            cancelled=cancelled,
            clean=lambda text: prompt.sanitize(text, markers),
            steps=steps,
            quiet=quiet,
            routed=routed,
            read=(RECALLED,) if parts.block else (),  # recalled: not the user's words
        )

    def _route(self, model: ChatModel, text: str, kept: bool) -> Route:
        """The tools an answer of ``model`` to the message ``text`` may call, the only ones it
        is told of (see :func:`tool_loop.answer`)."""
        if self.tools is None or not tool_loop.can_call(model):
            return Route()
        embedder = self.recall.store.embedder if self.recall is not None else None
        return self.tools.route(text, kept, embedder)

    def _template_tools(self, model: ChatModel, names: frozenset[str]) -> dict[str, object]:
        """``tools=`` for a template that renders the list of the tools in ``names`` itself
        (else nothing)."""
        specs = self.tools.template_tools(model, self.language, names) if self.tools else None
        return {"tools": specs} if specs else {}

    def rewind(
        self,
        conversation_id: int,
        from_episode_id: int,
        resent: str | None = None,
        *,
        quiet: Problem | None = None,
    ) -> None:
        """Forget a message and everything after it (to regenerate or edit and resend); when
        the same message is sent again, the answer it had is kept among its earlier answers (to
        be read again, never in a prompt).

        Unless nothing may be learned now (``quiet``), the answer it replaces is judged first,
        like a thumb: ``regenerate`` when the same
        message is sent again (``resent`` None or unchanged), ``edit_resend`` when it was edited.
        The signal outlives the answer (keeping its text), and its lesson job waits for the
        answer that replaces it: the next turn queues it (``Scheduler.on_user_turn``), so the
        distiller reads the question, the new answer and the replaced one together.
        """
        episodes = self.log.episodes(conversation_id)
        episode = next((e for e in episodes if e.id == from_episode_id), None)
        if episode is None:
            return
        replaced = next(
            (
                e
                for e in episodes
                if e.role == "assistant" and e.turn_index >= episode.turn_index and e.content
            ),
            None,
        )
        edited = resent is not None and episode.role == "user" and resent != episode.content
        if replaced is not None and quiet is None:
            kind: events.SignalKind = "edit_resend" if edited else "regenerate"
            self.judgments.record(signals.Signal(kind, replaced.id, resent if edited else None))
            if self.recall is not None:
                Outcomes(self.recall.store).keep_replaced(replaced.id)
        JobQueue(self.log.conn).uncover(conversation_id, episode.id)
        again = episode.role == "user" and not edited  # the same message: its answer stays
        self.log.delete_from(conversation_id, episode.turn_index, replaced if again else None)
        self._scrub()

    def new_conversation(self, title: str = "", temporary: bool = False) -> int:
        """Start a conversation; a ``temporary`` one is neither recalled in other conversations
        nor learned from (its messages are answered ``quiet``), and the application deletes it
        when it is left or, after a crash, at the next start."""
        return self.log.new_conversation(title, temporary=temporary).id

    def delete_conversation(self, conversation_id: int) -> None:
        """Delete a conversation and its messages; memories keep their provenance."""
        self.log.delete_conversation(conversation_id)
        self._scrub()

    def _scrub(self) -> None:
        """Make deleted words leave the file too (full-text index and WAL), when memory is on."""
        if self.recall is not None:
            self.recall.store.purge()

    def prefetch(
        self, conversation_id: int, draft: str, cancelled: Callable[[], bool] = lambda: False
    ) -> int:
        """Prepare the prompt for a message still being typed and let the model evaluate it.

        Retrieval runs on the draft; when the final message recalls the same memories, the
        prompt at Enter shares everything up to the new text and only that is evaluated then
        (:mod:`.prefetch`). Returns the number of tokens evaluated now (0 when nothing was to do
        or it was stopped).
        """
        if not draft.strip():
            return 0
        earlier = self._history(conversation_id) if conversation_id else []
        kept = intent.read(draft).remember is not None
        prepared = self.prepare(draft, earlier, kept=kept)
        self.drafted.keep(conversation_id, draft, prepared.items, prepared.parts)
        return self.model.prefill(
            prepared.parts.messages(),
            cancelled,
            **self._template_tools(self.model, prepared.route.allowed),
        )

    def _block(self, items: list[events.Recalled], text: str) -> tuple[str, Callable[[str], int]]:
        """The memory block of ``items`` for the message ``text``, and how the model counts."""
        markers = prompt.markers_of(self.model)
        block = prompt.memory_block(items, self.language, markers, intent.asks_when(text))
        return block, self.model.count_tokens

    def _history(self, conversation_id: int) -> list[Episode]:
        return [
            e
            for e in self.log.episodes(conversation_id)
            if e.role in ("user", "assistant") and e.content
        ]

    def prepare(
        self,
        text: str,
        earlier: list[Episode],
        model: ChatModel | None = None,
        *,
        exclude_memories: Collection[int] = (),
        system_memories: bool = True,
        kept: bool = False,
    ) -> Prepared:
        """The exact prompt a turn sends for ``text`` after ``earlier`` (the one place it is built).

        Fits the history, puts pinned memories and the current plan in the system part (unless
        ``system_memories`` is off), recalls what the history window does not already show (minus
        ``exclude_memories``) and keeps the block within its budget, and routes the message once
        to the tools its answer may call (``kept``: the application keeps the message's words,
        so remember is not one of them). ``engram eval`` calls it too, so what it measures is
        what users get.
        """
        model = model or self.model
        markers = prompt.markers_of(model)
        profile = self.recall.profile() if self.recall and system_memories else []
        plan = self.recall.plan(text) if self.recall and system_memories else None
        in_system = [*profile, *([plan] if plan else [])]
        system = prompt.system_part(self.language, profile, plan, markers, self.custom)
        reserve = self.max_answer_tokens + self.memory_budget
        if self.recall:
            reserve += prompt.EXAMPLE_BUDGET
        rendered = ""  # the tool list the chat template renders (shown in the prompt viewer)
        routed = self._route(model, text, kept)
        if (names := routed.allowed) and self.tools is not None:
            if described := self.tools.system_text(model, self.language, names):
                system = f"{system}\n\n{described}"
            template_tools = self._template_tools(model, names)
            reserve += sum(model.count_tokens(str(s)) for s in template_tools.values())
            if specs := template_tools.get("tools"):
                rendered = json.dumps(specs, ensure_ascii=False, indent=1)
        fitted = context.fit(
            system,
            [{"role": e.role, "content": prompt.sanitize(e.content, markers)} for e in earlier],
            prompt.sanitize(text, markers),
            n_ctx=model.n_ctx,
            reserve=reserve,
            count=model.count_tokens,
        )
        history = fitted.messages[1:-1]
        window = {e.id for e in earlier[len(earlier) - len(history) :]} if history else set()
        hidden = {p.memory_id for p in in_system if p.memory_id is not None}
        if self.recall:  # what was stored since the last answer (another window, an import)
            self.recall.catch_up()
        items = (
            self.recall.recall(
                query_for(text, earlier),
                self.memory_budget,
                exclude_episodes=window,
                exclude_memories=hidden | set(exclude_memories),
                situation=self._tools_used(earlier),
            )
            if self.recall
            else []
        )
        items, block = self._within_budget(
            prompt.best_lessons(items), model, intent.asks_when(text)
        )
        parts = events.PromptParts(
            system,
            history,
            block,
            fitted.messages[-1]["content"],
            tools=rendered,
            examples=prompt.examples(items, model.count_tokens, markers),
        )
        return Prepared(fitted, items, parts.counted(model.count_tokens), in_system, window, routed)

    def _tools_used(self, earlier: list[Episode]) -> str:
        """The names of the tools called in the conversation so far, sorted."""
        if not earlier:
            return ""
        return " ".join(sorted(self.log.tools_called(earlier[0].conversation_id)))

    def _within_budget(
        self, items: list[events.Recalled], model: ChatModel, dated: bool
    ) -> tuple[list[events.Recalled], str]:
        """The block's header, dates and quoting count too: drop the weakest until it fits."""
        markers = prompt.markers_of(model)
        block = prompt.memory_block(items, self.language, markers, dated)
        while items and model.count_tokens(block) > self.memory_budget:
            weakest = min(items, key=lambda item: item.score)
            items = [item for item in items if item is not weakest]
            block = prompt.memory_block(items, self.language, markers, dated)
        return items, block

    def _learn(self, conversation_id: int, answer_episode_id: int, said: Intent) -> None:
        """Tell the consolidation scheduler a turn is complete (it may queue a job; the signals
        this turn recorded wait for it in the store)."""
        if self.scheduler is not None and not self._answer_excluded:
            self.scheduler.on_user_turn(conversation_id, answer_episode_id, said)

    def _plan_in_use(self, in_system: list[events.Recalled]) -> None:
        """The current plan guides this answer: that is a use (no expiry while it is used)."""
        plans = [i.memory_id for i in in_system if i.label == PLAN and i.memory_id is not None]
        if plans and self.recall is not None:
            self.recall.injections.mark_used(plans)

    def _store(self, now: Answering, status: str) -> int:
        """Store the answer after the tool steps that led to it (each a ``tool`` episode),
        and what it was given: its notes and the memories of its system part."""
        excluded = self._answer_excluded
        made = [
            self.log.append_step(now.conversation_id, step.stored(), excluded=excluded).id
            for step in now.steps
        ]
        episode = self.log.append(
            now.conversation_id,
            "assistant",
            "".join(now.pieces),
            status=status,
            model=now.marker,
            excluded=excluded,
        )
        if made:
            self.log.link_to_answer(made, episode.id)
        if self.recall is not None:
            self.recall.record(episode.id, now.items, now.prepared.in_system)
        return episode.id

    def chips(
        self, answer_episode_ids: Collection[int]
    ) -> dict[int, tuple[tuple[events.Recalled, ...], tuple[events.Recalled, ...]]]:
        """The chips of these stored answers and those each used: what each was given, read
        back, made into chips by the same function as when it was answered (:meth:`_shown`),
        so a chat opened again shows what the live answer showed."""
        if self.recall is None or not answer_episode_ids:
            return {}
        answers = self.log.by_id(list(answer_episode_ids))
        return {
            answer: self._shown(answers[answer].content, notes, in_system)
            for answer, (notes, in_system) in self.recall.given(answer_episode_ids).items()
            if answer in answers
        }

    def _shown(
        self, answer: str, notes: Sequence[events.Recalled], in_system: Sequence[events.Recalled]
    ) -> tuple[tuple[events.Recalled, ...], tuple[events.Recalled, ...]]:
        """An answer's chips and those it used (:func:`utilization.chips`), live or stored."""
        if self.recall is None:
            return (), ()
        sources = self.recall.sources([*notes, *in_system])
        return utilization.chips(answer, notes, in_system, sources)
