"""Write tests/data/synthetic_locomo.json: a deterministic LoCoMo-format multi-session data set.

Two long conversations with facts that change over time, preferences, dates, Chinese sessions and
questions whose evidence turns are known. In each, the user also states a goal with a plan of steps
and reports progress over later sessions; the plan questions (category 1: they need the plan and
the latest progress) carry ``plan_step``, the step the user is on at the end. The plan turns are
appended to the ends of sessions and their questions to the end of the list, so the other turns'
dia_ids and the other questions stay as they were.
Run: .venv/bin/python bench/data/make_synthetic_locomo.py
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "synthetic_locomo.json"

FILLER_A = [
    "How was your weekend?",
    "I finally cleaned the garage yesterday.",
    "The weather has been strange lately.",
    "I watched a documentary about octopuses.",
    "Work was busy but fine this week.",
    "I tried a new recipe for lentil soup.",
    "My neighbour's kids were loud again.",
    "I have been sleeping better recently.",
    "Traffic this morning was terrible.",
    "I read half a novel on the train.",
]
FILLER_B = [
    "That sounds nice, tell me more.",
    "Oh really? How did that go?",
    "Haha, I know the feeling.",
    "Glad to hear it!",
    "Interesting, I had no idea.",
    "That must have been tiring.",
    "Good for you, honestly.",
    "Same here, it has been a week.",
]
FILLER_ZH = [
    "最近天气有点冷。",
    "这周工作挺忙的。",
    "周末我在家休息。",
    "我昨天看了一部电影。",
    "好的，明白了。",
]

# (statement template, question template, answer template, category)
FACTS = [
    (
        "I just moved to {city} for a new job at the hospital.",
        "Which city did {a} move to for work?",
        "{city}",
        4,
    ),
    (
        "My dog {pet} finally learned to fetch the ball!",
        "What is the name of {a}'s dog?",
        "{pet}",
        4,
    ),
    (
        "I signed up for {hobby} classes every Tuesday evening.",
        "What classes does {a} attend on Tuesdays?",
        "{hobby}",
        4,
    ),
    (
        "Honestly I can't stand coffee, I only drink {drink}.",
        "What does {a} prefer to drink?",
        "{drink}",
        4,
    ),
    (
        "My sister's wedding is on {day} June, I'm so nervous about the speech.",
        "When is the wedding of {a}'s sister?",
        "{day} June",
        2,
    ),
    (
        "I ran my first half marathon in {minutes} minutes last Sunday.",
        "How long did {a}'s first half marathon take?",
        "{minutes} minutes",
        4,
    ),
    (
        "My favourite author is {author}, I reread her books every winter.",
        "Which writer does {a} like most?",
        "{author}",
        4,
    ),
    (
        "I'm allergic to {allergen}, so I always check the menu.",
        "What is {a} allergic to?",
        "{allergen}",
        4,
    ),
    (
        "We booked a trip to {trip} for the autumn holidays.",
        "Where is {a} travelling in the autumn?",
        "{trip}",
        2,
    ),
    (
        "I bought a used {car}, it's blue and surprisingly quiet.",
        "What car did {a} buy?",
        "a used {car}",
        4,
    ),
]
CHANGES = [
    (
        "I got a job as a {job1} at a small clinic.",
        "I quit the clinic, I'm a {job2} at a startup now.",
        "What is {a}'s job now?",
        "{job2}",
    ),
    (
        "I live in a flat on {street1} Street.",
        "We moved out of {street1} Street, our new place is on {street2} Road.",
        "What street does {a} live on now?",
        "{street2} Road",
    ),
]
FACTS_ZH = [
    ("我上周去了杭州看西湖，风景特别美。", "{a}上周去了哪里旅游？", "杭州", 4),
    ("我最喜欢吃的是{food}，每个周末都去买。", "{a}最喜欢吃什么？", "{food}", 4),
    ("我女儿今年九月开始上小学了。", "{a}的女儿什么时候开始上小学？", "今年九月", 2),
    ("我在学弹{instrument}，已经学了三个月。", "{a}在学什么乐器？", "{instrument}", 4),
]
ADVERSARIAL = [
    "What is the name of {a}'s cat?",
    "Which country did {a} live in as a child?",
    "{a}的哥哥叫什么名字？",
]
# Per sample: the plan stated as turns of the user, each with the session it goes into (or the next
# session that is not in Chinese) and the assistant's reply; then questions with their gold answer,
# the step the user is on and the indices of the turns that are their evidence.
PLANS = {
    "syn-1": {
        "turns": [
            (
                2,
                "I've decided to run the Porto marathon in October. My plan has four steps: "
                "first, three easy 5 km runs a week to build a base; then a long run every "
                "Sunday, building up to 30 km; then interval training on Thursdays for speed; "
                "and finally a taper, halving the distance in the last two weeks before the race.",
                "That's a solid plan, good luck with the base weeks!",
            ),
            (
                6,
                "The base weeks are done! This week I start the long Sunday runs.",
                "Nice, take the long runs slowly.",
            ),
            (
                9,
                "I reached 30 km last Sunday, so I'm moving on to interval training on "
                "Thursdays now.",
                "Great progress, the race is getting close.",
            ),
        ],
        "questions": [
            (
                "What should I focus on this week for my marathon training?",
                "interval training on Thursdays",
            ),
            ("Which step of my marathon plan am I on now?", "interval training on Thursdays"),
        ],
        "step": "interval training on Thursdays for speed",
        "evidence": (0, 2),
    },
    "syn-2": {
        "turns": [
            (
                2,
                "I want to apply for a master's in urban planning next year. The plan: pass the "
                "IELTS exam with at least 7.0, write the personal statement, ask two professors "
                "for recommendation letters, and submit the applications before the December "
                "deadline.",
                "That sounds like a clear plan. Good luck with the IELTS!",
            ),
            (
                6,
                "I got 7.5 in the IELTS! Now I'm working on the personal statement.",
                "Congratulations, that's a great score.",
            ),
            (
                9,
                "The personal statement is finished, so next I have to ask two professors for "
                "recommendation letters.",
                "Well done, you're halfway there.",
            ),
        ],
        "questions": [
            (
                "What should I focus on this week for my master's application?",
                "asking two professors for recommendation letters",
            ),
            (
                "Which step of my application plan am I on now?",
                "the recommendation letters from two professors",
            ),
        ],
        "step": "ask two professors for recommendation letters",
        "evidence": (0, 2),
    },
}
VALUES = {
    "city": ["Lisbon", "Porto", "Valencia", "Tallinn"],
    "pet": ["Biscuit", "Pepper", "Mango"],
    "hobby": ["pottery", "salsa dancing", "woodworking"],
    "drink": ["green tea", "oat milk chai"],
    "day": ["14", "21", "7"],
    "minutes": ["118", "124", "131"],
    "author": ["Ursula Le Guin", "Octavia Butler", "Tove Jansson"],
    "allergen": ["peanuts", "shellfish", "sesame"],
    "trip": ["Kyoto", "Iceland", "Patagonia"],
    "car": ["Toyota Corolla", "Honda Civic", "Skoda Octavia"],
    "job1": ["nurse", "receptionist"],
    "job2": ["product designer", "data analyst"],
    "street1": ["Maple", "Harbour"],
    "street2": ["Willow", "Station"],
    "food": ["小笼包", "麻辣烫", "煎饼果子"],
    "instrument": ["古筝", "二胡", "钢琴"],
}


def make_sample(rng: random.Random, sample_id: str, a: str, b: str) -> dict:
    values = {key: rng.choice(options) for key, options in VALUES.items()} | {"a": a}
    n_sessions = 14
    events: dict[int, list[tuple[str, str | None, str | None, int]]] = {}
    slots = list(range(1, n_sessions + 1))
    zh_sessions = set(rng.sample(slots[2:], 3))
    for statement, question, answer, cat in FACTS:
        s = rng.choice([x for x in slots if x not in zh_sessions])
        events.setdefault(s, []).append((statement, question, answer, cat))
    for statement, question, answer, cat in FACTS_ZH:
        s = rng.choice(sorted(zh_sessions))
        events.setdefault(s, []).append((statement, question, answer, cat))
    for first, second, question, answer in CHANGES:
        early = rng.choice(slots[:5])
        late = rng.choice(slots[8:])
        events.setdefault(early, []).append((first, None, None, 0))
        events.setdefault(late, []).append((second, question, answer, 2))
    conversation: dict = {"speaker_a": a, "speaker_b": b}
    qa = []
    start = datetime(2023, 3, 1, 10, 0) + timedelta(days=rng.randint(0, 30))
    for s in slots:
        when = start + timedelta(days=9 * (s - 1) + rng.randint(0, 4), hours=rng.randint(0, 9))
        conversation[f"session_{s}_date_time"] = when.strftime("%-I:%M %p on %-d %B, %Y").lower()
        chinese = s in zh_sessions
        turns: list[tuple[str, str]] = []
        plan = events.get(s, [])
        n_filler = rng.randint(8, 12)
        positions = sorted(rng.sample(range(n_filler + len(plan)), len(plan)))
        evidence_at: dict[int, tuple] = dict(zip(positions, plan, strict=True))
        for i in range(n_filler + len(plan)):
            if i in evidence_at:
                statement, question, answer, cat = evidence_at[i]
                turns.append((a, statement.format(**values)))
                if question:
                    qa.append(
                        {
                            "question": question.format(**values),
                            "answer": answer.format(**values),
                            "evidence": [f"D{s}:{len(turns)}"],
                            "category": cat,
                        }
                    )
                turns.append((b, rng.choice(FILLER_ZH if chinese else FILLER_B)))
            else:
                pool = FILLER_ZH if chinese else FILLER_A
                turns.append((a, rng.choice(pool)))
                turns.append((b, rng.choice(FILLER_ZH if chinese else FILLER_B)))
        conversation[f"session_{s}"] = [
            {"speaker": speaker, "dia_id": f"D{s}:{n}", "text": text}
            for n, (speaker, text) in enumerate(turns, 1)
        ]
    for question in ADVERSARIAL:
        qa.append(
            {
                "question": question.format(**values),
                "adversarial_answer": "not mentioned",
                "evidence": [],
                "category": 5,
            }
        )
    qa += add_plan(conversation, PLANS[sample_id], zh_sessions, a, b)
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def add_plan(conversation: dict, plan: dict, zh_sessions: set[int], a: str, b: str) -> list[dict]:
    """Append the plan's turns to their sessions; the plan questions with their evidence."""
    said = []
    for wanted, statement, reply in plan["turns"]:
        session = min(s for s in range(wanted, wanted + 4) if s not in zh_sessions)
        turns = conversation[f"session_{session}"]
        for speaker, text in ((a, statement), (b, reply)):
            dia_id = f"D{session}:{len(turns) + 1}"
            turns.append({"speaker": speaker, "dia_id": dia_id, "text": text})
        said.append(turns[-2]["dia_id"])
    return [
        {
            "question": question,
            "answer": answer,
            "evidence": [said[i] for i in plan["evidence"]],
            "category": 1,
            "plan_step": plan["step"],
        }
        for question, answer in plan["questions"]
    ]


def main() -> None:
    rng = random.Random(20231)
    samples = [
        make_sample(rng, "syn-1", "Maya", "Tom"),
        make_sample(rng, "syn-2", "Li Wei", "Sara"),
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(samples, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    turns = sum(
        len(v) for s in samples for k, v in s["conversation"].items() if isinstance(v, list)
    )
    print(
        f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {turns} turns, "
        f"{sum(len(s['qa']) for s in samples)} questions)"
    )


if __name__ == "__main__":
    main()
