"""Engram: an offline personal assistant that gives a small local model the memory of a big one."""

__version__ = "0.1.0"
