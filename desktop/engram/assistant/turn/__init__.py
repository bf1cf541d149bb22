"""A turn: the message stored, memories recalled, the prompt laid out, the answer streamed and
recorded (``pipeline``), with the history fitted to the context (``context``), retrieval
(``recall``), the prompt's layout (``prompt``) and whether the answer used what it was given
(``utilization``)."""
