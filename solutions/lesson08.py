"""Lesson 08: the bytes a stream holds back, and a streaming decoder."""

from __future__ import annotations

import codecs


def _continuation_range(lead: int) -> tuple[int, int]:
    return {0xE0: (0xA0, 0xBF), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))


def held_back(data: bytes) -> int:
    """How many bytes at the end of ``data`` are an unfinished (still possible) UTF-8 character.

    >>> held_back(b"ok \\xf0\\x9f"), held_back("😀".encode())
    (2, 0)
    """
    for start in range(max(0, len(data) - 3), len(data)):
        lead = data[start]
        need = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
        tail = data[start + 1:]
        if not need or len(tail) >= need - 1:
            continue  # not a lead byte, or its character is already complete
        low, high = _continuation_range(lead)
        if all((low <= c <= high) if k == 0 else (0x80 <= c <= 0xBF) for k, c in enumerate(tail)):
            return len(data) - start
    return 0


def stream_decode(pieces: list[bytes]) -> list[str]:
    """The text printed after each piece, then at the end (``len(pieces) + 1`` strings).

    >>> stream_decode([b" \\xf0\\x9f", b"\\x98\\x80", b" ok"])
    [' ', '😀', ' ok', '']
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [decoder.decode(p) for p in pieces] + [decoder.decode(b"", final=True)]
