"""What recall puts in front of the model beyond plain relevance: the stated preferences closest to
the message whatever their similarity, never an earlier answer the user marked wrong, a tool's
result or a bare question about something else (real SQLite, sqlite-vec and MiniLM)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant.turn import recall as recall_mod
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.memory import embed
from engram.memory.episodes import EpisodeLog
from engram.memory.kinds import FACT, LESSON, PREFERENCE
from engram.memory.outcomes import Outcomes
from engram.memory.store import MemoryStore
from test_consolidation_support import minilm
from test_lessons import KmChat


@pytest.fixture(scope="module")
def vectors(starter_models: Path) -> embed.FastEmbedder:
    return minilm(starter_models)


@pytest.fixture
def store(tmp_path: Path, vectors: embed.FastEmbedder) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(tmp_path / "m.sqlite3", vectors)
    yield opened
    opened.conn.close()


def _count(text: str) -> int:
    return len(text) // 4 + 1


def _caught_up(store: MemoryStore) -> Recall:
    """Recall after the messages stored so far were embedded, as a turn does before it recalls."""
    recall = Recall(store, _count)
    recall.catch_up()
    return recall


def lessons(store: MemoryStore, message: str) -> set[int | None]:
    """The lessons recalled for ``message``."""
    found = _caught_up(store).recall(message, 384)
    return {i.memory_id for i in found if i.label == LESSON}


PREFERENCES = [
    ("I follow a strict gluten-free diet.", "food, restaurants, cafés, recipes, eating out"),
    ("I prefer to adopt pets from shelters.", "pets, dogs, cats, animals, adoption"),
    ("I like quiet jazz while I work.", "music, concerts, playlists, focus"),
    ("I avoid flying; I take trains.", "travel, trips, holidays, transport"),
    ("I wear nothing made of leather or wool.", "clothes, fashion, shoes, shopping"),
]


def _prefer(store: MemoryStore, content: str, applies_to: str) -> int:
    vector = store.space.embed([f"{content} Applies to: {applies_to}."])
    memory = store.add(
        content, PREFERENCE, origin="local", meta={"applies_to": applies_to.split(", ")},
        vector=vector,
    )  # fmt: skip
    return memory.id


def test_the_closest_preferences_go_in_whatever_their_similarity(store: MemoryStore) -> None:
    ids = {content: _prefer(store, content, where) for content, where in PREFERENCES}
    store.add("The user's sister lives in Lyon.", FACT, origin="local")
    query = "Can you recommend a nice café in San Francisco for brunch?"
    # The diet shares no word with the question and is far from it by plain similarity...
    plain = store.search(query, k=10)
    diet = next(h for h in plain if h.memory.id == ids[PREFERENCES[0][0]])
    assert diet.text_rank is None and (diet.similarity or 0) < store.floors(query).relevant
    # ...yet it is recalled, with at most PREFERENCES preferences, the unrelated fact left out.
    found = _caught_up(store).recall(query, budget=384)
    chosen = [i for i in found if i.label == PREFERENCE]
    assert ids[PREFERENCES[0][0]] in {i.memory_id for i in chosen}
    assert len(chosen) == recall_mod.PREFERENCES
    assert all(i.label != FACT for i in found)
    # A preference left out by the caller (e.g. a lesson-free condition) stays out.
    again = _caught_up(store).recall(query, 384, exclude_memories={ids[PREFERENCES[0][0]]})
    assert ids[PREFERENCES[0][0]] not in {i.memory_id for i in again}


def test_the_assistants_own_answers_are_recalled_only_once_accepted_or_asked_about(
    store: MemoryStore,
) -> None:
    log = EpisodeLog(store.conn)
    first = log.new_conversation("units").id
    asked = log.append(first, "user", "How long is the Golden Gate Bridge in kilometres?").id
    wrong = log.append(first, "assistant", "The Golden Gate Bridge is 1.7 miles long.").id
    second = log.new_conversation("again").id
    log.append(second, "user", "And the Golden Gate Bridge's length in km, please?")
    right = log.append(second, "assistant", "About 2.7 km from one end to the other.").id
    query = "How long is the Golden Gate Bridge?"

    def recalled(text: str = query) -> set[int | None]:
        return {i.episode_id for i in _caught_up(store).recall(text, 384)}

    # The small model's own words are no notes: it copied them ("1.7 miles" again).
    assert asked in recalled() and not {wrong, right} & recalled()
    # Asked what the assistant said, its answers count; one marked wrong never does.
    Outcomes(store).record(wrong, "thumbs_down", positive=False)
    about = "What did you tell me about the Golden Gate Bridge's length?"
    assert right in recalled(about) and wrong not in recalled(about)
    Outcomes(store).record(right, "thumbs_up", positive=True)  # an accepted answer is a note
    assert right in recalled() and wrong not in recalled()
    Outcomes(store).record(right, "correction", positive=False)  # turned down later: out
    assert right not in recalled(about)


def test_a_tools_result_and_another_bare_question_are_no_notes(store: MemoryStore) -> None:
    """The 0.5B, given an earlier chat's "What is the square root of 7569?" and the calculator's
    result, answered that instead of the sum it was asked."""
    log = EpisodeLog(store.conn)
    earlier = log.new_conversation("roots").id
    question = log.append(earlier, "user", "What is the square root of 7569 by calculation?").id
    result = log.append(earlier, "tool", 'calculator {"expression": "sqrt(7569)"} → 87').id
    told = log.append(earlier, "user", "I calculate my budget by hand every Sunday.").id
    same = log.append(earlier, "user", "Calculate (45 + 55) * 12 / 4 in euros, please?").id

    def recalled(text: str) -> set[int | None]:
        return {i.episode_id for i in _caught_up(store).recall(text, 384)}

    found = recalled("Calculate (45 + 55) * 12 / 4.")
    assert told in found and same in found  # what the user said; the same question asked
    assert question not in found and result not in found
    assert question in recalled("What was the square root of 7569 by calculation?")


def test_another_bare_request_is_no_note(store: MemoryStore) -> None:
    """Given "Write a short message to my landlord …" and "Write a note to my colleague Tom …"
    as notes for a thank-you note to the dentist, the 0.5B wrote of the heating and the shifts."""
    log = EpisodeLog(store.conn)
    earlier = log.new_conversation("notes").id
    landlord = log.append(earlier, "user", "Write a short note to my landlord saying the "
                          "heating in my flat is broken.").id  # fmt: skip
    told = log.append(earlier, "user", "My dentist fitted me in last week, which was kind.").id
    same = log.append(earlier, "user", "Write a thank-you note to my dentist, please.").id
    found = {
        i.episode_id
        for i in _caught_up(store).recall("Write a short thank-you note to my dentist.", 384)
    }
    assert told in found and same in found  # what the user said; the same request made
    assert landlord not in found


_OPTIONS = (
    "I'm trying to decide on this and here are 4 options for my query:\n{options}\n"
    "Pick the one option that best fits me as your top recommendation. Reply with its letter"
    " only (A, B, C or D), like <choice>X</choice>."
)


def test_an_earlier_message_filling_the_same_template_with_something_else_is_no_note(
    store: MemoryStore,
) -> None:
    """One multiple-choice question was recalled for every later one on the template's words,
    and Qwen2.5-Coder-1.5B answered them with the earlier question's letters."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("asked").id
    running = log.append(chat, "user", (
        "What sports nutrition products could help my long-distance running?\n\n"
        + _OPTIONS.format(options="A. Beef jerky.\nB. Whey protein.\nC. Plant-based bars.")
    )).id  # fmt: skip
    marathon = log.append(chat, "user", (
        "Which shoes suit my long-distance running on trails?\n\n"
        + _OPTIONS.format(options="A. Trail running shoes.\nB. Sandals.\nC. Boots.")
    )).id  # fmt: skip
    told = log.append(chat, "user", "I pick the option that best fits my budget, always.").id
    skincare = "What anti-aging serums would you recommend for me?\n\n" + _OPTIONS.format(
        options="A. Retinol serum.\nB. Caviar serum.\nC. Vitamin C serum."
    )
    running_again = (
        "What should I eat before my long-distance running races?\n\n"
        + _OPTIONS.format(options="A. Pasta.\nB. Steak.\nC. Plant-based energy bars.")
    )

    def recalled(text: str) -> set[int | None]:
        return {i.episode_id for i in _caught_up(store).recall(text, 384)}

    assert recalled(skincare).isdisjoint({running, marathon})  # the same form, another matter
    assert told in recalled(skincare)  # a message that shares no whole sentence still counts
    found = recalled(running_again)  # filled in with the same matter: still a note
    assert running in found and marathon in found


