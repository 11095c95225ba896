"""Prefix lookups over token texts: what llama.cpp's ``naive_trie`` answers, from a sorted list.

A trie walk from a position of the text asks, byte after byte, "does any key continue this way?", and notes
the keys it passes. A sorted list answers the same with one binary search: the key with the longest common
prefix with the text is a neighbour of the text's place in the list, and the keys the walk passes are the
keys that are prefixes of the text, which all are prefixes of the largest key not above it. Each key knows
the longest other key that is its prefix (its *parent*), so the keys a walk passes are a chain of parents.

>>> idx = PrefixIndex([b"a", b"ab", b"abc", b"b"])
>>> idx.has_prefix(b"a"), idx.has_prefix(b"abd"), idx.has_prefix(b"c")
(True, False, False)
>>> j = idx.longest(b"abd", 0)        # the walk goes 2 bytes deep (idx.depth); the longest key on it is b"ab"
>>> idx.depth(b"abd", 0), idx.keys[j], [idx.keys[k] for k in idx.chain(j)]
(2, b'ab', [b'ab', b'a'])

Costs: building is one sort and a pass over the sorted keys; a lookup costs one binary search whose
comparisons read no further than the walk goes (about twice as far at most), never one search per byte as a
search per prefix would, and never a copy of a long key.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator

_ROOT = -1  # the index of the virtual root (the empty key): the last slot of the per-key arrays


def common_prefix_length(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (in C: no loop over bytes in Python).

    >>> common_prefix_length(b"abc", b"abd"), common_prefix_length(b"ab", b"abc"), common_prefix_length(b"x", b"y")
    (2, 2, 0)
    """
    m = min(len(a), len(b))
    if a[:m] == b[:m]:
        return m
    x = int.from_bytes(a[:m], "big") ^ int.from_bytes(b[:m], "big")
    return m - 1 - (x.bit_length() - 1) // 8


class PrefixIndex:
    """Sorted distinct non-empty keys (the empty key is never matched: a walk reads a byte first).

    ``keys[j]`` is a key; ``parent[j]`` the index of its longest proper prefix that is a key (-1: none), and
    ``jump[j]`` an ancestor further up, placed so that finding the deepest ancestor no longer than a given
    length takes O(log depth) steps (Myers' skew-binary jump pointers), however long the chain of prefixes.
    """

    FIRST_WINDOW = 64  # bytes of text a lookup compares first; doubled while the walk reaches the window's end

    def __init__(self, keys: Iterable[bytes]) -> None:
        self.keys = ks = sorted(set(keys) - {b""})
        self.first = frozenset(k[0] for k in ks)
        self.max_len = max(map(len, ks), default=0)
        n = len(ks)
        # slot n (index -1) is the root: the empty key, its own parent and jump
        parent, jump, depth = [_ROOT] * (n + 1), [_ROOT] * (n + 1), [0] * (n + 1)
        stack: list[int] = []  # the chain of the previous key: each a prefix of the next
        top, t = b"", _ROOT  # the last key of the stack, and its index
        for j, k in enumerate(ks):
            if t != _ROOT and not k.startswith(top):
                stack.pop()
                while stack and not k.startswith(ks[stack[-1]]):
                    stack.pop()
                t = stack[-1] if stack else _ROOT
            if t != _ROOT:
                parent[j] = t
                d = depth[t]
                jt = jump[t]
                jump[j] = jump[jt] if d - depth[jt] == depth[jt] - depth[jump[jt]] else t
                depth[j] = d + 1
            else:
                depth[j] = 1
            stack.append(j)
            top, t = k, j
        self.parent, self.jump = array("q", parent), array("q", jump)
        self.lens = array("q", map(len, ks))
        self.lens.append(0)

    def has_prefix(self, prefix: bytes) -> bool:
        """Whether some key starts with ``prefix`` (a trie node exists for it)."""
        keys = self.keys
        i = bisect_left(keys, prefix)
        return i < len(keys) and keys[i].startswith(prefix)

    def longest(self, data: bytes, pos: int) -> int:
        """The index of the longest key that ``data[pos:]`` starts with (the last key a trie walk from
        ``data[pos]`` passes), -1 if none."""
        if pos >= len(data) or data[pos] not in self.first:
            return _ROOT
        keys = self.keys
        w = self.FIRST_WINDOW
        while True:
            s = data[pos:pos + w]
            i = bisect_right(keys, s)  # keys[i - 1] <= s < keys[i]
            # a key longer than the window that the text starts with would start with s, and follow it
            if len(s) < w or w >= self.max_len or i == len(keys) or not keys[i].startswith(s):
                break
            w *= 2
        if i == 0:
            return _ROOT
        before = keys[i - 1]  # every key the text starts with is a prefix of this one
        if s.startswith(before):
            return i - 1
        return self.ancestor(i - 1, common_prefix_length(before, s))

    def depth(self, data: bytes, pos: int) -> int:
        """How many bytes a trie walk from ``data[pos]`` goes: the longest common prefix of ``data[pos:]``
        with a key."""
        if pos >= len(data) or data[pos] not in self.first:
            return 0
        keys = self.keys
        w = self.FIRST_WINDOW
        while True:
            s = data[pos:pos + w]
            i = bisect_right(keys, s)  # the key with the longest common prefix is keys[i - 1] or keys[i]
            d = max(common_prefix_length(keys[i - 1], s) if i else 0,
                    common_prefix_length(keys[i], s) if i < len(keys) else 0)
            if d < len(s) or len(s) < w or w >= self.max_len:  # the walk ended inside the window
                return d
            w *= 2

    def ancestor(self, j: int, length: int) -> int:
        """The deepest of key ``j`` and its ancestors whose length is at most ``length`` (-1: none)."""
        lens, parent, jump = self.lens, self.parent, self.jump
        while lens[j] > length:
            k = jump[j]
            j = k if lens[k] > length else parent[j]
        return j

    def chain(self, j: int) -> Iterator[int]:
        """Key ``j`` and every key that is a prefix of it, longest first (nothing for -1)."""
        parent = self.parent
        while j != _ROOT:
            yield j
            j = parent[j]
