"""Engram's assistant: the application its front ends call (``app``), what it tells them
(``events``), and beneath them a turn (``turn``), learning (``learning``) and tools (``tools``)."""
