"""The SQLite store: episodes, memories, provenance, vectors, full text, retrieval and packing."""
