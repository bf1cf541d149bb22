"""Learning: outcome signals (``signals``), when to learn (``scheduler``), distilling episodes
into memories in the background (``consolidation``, ``distill``, ``distiller_backends``,
``redact``, ``reconcile``), memory hygiene (``hygiene``) and the user's plan (``plans``)."""
