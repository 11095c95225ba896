"""SentencePiece-style BPE (``tokenizer.ggml.model = "llama"``) as llama.cpp runs it: merges by score.

There is no merge list: two adjacent symbols merge if their concatenation is a token, and the pair whose
token has the highest score merges first (the leftmost on ties). The text has its spaces turned into ``▁``
beforehand, and symbols are bytes grouped by their UTF-8 lead byte, without validation: an invalid byte
swallows what follows it. A symbol that is no token falls back to ``<0xXX>`` byte tokens.

>>> spm_merge(b"ab", {b"a": 0, b"b": 1, b"ab": 2}, [0.0, 0.0, -1.0])
[b'ab']

llama.cpp merges the whole text at once; :class:`SPMModel` cuts it first where no token can be formed across
the cut (:func:`space_cuts`, :func:`junctions`: the proof is there), merges each distinct piece once, and
serves it from a cache after that.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

import numpy as np

from ..errors import EncodeError
from .piece_cache import DEFAULT_PIECES, PieceCache, Uncached, encode_pieces

# unicode_len_utf8: the length a lead byte announces, from its high nibble (no validation)
UTF8_LEN = [1] * 12 + [2, 2, 3, 4]


def spm_merge(data: bytes, bytes_to_id: dict[bytes, int], scores: Sequence[float]) -> list[bytes]:
    """The symbols of ``data`` after llama.cpp's SentencePiece merging."""
    n = len(data)
    starts, sizes = [], []
    i = 0
    while i < n:
        size = min(UTF8_LEN[data[i] >> 4], n - i)
        starts.append(i)
        sizes.append(size)
        i += size
    count = len(starts)
    nxt = list(range(1, count + 1))
    if count:
        nxt[-1] = -1
    prv = list(range(-1, count - 1))
    heap: list[tuple[float, int, int, int]] = []

    def try_pair(left: int, right: int) -> None:
        if left < 0 or right < 0:
            return
        size = sizes[left] + sizes[right]
        tid = bytes_to_id.get(data[starts[left]:starts[left] + size])
        if tid is not None:
            heapq.heappush(heap, (-scores[tid], left, right, size))

    for k in range(1, count):
        try_pair(k - 1, k)
    while heap:
        _, left, right, size = heapq.heappop(heap)
        if sizes[left] == 0 or sizes[right] == 0 or sizes[left] + sizes[right] != size:
            continue  # stale
        sizes[left] += sizes[right]
        sizes[right] = 0
        nxt[left] = nxt[right]
        if nxt[right] >= 0:
            prv[nxt[right]] = left
        try_pair(prv[left], left)
        try_pair(left, nxt[left])
    return [data[starts[k]:starts[k] + sizes[k]] for k in range(count) if sizes[k]]


def symbols(data: bytes) -> list[bytes]:
    """``data`` cut into symbols as llama.cpp's session cuts it: by UTF-8 lead byte, without validation.

    >>> symbols("a▁é".encode()), symbols(b"\\xe2\\xe2\\x96\\x81")
    ([b'a', b'\\xe2\\x96\\x81', b'\\xc3\\xa9'], [b'\\xe2\\xe2\\x96', b'\\x81'])
    """
    out, i, n = [], 0, len(data)
    while i < n:
        size = min(UTF8_LEN[data[i] >> 4], n - i)
        out.append(data[i:i + size])
        i += size
    return out


SPACE = "\u2581".encode()


