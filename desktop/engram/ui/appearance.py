"""The app follows its language and font size settings live: a change in Settings switches the
translators (every open window then gets a LanguageChange event and retranslates) and the font."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from engram.core.settings import Settings, SettingsStore
from engram.ui import i18n, theme
from engram.ui.settings_signals import SettingsSignals


class Appearance(QObject):
    """Installs the chosen language and font size now, and again whenever the settings change."""

    def __init__(self, app: QApplication, store: SettingsStore) -> None:
        super().__init__()
        self.app = app
        self.translators = i18n.install(app, store.current.language)
        theme.apply_font(app, store.current.font_size)
        self.signals = SettingsSignals(store, self)
        self.signals.changed.connect(self._on_changed)

    def _on_changed(self, old: Settings, new: Settings) -> None:
        if i18n.resolve(old.language) != i18n.resolve(new.language):
            self.translators = i18n.switch(self.app, self.translators, new.language)
        if old.font_size != new.font_size:
            theme.apply_font(self.app, new.font_size)

    def close(self) -> None:
        """Stop following the settings and put back English (tests, screenshots)."""
        self.signals.close()
        i18n.uninstall(self.app, self.translators)
        self.translators = []
