"""RWKV's tokenizer as llama.cpp runs it: greedy longest match over bytes, in a trie of unescaped tokens.

>>> m = RWKVModel(["a", "ab", "b"], unk=-1)
>>> m.encode(b"abbc")
[1, 2, -1]

Each step is one lookup in a sorted list of the tokens (:class:`~gguftok.models.prefix.PrefixIndex`), which
reads no further into the text than llama.cpp's trie walk does: a long token that the text almost matches
costs a longer comparison, never one search per byte.

When the tokens longer than one byte are few and short (``FEW_LONG``, ``SHORT``), the whole text is done in C
instead: one ``re.split`` finds, from left to right, each place where one of them starts and the longest one
there (a pattern built as their trie, :func:`~gguftok.models.piece_cache.longest_first`), and between those
places every byte is its own token, looked up in a table of 256 with NumPy. That is the greedy walk: at a
position where a longer token starts, the longest token is the longest of those (the single byte is
shorter); elsewhere it is the byte alone, or the unknown id when no token starts with the byte.
"""

from __future__ import annotations

import re

import numpy as np

from ..detokenize import rwkv_unescape
from ..errors import EncodeError
from .piece_cache import longest_first
from .prefix import PrefixIndex

FEW_LONG, SHORT = 4096, 64  # at most this many tokens of two bytes or more, none longer, for the bulk path
_STUCK = -(1 << 62)  # a byte that starts tokens but is none, where no longer one matches: the walk is stuck


class RWKVModel:
    def __init__(self, texts: list[str], unk: int) -> None:
        self.values: dict[bytes, int] = {}
        for i, t in enumerate(texts):
            self.values[rwkv_unescape(t)] = i  # a later duplicate wins, as in llama.cpp's trie
        self.prefixes = PrefixIndex(self.values)
        self.unk = unk
        longer = [k for k in self.values if len(k) > 1]
        self._split: re.Pattern[bytes] | None = None
        if len(longer) <= FEW_LONG and max(map(len, longer), default=0) <= SHORT:
            first = self.prefixes.first
            self._byte_ids = np.array([self.values.get(bytes([b]), unk if b not in first else _STUCK)
                                       for b in range(256)], dtype=np.int64)
            self._split = re.compile(b"(" + longest_first(longer) + b")", re.DOTALL) if longer else None
            self._bulk = True
        else:
            self._bulk = False

    def encode(self, data: bytes) -> list[int]:
        if not self._bulk:
            return self.encode_slow(data)
        # the bytes between the longer tokens, and the tokens: [b0, t1, b1, ...]
        parts = [data] if self._split is None else self._split.split(data)
        ids = self._byte_ids[np.frombuffer(b"".join(parts[0::2]), dtype=np.uint8)]
        if (ids == _STUCK).any():
            return self.encode_slow(data)  # raises where llama.cpp never finishes
        if len(parts) == 1:
            return ids.tolist()
        n = len(parts) // 2
        out = np.empty(len(ids) + n, dtype=np.int64)
        at = np.cumsum(np.fromiter(map(len, parts[0:-1:2]), dtype=np.int64, count=n)) + np.arange(n)
        out[at] = np.fromiter(map(self.values.__getitem__, parts[1::2]), dtype=np.int64, count=n)
        rest = np.ones(len(out), dtype=bool)
        rest[at] = False
        out[rest] = ids
        return out.tolist()

    def encode_slow(self, data: bytes) -> list[int]:
        """The greedy walk, one lookup per token."""
        out: list[int] = []
        pos, n = 0, len(data)
        values, longest, keys, first = self.values, self.prefixes.longest, self.prefixes.keys, self.prefixes.first
        while pos < n:
            if data[pos] not in first:
                out.append(self.unk)  # no token starts with this byte: llama.cpp emits the unknown id (often -1)
                pos += 1
                continue
            j = longest(data, pos)
            if j < 0:
                raise EncodeError("no RWKV token ends on the longest matching path; llama.cpp would restart at "
                                  "the beginning of the text and never finish", offset=pos)
            key = keys[j]
            out.append(values[key])
            pos += len(key)
        return out
