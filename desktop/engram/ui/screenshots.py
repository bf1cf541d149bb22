"""``engram screenshots DIR``: render Engram's windows offscreen to PNG, in English and Chinese.

The windows run against a throw-away ENGRAM_HOME holding sample conversations and the memories
learned from them, so the user's own data is never shown or touched. Used for the README and to
look at the app without a display.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from engram.assistant.events import Recalled
from engram.core import settings
from engram.core.atomic import output_folder
from engram.ui import i18n, theme
from engram.ui.main_window import MainWindow

# Per language: the conversations (title, messages; the last one is on screen) and the memories
# learned from them (kind, content, importance, index of the source conversation, whether the
# answer on screen was given it). Each language renders in a throw-away home seeded like real use.
Messages = list[tuple[str, str]]
Learned = list[tuple[str, str, float, int, bool]]
SAMPLES: dict[str, tuple[list[tuple[str, Messages]], Learned]] = {
    "en": (
        [
            (
                "Trip to Hangzhou",
                [
                    ("user", "I'm back from Hangzhou! West Lake at sunrise was unforgettable."),
                    ("assistant", "Welcome back! Sunrise over West Lake is a great memory."),
                ],
            ),
            (
                "Training Biscuit",
                [
                    ("user", "My dog Biscuit finally learned to fetch the ball!"),
                    ("assistant", "Well done, Biscuit! Short daily sessions clearly work."),
                ],
            ),
            (
                "Which laptop should I buy for machine learning under 1,500 euros?",
                [
                    ("user", "I need a quiet laptop for ML, 32 GB of RAM, under 1,500 euros."),
                    ("assistant", "Look at 14-inch models with a recent GPU; here are three."),
                ],
            ),
            (
                "Mum's 70th birthday dinner: the restaurant, the guests and the cake",
                [
                    ("user", "Mum turns 70 on 14 December. She doesn't eat anything spicy."),
                    ("assistant", "A Hangzhou restaurant with mild dishes would suit her."),
                ],
            ),
            (
                "Evening routine",
                [
                    ("user", "Remember this: I study for an hour every evening."),
                    ("assistant", "Got it, I'll remember that."),
                ],
            ),
            (
                "Weekly study plan",
                [
                    ("user", "Plan my week: I want to keep learning machine learning."),
                    (
                        "assistant",
                        "Here is a plan that builds on where you left off:\n\n"
                        "1. **Monday** – finish the chapter on *gradient descent*\n"
                        "2. **Wednesday** – train a small model on your own data\n"
                        "3. **Friday** – review what worked, as you prefer, in short notes",
                    ),
                ],
            ),
        ],
        [
            ("fact", "The user visited Hangzhou and loved West Lake at sunrise.", 0.5, 0, False),
            ("fact", "The user's dog is called Biscuit.", 0.6, 1, False),
            ("lesson", "Short daily training sessions work for Biscuit.", 0.6, 1, False),
            ("fact", "The user's budget for a new laptop is 1,500 euros.", 0.5, 2, False),
            ("preference", "The user wants a quiet laptop with 32 GB of RAM.", 0.6, 2, False),
            ("fact", "The user's mother turns 70 on 14 December.", 0.7, 3, False),
            ("preference", "The user's mother does not eat spicy food.", 0.6, 3, False),
            ("fact", "The user studies for an hour every evening.", 0.6, 4, True),
            ("preference", "The user prefers short notes over long explanations.", 0.8, 5, True),
            ("plan", "Learning ML step by step: now at gradient descent.", 0.9, 5, True),
        ],
    ),
    "zh_CN": (
        [
            (
                "杭州之行",
                [
                    ("user", "我从杭州回来了！西湖的日出太美了。"),
                    ("assistant", "欢迎回来！西湖日出确实值得回味。"),
                ],
            ),
            (
                "训练饼干",
                [
                    ("user", "我家的狗饼干终于学会捡球了！"),
                    ("assistant", "饼干真棒！每天短时间练习果然有效。"),
                ],
            ),
            (
                "预算一万元以内，适合学机器学习的笔记本电脑该怎么选？",
                [
                    ("user", "我想买一台安静的笔记本学机器学习，32 GB 内存，一万元以内。"),
                    ("assistant", "可以看看带新款显卡的 14 英寸机型，这里有三款。"),
                ],
            ),
            (
                "妈妈七十岁生日晚宴：餐厅、宾客名单和蛋糕",
                [
                    ("user", "妈妈 12 月 14 日满七十岁，她不吃辣。"),
                    ("assistant", "杭州一家口味清淡的餐厅会很适合她。"),
                ],
            ),
            (
                "晚间习惯",
                [
                    ("user", "记住：我每天晚上学习一小时。"),
                    ("assistant", "好的，我记住了。"),
                ],
            ),
            (
                "本周学习计划",
                [
                    ("user", "帮我安排这周的学习，我想继续学机器学习。"),
                    (
                        "assistant",
                        "按照你上次的进度，这周可以这样安排：\n\n"
                        "1. **周一**：读完*梯度下降*这一章\n"
                        "2. **周三**：用自己的数据训练一个小模型\n"
                        "3. **周五**：按你喜欢的方式，用简短笔记复习",
                    ),
                ],
            ),
        ],
        [
            ("fact", "用户去了杭州旅行，很喜欢西湖的日出。", 0.5, 0, False),
            ("fact", "用户的狗叫饼干。", 0.6, 1, False),
            ("lesson", "每天短时间训练对饼干最有效。", 0.6, 1, False),
            ("fact", "用户买新笔记本电脑的预算是一万元。", 0.5, 2, False),
            ("preference", "用户想要一台安静、32 GB 内存的笔记本。", 0.6, 2, False),
            ("fact", "用户的妈妈 12 月 14 日满七十岁。", 0.7, 3, False),
            ("preference", "用户的妈妈不吃辣。", 0.6, 3, False),
            ("fact", "用户每天晚上学习一小时。", 0.6, 4, True),
            ("preference", "用户喜欢简短的笔记，不喜欢长篇解释。", 0.8, 5, True),
            ("plan", "循序渐进学习机器学习：目前在梯度下降。", 0.9, 5, True),
        ],
    ),
}


# The earlier messages the answer on screen was given besides its memories (chat index, message
# index in SAMPLES): the one "the user studies for an hour every evening" was made from (its chip
# holds it) and one no memory was made from (a chip of its own, a quote).
GIVEN_MESSAGES = [(4, 0), (2, 0)]

# Per language: a learned memory (index in SAMPLES) that learning rewrote later, and its new
# text; the memory browser opens on it, its history showing the earlier text with Undo.
REWRITTEN: dict[str, tuple[int, str]] = {
    "en": (6, "The user's mother eats no spicy food; mild Hangzhou dishes suit her best."),
    "zh_CN": (6, "用户的妈妈不吃辣，口味清淡的杭州菜最适合她。"),
}


@dataclass(frozen=True)
class Details:
    """The chat-details shot of one language: the plan in the plan panel (goal, steps, current
    step), and a new turn: the question, a tool call (arguments, result) and the answer."""

    plan: tuple[str, tuple[str, ...], int]
    question: str
    tool: tuple[str, dict[str, str], str]
    answer: str


DETAILS = {
    "en": Details(
        ("Learn machine learning", ("Linear regression", "Gradient descent",
         "Train a small model", "Review with short notes"), 1),
        "How long until my Friday review? And what is 17.5% of 240?",
        ("calculator", {"expression": "240 * 0.175"}, "42"),
        "17.5% of 240 is **42**. Your review is on Friday, three days from now.",
    ),
    "zh_CN": Details(
        ("学习机器学习", ("线性回归", "梯度下降", "训练一个小模型", "用简短笔记复习"), 1),
        "离周五复习还有几天？另外 240 的 17.5% 是多少？",
        ("calculator", {"expression": "240 * 0.175"}, "42"),
        "240 的 17.5% 是 **42**。你的复习在周五，还有三天。",
    ),
}  # fmt: skip


def _seed(language: str) -> None:
    """Store the sample conversations and the memories learned from them, as real use would."""
    from engram.assistant.memories import write_sample

    conversations, learned = SAMPLES[language]
    goal, steps, current = DETAILS[language].plan
    plan = {"plan": {"goal": goal, "steps": list(steps), "current_step": current}}
    rewritten = REWRITTEN[language]
    write_sample(settings.Settings(), conversations, learned, plan, rewritten, GIVEN_MESSAGES)


@contextmanager
def _sample_home(language: str, seeded: bool = True) -> Iterator[None]:
    """A throw-away ENGRAM_HOME, with the sample data when ``seeded`` (else as on the first
    start: no chats, no memories); models are read from where they are."""
    from engram.core import paths

    saved = {name: os.environ.get(name) for name in ("ENGRAM_HOME", "ENGRAM_MODELS_DIR")}
    models = paths.models_dir()
    with tempfile.TemporaryDirectory(prefix="engram-screenshots-") as home:
        os.environ["ENGRAM_HOME"] = home
        os.environ["ENGRAM_MODELS_DIR"] = str(models)
        try:
            if seeded:
                _seed(language)
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _spin(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _wait(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    """Until ``condition`` holds, or ``timeout`` seconds (a model loads slowly on a busy
    machine, and a window shot before it is ready shows "Loading model…")."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        _spin(50)


