"""The model manager's "Find on the hub" page: search the hub's GGUF models, choose a file.

The page only shows and asks: the requests run on the model manager's worker thread
(:meth:`~engram.ui.download_worker.DownloadWorker.search_hub` and ``list_hub_files``), and a
chosen file is added and downloaded by the :class:`~engram.ui.model_manager.ModelManager`
through its ordinary download path.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.model_admin import GgufFile, Hit
from engram.core.errors import Problem
from engram.ui import errors
from engram.ui.labels import human_bytes

REPO_COLUMN, DOWNLOADS_COLUMN, LIKES_COLUMN = 0, 1, 2
FILE_COLUMN, FILE_SIZE_COLUMN, FILE_ACTION_COLUMN = 0, 1, 2


class HubSearch(QWidget):
    """Search field, repositories found, the chosen repository's GGUF files."""

    search_requested = Signal(str)  # the text to search for
    files_requested = Signal(str)  # a repository whose files to list
    chosen = Signal(object)  # the GgufFile to add and download
    use_requested = Signal(str)  # a role: use the downloaded model as small or large
    cancel_requested = Signal()  # stop the chosen file's download (the partial is kept)

    def __init__(self) -> None:
        super().__init__()
        self.query = ""  # the search whose answer is awaited or shown
        self.repo = ""  # the repository whose files are awaited or shown
        self.hits: list[Hit] = []
        self.files: list[GgufFile] = []
        self.file_buttons: list[QPushButton] = []
        self.field = QLineEdit()
        self.field.setClearButtonEnabled(True)
        self.field.returnPressed.connect(self.search)
        self.search_button = QPushButton()
        self.search_button.clicked.connect(self.search)
        search_row = QHBoxLayout()
        search_row.addWidget(self.field, 1)
        search_row.addWidget(self.search_button)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.repos = _table(3)
        self.repos.horizontalHeader().setSectionResizeMode(
            REPO_COLUMN, QHeaderView.ResizeMode.Stretch
        )
        self.repos.itemSelectionChanged.connect(self._repo_chosen)
        self.file_table = _table(3)
        self.file_table.horizontalHeader().setSectionResizeMode(
            FILE_COLUMN, QHeaderView.ResizeMode.Stretch
        )
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.repos)
        splitter.addWidget(self.file_table)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([560, 520])
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.cancel_button.hide()
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.cancel_button)
        self.done_label = QLabel()
        self.done_label.setWordWrap(True)
        self.use_small = QPushButton()
        self.use_large = QPushButton()
        self.use_small.clicked.connect(lambda: self.use_requested.emit("small"))
        self.use_large.clicked.connect(lambda: self.use_requested.emit("large"))
        done_row = QHBoxLayout()
        done_row.addWidget(self.done_label, 1)
        done_row.addWidget(self.use_small)
        done_row.addWidget(self.use_large)
        self.show_done(None)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)  # in line with the window's other rows
        layout.addLayout(search_row)
        layout.addWidget(self.about)
        layout.addWidget(self.status)
        layout.addWidget(splitter, 1)
        layout.addLayout(progress_row)
        layout.addLayout(done_row)
        self.retranslate()

    def retranslate(self) -> None:
        self.field.setPlaceholderText(self.tr("Model name or words, e.g. qwen2.5 7b instruct"))
        self.field.setAccessibleName(self.tr("Search the hub's GGUF models"))
        self.search_button.setText(self.tr("Search"))
        self.about.setText(
            self.tr(
                "GGUF models on Hugging Face (or the download mirror in Settings) beyond the"
                " catalogue. Engram has not tried them: check each model's licence on its page."
            )
        )
        self.repos.setHorizontalHeaderLabels(
            [self.tr("Repository"), self.tr("Downloads"), self.tr("Likes")]
        )
        self.file_table.setHorizontalHeaderLabels([self.tr("GGUF file"), self.tr("Size"), ""])
        self.repos.setAccessibleName(self.tr("Repositories found"))
        self.file_table.setAccessibleName(self.tr("GGUF files of the chosen repository"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.use_small.setText(self.tr("Use as small"))
        self.use_large.setText(self.tr("Use as large"))
        self.use_small.setToolTip(self.tr("The model that answers every message"))
        self.use_large.setToolTip(self.tr("The model that learns from your conversations"))
        for button in self.file_buttons:
            button.setText(self.tr("Download"))
        if not self.status.text():
            self.status.setText(self.tr("Type what to look for and press Enter."))

    # -- asking --------------------------------------------------------------------------------

    def search(self) -> None:
        """Search for the field's text (on the worker thread); the answer comes to ``show_hits``."""
        text = self.field.text().strip()
        if not text:
            self.status.setText(self.tr("Type what to look for and press Enter."))
            return
        self.query = text
        self.repo = ""
        self.show_hits(text, [], waiting=True)
        self.status.setText(self.tr("Searching for “{text}”…").format(text=text))
        self.search_requested.emit(text)

    def _repo_chosen(self) -> None:
        rows = {i.row() for i in self.repos.selectedItems()}
        if len(rows) != 1:
            return
        hit = self.hits[rows.pop()]
        if hit.repo == self.repo:
            return
        self.repo = hit.repo
        self._fill_files([])
        self.status.setText(self.tr("Listing the files of {repo}…").format(repo=hit.repo))
        self.files_requested.emit(hit.repo)

    # -- answers from the worker ---------------------------------------------------------------

    def show_hits(self, text: str, hits: list[Hit], waiting: bool = False) -> None:
        """The repositories found for ``text`` (an answer to an older search is dropped)."""
        if text != self.query:
            return
        self.hits = list(hits)
        self.repos.blockSignals(True)
        self.repos.setRowCount(len(hits))
        for row, hit in enumerate(hits):
            cells = (
                hit.repo,
                f"{hit.downloads:,}" if hit.downloads is not None else "",
                f"{hit.likes:,}" if hit.likes is not None else "",
            )
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setToolTip(hit.repo if column == REPO_COLUMN else "")
                if column != REPO_COLUMN:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.repos.setItem(row, column, item)
        self.repos.clearSelection()
        self.repos.blockSignals(False)
        self._fill_files([])
        if waiting:
            return
        if hits:
            self.status.setText(
                self.tr("{count} repositories with GGUF files for “{text}”; choose one.").format(
                    count=len(hits), text=text
                )
            )
        else:
            self.status.setText(
                self.tr(
                    "No GGUF model on the hub matches “{text}”. Try fewer or other words."
                ).format(text=text)
            )

    def show_files(self, repo: str, found: list[GgufFile]) -> None:
        """A repository's GGUF files (dropped when another repository was chosen meanwhile)."""
        if repo != self.repo:
            return
        self._fill_files(found)
        if found:
            self.status.setText(
                self.tr("{count} GGUF files in {repo}; Download adds one to your models.").format(
                    count=len(found), repo=repo
                )
            )
        else:
            self.status.setText(
                self.tr("{repo} has no GGUF model file Engram can load.").format(repo=repo)
            )

    def show_failure(self, asked: str, problem: Problem) -> None:
        """A search or listing that failed: the message and what to do, in the status line."""
        if asked not in (self.query, self.repo):
            return
        message, hint = errors.translate(problem)
        self.status.setText(f"{message}\n{hint}" if hint else message)

    def _fill_files(self, found: list[GgufFile]) -> None:
        self.files = list(found)
        self.file_buttons = []
        self.file_table.setRowCount(len(found))
        for row, choice in enumerate(found):
            name = choice.label
            if len(choice.parts) > 1:
                name = self.tr("{name} ({count} parts)").format(name=name, count=len(choice.parts))
            item = QTableWidgetItem(name)
            item.setToolTip("\n".join(p.path for p in choice.parts))
            self.file_table.setItem(row, FILE_COLUMN, item)
            size = QTableWidgetItem(human_bytes(choice.size))
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.file_table.setItem(row, FILE_SIZE_COLUMN, size)
            button = QPushButton(self.tr("Download"))
            button.clicked.connect(lambda _checked=False, c=choice: self.chosen.emit(c))
            self.file_buttons.append(button)
            self.file_table.setCellWidget(row, FILE_ACTION_COLUMN, button)

    # -- the chosen file's download ------------------------------------------------------------

    def show_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(text)
        self.progress.show()
        self.cancel_button.show()

    def show_done(self, name: str | None, roles: tuple[str, ...] = ()) -> None:
        """After a chosen file's download: how to use it, with the one-click choices (``None``
        hides the line)."""
        self.progress.hide()
        self.cancel_button.hide()
        visible = name is not None
        self.done_label.setVisible(visible)
        self.use_small.setVisible(visible and "small" in roles)
        self.use_large.setVisible(visible and "large" in roles)
        if name is not None:
            self.done_label.setText(
                self.tr(
                    "{name} is downloaded. Use it as the small model (it answers) or the large"
                    " one (it learns); it is also in the catalogue now."
                ).format(name=name)
            )


def _table(columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table
