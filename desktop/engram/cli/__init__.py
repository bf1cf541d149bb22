"""Terminal entry points."""