def _save(widget: QWidget, path: Path) -> Path:
    _spin(150)
    widget.grab().save(str(path))
    return path


def main_window(language: str, out: Path) -> Path:
    """The chat window on the sample conversation, with the memories its answer was given."""
    window = MainWindow(settings.Settings(language=language))
    window.resize(1000, 680)
    window.show()
    _wait(lambda: window._ready or window.notice.isVisible())
    _wait(lambda: any(b.chips is not None for b in window.chat.bubbles()))
    try:
        return _save(window, out / f"main-window-{language}.png")
    finally:
        window.close()


def chat_details(language: str, out: Path) -> Path:
    """The chat's newer parts on one screen: ten wrapping chips, a tool call unfolded, a tool
    asking for permission, the header with the models and the last answer's numbers, the
    "Memory updated" toast and the plan panel."""
    from engram.assistant.events import Finished, Learned
    from engram.assistant.model_admin import CallStats
    from engram.assistant.tools.permissions import BUILT_IN, Question
    from engram.ui.tool_block import PermissionPrompt, ToolBlock

    details = DETAILS[language]
    learned = SAMPLES[language][1]
    window = MainWindow(settings.Settings(language=language))
    window.resize(1560, 860)  # room for the header: whole model names and numbers
    window.show()
    _wait(lambda: window._ready or window.notice.isVisible())
    _wait(lambda: any(b.chips is not None for b in window.chat.bubbles()))
    try:
        window.plan_button.setChecked(True)
        _wait(lambda: window.plan_panel.plan is not None, 5.0)
        window._splitter.setSizes([240, 1040, 280])
        window.chat.add("user", details.question)
        answer = window.chat.add("assistant", details.answer)
        name, arguments, result = details.tool
        block = ToolBlock(name, arguments)
        block.set_result(result, is_error=False, duration_s=0.004)
        block.header.setChecked(True)
        answer.add_block(block)
        asked = Question("files_read", BUILT_IN, {"path": "notes/ml.md"}, after=(name,))
        answer.add_block(PermissionPrompt(asked))
        # the ten stored memories, as recall ranks them: the ones the answer used first
        ranked = sorted(enumerate(learned, 1), key=lambda pair: not pair[1][4])
        items = [
            Recalled(kind, text, 1.0, time.time(), memory_id=memory_id)
            for memory_id, (kind, text, *_rest) in ranked
        ]
        window.chat.attach_chips(answer, items, items[: sum(m[4] for m in learned)])
        cut = CallStats(1268 - 512, 1200, 512, 512, first_token_s=0.14, total_s=10.7)
        window._show_stats(Finished(answer.episode_id, answer.text, stats=cut, context=4096))
        new, changed = ranked[0], ranked[2]  # learned from the last chat: a fact and the plan
        job = 1  # the learning job that wrote them: its Undo is offered beside Manage
        window._show_learned((
            Learned(new[0], "add", new[1][1], job_id=job),
            Learned(changed[0], "update", changed[1][1], job_id=job),
        ))  # fmt: skip
        answer.actions_row.show()  # as when the pointer is over the answer
        _spin(200)
        window.chat.verticalScrollBar().setValue(window.chat.verticalScrollBar().maximum())
        return _save(window, out / f"chat-details-{language}.png")
    finally:
        window.close()