def test_a_message_comes_beside_its_hit_or_not_at_all(store: MemoryStore) -> None:
    """The question "Tell me about Hangzhou" was recalled for "Name a colour": the answer after it
    (no note itself) matched "name", and its neighbour came with those signals."""
    log = EpisodeLog(store.conn)
    city = log.new_conversation("city").id
    asked = log.append(city, "user", "Tell me about Hangzhou").id
    log.append(city, "assistant", "Its name is Hangzhou, a colour-rich city by West Lake.")
    family = log.new_conversation("family").id
    sister = log.append(family, "user", "My sister Anna lives in Porto.").id
    then = log.append(family, "user", "She teaches piano there and loves it.").id

    def recalled(text: str) -> set[int | None]:
        return {i.episode_id for i in _caught_up(store).recall(text, 384)}

    assert asked not in recalled("Name a colour")
    assert {sister, then} <= recalled("Where does my sister Anna live?")  # a hit brings its own


def test_the_one_relevant_message_of_a_new_user_is_recalled(store: MemoryStore) -> None:
    """Alone in its pool, a message's standardised score is 0: it still counts."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("first").id
    said = log.append(chat, "user", "My sister Anna lives in Porto and teaches piano.").id
    found = _caught_up(store).recall("Where does my sister Anna live?", 384)
    assert [i.episode_id for i in found] == [said]


def test_a_lesson_that_only_shares_a_word_with_the_message_stays_out(store: MemoryStore) -> None:
    """ "… instead of working it out" shares "work" with "Explain how vaccines work": a word is
    not enough when the meaning is unrelated; a lesson about the message's own situation, sharing
    a word with it, still comes."""
    calculator = (
        "Use the calculator tool for any arithmetic instead of working it out in your head."
    )
    asked = "What's 17.5% of 2,340?"
    vector = store.space.embed([f"{calculator}\n{asked}"])
    kept = store.add(
        calculator, LESSON, origin="local", meta={"applies_to": [asked]}, vector=vector
    ).id
    dates = "Write dates as YYYY-MM-DD, for example 1989-11-09."
    when = "When did the Berlin Wall fall?"
    vector = store.space.embed([f"{dates}\n{when}"])
    dated = store.add(dates, LESSON, origin="local", meta={"applies_to": [when]}, vector=vector).id

    assert kept not in lessons(store, "Explain how vaccines work.")
    assert kept not in lessons(store, "What should I work on next for my Spanish?")
    assert kept in lessons(store, "What's 12% of 950?")
    assert dated in lessons(store, "When did Apollo 11 land on the Moon?")  # "When", close enough


def test_a_lesson_comes_to_the_questions_of_its_situations_and_not_to_others(
    store: MemoryStore,
) -> None:
    """The bullet-point lesson the real 1.5B stored scored 0.13 against "What are the main
    benefits of regular exercise?" by the one vector of its words and its question, and never
    reached that answer; its question alone scores 0.35: each situation has its own vector."""
    bullets = "When you list things, use bullet points starting with '- ', one per line."
    places = ["List three ways to save energy at home", "When you list things"]
    vector = store.space.embed([f"{bullets} ({'; '.join(places)})"])
    lesson = store.add(
        bullets, LESSON, origin="local", meta={"applies_to": places}, vector=vector
    ).id
    store.add("The user's sister lives in Lyon.", FACT, origin="local")

    assert lesson in lessons(store, "What are the main benefits of regular exercise?")
    assert lesson in lessons(store, "Give me some tips for better sleep.")
    assert lesson not in lessons(store, "What is the capital of Canada?")
    assert lesson not in lessons(store, "When did Apollo 11 land on the Moon?")


def test_a_lesson_comes_to_a_message_with_a_word_of_its_root(store: MemoryStore) -> None:
    """ "Start every explanation …" shares no indexed word with "Explain what inflation is."
    (the index stems "temperatures", not "explanation"): a word of the same root counts as a
    shared word, with the same floor of meaning; a word of another root does not."""
    tldr = "Start every explanation with a one-line 'TL;DR:' summary, then the details."
    places = ["Explain what a VPN does"]
    vector = store.space.embed([f"{tldr} ({'; '.join(places)})"])
    lesson = store.add(tldr, LESSON, origin="local", meta={"applies_to": places}, vector=vector).id

    assert lesson in lessons(store, "Explain what inflation is.")
    assert lesson in lessons(store, "Explain how vaccines work.")
    assert lesson not in lessons(store, "What is the capital of Canada?")
    assert lesson not in lessons(
        store, "Every morning I start with a run: plan my week of training."
    )


def test_in_a_language_the_embedder_cannot_read_only_shared_words_count(
    store: MemoryStore, vectors: embed.FastEmbedder
) -> None:
    """MiniLM reads English only: Chinese texts sit close to each other whatever they say, so a
    Chinese question got every lesson and a dozen messages. Told its languages, recall keeps
    only what shares words with the question there, and English as before."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation("米").id
    rice = log.append(chat, "user", "我买了一袋五公斤的大米。").id
    log.append(chat, "user", "周末我想去爬山。")
    weight = "重量请用公斤说，不要用斤或者磅。"
    vector = store.space.embed([f"{weight}\n一个大西瓜一般有多重？"])
    lesson = store.add(weight, LESSON, origin="local", vector=vector).id
    asked = "一袋大米通常有多重？"
    blind = _caught_up(store).recall(asked, 384)  # the catalogue did not say: as before
    assert lesson in {i.memory_id for i in blind}
    heavy = "How heavy is my bag of rice? Weights in kilograms, please."
    log.append(chat, "user", "My bag of rice weighs five kilograms.")
    before = _caught_up(store).recall(heavy, 384)
    assert before
    vectors.languages = ("en",)  # all-minilm-l6-v2-int8 in the catalogue
    try:
        found = _caught_up(store).recall(asked, 384)
        # 大米 is shared (its neighbour comes along); the lesson shares no word
        assert rice in {i.episode_id for i in found} and all(i.memory_id is None for i in found)
        assert _caught_up(store).recall(heavy, 384) == before  # English: read as before
    finally:
        vectors.languages = ()


