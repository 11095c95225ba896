"""Lesson 02: GPT-2's byte-to-character table, and both directions through it."""

from __future__ import annotations


def byte_map() -> list[str]:
    """Entry ``b`` is the character a byte-level vocabulary writes for byte ``b``.

    >>> table = byte_map()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\n")]
    ('a', 'Ġ', 'Ċ')
    """
    keep = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    table, moved = [], 0
    for b in range(256):
        if b in keep:
            table.append(chr(b))
        else:
            table.append(chr(0x100 + moved))
            moved += 1
    return table


_TABLE = byte_map()
_INVERSE = {c: b for b, c in enumerate(_TABLE)}


def decode_token(text: str) -> bytes:
    """The bytes a byte-level vocabulary's token text stands for (``KeyError`` outside the table)."""
    return bytes(_INVERSE[c] for c in text)


def encode_bytes(data: bytes) -> str:
    """``data`` in the vocabulary's alphabet: one character per byte."""
    return "".join(_TABLE[b] for b in data)
