"""``engram eval``: LoCoMo-format questions under four conditions, with and without memory."""
