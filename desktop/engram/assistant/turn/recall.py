"""Choosing what the small model is reminded of this turn: memories and earlier messages.

Hybrid search over distilled memories and over raw messages, a relevance floor so that nothing is
injected just because it ranked first among strangers, a token-budget packing, and a stable order
so an unchanged choice gives a byte-identical block (and a warm prefix cache).

Two exceptions to the floor and the ranking. The user's stated preferences are few and apply far
from their words ("I follow a strict gluten-free diet" governs "recommend a café"): the
:data:`PREFERENCES` closest to the message, by their vectors that embed the situations they apply
to, always go in, first. And the assistant's own earlier answers are not notes: one the user
marked wrong (a thumb down, a correction, a regenerate) is never recalled, and the others only
when the user accepted them (a thumb up, praise) or asks what the assistant said ("what did you
recommend …"). Given back as notes, Qwen2.5-Coder-0.5B copied its own earlier answers: "180°F"
again after "Temperatures in Celsius, please", "approximately 1.5 km" for every distance.
Neither are a tool's results (recomputed when needed; a file's text is not the user's word) or a
message that only asked something else: given "What is the square root of 7569?" and the
calculator's answer to it from another chat, the 0.5B answered "Calculate (45 + 55) * 12 / 4."
with "The square root of 7569 is approximately 28.99." Nor is one that fills the same template as
the message with something else (:data:`TEMPLATE_CHARS`).

What the user asked to keep, in their own words, is not left to the search: the newest of it goes
into the system part with the pinned memories (:meth:`Recall.profile`, :data:`SAVED`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Collection, Iterable, Sequence

from engram.assistant import intent
from engram.assistant.events import Recalled
from engram.assistant.learning import plan_words
from engram.assistant.readable import INDEX_PER_TURN, readable
from engram.assistant.turn import recitation
from engram.assistant.turn.prompt import MAX_LESSONS
from engram.memory.embed import Floors, Vectors, floors_of, reads_language
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import EpisodeLog
from engram.memory.injections import Given, Injections
from engram.memory.kinds import FACT, LESSON, PLAN, PREFERENCE, PROFILE
from engram.memory.packing import pack
from engram.memory.records import EpisodeHit, Hit, Memory, example_in, plan_of, situations_in
from engram.memory.search import Filters
from engram.memory.store import MemoryStore
from engram.memory.text import (
    ROOT_LETTERS,
    TERMS_CACHED,
    one_root,
    query_terms,
    shares_phrase,
    text_language,
)

# Every cosine floor (a match on meaning alone, a lesson's, the same question's) is the
# embedder's, for the message's language: engram.memory.embed.Floors, from the catalogue.
# Raw messages weigh a little less than distilled memories of the same relevance.
EPISODE_WEIGHT = 0.8
PROFILE_LIMIT = 12
SEARCH_K = 12
MAX_EXTRA = 48
# Stated preferences put in front of every answer, the closest to the message first.
PREFERENCES = 3
# What the user asked to be kept, in their own words ("remember this: …", /remember, the memory
# browser), goes in front of every answer like a pinned memory, as ChatGPT's saved memories do:
# said once, it applies from then on, often far from its words ("I am allergic to peanuts" shares
# none with "Suggest a snack for my hike tomorrow", cosine 0.32, under the floor: it was never
# recalled there). The newest SAVED; older ones are recalled by relevance like any memory.
SAVED = 8
SAVED_KINDS = (FACT, PREFERENCE, PROFILE)
# An earlier message that only asked something is a note when it asked the same question (it
# says how the user wants it; Floors.same_question), not another question of the same sort, which
# the small model answered instead of the message.
# A sentence of at least this many characters said word for word in an earlier message and in
# the query is a template both fill ("Pick the one option that best fits me as your top
# recommendation."). The earlier message is a note only when what it fills in shares at least
# TEMPLATE_OVERLAP of its search terms with what the query fills in: one PrefEval question with
# four options was recalled for every later one on the template's words, and Qwen2.5-Coder-1.5B
# then answered most with "<choice>B</choice>" (9 of 40 followed the user's stated preference;
# 15 with this rule, 17 with the earlier questions deleted).
TEMPLATE_CHARS = 30
TEMPLATE_OVERLAP = 0.25


# A lesson's vector embeds its words with the questions it applies to, and a question it governs
# shares little with it. Each situation it applies to has a vector of its own too
# (``MemoryStore.situated``), and a lesson is as close as the closer of the two (Floors.lesson).
# A lesson that shares a word with the message must still not be unrelated to it
# (Floors.lesson_words): a word such as "work" is shared by messages about anything.
# Situations looked at per search (a lesson has up to six).
SITUATIONS_K = 4 * SEARCH_K


def relevant(
    similarity: float | None,
    text_rank: int | None,
    floor: float,
    worded: float = -1.0,
) -> bool:
    """A hit counts when its meaning is close enough (``floor``), or when its words matched
    and its meaning is at least ``worded`` close."""
    if similarity is not None and similarity >= floor:
        return True
    return text_rank is not None and (similarity is None or similarity >= worded)


def _relevant(hit: Hit, message: str, floors: Floors | None) -> bool:
    """Is a memory relevant to the message? ``floors``: the embedder's for the message's
    language, None where it cannot read it (:func:`reading`): then only words count."""
    if floors is None:
        if hit.memory.kind == LESSON:
            return _phrased_alike(hit, message) or _listed_alike(hit, message)
        return relevant(None, hit.text_rank, 1.0)
    if hit.memory.kind == LESSON:
        return relevant(
            hit.similarity, hit.text_rank, floors.lesson, floors.lesson_words
        ) or _worded_alike(hit, message, floors)
    return relevant(hit.similarity, hit.text_rank, floors.relevant)


def _phrased_alike(hit: Hit, message: str) -> bool:
    """In a language the embedder cannot read, does a lesson or a situation it applies to share
    a phrase with the message (:func:`~engram.memory.text.shares_phrase`)? A shared single word
    (one Chinese character pair) brought lessons to answers they had nothing to do with; a
    three-character phrase of a situation ("有多重", "多少钱") ties questions of one form together
    (docs/lab-log.md has the measurements)."""
    return any(
        shares_phrase(message, text)
        for text in (hit.memory.content, *situations_in(hit.memory.meta))
    )


def _listed_alike(hit: Hit, message: str) -> bool:
    """In Chinese, does the message ask for a list as a situation of the lesson did? Two
    questions that both ask for several things often share no phrase, so a lesson about how to
    write lists would reach neither by its words."""
    return intent.asks_for_list(message) and any(
        intent.asks_for_list(s) for s in situations_in(hit.memory.meta)
    )


# A lesson about explanations shares no indexed word with a message that asks to explain
# something ("explanation" against "Explain"): a word of the same root
# (:func:`~engram.memory.text.one_root`) counts too.


def _worded_alike(hit: Hit, message: str, floors: Floors | None) -> bool:
    """Does a lesson share a word's root with the message, and is it not unrelated to it (the
    floor of a lesson that shares a word, ``floors.lesson_words``)?"""
    if floors is None or (hit.similarity or 0.0) < floors.lesson_words:
        return False
    said = _long_words(message)
    return any(
        one_root(w, v)
        for first, words in _long_words(hit.memory.content).items()
        for v in words
        for w in said.get(first, ())
    )


@functools.lru_cache(maxsize=TERMS_CACHED)
def _long_words(text: str) -> dict[str, tuple[str, ...]]:
    """A text's words of :data:`ROOT_LETTERS` letters or more, by their first ROOT_LETTERS (two
    words of one root begin alike): a message is compared with each lesson it meets once per
    bucket, not word by word with every word (1.2 ms of a turn at 100k memories)."""
    found: dict[str, list[str]] = {}
    for word in query_terms(text):
        if word.isalpha() and len(word) >= ROOT_LETTERS:
            found.setdefault(word[:ROOT_LETTERS], []).append(word)
    return {first: tuple(words) for first, words in found.items()}


def reading(store: MemoryStore, query: str) -> Floors | None:
    """The embedder's floors for the query's language, or None when it does not tell texts of
    that language apart (an English-only model reads every Chinese text as near every other,
    and every floor passes): then only shared words count (the bigram keyword index)."""
    language = text_language(query)
    if not reads_language(store.embedder, language):
        return None
    return floors_of(store.embedder, language)


class Recall:
    """Retrieval for the turn pipeline, on the foreground thread's own store.

    ``lessons`` False: :meth:`recall` never chooses a lesson (``engram eval``'s condition that
    measures what was learned without its lessons).
    """

    def __init__(
        self, store: MemoryStore, count_tokens: Callable[[str], int], *, lessons: bool = True
    ) -> None:
        self.store = store
        self.episodes = EpisodeIndex(store.space)
        self.injections = Injections(store.conn)
        self.count_tokens = count_tokens
        self.lessons = lessons

    def catch_up(self) -> int:
        """Embed the newest messages that have no vector yet (at most :data:`INDEX_PER_TURN`;
        ``episode_index.Backfill`` does a big import), so that a search finds them by meaning
        too; returns how many. The turn calls it before it recalls (``Assistant.prepare``, for
        a sent message and a prefetched draft alike) and :meth:`record` after an answer is
        stored: :meth:`recall` itself never writes."""
        return self.episodes.index_new(limit=INDEX_PER_TURN, newest=True)

    def profile(self) -> list[Recalled]:
        """Pinned memories, then the newest :data:`SAVED` of the user's own: always in the
        system part, each group in a stable order."""
        # memories() lists pinned ones first, so the first PROFILE_LIMIT rows hold them all.
        pinned = [m for m in self.store.memories(limit=PROFILE_LIMIT) if m.pinned]
        saved = [m for m in self.store.saved(SAVED_KINDS, SAVED) if not m.pinned]
        return [
            Recalled(m.kind, m.content, 1.0, m.created_at, memory_id=m.id)
            for group in (pinned, saved)
            for m in sorted(group, key=lambda m: m.id)
        ]

    def plan(self, message: str = "") -> Recalled | None:
        """The user's current plan, as its goal and the step to do now: the active plan
        ``message`` names (:func:`plan_words.named`). None for a message that lists a plan of
        its own (the 0.5B answered a new running plan with a step of the Spanish one)."""
        plans = self.store.memories(kinds=[PLAN], limit=plan_words.PLANS)
        if not plans or plan_words.listed(message) is not None:
            return None
        return _plan_given(plan_words.named(plans, message))

    def recall(
        self,
        query: str,
        budget: int,
        exclude_episodes: Collection[int] = (),
        exclude_memories: Collection[int] = (),
        situation: str = "",
    ) -> list[Recalled]:
        """The best memories and earlier messages for ``query`` within ``budget`` tokens.

        With a ``situation`` (the tools used in the conversation), lessons are chosen by their
        similarity to the query and the situation together rather than to the query alone.
        Only reads: the messages stored since the last answer are embedded by
        :meth:`catch_up`, which the turn calls first.
        """
        if budget <= 0 or not query.strip():
            return []
        if not self.lessons:
            taught = {m.id for m in self.store.memories(kinds=[LESSON], limit=100_000)}
            exclude_memories = {*exclude_memories, *taught}
        # Embedded once, for both searches, without the words common to every conversation.
        terms = self.episodes.focus(query)
        vector = self.episodes.query_vector(terms)
        # Ask each search for enough hits that its excluded ones cannot crowd out the rest.
        floors = reading(self.store, query)
        hits, lessons, situated = self._situated(
            self.store.search(query, k=_asked(exclude_memories), vector=vector),
            query,
            vector,
            floors,
        )
        # A plan is given in the system part, the one the message names (:meth:`plan`), never
        # as a note: as a note, another plan matched a question about the next step of this one
        # on the word "step".
        memories = [
            h
            for h in hits
            if h.memory.id not in exclude_memories
            and h.memory.kind != PLAN
            and _relevant(h, query, floors)
        ][:SEARCH_K] + [
            h
            for h in lessons
            if h.memory.id not in exclude_memories and _relevant(h, query, floors)
        ][:MAX_LESSONS]
        memories = self._preferences(query, vector, exclude_memories) + [
            h for h in memories if h.memory.kind != PREFERENCE
        ]
        if situation:
            lessons, situated = self._lessons(f"{query}\n{situation}", exclude_memories, floors)
            memories = [h for h in memories if h.memory.kind != LESSON] + lessons
        # A lesson's example (an answer to its own question, which the 0.5B imitates) comes with
        # it only where the message is close to one of its situations or shares a word with it,
        # not where the lesson's words are merely near in meaning: "Sign messages you write for
        # me with 'Best regards, Mia'" sits at 0.33 from "Remind me, what's my next step with
        # Spanish?", and given its letter the 0.5B said it had no access to the plan.
        shown = {
            h.memory.id
            for h in memories
            if h.memory.kind == LESSON
            and (floors is None or h.memory.id in situated or _worded_alike(h, query, floors))
        }
        found = self.episodes.search(terms, k=_asked(exclude_episodes), vector=vector)
        template = _Template(query)
        episodes = [
            h
            for h in readable(self.store, found, query)
            if h.episode.id not in exclude_episodes
            and not (h.episode.role == "user" and _another_question(h, floors))
            and not template.filled_otherwise(h.episode.content)
            and h.episode.content.strip()
            and _relevant_message(h, floors)
        ]
        # A neighbour comes with its hit or not at all: "Tell me about Hangzhou" was recalled
        # for "Name a colour" because the answer after it (no note itself) said "name".
        kept = {h.episode.id for h in episodes}
        episodes = [h for h in episodes if h.beside is None or h.beside in kept][:SEARCH_K]
        candidates = _from_memories(memories, shown) + _from_episodes(episodes)
        chosen = pack(candidates, budget, self.count_tokens)
        return sorted(chosen, key=_stable_order)

    def _preferences(
        self, query: str, vector: Vectors | None, exclude_memories: Collection[int]
    ) -> list[Hit]:
        """The :data:`PREFERENCES` stated preferences closest to the message, whatever their
        similarity, scored above every other memory so that packing keeps them."""
        found = self.store.search(
            query, k=_asked(exclude_memories), vector=vector, filters=Filters(kinds=(PREFERENCE,))
        )
        kept = [h for h in found if h.memory.id not in exclude_memories][:PREFERENCES]
        return [dataclasses.replace(h, score=float("inf")) for h in kept]

    def _lessons(
        self, situation: str, exclude_memories: Collection[int], floors: Floors | None
    ) -> tuple[list[Hit], set[int]]:
        """The lessons closest to a situation (at most :data:`MAX_LESSONS`), and those of them
        one of whose own situations is close to it."""
        vector = self.store.query_vector(situation)
        found = self.store.search(
            situation, k=SEARCH_K, filters=Filters(kinds=(LESSON,)), vector=vector
        )
        hits, more, situated = self._situated(found, situation, vector, floors)
        return [
            h
            for h in hits + more
            if h.memory.id not in exclude_memories and _relevant(h, situation, floors)
        ][:MAX_LESSONS], situated

    def _situated(
        self, hits: Sequence[Hit], query: str, vector: Vectors | None, floors: Floors | None
    ) -> tuple[list[Hit], list[Hit], set[int]]:
        """``hits`` with each lesson as close as its closest situation, the lessons only a
        situation found (closest first, scored as that share of the best hit's score), and the
        lessons a situation of which is ``floors.lesson`` close. In a language the embedder
        cannot read (no floors), situations are found by the words they share with ``query``."""
        if floors is None:
            seen = {h.memory.id for h in hits}
            worded = self.store.situated_by_words(query, SITUATIONS_K, (LESSON,))
            if intent.asks_for_list(query):  # and the lessons for questions that did
                worded += self.store.situated_by_words(
                    intent.LIST_WORDS_ZH, SITUATIONS_K, (LESSON,)
                )
            more = list({h.memory.id: h for h in worded if h.memory.id not in seen}.values())
            return list(hits), more, set()  # no closeness here: every example comes
        near = self.store.situated(vector, SITUATIONS_K, (LESSON,))
        closest = {h.memory.id: h.score for h in near}
        raised = [
            dataclasses.replace(h, similarity=max(h.similarity, closest[h.memory.id]))
            if h.memory.id in closest and h.similarity is not None
            else h
            for h in hits
        ]
        seen = {h.memory.id for h in hits}
        top = max((h.score for h in hits if math.isfinite(h.score) and h.score > 0), default=1.0)
        more = [
            dataclasses.replace(h, score=top * (h.similarity or 0.0))
            for h in near
            if h.memory.id not in seen
        ]
        return raised, more, {m for m, score in closest.items() if score >= floors.lesson}

    def given(
        self, answer_episode_ids: Collection[int]
    ) -> dict[int, tuple[list[Recalled], list[Recalled]]]:
        """What each of these answers was given, read back (for its chips): its notes
        (memories and earlier messages, in the order of its memory block) and the memories of
        its system part (pinned and saved ones, the plan). A memory is as it is now."""
        found = {}
        log = EpisodeLog(self.store.conn)
        for answer in answer_episode_ids:
            memories, messages = self.injections.given(answer)
            if not memories and not messages:
                continue
            said = log.by_id([m.episode_id for m in messages])
            notes = [(m.rank, _given(m.memory, m.score)) for m in memories if m.place == "notes"]
            notes += [
                (m.rank, Recalled("message", e.content, m.score, e.created_at,
                                  episode_id=e.id, role=e.role))
                for m in messages
                if (e := said.get(m.episode_id)) is not None
            ]  # fmt: skip
            notes.sort(key=lambda ranked: ranked[0])
            in_system = [_given(m.memory, m.score) for m in memories if m.place == "system"]
            found[answer] = ([item for _rank, item in notes], in_system)
        return found

    def sources(self, items: Sequence[Recalled]) -> dict[int, set[int]]:
        """The earlier messages each of these memories was made from (by memory id)."""
        ids = [item.memory_id for item in items if item.memory_id is not None]
        return {
            memory: {s.episode_id for s in found if s.episode_id is not None}
            for memory, found in (self.store.sources_of(ids).items() if ids else ())
        }

    def injected(self, answer_episode_ids: Collection[int]) -> dict[int, list[Recalled]]:
        """The memories recorded as given to each of these answers, the plan aside (what
        "forget that" may mean after them)."""
        return {
            answer: [
                Recalled(m.kind, m.content, score, m.created_at, memory_id=m.id)
                for m, _rank, score in found
                if m.kind != PLAN
            ]
            for answer in answer_episode_ids
            if (found := self.injections.of(answer))
        }

    def record(
        self,
        answer_episode_id: int,
        items: Sequence[Recalled],
        in_system: Sequence[Recalled] = (),
    ) -> None:
        """Store what went into an answer: its notes ``items`` (memories and earlier messages)
        and the memories of its system part (pinned, saved, the plan); a memory counts as used
        (the plan already did when the turn began). Then index the answer.

        The score kept is the one the prompt was packed with, live or from the prefetch alike.
        """
        given = [Given(item.score, item.memory_id, item.episode_id) for item in items]
        given += [
            Given(item.score, item.memory_id, place="system", counted=item.label != PLAN)
            for item in in_system
            if item.memory_id is not None
        ]
        if given:
            self.injections.record_given(answer_episode_id, given)
        self.catch_up()


def _asked(excluded: Collection[int]) -> int:
    return SEARCH_K + min(len(excluded), MAX_EXTRA)


def _normalized(scores: Sequence[float]) -> list[float]:
    """Scores over the best one (a preference chosen whatever its score counts as 1). When no
    score is above zero (a lone message: its fused, standardised score is 0) the best counts
    as 1 and the rest as 0: the one relevant message an early user has is still recalled."""
    finite = [s for s in scores if math.isfinite(s)]
    top = max(finite, default=0.0)
    if top <= 0:
        return [1.0 if not math.isfinite(s) or s == top else 0.0 for s in scores]
    return [1.0 if not math.isfinite(s) else s / top for s in scores]


def _plan_given(memory: Memory) -> Recalled:
    """The plan as the system part gives it: its goal and the step to do now."""
    content = memory.content
    spec = plan_of(memory)
    if spec is not None and spec[1]:
        goal, steps, current = spec
        content = _step_to_do(goal.strip().rstrip("。."), steps[current])
    return Recalled(PLAN, content, 1.0, memory.created_at, memory_id=memory.id)


def _given(memory: Memory, score: float) -> Recalled:
    """A memory an answer was given, read back as it was given (a plan as its next step)."""
    if memory.kind == PLAN:
        return _plan_given(memory)
    return Recalled(memory.kind, memory.content, score, memory.created_at, memory_id=memory.id)


def _from_memories(hits: Sequence[Hit], shown: Collection[int]) -> list[Recalled]:
    """The memories as recalled, a lesson with its example when it is among ``shown``."""
    scores = _normalized([h.score for h in hits])
    return [
        Recalled(
            h.memory.kind,
            h.memory.content,
            s,
            h.memory.created_at,
            memory_id=h.memory.id,
            example=example_in(h.memory.meta) if h.memory.id in shown else None,
        )
        for h, s in zip(hits, scores, strict=True)
    ]


def _relevant_message(hit: EpisodeHit, floors: Floors | None) -> bool:
    """Is an earlier message relevant: its meaning close enough, or its words matched?"""
    if floors is None:
        return relevant(None, hit.text_rank, 1.0)
    return relevant(hit.similarity, hit.text_rank, floors.relevant)


def _another_question(hit: EpisodeHit, floors: Floors | None) -> bool:
    """A message of the user's that only asked something or asked for something, about
    something else than the query (or in a language the embedder cannot read). Given requests
    for other letters as notes, the small model wrote about what those letters were about."""
    same = floors is not None and (hit.similarity or 0.0) >= floors.same_question
    said = hit.episode.content
    return not same and (intent.only_asks(said) or intent.only_requests(said))


class _Template:
    """The query's long sentences, to tell an earlier message that fills the same template
    with something else (see :data:`TEMPLATE_CHARS`)."""

    def __init__(self, query: str) -> None:
        self.query = _sentences(query)
        self.long = {k for k in self.query if len(k) >= TEMPLATE_CHARS}

    def filled_otherwise(self, earlier: str) -> bool:
        if not self.long:
            return False
        said = _sentences(earlier)
        if not self.long.intersection(said):
            return False
        theirs = _terms(v for k, v in said.items() if k not in self.query)
        ours = _terms(v for k, v in self.query.items() if k not in said)
        if not theirs or not ours:
            return not theirs  # nothing of its own, or it holds all of the query and more
        return len(theirs & ours) < TEMPLATE_OVERLAP * min(len(theirs), len(ours))


def _sentences(text: str) -> dict[str, str]:
    """A text's sentences, line by line, keyed by their letters and digits."""
    found = (s for line in text.splitlines() for s in recitation.sentences(line))
    return {key: s for s in found if (key := recitation.normalised(s))}


def _terms(sentences: Iterable[str]) -> set[str]:
    return set(query_terms(" ".join(sentences)))


def _from_episodes(hits: Sequence[EpisodeHit]) -> list[Recalled]:
    scores = _normalized([h.score for h in hits])
    return [
        Recalled(
            "message",
            h.episode.content,
            EPISODE_WEIGHT * s,
            h.episode.created_at,
            episode_id=h.episode.id,
            role=h.episode.role,
        )
        for h, s in zip(hits, scores, strict=True)
    ]


def _stable_order(item: Recalled) -> tuple[int, int]:
    """Memories by id, then messages by id: the same choice always reads the same."""
    if item.memory_id is not None:
        return (0, item.memory_id)
    return (1, item.episode_id or 0)


def _step_to_do(goal: str, step: str) -> str:
    """A plan as the answer is given it: the goal, and the step to do now as what the user
    should do next. Given the step as "step 2/3: …", the small model answered with the goal;
    given it in these words, it answered with the step (docs/lab-log.md has the counts)."""
    if text_language(f"{goal}{step}") == "zh_CN":
        return f"{goal}。下一步要做的：{step}"
    return f"{goal}. What the user should do next: {step}"
