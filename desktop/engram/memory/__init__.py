"""The SQLite store: episodes, memories, provenance, vectors, full text, retrieval and packing."""

from engram.memory import schema as _schema  # registers the migrations after 0001

__all__ = ["_schema"]
