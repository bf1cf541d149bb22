"""Write a tiny vocabulary-only GGUF (SentencePiece-style with byte fallback) for tokenizer tests.

llama.cpp loads it with ``vocab_only=True``: no weights, just the tokens with their types, so a
test can give any token the CONTROL or USER_DEFINED type a real model's vocabulary uses.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6  # GGUF token types
_UINT32, _INT32, _FLOAT32, _BOOL, _STRING, _ARRAY = 4, 5, 6, 7, 8, 9


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(value: object) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return _BOOL, struct.pack("<?", value)
    if isinstance(value, int):
        return _UINT32, struct.pack("<I", value)
    if isinstance(value, float):
        return _FLOAT32, struct.pack("<f", value)
    if isinstance(value, str):
        return _STRING, _string(value)
    raise TypeError(value)


def _array(kind: int, items: Sequence[object]) -> bytes:
    head = struct.pack("<IQ", kind, len(items))
    if kind == _STRING:
        return head + b"".join(_string(str(i)) for i in items)
    fmt = {_INT32: "<i", _FLOAT32: "<f"}[kind]
    return head + b"".join(struct.pack(fmt, i) for i in items)


def write(path: Path, words: Sequence[str], specials: dict[str, int], name: str = "vocab") -> Path:
    """A llama-architecture vocabulary: <unk>, <s>, </s>, the 256 byte tokens, ``words`` (as
    normal pieces, each also with a leading ▁) and ``specials`` (text → token type)."""
    tokens: list[str] = ["<unk>", "<s>", "</s>"]
    types = [UNKNOWN, CONTROL, CONTROL]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [BYTE] * 256
    pieces = sorted({p for w in words for p in (w, "▁" + w)} | {"▁"})
    tokens += pieces
    types += [NORMAL] * len(pieces)
    tokens += list(specials)
    types += list(specials.values())
    scores = [0.0] * 259 + [-float(len(tokens) - i) for i in range(259, len(tokens))]
    meta: dict[str, object] = {
        "general.architecture": "llama",
        "general.name": name,
        "llama.context_length": 512,
        "llama.embedding_length": 64,
        "llama.block_count": 1,
        "llama.feed_forward_length": 128,
        "llama.attention.head_count": 4,
        "llama.attention.layer_norm_rms_epsilon": 1e-5,
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.bos_token_id": 1,
        "tokenizer.ggml.eos_token_id": 2,
        "tokenizer.ggml.unknown_token_id": 0,
        "tokenizer.ggml.add_bos_token": True,
    }
    body = b""
    for key, value in meta.items():
        kind, data = _value(value)
        body += _string(key) + struct.pack("<I", kind) + data
    arrays = {
        "tokenizer.ggml.tokens": _array(_STRING, tokens),
        "tokenizer.ggml.scores": _array(_FLOAT32, scores),
        "tokenizer.ggml.token_type": _array(_INT32, types),
    }
    for key, data in arrays.items():
        body += _string(key) + struct.pack("<I", _ARRAY) + data
    count = len(meta) + len(arrays)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, count) + body)
    return path
