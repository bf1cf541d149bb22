"""Corrections and standing instructions beyond "no, that's wrong", in English and Chinese.

How the user wants answers from now on ("next time …", "please always …", "don't …", "以后…",
"不要…", "别再…", "请总是…") is a correction of the answer before it, and so is a fact set right
("actually I moved to Berlin", "其实我搬到柏林了"). A question that only contains such words
("don't you think …?", "下次奥运会在哪里？") is none, and neither is a plain request.
"""

from __future__ import annotations

import pytest

from engram.assistant import intent
from engram.assistant.intent import is_instruction, read, unframed

INSTRUCTIONS = """
Next time, use the calculator tool.
Please always answer in metric units.
Don't use emojis.
From now on, keep answers short.
Stop adding disclaimers to every answer.
When you list things, use bullet points starting with '- ', one per line, no numbering.
Use the calculator tool for any arithmetic instead of working it out in your head.
Please use bullet points starting with '- ', one per line, no numbering.
Keep it to one sentence, no lists.
Sign messages you write for me with 'Best regards, Mia'. Mia is my name.
Write dates as YYYY-MM-DD, for example 1989-11-09. That's how I file everything.
Temperatures in Celsius, please. My oven only shows °C.
For weekdays and dates always use the date tool; don't guess.
No emojis in anything you write for me.
以后请用公斤。
下次记得写日期格式。
不要用表情符号。
别再用英里了。
请总是用中文回答。
以后都用公斤
重量请用公斤说，不要用斤或者磅。
日期请写成 YYYY-MM-DD 的格式，比如 1997-07-01，我整理资料都用这个格式。
价格请换算成人民币（元）告诉我，我对美元没概念。
解释的时候第一行先写“总结：”加一句话概括，然后再展开。
列举的时候，请用“- ”开头的项目符号，每行一条，不要编号。
以后列举的时候用“- ”开头。
帮我写的消息最后请署名“此致，小林”，小林是我的名字。
下次写邮件的时候署名都写小林。
""".strip().splitlines()
CORRECTIONS = """
Actually I moved to Berlin.
其实我搬到柏林了。
帮我写的东西里不要用表情符号。
""".strip().splitlines()
NEITHER = """
Don't you think it's cold today?
Why don't birds fall off branches?
Do you always answer so fast?
Never mind.
I don't like mobile games.
I follow a strict gluten-free and dairy-free diet due to severe intolerances.
Write a short message to my landlord saying the heating in my flat is broken.
List three ways to save energy at home.
Give me some tips for better sleep.
Write a short story about a cat, no dragons.
I have two cats, no dogs.
Use the calculator for this one.
Stop the timer
What is actually in a croissant?
以后会下雨吗？
下次奥运会在哪里？
为什么不要用微波炉加热鸡蛋？
不要紧吧？
我以后想当医生。
以后再说吧。
以后我每天都要跑步。
以后的事情谁也说不准。
其实这个问题很简单吗？
推荐一个20分钟能做好的素食晚餐。
帮我给房东写条消息，说家里的热水器坏了。
谢谢，很有用！我最喜欢用豆腐做的快手菜。
""".strip().splitlines()


@pytest.mark.parametrize("text", INSTRUCTIONS)
def test_a_standing_instruction_is_a_correction(text: str) -> None:
    assert is_instruction(text)
    assert read(text).correction


@pytest.mark.parametrize("text", CORRECTIONS)
def test_a_fact_set_right_is_a_correction(text: str) -> None:
    assert read(text).correction


@pytest.mark.parametrize("text", NEITHER)
def test_questions_requests_and_statements_are_not_corrections(text: str) -> None:
    assert not is_instruction(text)
    assert not read(text).correction


