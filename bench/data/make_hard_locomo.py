"""Write tests/data/hard_locomo.json: a small bilingual LoCoMo-format set that keyword search fails.

The easy set (synthetic_locomo.json) asks with the evidence's own words: BM25 alone finds 0.88 of
it. Here one English and one Chinese conversation of ten sessions each hide their facts among
everyday small talk, and the questions paraphrase (no content word of a single-hop question occurs
in its evidence: checked below), need two turns from different sessions (multi-hop), or name a
time by another event ("the week after the race"). The Chinese questions share a word with their
evidence a little more often, as Chinese users tend to. Deterministic; run:
.venv/bin/python bench/data/make_hard_locomo.py
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "hard_locomo.json"
SESSIONS = 10
FILLER_TURNS = 14  # per session, around the facts

SMALL_TALK_EN = [
    "Morning! Did you sleep well?",
    "Not bad, a bit tired from the week.",
    "The weather keeps changing every hour.",
    "I know, I never know what jacket to wear.",
    "Did you see the news about the bridge repairs?",
    "Yes, the detour adds ten minutes to everything.",
    "I made pancakes this morning, they were a mess.",
    "Messy pancakes still taste good though.",
    "Work has been busy, lots of meetings.",
    "Meetings that could have been emails, right?",
    "I finally cleaned out the fridge.",
    "That always feels like a small victory.",
    "My phone battery dies by noon these days.",
    "Maybe it is time for a new one.",
    "I watched a documentary about deep sea fish.",
    "Those creatures look like aliens.",
    "The neighbours are repainting their fence.",
    "What colour are they going for?",
    "Some kind of pale green, it looks fine.",
    "I need to call my bank about a fee.",
    "Good luck, those calls take forever.",
    "Anyway, how is your week going?",
    "Pretty calm, nothing special to report.",
    "Let's catch up again soon.",
]
SMALL_TALK_ZH = [
    "早上好！昨晚睡得怎么样？",
    "还行，这周有点累。",
    "最近天气变化太快了。",
    "是啊，都不知道该穿什么。",
    "你看到修桥的新闻了吗？",
    "看到了，绕路要多花十分钟。",
    "我今天早上做了煎饼，做得一团糟。",
    "样子不好看也能吃嘛。",
    "最近工作很忙，会议特别多。",
    "很多会其实发个邮件就行。",
    "我终于把冰箱清理干净了。",
    "那种感觉挺有成就感的。",
    "我的手机电池中午就没电了。",
    "也许该换个新的了。",
    "我看了一部关于深海鱼的纪录片。",
    "那些鱼长得像外星生物。",
    "邻居在重新刷他们家的围栏。",
    "刷成什么颜色？",
    "浅绿色，看起来还不错。",
    "我得给银行打电话问一笔手续费。",
    "祝你好运，那种电话要等很久。",
    "对了，你这周过得怎么样？",
    "挺平静的，没什么特别的事。",
    "改天再聊！",
]

# Facts per conversation: (session, speaker 0/1, text). Questions refer to facts by index.
EN_FACTS = [
    (0, 0, "We finally brought home a little tabby from the shelter last weekend."),
    (1, 0, "I signed the papers, from next month I teach chemistry at the high school."),
    (2, 0, "My brother Tom lives in Porto now, he loves the tiles there."),
    (3, 0, "I ran my first half marathon on Sunday, my legs are still sore."),
    (4, 0, "After the race I spent the whole week repainting the spare bedroom blue."),
    (5, 0, "Tom just became a dad, a baby girl called Lucia!"),
    (6, 0, "The doctor told me to cut out peanuts completely, I react badly to them."),
    (7, 0, "I bought a secondhand cello and started lessons with a retired violinist."),
    (8, 0, "We booked ten days in Iceland for the autumn, chasing the northern lights."),
    (9, 0, "Sadly the cello teacher moved away, so I practise alone with videos now."),
]
EN_QUESTIONS = [
    ("What pet did Maya adopt?", "a cat (a tabby)", [0], 4),
    ("What is Maya's new job?", "chemistry teacher", [1], 4),
    ("Which food is Maya allergic to?", "peanuts", [6], 4),
    ("Which instrument does Maya play?", "cello", [7], 4),
    ("Where is Maya going on holiday?", "Iceland", [8], 4),
    ("In which city was Maya's niece born?", "Porto", [2, 5], 1),
    ("Who teaches Maya music these days?", "nobody: she learns from videos", [7, 9], 1),
    ("What did Maya do the week after the race?", "repainted the spare bedroom", [3, 4], 2),
    ("When did Maya run a long-distance event?", "on a Sunday in session 4", [3], 2),
    ("Why might Maya avoid satay sauce?", "she is allergic to peanuts", [6], 3),
]
ZH_FACTS = [
    (0, 0, "我们上周末从救助站领养了一只小橘猫。"),
    (1, 0, "新工作的合同签好了，下个月起我在中学教化学。"),
    (2, 0, "我哥哥阿明现在住在厦门，他很喜欢那里的海。"),
    (3, 0, "周日我跑完了人生第一个半程马拉松，腿还在酸。"),
    (4, 0, "比赛之后那一周，我把客房墙刷成了蓝色。"),
    (5, 0, "阿明当爸爸了，是个女儿，叫朵朵！"),
    (6, 0, "医生说我对花生严重过敏，必须完全不吃。"),
    (7, 0, "我买了一把二手大提琴，跟一位退休的小提琴老师上课。"),
    (8, 0, "我们订了秋天去冰岛的十天行程，想看极光。"),
    (9, 0, "可惜大提琴老师搬走了，现在我只能跟着视频自己练。"),
]
ZH_QUESTIONS = [
    ("小林养了什么宠物？", "一只橘猫", [0], 4),
    ("小林的新工作是什么？", "中学化学老师", [1], 4),
    ("小林对什么食物过敏？", "花生", [6], 4),
    ("小林在学什么乐器？", "大提琴", [7], 4),
    ("小林打算去哪里度假？", "冰岛", [8], 4),
    ("小林的侄女出生在哪个城市？", "厦门", [2, 5], 1),
    ("现在谁教小林音乐？", "没有人，她跟视频自学", [7, 9], 1),
    ("比赛后的那一周小林做了什么？", "把客房刷成蓝色", [3, 4], 2),
    ("小林为什么要避开沙爹酱？", "她对花生过敏", [6], 3),
]
_EN_WORD = re.compile(r"[a-z]+")
_EN_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "what",
        "which",
        "who",
        "why",
        "when",
        "where",
        "how",
        "is",
        "are",
        "was",
        "were",
        "did",
        "do",
        "does",
        "in",
        "on",
        "at",
        "to",
        "of",
        "for",
        "maya",
        "maya's",
        "s",
        "new",
        "these",
        "days",
    ]
)


def _content(text: str) -> set[str]:
    """Content word stems (first five letters) of an English text."""
    return {w[:5] for w in _EN_WORD.findall(text.lower()) if w not in _EN_STOP}


def conversation(
    sample_id: str,
    speakers: tuple[str, str],
    facts: list[tuple[int, int, str]],
    questions: list[tuple[str, str, list[int], int]],
    talk: list[str],
    rng: random.Random,
) -> dict[str, object]:
    conv: dict[str, object] = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    start = datetime(2024, 3, 2, 10, 0)
    where: dict[int, str] = {}
    for s in range(SESSIONS):
        when = start + timedelta(days=9 * s, hours=rng.randint(0, 8))
        conv[f"session_{s + 1}_date_time"] = when.strftime("%-I:%M %p on %-d %B, %Y").lower()
        lines = rng.sample(talk, FILLER_TURNS)  # no line twice in a session
        mine = [(n, f) for n, f in enumerate(facts) if f[0] == s]
        for n, (_, _, text) in mine:
            slot = rng.randint(3, len(lines) - 3)
            lines.insert(slot, f"\x00{n}\x00{text}")
        turns = []
        for t, line in enumerate(lines):
            dia = f"D{s + 1}:{t + 1}"
            if line.startswith("\x00"):
                _, n, text = line.split("\x00")
                where[int(n)] = dia
                speaker = speakers[facts[int(n)][1]]
            else:
                text, speaker = line, speakers[t % 2]
            turns.append({"speaker": speaker, "dia_id": dia, "text": text})
        conv[f"session_{s + 1}"] = turns
    qa = [
        {"question": q, "answer": a, "evidence": [where[n] for n in ev], "category": c}
        for q, a, ev, c in questions
    ]
    return {"sample_id": sample_id, "conversation": conv, "qa": qa}


def main() -> None:
    for question, _, evidence, category in EN_QUESTIONS:
        if category == 4:  # paraphrased: no content word shared with the evidence
            shared = _content(question) & set().union(*(_content(EN_FACTS[n][2]) for n in evidence))
            assert not shared, (question, shared)
    rng = random.Random(15)
    data = [
        conversation("hard-en", ("Maya", "Sam"), EN_FACTS, EN_QUESTIONS, SMALL_TALK_EN, rng),
        conversation("hard-zh", ("小林", "阿杰"), ZH_FACTS, ZH_QUESTIONS, SMALL_TALK_ZH, rng),
    ]
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {sum(len(d['qa']) for d in data)} questions")


if __name__ == "__main__":
    main()
