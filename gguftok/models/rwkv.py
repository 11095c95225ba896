"""RWKV's tokenizer as llama.cpp runs it: greedy longest match over bytes, in a trie of unescaped tokens.

>>> m = RWKVModel(["a", "ab", "b"], unk=-1)
>>> m.encode(b"abbc")
[1, 2, -1]

Each step of the plain walk (:meth:`RWKVModel.encode_slow`) is one lookup in a sorted list of the tokens
(:class:`~gguftok.models.prefix.PrefixIndex`), which reads no further into the text than llama.cpp's trie walk
does: a long token that the text almost matches costs a longer comparison, never one search per byte.

**Cuts.** Two bytes side by side in the text that are side by side in no token (:func:`byte_junctions`) are a
place the walk always lands on, so the text can be cut there and each part walked alone: see
:func:`byte_junctions` for the proof. :meth:`RWKVModel.encode` cuts the text into lines (before each ``\\n``
where a cut is allowed; a line longer than the cache keeps, before each space too), keeps each line's ids in a
bounded cache, and serves a text whose lines it has seen from there, in C (``reduce(iadd, ...)``: 7 times
faster than ``chain`` for lists of 100 ids). A text with ``BATCH_FROM`` new lines or more is walked whole, and
each of its lines' ids kept.

**The walk in C.** When the tokens longer than one byte are few and short (``FEW_LONG``, ``SHORT``), the
text is walked in C: one ``re.split`` finds, from left to right, each place where one of them starts and the
longest one there (a pattern built as their trie, :func:`~gguftok.models.piece_cache.longest_first`), and
between those places every byte is its own token, looked up in a table of 256 with NumPy. That is the greedy
walk: at a position where a longer token starts, the longest token is the longest of those (the single byte
is shorter); elsewhere it is the byte alone, or the unknown id when no token starts with the byte.

**Words.** With more tokens (a real RWKV vocabulary has 65,536, most of them longer than a byte, too many for
one pattern), the text is cut again into words (before each space or ``\\n`` where allowed), and each distinct
word is walked once (:meth:`RWKVModel._word_ids`) and kept in a second cache.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import iadd

import numpy as np

from ..detokenize import rwkv_unescape
from ..errors import EncodeError
from .piece_cache import DEFAULT_PIECES, PieceCache, longest_first
from .prefix import PrefixIndex

FEW_LONG, SHORT = 4096, 64  # at most this many tokens of two bytes or more, none longer, for the walk in C
_STUCK = -(1 << 31)  # a byte that starts tokens but is none, where no longer one matches: the walk is stuck
# An encode that meets this many lines not in the cache walks the whole text at once (a line alone costs
# about as much as 50 KB in one walk, in NumPy's calls; a warm text is not even counted).
BATCH_FROM = 4
SHORT_WORD = 24  # a word up to this many bytes is walked with dict lookups (_word_ids)


class _ManyMisses(Exception):
    """Raised in :meth:`RWKVModel.encode`'s first pass at the ``BATCH_FROM``-th line not in the cache."""


def byte_junctions(tokens: list[bytes]) -> np.ndarray:
    """A table of the 65,536 pairs of bytes: ``a << 8 | b`` is true where some token has ``a`` then ``b`` inside it.

    **Why the greedy walk can be cut between two bytes ``a``, ``b`` that are no such pair** (at place ``p``).
    The walk from a position ``q`` reads bytes while some token starts with what it has read, and takes the
    longest token among those; it reads ``text[q:p + 1]`` only if some token starts with it, and such a token
    holds ``a`` then ``b``. So a walk from ``q < p`` never reads past ``p - 1``: its token ends at ``p`` at the
    latest, and the next walk starts at or before ``p``. By induction the walk lands on ``p``. What the walk
    does before ``p`` reads only bytes before ``p`` (each read stops at ``p``, where the text alone ends too),
    and what it does from ``p`` on depends only on the text from ``p`` on. So the ids of the text are the ids
    of ``text[:p]`` followed by those of ``text[p:]``, and a stuck walk (no token on the path read) is stuck
    in the same part, at the same place. The table depends on the vocabulary alone.

    >>> t = byte_junctions([b"ab", b"b\\n"])
    >>> bool(t[ord("a") << 8 | ord("b")]), bool(t[ord("b") << 8 | ord("\\n")]), bool(t[ord("\\n") << 8 | ord("a")])
    (True, True, False)
    """
    table = np.zeros(1 << 16, dtype=bool)
    longer = [t for t in tokens if len(t) > 1]
    if longer:
        b = np.frombuffer(b"".join(longer), dtype=np.uint8).astype(np.int64)
        inside = np.ones(len(b) - 1, dtype=bool)
        inside[np.cumsum(np.fromiter(map(len, longer), dtype=np.int64, count=len(longer)))[:-1] - 1] = False
        table[(b[:-1] << 8 | b[1:])[inside]] = True
    return table


