"""llama.cpp's Unicode layer: its own code point tables (Unicode 15.1) and its lax UTF-8 decoder.

llama.cpp does not ask the C library or Python what a character is: it carries tables generated from
UnicodeData.txt 15.1 (``src/unicode-data.cpp``). Python 3.11's ``unicodedata`` is Unicode 14.0 and the
``regex`` module is newer, so both disagree with llama.cpp on thousands of code points. We load llama.cpp's
tables (``unicode-15.1.json``, made by ``scripts/gen_unicode_tables.py`` from the pinned source).

>>> flags(ord("a")) & LETTER != 0, flags(ord("½")) & NUMBER != 0, flags(0x3000) & WHITESPACE != 0
(True, True, True)
>>> decode_lax(b"a\\xe2\\x82A\\xc0\\x80")   # one U+FFFD per bad byte; overlongs accepted
[97, 65533, 65533, 65, 0]
>>> chr(to_lower(ord("İ"))), chr(nfd_first(ord("é")))
('i', 'e')
"""

from __future__ import annotations

import json
from bisect import bisect_right
from pathlib import Path

import numpy as np

from ..errors import EncodeError

# Category flags: exactly one per code point (llama.cpp's unicode.h).
UNDEFINED, NUMBER, LETTER, SEPARATOR, ACCENT_MARK, PUNCTUATION, SYMBOL, CONTROL = (1 << i for i in range(8))
WHITESPACE = 0x100  # a helper bit: the 25 code points of Unicode's White_Space property
MAX_CODE_POINT = 0x10FFFF
REPLACEMENT = 0xFFFD

_DATA = json.loads((Path(__file__).with_name("unicode-15.1.json")).read_text())


def _category_table() -> bytes:
    starts = np.array([s for s, _ in _DATA["ranges"]], dtype=np.int64)
    values = np.array([f for _, f in _DATA["ranges"]], dtype=np.uint8)
    lengths = np.diff(np.append(starts, 0x110000))
    return np.repeat(values[:-1] if starts[-1] == 0x110000 else values, lengths[lengths > 0]).tobytes()


CATEGORY: bytes = _category_table()  # CATEGORY[cp] for cp <= U+10FFFF: one category flag
assert len(CATEGORY) == 0x110000
WHITESPACE_SET: frozenset[int] = frozenset(_DATA["ws"])
_LOWER = dict(map(tuple, _DATA["lower"]))
_NFD_FIRST = [first for first, _, _ in _DATA["nfd"]]
_NFD = _DATA["nfd"]


def flags(cp: int) -> int:
    """The category flag of ``cp``, plus ``WHITESPACE``; code points past U+10FFFF are ``UNDEFINED``."""
    f = CATEGORY[cp] if cp <= MAX_CODE_POINT else UNDEFINED
    return f | WHITESPACE if cp in WHITESPACE_SET else f


def to_lower(cp: int) -> int:
    """UnicodeData's simple lowercase mapping (one code point to one), as llama.cpp's ``unicode_tolower``."""
    return _LOWER.get(cp, cp)


def nfd_first(cp: int) -> int:
    """The first code point of ``cp``'s NFD decomposition (llama.cpp's one-to-one "NFD")."""
    i = bisect_right(_NFD_FIRST, cp) - 1
    if i >= 0:
        first, last, nfd = _NFD[i]
        if first <= cp <= last:
            return nfd
    return cp


def _next_cp(data: bytes, i: int) -> tuple[int, int]:
    """The code point at ``data[i]`` and its length in bytes, or (U+FFFD, 1) where llama.cpp gives up."""
    c = data[i]
    if c < 0x80:
        return c, 1
    if c < 0xC0 or c >= 0xF8:  # a continuation byte, or no UTF-8 lead byte at all
        return REPLACEMENT, 1
    need = 1 if c < 0xE0 else 2 if c < 0xF0 else 3
    if i + need >= len(data):
        return REPLACEMENT, 1
    cp = c & (0x1F, 0x0F, 0x07)[need - 1]
    for k in range(i + 1, i + need + 1):
        b = data[k]
        if b & 0xC0 != 0x80:
            return REPLACEMENT, 1
        cp = (cp << 6) | (b & 0x3F)
    return cp, need + 1


def decode_lax(data: bytes) -> list[int]:
    """Bytes to code points as llama.cpp's ``unicode_cpts_from_utf8``: lax, never failing.

    A bad byte gives one U+FFFD and decoding resumes at the next byte; overlong forms, surrogates and code
    points up to 0x1FFFFF (from 0xF0-0xF7 lead bytes) are decoded as their bits say.
    """
    try:
        return [ord(c) for c in data.decode("utf-8")]  # strict UTF-8 decodes exactly the same, much faster
    except UnicodeDecodeError:
        pass
    out: list[int] = []
    i, n = 0, len(data)
    while i < n:
        cp, length = _next_cp(data, i)
        out.append(cp)
        i += length
    return out


def decode_for_text(data: bytes, what: str = "text") -> str:
    """:func:`decode_lax` as a ``str`` (surrogates included); ``EncodeError`` for a code point past U+10FFFF.

    llama.cpp's BPE and WordPiece re-encode every code point and throw (aborting the process) on those;
    we raise instead, naming the byte offset.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    cps = decode_lax(data)
    if max(cps, default=0) > MAX_CODE_POINT:
        cp = next(c for c in cps if c > MAX_CODE_POINT)
        offset = _byte_offset_of(data, cps.index(cp))
        raise EncodeError(f"{what}: bytes that decode to U+{cp:X}, past U+10FFFF (llama.cpp aborts on them)",
                          offset=offset)
    return "".join(map(chr, cps))


def _byte_offset_of(data: bytes, index: int) -> int:
    """The byte offset where the ``index``-th code point of :func:`decode_lax` starts."""
    i = 0
    for _ in range(index):
        i += _next_cp(data, i)[1]
    return i