def _lesson(store: MemoryStore, words: str, situation: str) -> int:
    """A lesson that applies to ``situation``, its vector embedding both, as learning stores it."""
    return store.add(
        words, LESSON, origin="local", meta={"applies_to": [situation]},
        vector=store.space.embed([f"{words}\n{situation}"]),
    ).id  # fmt: skip


def test_in_a_language_the_embedder_cannot_read_a_lesson_comes_by_a_phrase_of_its_situation(
    store: MemoryStore, vectors: embed.FastEmbedder
) -> None:
    """Chinese, which MiniLM cannot read: the weight lesson shares no word with "一只成年大熊猫有
    多重？", its situation shares the phrase 有多重, and it comes; the summary lesson shares only a
    word (一句, 加) with a birthday wish and a bill, and stays out of them."""
    heavy = _lesson(store, "重量请用公斤说，不要用斤或者磅。", "一个大西瓜一般有多重？")
    first = _lesson(
        store, "解释的时候第一行先写“总结：”加一句话概括，然后再展开。", "解释一下什么是区块链"
    )
    vectors.languages = ("en",)
    try:
        assert lessons(store, "一只成年大熊猫有多重？") == {heavy}
        assert lessons(store, "解释一下疫苗是怎么起作用的。") == {first}
        assert lessons(store, "帮我给妹妹写一句生日祝福。") == set()
        assert lessons(store, "账单是86.40元，加15%的服务费是多少钱？") == set()
    finally:
        vectors.languages = ()