def cut_places(data: bytes, anchors: bytes, joins: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """The places ``p`` (``0 < p < len(data)``) right before a byte of ``anchors`` where :func:`byte_junctions`
    (``joins``) allows a cut, and the places ``starts`` too, sorted, between ``0`` and ``len(data)``.

    >>> cut_places(b"ab\\ncd\\n\\nx", b"\\n", byte_junctions([b"\\n\\n"])).tolist()
    [0, 2, 5, 8]
    """
    b = np.frombuffer(data, dtype=np.uint8)
    n = len(b)
    at = np.flatnonzero(b == anchors[0]) if len(anchors) == 1 else \
        np.flatnonzero(np.isin(b, np.frombuffer(anchors, dtype=np.uint8)))
    if len(at) and at[0] == 0:
        at = at[1:]
    at = at[~joins[b[at - 1].astype(np.int64) << 8 | b[at]]]
    if starts is not None:
        at = np.union1d(at, starts[(starts > 0) & (starts < n)])
    out = np.empty(len(at) + 2, dtype=np.int64)
    out[0], out[1:-1], out[-1] = 0, at, n
    return out


class RWKVModel:
    """Raw bytes -> ids for one RWKV vocabulary: lines through a cache of ``cache_size`` lines, new lines walked
    in C or word by word (see the module's docstring); :meth:`encode_slow`, the plain walk, gives the same."""

    def __init__(self, texts: list[str], unk: int, cache_size: int = DEFAULT_PIECES) -> None:
        self.values: dict[bytes, int] = {}
        for i, t in enumerate(texts):
            self.values[rwkv_unescape(t)] = i  # a later duplicate wins, as in llama.cpp's trie
        self.prefixes = PrefixIndex(self.values)
        self.unk = unk
        self._joins = byte_junctions(list(self.values))
        longer = [k for k in self.values if len(k) > 1]
        self._split: re.Pattern[bytes] | None = None
        self._bulk = len(longer) <= FEW_LONG and max(map(len, longer), default=0) <= SHORT
        if self._bulk:
            first = self.prefixes.first
            self._byte_ids = np.array([self.values.get(bytes([b]), unk if b not in first else _STUCK)
                                       for b in range(256)], dtype=np.int32)
            self._split = re.compile(b"(" + longest_first(longer) + b")", re.DOTALL) if longer else None
            self._can_stick = bool((self._byte_ids == _STUCK).any())
        # each id as one int object that every cached list shares (lists of ints of their own take more memory
        # and make a warm encode slower to read them)
        ids = sorted(set(self.values.values()))
        self._id_objects = np.empty(max(ids, default=0) + 1 + max(0, -unk), dtype=object)
        self._id_objects[ids] = ids
        self._id_objects[unk] = unk  # the unknown id (-1 when there is none): a negative one is read from the end
        self._cache = PieceCache(self._line_ids, cache_size)
        self._words = PieceCache(self._word_ids, cache_size)
        # the longest token that starts with each two bytes (1: none), where _word_ids starts looking
        reach = np.ones(1 << 16, dtype=np.int64)
        if longer:
            heads = np.fromiter((k[0] << 8 | k[1] for k in longer), dtype=np.int64, count=len(longer))
            np.maximum.at(reach, heads, np.fromiter(map(len, longer), dtype=np.int64, count=len(longer)))
        self._reach = reach.tolist()
        self._misses = -1  # during encode's first pass: the lines computed so far (-1: not counting)

    def encode(self, data: bytes) -> list[int]:
        """The ids of ``data``: :meth:`encode_slow`'s, by lines through the cache."""
        if not data:
            return []
        places = self._lines(data)
        lines = list(map(data.__getitem__, map(slice, places, places[1:])))
        cache = self._cache
        self._misses = 0
        try:
            return reduce(iadd, map(cache.__getitem__, lines), [])  # a warm text: every line a hit, in C
        except _ManyMisses:
            pass
        except EncodeError:
            return self.encode_slow(data)  # raises where llama.cpp never finishes, at the place in the text
        finally:
            self._misses = -1
        # many new lines: the whole text at once, then each line's ids kept
        try:
            ids, at = self._whole(data, places)
        except EncodeError:
            return self.encode_slow(data)
        longest = cache.longest
        cache.keep_all({p: i for p, i in zip(lines, map(ids.__getitem__, map(slice, at, at[1:])), strict=True)
                        if len(p) <= longest})
        return ids

    def _lines(self, data: bytes) -> list[int]:
        """Where :meth:`encode` cuts ``data``: before each ``\\n`` where :func:`byte_junctions` allows, and in a
        line longer than the cache keeps, before each space where allowed too (the places, with 0 and the end)."""
        places = cut_places(data, b"\n", self._joins)
        if len(data) > self._cache.longest:
            long = np.diff(places) > self._cache.longest
            if long.any():
                spaces = cut_places(data, b" ", self._joins)[1:-1]
                inside = long[np.searchsorted(places, spaces, side="right") - 1]
                places = np.union1d(places, spaces[inside])
        return places.tolist()

    def _whole(self, data: bytes, places: list[int]) -> tuple[list[int], list[int]]:
        """The ids of ``data`` and, for each of ``places`` (cuts :func:`byte_junctions` allows, 0 and the end
        among them), the number of ids before it: walked in C, or word by word (each distinct word once)."""
        if self._bulk:
            ids, starts, extra = self._walk_in_c(data)
            # the ids before place x: x bytes, less what the longer tokens before x have over one byte each
            x = np.array(places, dtype=np.int64)
            return self._id_objects[ids].tolist(), (x - extra[np.searchsorted(starts, x)]).tolist()
        cuts = cut_places(data, b" \n", self._joins, np.array(places, dtype=np.int64))
        words = list(map(self._words.__getitem__, map(data.__getitem__, map(slice, cuts, cuts[1:]))))
        ends = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)), out=ends[1:])
        return reduce(iadd, words, []), ends[np.searchsorted(cuts, places)].tolist()

    def _line_ids(self, line: bytes) -> list[int]:
        """One line's ids, walked alone. :meth:`encode`'s first pass counts the lines the cache can keep (a
        longer one is walked each time it comes, and alone: it does not make the whole text walked again)."""
        if self._misses >= 0 and len(line) <= self._cache.longest:
            self._misses += 1
            if self._misses >= BATCH_FROM:
                raise _ManyMisses
        return self._whole(line, [0, len(line)])[0]

    def _walk_in_c(self, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The greedy walk of ``data`` with ``re.split`` and NumPy (see the module's docstring): the ids, the
        byte offset where each token longer than a byte starts, and what the tokens before each of those have
        over one byte each, in all (one more at the end: all of them)."""
        # the bytes between the longer tokens, and the tokens: [b0, t1, b1, ...]
        parts = [data] if self._split is None else self._split.split(data)
        ids = self._byte_ids[np.frombuffer(b"".join(parts[0::2]), dtype=np.uint8)]
        if self._can_stick and (ids == _STUCK).any():
            self.encode_slow(data)  # raises where llama.cpp never finishes
        n = len(parts) // 2
        extra = np.zeros(n + 1, dtype=np.int64)
        if not n:
            return ids, extra[:0], extra
        lens = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        starts = np.cumsum(lens)[0:-1:2]
        np.cumsum(lens[1::2] - 1, out=extra[1:])
        out = np.empty(len(ids) + n, dtype=ids.dtype)
        at = starts - extra[:-1]  # where each longer token goes among the ids
        out[at] = np.fromiter(map(self.values.__getitem__, parts[1::2]), dtype=ids.dtype, count=n)
        rest = np.ones(len(out), dtype=bool)
        rest[at] = False
        out[rest] = ids
        return out, starts, extra

    def _word_ids(self, word: bytes) -> list[int]:
        """:meth:`encode_slow` of one word, for the cache of words. A short word is walked with dict lookups,
        longest first from the longest token that starts with the next two bytes: the longest token the walk
        passes is the longest token the text starts with (each prefix of a token is on the trie's path). On a
        real-size vocabulary's words that was about 3 times faster than a sorted-list lookup per token; a long
        word (a text without spaces) keeps those (linear in its length)."""
        n = len(word)
        if n > SHORT_WORD:
            return self.encode_slow(word)
        get, first, out, pos = self.values.get, self.prefixes.first, [], 0
        reach = self._reach
        while pos < n:
            top = min(n, pos + reach[word[pos] << 8 | word[pos + 1]]) if pos + 1 < n else n
            for end in range(top, pos, -1):
                tid = get(word[pos:end])
                if tid is not None:
                    break
            else:
                if word[pos] in first:  # stuck: no token on the path
                    return self.encode_slow(word)  # raises, at the place
                tid, end = self.unk, pos + 1
            out.append(tid)
            pos = end
        return out

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
