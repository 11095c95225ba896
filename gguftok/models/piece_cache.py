"""What the fast paths of the non-BPE models share: a bounded cache of pieces served in C, and regex classes
built from llama.cpp's Unicode tables.

A model that can cut its text into pieces that encode independently (WordPiece's words; SentencePiece's and
Unigram's pieces between places no token spans: see each model's proof) finds the pieces with one compiled
pattern and looks every piece up in a :class:`PieceCache`: ``list(chain.from_iterable(map(cache.__getitem__,
pieces)))`` runs in C for every piece it has seen, and calls the model in Python only for a new one.

>>> cache = PieceCache(lambda piece: [len(piece)], limit=2)
>>> encode_pieces(cache, ["ab", "c", "ab"]), list(cache)
([2, 1, 2], ['ab', 'c'])
>>> cache["def"], list(cache)   # full: the older half goes, then the new piece is kept
([3], ['c', 'def'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from functools import reduce
from itertools import filterfalse, islice
from operator import iadd

import numpy as np

# Pieces kept per model (about 40 to 300 bytes each with their ids), and the longest piece kept: a longer one
# is encoded each time it comes (a text of one 1 MB word must not keep 1 MB per entry).
DEFAULT_PIECES = 32_768
LONGEST_CACHED = 256


class Uncached(list):
    """Ids that :class:`PieceCache` hands out without keeping: a long piece cut into parts that are kept
    (keeping the piece too made 1 MB of mixed scripts overflow the cache, and a second pass miss as often)."""

    __slots__ = ()


class PieceCache(dict):
    """A dict of piece -> ids that computes a missing piece with ``compute`` and keeps at most ``limit``
    entries: when full, the older half (in order of insertion) goes before the next one is kept. There is no
    bookkeeping on a hit, so a hit is one dict lookup in C; the price is that a piece used all the time but
    first seen long ago can be dropped, and computed again. Pieces longer than ``longest`` are computed and not
    kept (memory stays below ``limit`` times a piece of ``longest`` and its ids); ``limit=0`` keeps none."""

    __slots__ = ("compute", "limit", "longest")

    def __init__(self, compute: Callable[[Hashable], object], limit: int = DEFAULT_PIECES,
                 longest: int = LONGEST_CACHED) -> None:
        super().__init__()
        self.compute, self.limit, self.longest = compute, limit, longest

    def __missing__(self, piece):
        return self.keep(piece, self.compute(piece))

    def keep(self, piece, value):
        """Store ``value`` for ``piece`` if the rules allow; returns ``value``."""
        if self.limit and len(piece) <= self.longest and type(value) is not Uncached:
            if len(self) >= self.limit:
                for old in list(islice(self, max(1, len(self) // 2))):
                    del self[old]
            self[piece] = value
        return value

    def keep_all(self, fresh: dict) -> None:
        """Keep every entry of ``fresh`` (each piece no longer than ``longest``, no value :class:`Uncached`: the
        caller's part) with one ``dict.update`` in C: the oldest entries not in ``fresh`` go first, as many as
        must; if ``fresh`` alone is more than the cache holds, its first ``limit`` entries are kept. Filling a full
        cache one :meth:`keep` at a time instead dropped half of it at each overflow, pieces of the same text among
        them, and the same text again missed them (measured on SentencePiece's multilingual bench text).

        >>> c = PieceCache(len, limit=4); c.update(a=1, b=1, c=1)
        >>> c.keep_all({"dd": 2, "ee": 2}); list(c)
        ['b', 'c', 'dd', 'ee']
        """
        if not self.limit:
            return
        if len(fresh) > self.limit:
            fresh = dict(islice(fresh.items(), self.limit))
        over = len(self) + len(fresh) - self.limit
        if over > 0:
            for old in list(islice(filterfalse(fresh.__contains__, self), over)):
                del self[old]
        self.update(fresh)  # at most limit: the keys of fresh already here were counted twice in over


def encode_pieces(cache: PieceCache, pieces: Iterable[Hashable]) -> list[int]:
    """The ids of ``pieces`` in order: each piece's ids from ``cache`` (computed once), concatenated in C.

    ``reduce(iadd, ..., [])`` extends one new list by each piece's ids (``list.extend``'s copy of a whole list),
    where ``chain.from_iterable`` hands the ids over one at a time: 7 times faster on pieces of about 100 ids,
    20% on pieces of 3 (measured)."""
    return reduce(iadd, map(cache.__getitem__, pieces), [])


def _escape(cp: int) -> str:
    return f"\\U{cp:08x}"


def char_class(mask: np.ndarray, negate: bool = False) -> str:
    """A regex character class (``[...]``, or ``[^...]`` with ``negate``) of the code points where ``mask``
    (one bool per code point from U+0000) is true, as ranges; an empty class never matches (``[^\\s\\S]``).

    >>> m = np.zeros(0x110000, bool); m[[0x61, 0x62, 0x63, 0x1F600]] = True
    >>> char_class(m)
    '[\\\\U00000061-\\\\U00000063\\\\U0001f600]'
    """
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    starts, ends = edges[0::2], edges[1::2] - 1
    if not len(starts):
        return "[\\s\\S]" if negate else "[^\\s\\S]"
    body = "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in zip(starts.tolist(),
                                                                                        ends.tolist(), strict=True))
    return f"[^{body}]" if negate else f"[{body}]"


def codes_class(codes: Iterable[int], negate: bool = False) -> str:
    """:func:`char_class` of a few code points (no array of every code point: a small vocabulary loads fast).

    >>> codes_class([0x61, 0x62, 0x63, 0x65]), codes_class([], negate=True)
    ('[\\\\U00000061-\\\\U00000063\\\\U00000065]', '[\\\\s\\\\S]')
    """
    cps = sorted(set(codes))
    if not cps:
        return "[\\s\\S]" if negate else "[^\\s\\S]"
    body, start = [], cps[0]
    for prev, cp in zip(cps, [*cps[1:], None], strict=True):
        if cp != prev + 1 if cp is not None else True:
            body.append(_escape(start) if start == prev else f"{_escape(start)}-{_escape(prev)}")
            start = cp
    return ("[^" if negate else "[") + "".join(body) + "]"


_ASTRAL = "[\\U00010000-\\U0010ffff]"


def char_pattern(mask: np.ndarray, run: bool = False) -> str:
    """A pattern for one code point where ``mask`` is true (``run``: one or more), fast in CPython's engine.

    A class is tested in one step for U+0000-U+FFFF (a bitmap), but its ranges above U+FFFF one after the other,
    for every character that is not in the bitmap: a class with a few hundred such ranges (accent marks,
    punctuation, CJK extensions) made a search of ASCII text 5 to 10 times slower. So the ranges above U+FFFF
    are tested, behind one range test, only for a character there.

    >>> m = np.zeros(0x110000, bool); m[[0x61, 0x1F600]] = True
    >>> import re; re.findall(char_pattern(m, run=True), "xa\U0001f600aby")
    ['a\U0001f600a']
    """
    bmp, astral = mask.copy(), mask.copy()
    bmp[0x10000:] = False
    astral[:0x10000] = False
    parts = []
    if bmp.any():
        parts.append(char_class(bmp) + ("+" if run else ""))
    if astral.any():
        parts.append(f"{_ASTRAL}(?<={char_class(astral)})")
    if not parts:
        return "[^\\s\\S]"
    one = "(?:" + "|".join(parts) + ")"
    return one + "+" if run and len(parts) > 1 else one


def longest_first(keys: Iterable[bytes]) -> bytes:
    """A regex (bytes) that matches, where some of ``keys`` start, the longest of them: the keys as a trie,
    each node an alternation of its bytes, optional below a node that is a key itself (greedy: the deepest
    key the text continues to wins, as in a trie walk). Keep the keys few and short (one nesting per byte).

    >>> import re
    >>> re.findall(longest_first([b"ab", b"abcd", b"b"]), b"abcxabcdb")
    [b'ab', b'abcd', b'b']
    """
    trie: dict = {}
    for k in keys:
        node = trie
        for b in k:
            node = node.setdefault(b, {})
        node[None] = True

    def emit(node: dict) -> bytes:
        alts = [re.escape(bytes([b])) + emit(child) for b, child in sorted((b, c) for b, c in node.items()
                                                                         if b is not None)]
        if not alts:
            return b""
        body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        return b"(?:" + body + b")?" if None in node else body

    return emit(trie)