def junctions(tokens: Iterable[bytes]) -> dict[bytes, frozenset[bytes]]:
    """For each symbol, the symbols that follow it inside some token (each token cut by :func:`symbols`).

    **Why a text can be cut where two neighbours are not such a pair.** Take a place ``p`` between two symbols
    of the text, ``a`` before and ``b`` after, and suppose no token has ``a`` followed by ``b`` inside it.

    1. Every symbol the session ever holds is a run of the text's first symbols; a merged one is a token,
       since two symbols merge only when their concatenation is a token. A token laid on the text at a symbol
       boundary cuts into the text's own symbols (the lead-byte rule reads the same bytes from the same start),
       so a symbol spanning ``p`` would be a token holding ``a`` then ``b``: there is none. No symbol ever
       spans ``p``, and no pair across ``p`` is ever queued (its concatenation would span ``p``).
    2. So every queued pair lies on one side. A merge on one side changes only the symbols, and queues only the
       pairs, of that side. Between two merges of the left side, its pairs in the queue do not change; the next
       one popped is its best valid pair (highest score, then leftmost; the order is a total order on the
       valid pairs, which compare the same alone, where the right side's positions all shift by one constant).
       A stale pair stays stale (sizes only grow, a merged-away symbol stays empty). By induction the left
       side makes exactly the merges it makes alone, in the same order; so does the right side.
    3. Each part, alone, starts with the same symbols: it begins at one of the text's symbol boundaries and
       ends at one (so no symbol of it is cut short by the end of the input). And the end is per symbol: each
       final symbol becomes its id or its bytes' ids.

    So the ids of the text are the ids of the left part followed by those of the right part. The pair is a
    property of the vocabulary alone: this table is built once. (With NaN scores the queue has no total order
    and the argument fails: :class:`SPMModel` then cuts nothing.)

    >>> j = junctions([b"ab", b"bc", "▁a".encode()])
    >>> sorted(j[b"a"]), sorted(j[b"b"]), sorted(j[SPACE])
    ([b'b'], [b'c'], [b'a'])
    """
    follow: dict[bytes, set[bytes]] = {}
    for t in tokens:
        syms = symbols(t)
        for a, b in pairwise(syms):
            follow.setdefault(a, set()).add(b)
    return {a: frozenset(b) for a, b in follow.items()}


def space_cuts(before_space: Iterable[bytes]) -> re.Pattern[bytes]:
    """A pattern whose matches are the pieces of a text cut before each ``▁`` that starts a symbol and follows
    a symbol no token has before a ``▁`` (``before_space``): :func:`junctions`' cuts before ``▁``, made in C.
    The first piece is whatever comes before the first cut, so the pieces cover the text.

    A ``▁`` at byte ``p`` starts a symbol when no lead byte in the three bytes before it announces a symbol
    that reaches past ``p`` (no byte ``0xC0``-``0xFF`` at ``p - 1``, ``0xE0``-``0xFF`` at ``p - 2``,
    ``0xF0``-``0xFF`` at ``p - 3``): true in valid UTF-8, and where it is false (invalid bytes) the pattern does
    not cut. A ``▁`` after one of ``before_space``'s symbols (the bytes before it end so) is not cut either.

    >>> cut = space_cuts({SPACE})
    >>> [p.decode() for p in cut.findall("a▁b▁▁c▁".encode())]
    ['a', '▁b', '▁▁c', '▁']
    >>> cut.findall(b"x\\xc3\\xe2\\x96\\x81y\\xe2\\x96\\x81z")   # 0xC3 swallows the next byte: no cut there
    [b'x\\xc3\\xe2\\x96\\x81y', b'\\xe2\\x96\\x81z']
    """
    stays = ["(?<=[\\xc0-\\xff])", "(?<=[\\xe0-\\xff].)", "(?<=[\\xf0-\\xff]..)"]
    stays += [f"(?<={re.escape(u.decode('latin-1'))})" for u in sorted(before_space)]
    joined = "(?:" + "|".join(stays) + ")"
    body = f"[^\\xe2]*(?:(?:\\xe2(?!\\x96\\x81)|{joined}\\xe2\\x96\\x81)[^\\xe2]*)*"
    return re.compile(f"(?s:.{body})".encode("latin-1"))


