"""Prefix lookups over token texts: what llama.cpp's ``naive_trie`` answers, from a sorted list.

A trie walk asks, byte after byte, "does any key continue this way?". A sorted list answers the same with a
binary search (the first key not smaller than the prefix starts with it, or none does), and costs one sort
to build instead of a node per byte of every token.

>>> idx = PrefixIndex([b"ab", b"abc", b"b"])
>>> idx.has_prefix(b"a"), idx.has_prefix(b"abd"), idx.has_prefix(b"c")
(True, False, False)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable


class PrefixIndex:
    def __init__(self, keys: Iterable[bytes]) -> None:
        self.keys = sorted(set(keys))

    def has_prefix(self, prefix: bytes) -> bool:
        """Whether some key starts with ``prefix`` (a trie node exists for it)."""
        keys = self.keys
        i = bisect_left(keys, prefix)
        return i < len(keys) and keys[i].startswith(prefix)
