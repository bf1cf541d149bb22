"""Text helpers for search: CJK-aware full-text terms, FTS5 query building and token estimates.

SQLite's ``unicode61`` tokenizer splits on spaces, which Chinese does not use. Before indexing,
every run of CJK characters is rewritten as its single characters plus its overlapping bigrams,
so both 杭州 and 州 are terms of 我上周去了杭州; queries are rewritten the same way.
Latin text is left to ``unicode61`` and the Porter stemmer.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Collection

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# The pieces an English contraction splits into ("what's", "don't", "I'll", "we're", "I've",
# "I'd", "I'm", "isn't"): words of every other sentence, which matched a question to any memory
# that contains one. Not "won" or "can", which are words of their own.
_CLITICS = (
    *("s", "t", "d", "ll", "re", "ve", "m", "don", "doesn", "didn", "isn", "aren"),
    *("wasn", "weren", "haven", "hasn", "hadn", "couldn", "shouldn", "wouldn", "mustn"),
)
_STOPWORDS = frozenset(
    [
        *_CLITICS,
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_CJK_STOP = frozenset("的了吗呢吧啊是在我你他她它们这那有和")


def _cjk_terms(run: str) -> list[str]:
    chars = list(run)
    return chars + [a + b for a, b in itertools.pairwise(chars)]


def index_text(text: str) -> str:
    """The text as it is given to the FTS5 index (CJK runs expanded to unigrams and bigrams)."""
    return _CJK.sub(lambda m: " " + " ".join(_cjk_terms(m.group())) + " ", text)


# A query is read up to here, as the embedder reads a text (memory/embed.py): a pasted 5 MB
# message was tokenised whole four times a turn, for terms that only its start can contribute.
QUERY_CHARS = 8_000
# The terms of the last texts read: a turn asks for its message's terms several times (the
# query, the memory and message searches, the signals); they are worked out once. The keys are
# the texts' first QUERY_CHARS characters, so what is kept stays small.
TERMS_CACHED = 64


def query_terms(query: str) -> list[str]:
    """The search terms of a user query (its first ``QUERY_CHARS`` characters): content words
    and CJK bigrams (single chars if alone)."""
    return list(_terms(query[:QUERY_CHARS]))


@functools.lru_cache(maxsize=TERMS_CACHED)
def _terms(head: str) -> tuple[str, ...]:
    terms: list[str] = []
    for token in _WORD.findall(head):
        for part in _CJK.split(token):
            word = part.lower()
            if word and word not in _STOPWORDS:
                terms.append(word)
        for run in _CJK.findall(token):
            if len(run) == 1:
                terms.append(run)
            else:
                pairs = [run[i : i + 2] for i in range(len(run) - 1)]
                terms.extend(p for p in pairs if not set(p) <= _CJK_STOP)
    return tuple(dict.fromkeys(terms))


def without_words(text: str, words: Collection[str]) -> str:
    """``text`` without the given lower-case words (and their possessive 's), spaces tidied."""
    latin = [w for w in words if not _CJK.search(w)]
    if not latin:
        return text
    alternatives = "|".join(re.escape(w) for w in sorted(latin, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:{alternatives})(?:['’]s)?\b", re.IGNORECASE)
    return " ".join(pattern.sub(" ", text).split())


# Two words of one root: the same first letters, at least ROOT_LETTERS and this share of the
# shorter word. The word index stems inflections ("temperatures"), not derivations
# ("explanation" and "Explain").
ROOT_LETTERS = 5
ROOT_SHARE = 0.7


def one_root(a: str, b: str) -> bool:
    """Are two lower-case words of one root ("explain" and "explanation", "watch" and
    "watched"; not "internet" and "interview")?"""
    shared = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return shared >= max(ROOT_LETTERS, ROOT_SHARE * min(len(a), len(b)))


# Chinese writes no spaces and most of its words are two characters long: two texts in it say
# the same thing when they share a run of this many characters ("有多重", "多少钱", "是哪一天"),
# not when they share a word ("帮我", "一句", "多少").
PHRASE_CHARS = 3


def shares_phrase(a: str, b: str, chars: int = PHRASE_CHARS) -> bool:
    """Do two texts share a run of ``chars`` CJK characters (within a run, not across
    punctuation or other letters)?"""
    ours = {run[i : i + chars] for run in _CJK.findall(a) for i in range(len(run) - chars + 1)}
    return any(
        run[i : i + chars] in ours for run in _CJK.findall(b) for i in range(len(run) - chars + 1)
    )


def fts_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression that ORs the quoted terms ('' when there are none)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def estimate_tokens(text: str) -> int:
    """A quick token estimate: one per CJK character, about four characters per other token."""
    cjk = sum(len(run) for run in _CJK.findall(text))
    return max(1, cjk + (len(text) - cjk + 3) // 4)


def normalized(text: str) -> str:
    """Text folded for exact-duplicate checks: lower case, single spaces, no trailing dot."""
    return " ".join(text.lower().split()).rstrip("。.!！ ")


def text_language(text: str) -> str:
    """``zh_CN`` when the text is mostly Chinese, else ``en``."""
    # One Chinese character carries about as much as an English word.
    words = len(_LATIN_WORD.findall(text))
    return "zh_CN" if len(_HAN.findall(text)) > 1.5 * words else "en"