@pytest.mark.parametrize(
    ("said", "wanted"),
    [
        ("No, that's wrong: I think in kilometres.", "I think in kilometres."),
        ("That is not correct. It is 42.", "It is 42."),
        ("No, that's wrong for me: always give distances in kilometres.",
         "Always give distances in kilometres."),
        ("Nope — in Celsius please", "In Celsius please"),
        ("不对，重量请用公斤说，不要用斤或者磅。", "重量请用公斤说，不要用斤或者磅。"),
        ("错了！用公斤。", "用公斤。"),
        # nothing to take off: the words stay as they were
        ("No emojis in anything you write for me.", "No emojis in anything you write for me."),
        ("Wrong units. Use km.", "Wrong units. Use km."),
        ("Please give distances in kilometres, not miles.",
         "Please give distances in kilometres, not miles."),
        ("No.", "No."),
        ("不要用表情符号。", "不要用表情符号。"),
    ],
)  # fmt: skip
def test_a_corrections_opening_is_not_part_of_what_the_user_wants(said: str, wanted: str) -> None:
    """A lesson in the user's words starts with what they want: with "不对，" in front the real
    0.5B passed 3 of the 18 Chinese tests a lesson governs, without it 5
    (bench/lesson_following.py)."""
    assert unframed(said) == wanted


def test_a_question_about_what_the_assistant_said_is_told_from_a_request() -> None:
    asks = [
        "What did you recommend for dinner last week?",
        "What was your suggestion for the trip?",
        "You said it was 5 km, right?",
        "Did you tell me about the museum?",
        "你上次推荐的餐厅叫什么？",
        "你之前说过什么？",
    ]
    requests = [
        "Can you give me a recipe?",
        "Could you tell me the time?",
        "I told you I am vegan.",
        "What is the capital of Canada?",
        "你能推荐一本书吗",
        "你给我写一首诗",
        "你说得对",
        # About the user's own plan, not the assistant's words: given its earlier answers, the
        # 0.5B copied one ("TL;DR: To finish the Duolingo basics, you can use the calculator").
        "Remind me, what's my next step with Spanish?",
    ]
    assert [intent.asks_about_answers(t) for t in asks] == [True] * len(asks)
    assert [intent.asks_about_answers(t) for t in requests] == [False] * len(requests)


@pytest.mark.parametrize(
    ("text", "asks_only"),
    [
        ("What is the square root of 7569?", True),
        ("Is 2.5 kg a lot?", True),
        ("今天几号？", True),
        ("你好吗", True),
        ("I have a cat named Tom. What should I feed him?", False),
        ("Hi! What time is it?", False),
        ("我住在上海。附近有什么好吃的？", False),
        ("What? Why?", False),
        ("Plan my week, please.", False),
        ("Where do I live?\nI forgot.", False),
    ],
)
def test_a_message_that_only_asks_is_told_from_one_that_also_says_something(
    text: str, asks_only: bool
) -> None:
    assert intent.only_asks(text) is asks_only


@pytest.mark.parametrize(
    ("text", "requests_only"),
    [
        ("Write a note to my colleague Tom asking to swap shifts on Friday.", True),
        ("List three ways to save energy at home.", True),
        ("Give me some tips for better sleep.", True),
        ("解释一下什么是区块链。", True),
        ("帮我给房东写条消息，说家里的热水器坏了。", True),
        # the user says something of themselves, or more than one thing, or for later
        ("Help me plan a trip to Japan, I have two weeks in May.", False),
        ("Recommend a dinner for tonight. I'm vegan.", False),
        ("怎样才能睡得更好？给我一些建议。", False),
        ("帮我写的消息最后请署名“此致，小林”，小林是我的名字。", False),
        ("Next time, list things with bullet points.", False),
        ("Write it shorter\nand in French", False),
        ("I went to Paris last week.", False),
    ],
)
def test_a_message_that_only_requests_is_told_from_one_that_also_says_something(
    text: str, requests_only: bool
) -> None:
    assert intent.only_requests(text) is requests_only


def test_a_chinese_message_asking_for_several_things_is_told_apart() -> None:
    lists = [
        "列出三个提高工作效率的方法。", "经常运动有哪些好处？", "怎样才能睡得更好？给我一些建议。",
        "你去过哪些国家？", "学英语有什么好方法？",
    ]  # fmt: skip
    others = ["加拿大的首都是哪里？", "现在几点？", "你有几个孩子？", "帮我给妹妹写一句生日祝福。"]
    assert [intent.asks_for_list(t) for t in lists] == [True] * len(lists)
    assert [intent.asks_for_list(t) for t in others] == [False] * len(others)