def memory_browser(language: str, out: Path) -> Path:
    """The memory browser with sample memories, the first one selected: the one learning
    rewrote, its history showing the earlier text with Undo."""
    from engram.ui.memory_browser import MemoryBrowser

    window = MemoryBrowser(settings.Settings(language=language))
    window.resize(1100, 640)
    window.show()
    window.table.selectRow(0)
    _wait(lambda: window.sources.count() > 0)
    try:
        return _save(window, out / f"memory-browser-{language}.png")
    finally:
        window.close()


def settings_dialog(language: str, out: Path) -> Path:
    """The settings dialog, on its cloud tab (where the privacy indicator lives)."""
    from engram.ui.settings_dialog import CLOUD_TAB, SettingsDialog

    cloud = settings.CloudSettings(True, "https://api.example.com/v1", "example-large")
    prefs = settings.Settings(language=language, cloud=cloud)
    dialog = SettingsDialog(prefs)  # at the size it opens with
    dialog.show()
    dialog.tabs.setCurrentIndex(CLOUD_TAB)
    try:
        return _save(dialog, out / f"settings-{language}.png")
    finally:
        dialog.close()


def model_manager(language: str, out: Path) -> Path:
    """The model manager with the catalogue and this machine's recommended pair."""
    from engram.ui.model_manager import ModelManager

    window = ModelManager(settings.Settings(language=language))
    window.resize(1200, 640)
    window.show()
    try:
        return _save(window, out / f"model-manager-{language}.png")
    finally:
        window.close()


