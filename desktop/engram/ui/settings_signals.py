"""The settings store's changes as a Qt signal, for windows: queued to the thread they live in."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal

from engram.core.settings import Settings, SettingsStore


class SettingsSignals(QObject):
    """Emits ``changed(old, new)`` on its own (the UI) thread after every change to ``store``,
    whichever thread made it; stops listening when closed or deleted."""

    changed = Signal(object, object)  # old Settings, new Settings
    _arrived = Signal(object, object)

    def __init__(self, store: SettingsStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._arrived.connect(self.changed, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe = store.subscribe(self._forward)
        self.destroyed.connect(self._unsubscribe)

    def _forward(self, old: Settings, new: Settings) -> None:
        self._arrived.emit(old, new)

    def close(self) -> None:
        """Stop listening (a closed window no longer follows the settings)."""
        self._unsubscribe()
