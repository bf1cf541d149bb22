"""Bundled resources: prompts, icons, styles and translations (read via engram.core.resources)."""