# The hub search's sample answer: long repository names as the hub has them, one split file.
HUB_QUERY = "qwen2.5 coder 14b instruct"
HUB_HITS = (
    ("bartowski/Qwen2.5-Coder-14B-Instruct-GGUF", 412_503, 61),
    ("unsloth/Qwen2.5-Coder-14B-Instruct-128K-GGUF", 98_112, 24),
    ("lmstudio-community/Qwen2.5-Coder-14B-Instruct-GGUF", 77_020, 18),
    ("mradermacher/Qwen2.5-Coder-14B-Instruct-abliterated-i1-GGUF", 12_940, 9),
    ("DavidAU/Qwen2.5-Coder-14B-Instruct-MAX-NEO-Imatrix-Uncensored-GGUF", 3_310, 5),
)
HUB_FILES = (
    ("Q3_K_M", (7_339_204_480,)),
    ("Q4_K_M", (8_988_110_976,)),
    ("Q5_K_M", (10_508_873_856,)),
    ("Q6_K", (12_124_684_416,)),
    ("Q8_0", (15_701_597_824,)),
    ("f16", (19_998_388_224, 9_547_108_928)),
)


def model_manager_search(language: str, out: Path) -> Path:
    """The model manager's hub search with sample results (no request is made): repositories
    with long names, the first one's files, and the line after a download with its choices."""
    from engram.assistant.model_admin import GgufFile, Hit, Part
    from engram.ui.model_manager import ModelManager

    window = ModelManager(settings.Settings(language=language))
    window.resize(1200, 640)
    window.show_search()
    page = window.hub
    page.field.setText(HUB_QUERY)
    page.query = HUB_QUERY
    page.show_hits(HUB_QUERY, [Hit(repo, d, likes) for repo, d, likes in HUB_HITS])
    repo = HUB_HITS[0][0]
    page.repo = repo  # chosen already: selecting it asks nothing
    page.repos.selectRow(0)
    stem = "Qwen2.5-Coder-14B-Instruct"
    found = [
        GgufFile(
            repo,
            "0" * 40,
            tuple(
                Part(
                    f"{stem}-{quant}.gguf"
                    if len(sizes) == 1
                    else f"{stem}-{quant}/{stem}-{quant}-{n:05}-of-{len(sizes):05}.gguf",
                    size,
                    None,
                )
                for n, size in enumerate(sizes, 1)
            ),
        )
        for quant, sizes in HUB_FILES
    ]
    page.show_files(repo, found)
    page.show_done(f"{stem}-GGUF, Q4_K_M", ("small", "large"))
    window.show()
    try:
        return _save(window, out / f"model-manager-search-{language}.png")
    finally:
        window.close()