def merge_short(syms: list[str], score_of: dict[str, float]) -> list[str]:
    """:func:`spm_merge` without the queue, for a few symbols (characters of valid UTF-8): keep the score of
    every adjacent pair in a list, merge the highest (its leftmost occurrence, which ``list.index`` finds), and
    look up only the two pairs the merge changed. That is the pair the queue pops: the highest score, leftmost
    on ties, among the pairs still adjacent (a stale entry is exactly one that no longer is). Needs scores
    that are neither NaN nor -inf (-inf marks "no token").

    >>> merge_short(list("abcd"), {"ab": -1.0, "bc": -0.5, "abcd": -3.0})
    ['a', 'bc', 'd']
    """
    n = len(syms)
    if n < 2:
        return syms
    get, none = score_of.get, -math.inf
    pair = [get(a + b, none) for a, b in pairwise(syms)]
    while True:
        best = max(pair)
        if best == none:
            return syms
        i = pair.index(best)
        syms[i] += syms.pop(i + 1)
        del pair[i]
        if not pair:
            return syms
        if i:
            pair[i - 1] = get(syms[i - 1] + syms[i], none)
        if i < len(pair):
            pair[i] = get(syms[i] + syms[i + 1], none)


# Pieces up to this many characters merge in merge_short (quadratic, in C), longer ones in spm_merge (a heap);
# a piece longer than CUT_LONGER_THAN characters is first cut at every place junctions() allows.
SHORT_PIECE = 64
CUT_LONGER_THAN = 24


class SPMModel:
    """Raw-text fragment (bytes, spaces already ``▁``) -> ids, for one SentencePiece vocabulary.

    The fragment is cut before ``▁`` where :func:`junctions` allows (:func:`space_cuts`, in C); each piece is
    merged once and kept in a :class:`~gguftok.models.piece_cache.PieceCache` of ``cache_size`` pieces; a long
    piece (a text without spaces) is cut again at every place no token spans, and its parts go through the
    cache. ``spm_merge`` of the whole fragment gives the same ids (``tests/test_speed_paths.py``).
    """

    def __init__(self, texts: Sequence[str], scores: Sequence[float], cache_size: int = DEFAULT_PIECES) -> None:
        self.bytes_to_id = {}
        for i, t in enumerate(texts):
            self.bytes_to_id[t.encode("utf-8", "surrogateescape")] = i
        self.scores = scores
        self._byte_ids: list[int | None] = []
        for b in range(256):
            tid = self.bytes_to_id.get(f"<0x{b:02X}>".encode())
            if tid is None and b:  # byte 0's fallback key is the empty string, which is never a token
                tid = self.bytes_to_id.get(bytes([b]))
            self._byte_ids.append(tid)
        # the same tokens keyed by text (texts keep invalid UTF-8 as surrogate escapes, one to one with bytes)
        self._text_to_id = {t: i for i, t in enumerate(texts)}
        self._score_of = {t: float(scores[i]) for t, i in self._text_to_id.items()}
        values = set(self._score_of.values())
        self._cuts_ok = not any(map(math.isnan, values))  # NaN: no total order, no cuts (see junctions)
        self._short_ok = self._cuts_ok and -math.inf not in values
        self._joins: frozenset[int] | None = None  # char_junctions(), on the first long piece
        before_space = {a for t in texts if "\u2581" in t[1:]
                        for a, b in pairwise(symbols(t.encode("utf-8", "surrogateescape"))) if b == SPACE}
        self._pieces = space_cuts(before_space) if self._cuts_ok else None
        self._cache = PieceCache(self._piece_ids, cache_size)

    def byte_id(self, b: int) -> int:
        tid = self._byte_ids[b]
        if tid is None:
            raise EncodeError(f"byte 0x{b:02X} has no <0x{b:02X}> token to fall back on (llama.cpp aborts)")
        return tid

    def encode(self, data: bytes) -> list[int]:
        if self._pieces is None:
            return self.encode_whole(data)
        return encode_pieces(self._cache, self._pieces.findall(data))

    def encode_whole(self, data: bytes) -> list[int]:
        """The ids of ``data`` merged in one piece, as llama.cpp merges it (no cuts, no cache)."""
        out: list[int] = []
        for sym in spm_merge(data, self.bytes_to_id, self.scores):
            tid = self.bytes_to_id.get(sym)
            if tid is not None:
                out.append(tid)
            else:
                out += [self.byte_id(b) for b in sym]
        return out

    def _piece_ids(self, piece: bytes) -> list[int]:
        """The ids of one piece: :meth:`encode_whole`, cut first when it is long, each part through the cache."""
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            return self.encode_whole(piece)
        if len(text) <= CUT_LONGER_THAN:
            return self._merged_ids(text, piece)
        parts = self._cut(text)
        if len(parts) == 1:
            return self._merged_ids(text, piece)
        cache, out = self._cache, (Uncached() if len(self._cache) * 4 >= self._cache.limit * 3 else [])
        for part in parts:
            key = part.encode("utf-8")
            ids = cache.get(key)
            out += cache.keep(key, self._merged_ids(part, key)) if ids is None else ids
        return out

    def _merged_ids(self, text: str, piece: bytes) -> list[int]:
        """The ids of one piece of valid UTF-8 (``text``, and ``piece``, its bytes), merged without cuts."""
        if not self._short_ok or len(text) > SHORT_PIECE:
            return self.encode_whole(piece)
        t2i = self._text_to_id
        if len(text) == 1:  # one character: its token, or its bytes' tokens
            tid = t2i.get(text)
            return [tid] if tid is not None else [self.byte_id(b) for b in piece]
        out: list[int] = []
        for sym in merge_short(list(text), self._score_of):
            tid = t2i.get(sym)
            if tid is not None:
                out.append(tid)
            else:
                out += [self.byte_id(b) for b in sym.encode("utf-8")]
        return out

    def _cut(self, text: str) -> list[str]:
        """``text`` (a piece of valid UTF-8, whose symbols are its characters) cut at every place between two
        characters that no token has side by side (:func:`junctions`)."""
        if self._joins is None:
            self._joins = char_junctions(self._text_to_id)
        return junction_parts(text, self._joins)


