"""The windows the main window opens: the settings dialog, the model manager and the memory
browser (one of each at a time, raised when already open), each sized to the main window's
screen and centred on it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from engram.assistant import model_admin
from engram.core.settings import SettingsStore
from engram.ui import screen_fit
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.model_manager import ModelManager
from engram.ui.settings_dialog import SettingsDialog


class OtherWindows(QObject):
    """Opens them on ``store``; the memory browser's "open the chat" calls
    ``open_conversation``. :meth:`close` closes those still open."""

    def __init__(
        self, window: QMainWindow, store: SettingsStore, open_conversation: Callable[[int], None]
    ) -> None:
        super().__init__(window)
        self._window = window
        self.store = store
        self.open_conversation = open_conversation
        self.model_manager: ModelManager | None = None
        self.memory_browser: MemoryBrowser | None = None

    def settings(self) -> SettingsDialog:
        """Open the settings; what is saved there reaches the assistant through the store."""
        dialog = SettingsDialog(self.store, self._window, keys=model_admin.shared_keys())
        dialog.models_requested.connect(self.models)
        dialog.open()
        return dialog

    def models(self) -> ModelManager:
        """Open (or raise) the model manager; models it assigns take effect at once."""
        if self.model_manager is None or not self.model_manager.isVisible():
            self.model_manager = ModelManager(self.store)
            screen_fit.fit(self.model_manager, self._window.screen())
        self.model_manager.show()
        self.model_manager.raise_()
        return self.model_manager

    def memories(self, memory_id: int = 0) -> MemoryBrowser:
        """Open (or raise) the memory browser, showing one memory when given."""
        if self.memory_browser is None or not self.memory_browser.isVisible():
            self.memory_browser = MemoryBrowser(self.store)
            screen_fit.fit(self.memory_browser, self._window.screen())
            self.memory_browser.open_conversation.connect(self.open_conversation)
        self.memory_browser.show()
        self.memory_browser.raise_()
        if memory_id:
            self.memory_browser.select_memory(memory_id)
        return self.memory_browser

    def close(self) -> None:
        for window in (self.memory_browser, self.model_manager):
            if window is not None:
                window.close()
