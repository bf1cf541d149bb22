"""``engram eval``: answer LoCoMo-format questions under four conditions and report the difference memory makes."""