def char_junctions(texts: Iterable[str]) -> frozenset[int]:
    """:func:`junctions` for valid UTF-8, where symbols are characters: every pair of characters side by side
    inside some token, as ``a << 21 | b`` (code points fit in 21 bits). Only tokens of valid UTF-8 can lie on a
    valid text; a token text holding a surrogate escape stands for invalid bytes, and its pairs are one too
    many at worst (a pair with a surrogate never meets a valid text; a pair of others only means a cut fewer).
    Built in NumPy (Unigram vocabularies have 250,000 tokens).

    >>> sorted(divmod(p, 1 << 21) for p in char_junctions(["ab", "abc", "x" + chr(0xDCFF)]))
    [(97, 98), (98, 99)]
    """
    cps = np.frombuffer("\0".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    # not across the separator (a pair with a NUL is one too many: fine), nor with a surrogate
    inside = (cps[:-1] != 0) & (cps[1:] != 0)
    inside &= ((cps[:-1] < 0xD800) | (cps[:-1] > 0xDFFF)) & ((cps[1:] < 0xD800) | (cps[1:] > 0xDFFF))
    return frozenset(np.unique((cps[:-1][inside] << 21) | cps[1:][inside]).tolist())


def junction_parts(text: str, pairs: frozenset[int]) -> list[str]:
    """``text`` (valid UTF-8, one symbol per character) cut between every two characters that are not a pair of
    :func:`char_junctions`: the parts encode alone (see :func:`junctions`).

    >>> junction_parts("abcxab", char_junctions(["abc", "xa"]))
    ['abc', 'xab']
    """
    codes = list(map(ord, text))
    parts, start, at = [], 0, 1
    for a, b in pairwise(codes):
        if (a << 21 | b) not in pairs:
            parts.append(text[start:at])
            start = at
        at += 1
    parts.append(text[start:])
    return parts