WINDOWS = (
    main_window,
    chat_details,
    memory_browser,
    settings_dialog,
    model_manager,
    model_manager_search,
)


def first_run(language: str, out: Path) -> Path:
    """The first start, in a home with no chats yet: the welcome panel on the starter model,
    the recommended pair and the status bar saying learning starts with a larger model."""
    window = MainWindow(settings.Settings(language=language))
    window.resize(1000, 680)
    window.show()
    _wait(lambda: window._ready or window.notice.isVisible())
    window.new_conversation()
    _wait(window.welcome.isVisible, 5.0)
    try:
        return _save(window, out / f"first-run-{language}.png")
    finally:
        window.close()


def settings_answers(language: str, out: Path) -> Path:
    """The settings dialog's Answers tab: custom instructions and sampling."""
    from engram.ui.settings_dialog import ANSWERS_TAB, SettingsDialog

    about = "I am a nurse in Hangzhou." if language == "en" else "我是杭州的一名护士。"
    dialog = SettingsDialog(settings.Settings(language=language, about_you=about))
    dialog.show()
    dialog.tabs.setCurrentIndex(ANSWERS_TAB)
    try:
        return _save(dialog, out / f"settings-answers-{language}.png")
    finally:
        dialog.close()


def settings_tools(language: str, out: Path) -> Path:
    """The settings dialog's Tools tab: a shared folder, an MCP server with its tools listed
    (sample tools; rendering starts no server), remembered permissions."""
    from engram.ui.settings_dialog import SettingsDialog

    notes = Path("/home/me") / ("Notes" if language == "en" else "笔记")
    tools = settings.ToolSettings(
        disabled=("files_search", "write_note"),
        folders=(str(notes),),
        mcp_servers={"notes": {"command": "npx", "args": ["-y", "notes-mcp", str(notes)]}},
        permissions={"files_read": "always", "write_note": "deny"},
    )
    dialog = SettingsDialog(settings.Settings(language=language, tools=tools))
    page = dialog.tools_page
    page.show_tools(
        "notes", [("search_notes", "Search the notes by words"), ("write_note", "Write a new note")]
    )
    dialog.resize(760, 900)
    dialog.show()
    dialog.tabs.setCurrentWidget(page)
    page.verticalScrollBar().setValue(page.verticalScrollBar().minimum())
    try:
        return _save(dialog, out / f"settings-tools-{language}.png")
    finally:
        dialog.close()


FIRST_RUN = (first_run, settings_answers, settings_tools)  # rendered in an empty home


def render(
    out: Path, languages: tuple[str, ...] = ("en", "zh_CN"), dark: bool = False
) -> list[Path]:
    """Render every window in every language; return the PNG files written."""
    output_folder(out)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    previous_style, previous_palette = app.styleSheet(), app.palette()
    theme.apply(app, "dark" if dark else "light")
    written: list[Path] = []
    try:
        for language in languages:
            translators = i18n.install(app, language)
            try:
                with _sample_home(language):
                    written.extend(window(language, out) for window in WINDOWS)
                with _sample_home(language, seeded=False):
                    written.extend(window(language, out) for window in FIRST_RUN)
            finally:
                i18n.uninstall(app, translators)
    finally:
        app.setStyleSheet(previous_style)
        app.setPalette(previous_palette)
    return written


def run(argv: list[str]) -> int:
    """The ``engram screenshots`` command; each language renders in a temporary ENGRAM_HOME."""
    parser = argparse.ArgumentParser(prog="engram screenshots", description=__doc__)
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--dark", action="store_true", help="use the dark theme")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in render(args.out, dark=args.dark):
        print(path)
    return 0
