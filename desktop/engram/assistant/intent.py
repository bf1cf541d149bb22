"""What a message asks for, read once when it arrives: the one home of Engram's intent rules.

:func:`read` looks at a user message once (regular expressions only, no model call) and says
whether it asks Engram to remember something ("remember this: …", "记住：…"), to forget what was
just remembered or used ("forget that", "忘掉这个"), whether it corrects the answer before it
("no, that's wrong", "actually, …", "不对", or a standing instruction: "next time …", "don't …",
"以后…", "不要…"; :func:`is_instruction`) or praises it ("that worked, thanks", "谢谢，很有用").
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
    r"|^\s*(?:please\s+)?(?:always|never(?!\s+mind\b)|from now on|next time|in (?:the )?future)\b"
    r"|\w,\s*not\s+(?:in\s+)?\w+\s*[.!]?\s*$"
    r"|\w,\s*not\s+(?:in\s+)?\w+[.;]",
    re.IGNORECASE,
)
# Said wrong: always a correction. "Don't use …" within the opening: only when not asked.
_CORRECTION_ZH = re.compile(r"不对|错了|不是这样|说错|搞错|不正确|其实(?:是|不)")
_AVOID_ZH = re.compile(r"不要用|别用|不要再|别再")
# Standing instructions: how to answer from now on. Each clause is read on its own (split at
# sentence and clause marks); a question ("don't you think …?", "下次奥运会在哪里？") never is one.
_CLAUSES = re.compile(r"[.!?;:\n。！？；：，,]+")
_ASKED = re.compile(r"[?？]|[吗呢么]\s*[。.]?\s*$")
_SENTENCE_END = re.compile(r"[.!。！](?=\s|$)|[。！]")


def _either(words: str) -> str:
    """An alternation of space-separated words; "_" in a word stands for white space."""
    return "|".join(w.replace("_", r"\s+") for w in words.split())


# Clause openings that say how to answer from now on ("never mind", "don't you …" do not).
_FROM_NOW_ON = (
    "always from_now_on going_forward next_time in_future in_the_future from_here_on each_time "
    "every_time"
)
_NOT_AFTER_DONT = "you we they i it worry know mind"
_INSTRUCTION_EN = re.compile(
    rf"^\s*(?:(?:{_either('please and so also but then')})\s+)*(?:(?:{_either(_FROM_NOW_ON)}"
    r")\b|never\s+(?!mind\b)[a-z]"
    rf"|(?:don'?t|do\s+not)\s+(?!(?:{_either(_NOT_AFTER_DONT)})\b)[a-z]|(?:stop|quit)\s+[a-z]+ing\b"
    rf"|(?:{_either('make_sure be_sure remember_to try_to')})\s+[a-z])"
    # "No exclamation marks in what you write for me."
    r"|^\s*no\s+(?:more\s+)?[a-z]+s\b\s*(?:(?:in|when|for|anywhere)\b|,?\s*please\b)",
    re.IGNORECASE,
)
# An imperative that also says it holds beyond this answer ("Sign messages you write for me
# with …", "Use the calculator for any arithmetic instead …", "Write dates as …: that's how I
# file everything").
_IMPERATIVES = (
    "use write sign give answer reply respond keep put start end show format list call say "
    "include add spell round convert express quote cite address talk"
)
_BEYOND = (
    "always never every whenever when_you from_now_on instead in_future next_time for_any "
    "any_time you_write that'?s_how_I I_always I_only I_usually"
)
_IMPERATIVE_EN = re.compile(rf"^\s*(?:please\s+)?(?:{_either(_IMPERATIVES)})\b", re.IGNORECASE)
# How an answer looks, told with what it must not have: "Please use bullet points starting with
# '- ', one per line, no numbering." (not "Write a short story, no dragons.": a request).
_FORM_EN = re.compile(
    rf"^\s*(?:please\s+)?(?:{_either('use keep format answer reply respond start end sign')})\b",
    re.IGNORECASE,
)
_WITHOUT_EN = re.compile(r",\s*(?:and\s+)?no\s+[a-z]", re.IGNORECASE)
_GENERAL_EN = re.compile(rf"\b(?:{_either(_BEYOND)})\b", re.IGNORECASE)
# "Temperatures in Celsius, please."
_UNITS_PLEASE_EN = re.compile(r"\bin\s+[^\W\d_]+\s*,?\s*please\b", re.IGNORECASE)
_LATER_ZH = "以后 今后 下次 下回 从现在起 从现在开始 往后"
_THEN_ZH = "请 要 都 也 就 用 别 不要 不用 记得 给 写 说 回答 把 直接 只 一律 统一 先 换 改"
_CJK_CHAR = r"[\u4e00-\u9fff]"
_INSTRUCTION_ZH = re.compile(
    # "以后请用公斤", or when: "以后列举的时候用“- ”开头"
    rf"^\s*(?:那|那么|还有|另外|而且|也)?\s*(?:(?:{_either(_LATER_ZH)})\s*"
    rf"(?:(?:(?!我)[^，。！？,.!?]){{1,10}}?(?:的时候|时)[，,\s]*)?(?:{_either(_THEN_ZH)})"
    rf"|请?(?:不要|别再|别|不许|不准|禁止)\s*{_CJK_CHAR}"
    rf"|请?(?:总是|一直|始终|每次都?|一律|务必|记得|一定要)\s*{_CJK_CHAR}"
    # what the assistant writes for the user: "帮我写的消息最后请署名“此致，小林”"
    rf"|(?:帮|给|替)我写的{_CJK_CHAR}{{0,8}}?(?:请|都|要|不要|别|一律|统一)"
    # "距离请用公里", "时间请写成 24 小时制", "金额请换成欧元"
    rf"|{_CJK_CHAR}{{1,6}}请(?:用|写成|写|换算成|换成|改成|按|以|都))"
)
# "列举的时候请用…", "解释的时候第一行先写…"
_WHEN_ZH = re.compile(r"(?:的时候|时)[，,\s]*[\u4e00-\u9fff]{0,6}?(?:请|先|都要|一定要|记得|务必)")
# "其实我搬到柏林了": a statement the user sets right.
_CORRECTS_ZH = re.compile(r"^\s*(?:其实|实际上|更正一下|纠正一下)")
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
    asked = bool(_ASKED.search(seen))
    correction = bool(
        _CORRECTION_EN.search(seen)
        or _CORRECTION_ZH.search(seen[:12])
        or is_instruction(seen)
        or (not asked and (_AVOID_ZH.search(seen[:12]) or _CORRECTS_ZH.match(seen)))
    )
    praise = not correction and not _NOT_PRAISE.search(seen)
    return Intent(
        text,
        remember=text[match.end() :].strip() if match else None,
        forget=bool(_FORGET_EN.match(seen) or _FORGET_ZH.match(seen)),
        correction=correction,
        praise=praise and bool(_PRAISE_EN.search(seen) or _PRAISE_ZH.search(seen[:40])),
    )


_REBUTTAL = re.compile(
    r"^\s*(?:(?:no|nope)\b[\s,.!]*)?(?:(?:that'?s|that is|it'?s|you'?re|you are)\s+)?"
    r"(?:wrong|not (?:right|correct|true)|incorrect|mistaken)(?:\s+for\s+me)?\s*(?:[,.!:;—-]+\s*|$)"
    r"|^\s*(?:no|nope)\s*[,.!:;—-]+\s*"
    r"|^\s*(?:不对|错了|不是这样|说错了|搞错了|不正确)[\s，,。.!！：:；;]*",
    re.IGNORECASE,
)


def unframed(text: str) -> str:
    """A correction without its opening "No, that's wrong:" / "不对，" (what remains says what
    the user wants), or the text as it was when nothing remains."""
    rest = _REBUTTAL.sub("", text, count=1).strip()
    return rest[:1].upper() + rest[1:] if rest else text.strip()


_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")


def praised_for(text: str) -> str:
    """What praise of an answer says beyond the praise ("Short walks suit me best." of "Great,
    thank you! Short walks suit me best.", "我最爱吃清淡的汤。" of
    "太好了，谢谢！我最爱吃清淡的汤。"): its sentences of three words or four characters or more
    that state a liking or hold no word of praise, none of them a question; "" for thanks
    alone."""
    kept = []
    for sentence in _SENTENCE.findall(text[:HEAD_CHARS]):
        said = sentence.strip()
        long_enough = len(re.findall(r"[^\W\d_]+", said, re.ASCII)) >= 3 or (
            len(re.findall(r"[\u4e00-\u9fff]", said)) >= 4
        )
        praise = _PRAISE_EN.search(said) or _PRAISE_ZH.search(said)
        if long_enough and not is_question(said) and (states_preference(said) or not praise):
            kept.append(said if said.endswith(("。", "！", "？")) else f"{said} ")
    return "".join(kept).strip()


def is_instruction(text: str) -> bool:
    """Does the message tell the assistant how to answer from now on ("next time …", "please
    always …", "don't …", "以后…", "不要…", "别再…", "请总是…")? A clause that is asked
    ("don't you think …?") never does."""
    seen = text[:HEAD_CHARS]
    at = 0
    for clause in _CLAUSES.split(seen)[:16]:
        at = seen.find(clause, at) + len(clause)
        if not clause.strip() or _ASKED.search(clause) or seen[at : at + 1] in ("?", "？"):
            continue
        if _INSTRUCTION_EN.match(clause) or _INSTRUCTION_ZH.match(clause):
            return True
        if _IMPERATIVE_EN.match(clause) and _GENERAL_EN.search(seen):
            return True
        if _FORM_EN.match(clause) and _WITHOUT_EN.search(seen):
            return True
    if _ASKED.search(seen):
        return False
    return bool(_UNITS_PLEASE_EN.search(seen) or _WHEN_ZH.search(seen))


# What a message says about the one who wrote it (the distiller keeps only what the user said).
_SELF_EN = "i i'm i've i'd i'll im my me mine myself we we're our ours us"
_CHANGED_EN = (
    "actually moved no_longer not_any_?more anymore changed switched now instead new these_days"
)
_CHANGED_ZH = "其实 实际上 搬到 搬去 不再 现在 改成 换成 换了 改了 已经不"
_GOALS_EN = (
    "goal plan aim step steps training_for preparing_for I'?m_learning I_am_learning "
    "I'?m_studying working_on working_towards? trying_to going_to I'?ll I_will"
)
_GOALS_ZH = "目标 计划 打算 准备 备考 训练 正在学 在学 下一步 步骤"
_LIKES_EN = (  # with their third-person forms: a memory says "The user avoids …"
    r"prefer\w* likes? loves? enjoys? hates? dislikes? avoid\w* can'?t_stand don'?t doesn'?t never "
    r"always allergic intoleran\w* follows? vegan vegetarian fears? afraid refuses? wants? needs? "
    r"favou?rite aversion rather only my_thing my_kind_of"
)
_LIKES_ZH = "喜欢 爱 讨厌 避免 过敏 不吃 不喝 怕 希望 想要 偏好 宁愿 拒绝 从不 总是 只"
_SELF = re.compile(rf"(?i)\b(?:{_either(_SELF_EN)})\b|我")
_CHANGED = re.compile(rf"(?i)\b(?:{_either(_CHANGED_EN)})\b|{_either(_CHANGED_ZH)}")
_GOALS = re.compile(
    rf"(?i)\b(?:{_either(_GOALS_EN)}|(?:want|hope|plan)\s+to\s+(?!know\b|ask\b|see\b))\b"
    rf"|{_either(_GOALS_ZH)}|第[一二三四五六七八九十\d]+[步周]|我(?:想|希望|要)(?!知道|问|了解|看看)"
)
_LIKES = re.compile(rf"(?i)\b(?:{_either(_LIKES_EN)})\b|{_either(_LIKES_ZH)}")
# A message that asks what the assistant itself said before ("what did you recommend …",
# "your suggestion", "你上次推荐的").
_ANSWERED_EN = "said told suggested recommended mentioned wrote gave answered proposed advised"
_ASKED_EN = "say tell suggest recommend mention write give answer propose advise"
_ANSWERED = re.compile(
    rf"(?i)\byou(?:\s+\w+)?\s+(?:{_either(_ANSWERED_EN)})\b"
    rf"|\b(?:did|didn'?t)\s+you\s+(?:\w+\s+)?(?:{_either(_ASKED_EN)})\b"
    r"|\byour\s+(?:answer|suggestion|advice|recommendation|idea|reply|list)s?\b"
    r"|你(?:之前|上次|刚才|以前|昨天)(?:说|讲|提到|建议|推荐|告诉|回答|给)"
    r"|你(?:说|讲|提到|建议|推荐|告诉|回答)(?:过|的)"
)


def about_self(text: str) -> bool:
    """Does the message speak of its writer ("I …", "my …", "我…")?"""
    return bool(_SELF.search(text[:HEAD_CHARS]))


def changes_fact(text: str) -> bool:
    """Does it say something changed ("I moved to …", "no longer", "其实…", "搬到了")?"""
    return bool(_CHANGED.search(text[:HEAD_CHARS]))


def sets_goal(text: str) -> bool:
    """Does it state a goal the writer works towards ("my plan: …", "I'm training for …",
    "我在备考…")?"""
    return bool(_GOALS.search(text[:HEAD_CHARS]))


def is_question(text: str) -> bool:
    """Does the message ask something ("…?", "…吗")?"""
    return bool(_ASKED.search(text[:HEAD_CHARS]))


def only_asks(text: str) -> bool:
    """Does the message only ask, saying nothing of its own ("What is the square root of
    7569?", "今天几号？"): one line, one question, no sentence before it?"""
    said = text.strip()
    return (
        bool(_ASKED.search(said[-3:]))
        and "\n" not in said
        and not _SENTENCE_END.search(said[:-1])
        and len(_ASKED.findall(said)) == 1
    )


# What opens a request for the assistant to do something ("Write a reply to my plumber …",
# "List four ideas …", "帮我给同事写封邮件…", "介绍一下光合作用的过程。").
_REQUEST_EN = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:write|draft|compose|list|name|explain|describe|summari[sz]e"
    r"|suggest|recommend|translate|define|compare|calculate|convert|find|create"
    r"|(?:give|tell|show|help|make)\s+me)\b"
)
_REQUEST_ZH = re.compile(
    r"^\s*(?:请|麻烦)?你?(?:帮我|帮忙|给我|替我|写|列出|列举|解释|介绍|推荐|翻译|总结|概括|说说"
    r"|讲讲|告诉我|算一下|计算|比较)"
)


# The user as who does or is something ("I have two weeks", "小林是我的名字"), not as whom a
# request is for ("give me", "帮我", "my dentist").
_SAYS_OF_SELF = re.compile(
    r"(?i)\b(?:I|I'm|I've|I'd|I'll|we|we're|we've)\b|(?<![帮给替诉为])我(?!的)"
)


def only_requests(text: str) -> bool:
    """Does the message only ask the assistant to do something, in one sentence on one line,
    saying nothing of the user and giving no instruction for later ("Write a note to the
    school saying the twins will be late on Monday.", "介绍一下光合作用的过程。")?"""
    said = text.strip()
    return (
        bool(_REQUEST_EN.match(said) or _REQUEST_ZH.match(said))
        and "\n" not in said
        and not _SENTENCE_END.search(said[:-1])
        and not _ASKED.search(said[:-1])
        and not _SAYS_OF_SELF.search(said)
        and not is_instruction(said)
    )


# A Chinese message that asks for several things ("喝绿茶有哪些好处？", "给我一些建议"), for an
# embedder that reads no Chinese: a list question shares no phrase with another one.
_LIST_ZH = re.compile(
    r"列出|列举|哪些|一些建议|几条建议|有什么(?:好的?)?(?:好处|方法|建议|办法|技巧)"
)
# The words :data:`_LIST_ZH` looks for, as a keyword search for the texts that ask for a list.
LIST_WORDS_ZH = "列出 列举 哪些 建议 好处 方法 办法 技巧"


def asks_for_list(text: str) -> bool:
    """Does a Chinese message ask for several things ("列出三种省电的办法", "喝绿茶有哪些好处？",
    "怎么学好吉他？给我一些建议。")?"""
    return bool(_LIST_ZH.search(text[:HEAD_CHARS]))


# Not "how long": it asks for a duration ("4 years"), and with days in its notes the 0.5B
# answered one with a date.
_WHEN = re.compile(
    r"(?i)\bwhen\b|\b(?:what|which)\s+(?:date|day|year|month|week)\b"
    r"|什么时候|何时|哪天|哪一天|哪年|哪一年|几月|几号"
)


def asks_when(text: str) -> bool:
    """Does it ask when something happened ("When did I see the dentist?", "我什么时候去的杭州？")?
    The earlier messages recalled for it then carry their day."""
    return is_question(text) and bool(_WHEN.search(text[:HEAD_CHARS]))


def asks_about_answers(text: str) -> bool:
    """Does it ask what the assistant said before ("what did you suggest …", "你上次推荐的…")?"""
    return bool(_ANSWERED.search(text))


def states_preference(text: str) -> bool:
    """Does it say what the writer likes, avoids or needs ("I prefer …", "I'm allergic …",
    "我不吃辣")?"""
    return bool(_LIKES.search(text[:HEAD_CHARS]))
