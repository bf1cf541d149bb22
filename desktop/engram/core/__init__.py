"""Paths, settings, logging and error types shared by every layer (no heavy imports)."""
