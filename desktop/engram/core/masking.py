"""Secrets out of everything Engram shows or writes: the one place text is masked.

Two kinds of secret are replaced by ``[secret]``:

- the secrets Engram handles (API keys), registered with :func:`secret` when they are stored or
  read, wherever they appear, and
- credentials by their shape: the user part of a URL (``https://user:pass@host``), a key, token,
  signature or password in a URL's query (``?key=…``, ``&access_token=…``) and an
  ``Authorization`` value (``Bearer …``).

:func:`mask` is applied to every log record (``core.log``) and to every value of every known
error (``core.errors.Problem``), so a message shown in the window, printed on the terminal,
stored as a job's error or logged never holds one. This module imports nothing of Engram's.
"""

from __future__ import annotations

import re
import urllib.parse

MARK = "[secret]"
MIN_SECRET_CHARS = 8  # shorter strings are too common to replace safely
_secrets: set[str] = set()
_SECRET_NAME = r"[\w.-]*?(?:key|token|secret|passw(?:or)?d|pwd|sig|signature|auth\w*|credential\w*)"
_SHAPES = (
    # The user information of a URL: everything between "scheme://" and "@host".
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^\s/?#@]+@", re.IGNORECASE), rf"\1{MARK}@"),
    # A secret-looking parameter of a URL's query.
    (re.compile(rf"([?&;]{_SECRET_NAME}=)[^&#\s'\"<>]+", re.IGNORECASE), rf"\1{MARK}"),
    # An Authorization header's value, echoed by a server.
    (
        re.compile(
            r"(\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:(?:Basic|Bearer|Token)\s+)?)[^\s\"',;]+",
            re.I,
        ),
        rf"\1{MARK}",
    ),
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {MARK}"),
)
_SECRET_PARAM = re.compile(rf"{_SECRET_NAME}", re.IGNORECASE)


def secret(value: str) -> None:
    """Remember a secret (an API key) so :func:`mask` removes it from now on."""
    if len(value) >= MIN_SECRET_CHARS:
        _secrets.add(value)


def secrets_of_url(url: str) -> None:
    """Remember the credentials a URL holds (its user part, secret-looking query values), so they
    are masked also where they appear without the URL around them (a server may echo them)."""
    try:
        parts = urllib.parse.urlsplit(url)
        query = urllib.parse.parse_qsl(parts.query)
        user, password = parts.username, parts.password
    except ValueError:  # not a URL: nothing to take from it
        return
    for value in (user, password):
        if value:
            secret(value)
            secret(urllib.parse.unquote(value))
    for name, value in query:
        if _SECRET_PARAM.fullmatch(name):
            secret(value)


def mask(text: str) -> str:
    """``text`` with every registered secret and every credential-shaped part replaced."""
    for value in sorted(_secrets, key=len, reverse=True):  # a longer one may hold a shorter
        if value in text:
            text = text.replace(value, MARK)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text