def test_in_chinese_a_lesson_for_a_list_question_comes_to_another_list_question(
    store: MemoryStore, vectors: embed.FastEmbedder
) -> None:
    """The list questions "经常运动有哪些好处？" and "怎样才能睡得更好？给我一些建议。"
    share no phrase with "列出三个提高工作效率的方法": the bullet-point lesson reached
    neither in tasks-zh."""
    words = "列举的时候请用“- ”开头的项目符号，每行一条，不要编号。"
    bullets = _lesson(store, words, "列出三个提高工作效率的方法")
    _lesson(store, "太长了。简单的事实问题，用一句短话回答就行。", "澳大利亚的首都是哪里？")
    vectors.languages = ("en",)
    try:
        assert lessons(store, "经常运动有哪些好处？") == {bullets}
        assert lessons(store, "怎样才能睡得更好？给我一些建议。") == {bullets}
        assert bullets not in lessons(store, "北京奥运会是哪一天开幕的？")
        assert bullets not in lessons(store, "帮我给妹妹写一句生日祝福。")
    finally:
        vectors.languages = ()


def test_a_question_asked_in_many_chats_leaves_room_for_the_message_that_answers_it(
    store: MemoryStore,
) -> None:
    """Asked in twelve chats, the same question filled every place of the search and the
    message that said when was never recalled."""
    log = EpisodeLog(store.conn)
    told = "I went to the dentist yesterday, she fixed a filling."
    log.append(log.new_conversation("dentist").id, "user", told)
    question = "When did I go to the dentist?"
    for n in range(12):
        asked = log.new_conversation(f"asked {n}").id
        log.append(asked, "user", question if n % 2 else f"  {question.lower()} ")
        log.append(asked, "assistant", "I do not know that yet.")
    items = _caught_up(store).recall(question, 600)
    said = [" ".join(item.content.split()).casefold() for item in items]
    assert told.casefold() in said
    assert said.count(question.casefold()) <= 1  # the same words count once


def test_recall_only_reads_and_a_turn_embeds_what_was_stored_before_it(
    store: MemoryStore,
) -> None:
    """A search writes nothing (no vector, no row): the turn embeds the messages stored since
    the last answer before it recalls, for a sent message and a prefetched draft alike."""
    log = EpisodeLog(store.conn)
    chat = log.new_conversation().id
    told = log.append(chat, "user", "My sister Anna moved to Porto last spring.")
    asked = "Where does my sister Anna live now?"
    recall = Recall(store, _count)
    assert store.index is not None and store.index.count("episodes") == 0
    before = store.conn.total_changes()
    recall.recall(asked, 384)
    assert store.conn.total_changes() == before  # the search wrote nothing
    assert store.index.count("episodes") == 0

    assistant = Assistant(EpisodeLog(store.conn), KmChat(), recall=recall)
    assistant.prefetch(0, asked)  # the draft's recall sees the message stored before it
    assert store.index.count("episodes") == 1
    again = log.append(chat, "user", "Anna's flat in Porto looks over the river.")
    prepared = assistant.prepare(asked, [])  # and so does the turn's
    assert store.index.count("episodes") == 2
    assert {told.id, again.id} <= {i.episode_id for i in prepared.items}
