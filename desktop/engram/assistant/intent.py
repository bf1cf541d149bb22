"""What a message asks for, read once when it arrives: the one home of Engram's intent rules.

:func:`read` looks at a user message once (regular expressions only, no model call) and says
whether it asks Engram to remember something ("remember this: …", "记住：…"), to forget what was
just remembered or used ("forget that", "忘掉这个"), whether it corrects the answer before it
("no, that's wrong", "actually, …", "不对") or praises it ("that worked, thanks", "谢谢，很有用").
The application (:mod:`engram.assistant.app`) reads each message here and hands the
:class:`Intent` on: the turn, the outcome signals and the consolidation scheduler never read the
text for intent again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The most of a message the rules read (see :func:`read`).
HEAD_CHARS = 1000
_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?remember(?:\s+(?:this|that))?\s*[:：,，]\s*"
    r"|^\s*(?:请)?(?:帮我)?记住(?:这个|这一点|这件事)?\s*[:：,，]\s*",
    re.IGNORECASE,
)
_FORGET_EN = re.compile(
    r"^\s*(?:please\s+)?forget\s+(?:that|this|it|about\s+(?:that|it))(?:,?\s*please)?\s*[.!]*\s*$",
    re.IGNORECASE,
)
_FORGET_ZH = re.compile(
    r"^\s*请?(?:忘掉|忘记|忘了|删掉|别记着?)(?:这个|这条|那个|它|吧)?吧?\s*[。！!.]*\s*$"
)
_CORRECTION_EN = re.compile(
    r"^\s*(?:no|nope)\b[\s,.!]*(?:that'?s|that is|it'?s|you'?re|you are)?\s*"
    r"(?:wrong|not (?:right|correct|true)|incorrect|mistaken)"
    r"|^\s*(?:that'?s|that is|you'?re|you are)\s+(?:wrong|not (?:right|correct)|incorrect|mistaken)"
    r"|^\s*actually\b[\s,]"
    r"|^\s*(?:wrong|incorrect)\b"
    r"|^\s*no\s*[,.!]\s*(?:I|it|the|my)\b"
    # how to answer from now on: "please always …", "next time …", "in kilometres, not miles"
    r"|^\s*(?:please\s+)?(?:always|never|from now on|next time|in (?:the )?future)\b"
    r"|\w,\s*not\s+(?:in\s+)?\w+\s*[.!]?\s*$"
    r"|\w,\s*not\s+(?:in\s+)?\w+[.;]",
    re.IGNORECASE,
)
_CORRECTION_ZH = re.compile(
    r"不对|错了|不是这样|说错|搞错|不正确|其实(?:是|不)|以后(?:请|要|都|用)|下次|不要用|别用"
)
_PRAISE_EN = re.compile(
    r"\b(?:thanks?(?:\s+you)?|thx|ty)\b(?!-)"
    r"|\b(?:that|it|this)\s+(?:worked|works|helped|helps|did it|did the trick)\b"
    r"|\b(?:perfect|exactly(?:\s+(?:right|what I (?:wanted|needed)))?|spot on|well done)\b"
    r"|\b(?:great|good|nice|excellent|helpful|useful)\s+(?:answer|job|work|one)\b"
    r"|^\s*(?:great|awesome|excellent|brilliant|nice)\s*[!.]*\s*$",
    re.IGNORECASE,
)
_PRAISE_ZH = re.compile(
    r"谢谢|多谢|感谢|有用|有帮助|管用|好用|成功了|解决了|可以了|完美|太好了|很好|非常好|正是我要的|没错"
)
# Thanks that only close a request ("no thanks", "thanks anyway") are not praise.
_NOT_PRAISE = re.compile(r"\bno,?\s+thanks?\b|\bthanks?\s+anyway\b|不用了?谢谢|不谢", re.IGNORECASE)


@dataclass(frozen=True)
class Intent:
    """A message and what it asks for.

    ``remember`` is the text after a leading "remember this:" (None without one); ``forget`` is
    set when the whole message asks to forget what was just remembered or used; ``correction``
    and ``praise`` judge the answer before the message (never both).
    """

    text: str
    remember: str | None = None
    forget: bool = False
    correction: bool = False
    praise: bool = False


def read(text: str) -> Intent:
    """What ``text`` asks for (see :class:`Intent`).

    The rules see at most the first :data:`HEAD_CHARS` characters: what a message asks of
    Engram is said in its opening, and some rules backtrack in the square of what they read
    (two whitespace runs side by side), so a pasted megabyte would take hours. A cut text ends
    in "…", so a rule that looks at the end of the message ("forget that", "…, not miles")
    never takes the cut for its end.
    """
    seen = text if len(text) <= HEAD_CHARS else text[:HEAD_CHARS] + "…"
    match = _REMEMBER.match(seen)
    correction = bool(_CORRECTION_EN.search(seen) or _CORRECTION_ZH.search(seen[:12]))
    praise = not correction and not _NOT_PRAISE.search(seen)
    return Intent(
        text,
        remember=text[match.end() :].strip() if match else None,
        forget=bool(_FORGET_EN.match(seen) or _FORGET_ZH.match(seen)),
        correction=correction,
        praise=praise and bool(_PRAISE_EN.search(seen) or _PRAISE_ZH.search(seen[:40])),
    )
