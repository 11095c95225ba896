"""SentencePiece-style BPE (``tokenizer.ggml.model = "llama"``) as llama.cpp runs it: merges by score.

There is no merge list: two adjacent symbols merge if their concatenation is a token, and the pair whose
token has the highest score merges first (the leftmost on ties). The text has its spaces turned into ``▁``
beforehand, and symbols are bytes grouped by their UTF-8 lead byte, without validation: an invalid byte
swallows what follows it. A symbol that is no token falls back to ``<0xXX>`` byte tokens.

>>> spm_merge(b"ab", {b"a": 0, b"b": 1, b"ab": 2}, [0.0, 0.0, -1.0])
[b'ab']

llama.cpp merges the whole text at once; :class:`SPMModel` cuts it first where no token can be formed across
the cut (:func:`space_cuts`, :func:`junctions`: the proof is there), merges each distinct piece once, and
serves it from a cache after that. The pieces a text brings that the cache lacks are cut again all at once in
NumPy, at every place no token that merges can make spans (:func:`merge_junctions`: digits one by one, most
scripts at every change of script), and each distinct part is merged once (``SPMModel._batch_ids``).
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Sequence
from functools import reduce
from itertools import chain, compress, filterfalse, pairwise
from operator import iadd, itemgetter, not_, or_

import numpy as np

from ..errors import EncodeError
from .distinct import distinct
from .piece_cache import DEFAULT_PIECES, PieceCache, Uncached

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
       since two symbols merge only when their concatenation is a token (and a token that merges can make,
       from two symbols that are characters or such tokens: :func:`merge_junctions` keeps only the pairs of
       those, which the same argument needs). A token laid on the text at a symbol
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
    last = n - 2  # the index of the last pair
    while True:
        best = max(pair)
        if best == none:
            return syms
        i = pair.index(best)
        s = syms[i] = syms[i] + syms.pop(i + 1)
        del pair[i]
        if not last:
            return syms
        last -= 1
        if i:
            pair[i - 1] = get(syms[i - 1] + s, none)
        if i <= last:
            pair[i] = get(s + syms[i + 1], none)


# Pieces up to this many characters merge in merge_short (quadratic, in C), longer ones in spm_merge (a heap);
# a piece longer than CUT_LONGER_THAN characters is first cut at every place junctions() allows.
SHORT_PIECE = 64
CUT_LONGER_THAN = 24
# An encode that meets this many pieces not in the cache cuts all its missing pieces at once (_batch_ids):
# below that, NumPy's cost per call is more than the cuts it saves, and a warm text is not even counted. (On
# 100 distinct 1 KB prompts of English, C++ and multilingual text, Llama's, Phi-3's and Baichuan's junctions
# prepared, 128 was the fastest of 32, 64, 128, 256 and 1536, or within the noise of it.)
BATCH_FROM = 128
# Both the batch and the cut of a long piece need merge_junctions() of the vocabulary (30 ms for Llama's 32,000
# tokens, 60 ms for Baichuan's), which pays off on a large text or on a tokenizer that goes on encoding, not on
# a first prompt (a 1 KB prompt merges in about 1 ms). Until they exist, a long piece merges whole (merge_short,
# or the queue past SHORT_PIECE: n log n) until CUTS_AFTER characters of long pieces have; prepared (read from
# disk), they cut from the first text. The batch's own tables (10 ms for Baichuan's: its one-character tokens, an
# int object per id) are made by the first encode that brings BATCH_FROM_COLD missing pieces (about 20 KB of
# English): on 10 KB, merging piece by piece was twice as fast as a first batch, and on a stream of 1 KB prompts
# as fast.
BATCH_FROM_COLD = 1536
CUTS_AFTER = 1 << 13


class _ManyMisses(Exception):
    """Raised in :meth:`SPMModel.encode`'s first pass at the ``BATCH_FROM``-th piece not in the cache."""


class SPMModel:
    """Raw-text fragment (bytes, spaces already ``▁``) -> ids, for one SentencePiece vocabulary.

    The fragment is cut before ``▁`` where :func:`junctions` allows (:func:`space_cuts`, in C); each piece is
    merged once and kept in a :class:`~gguftok.models.piece_cache.PieceCache` of ``cache_size`` pieces. A
    fragment that brings ``BATCH_FROM`` pieces or more the cache lacks has them all cut in NumPy
    (:meth:`_batch_ids`); with fewer, a long piece (a text without spaces) is cut alone. The parts go through a
    second cache of ``cache_size`` parts. ``spm_merge`` of the whole fragment gives the same ids
    (``tests/test_speed_paths.py``, ``tests/test_speed_spm.py``).
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
        self._joins: frozenset[int] | None = None  # merge_junctions(), on the first long piece (or prepared)
        self.prepared = False  # whether the junctions came from a prepared table (use_prepared)
        before_space = {a for t in texts if "\u2581" in t[1:]
                        for a, b in pairwise(symbols(t.encode("utf-8", "surrogateescape"))) if b == SPACE}
        self._pieces = space_cuts(before_space) if self._cuts_ok else None
        self._cache = PieceCache(self._piece_ids, cache_size)
        self._parts = PieceCache(self._part_ids, cache_size)  # parts of pieces cut by junctions (str keys)
        self._fresh: dict[bytes, list[int]] = {}  # during encode: the ids _batch_ids found
        self._misses = -1  # during encode's first pass: the pieces computed so far (-1: not counting)
        self._uncut = 0  # characters merged before the junctions were made (CUTS_AFTER)
        self._pair_keys: np.ndarray | None = None  # char_junctions() sorted, for _batch_ids
        # the code points that are a token alone, sorted, and those tokens' ids (for _batch_ids)
        self._char_ids: tuple[np.ndarray, np.ndarray] | None = None
        self._id_objects: np.ndarray | None = None  # id -> the int object of that id (for _batch_ids)

    @property
    def can_cut(self) -> bool:
        """Whether pieces are cut at all (no NaN score: see :func:`junctions`); only then is there a table."""
        return self._pieces is not None

    def prepared_joins(self) -> dict[str, str]:
        """:func:`merge_junctions` (made now if not yet) as a table keeps it: each character, and the characters
        that may follow it inside a token a merge can build.

        >>> SPMModel(["a", "b", "c", "ab", "abc"], [0.0] * 5).prepared_joins()
        {'a': 'b', 'b': 'c'}
        """
        follow: dict[str, list[str]] = {}
        for pair in sorted(self._junctions()):
            follow.setdefault(chr(pair >> 21), []).append(chr(pair & 0x1FFFFF))
        return {a: "".join(b) for a, b in follow.items()}

    @property
    def junctions(self) -> frozenset[int]:
        """:func:`merge_junctions` of the vocabulary, as ``a << 21 | b`` (made now if not yet, or prepared)."""
        return self._junctions()

    def use_prepared(self, joins: dict[str, str]) -> None:
        """Take :meth:`prepared_joins` from a table: a long piece is then cut from the first text on, with the
        same ids (the batch still waits for a text of ``BATCH_FROM_COLD`` new pieces to make its tables)."""
        if self._joins is None:
            self._joins = frozenset(ord(a) << 21 | ord(b) for a, bs in joins.items() for b in bs)
        self.prepared = True

    def byte_id(self, b: int) -> int:
        tid = self._byte_ids[b]
        if tid is None:
            raise EncodeError(f"byte 0x{b:02X} has no <0x{b:02X}> token to fall back on (llama.cpp aborts)")
        return tid

    def encode(self, data: bytes) -> list[int]:
        if self._pieces is None:
            return self.encode_whole(data)
        pieces = self._pieces.findall(data)
        cache = self._cache
        self._misses = 0
        try:
            # a warm text: every piece a hit, joined in C (reduce(iadd): faster than encode_pieces' chain, 20%
            # on pieces of 3 ids, 7 times on lists of 100)
            return reduce(iadd, map(cache.__getitem__, pieces), [])
        except _ManyMisses:
            pass
        finally:
            self._misses = -1
        # cut all the missing pieces at once; the cache's misses are served from what that found (_piece_ids).
        # In the order of the text: kept in that order, a warm encode reads the cache 20% faster than in a set's.
        self._fresh = fresh = self._batch_ids(list(dict.fromkeys(filterfalse(cache.__contains__, pieces))))
        longest = cache.longest
        cache.keep_all({p: ids for p, ids in fresh.items() if len(p) <= longest and type(ids) is not Uncached})
        # (a full cache makes room for this text's pieces: the same text again finds them all; its parts are
        # in the cache of parts too, so a text with more pieces than the cache holds cuts and looks up again)
        try:
            return reduce(iadd, map(cache.__getitem__, pieces), [])
        finally:
            self._fresh = {}

    def _batch_ids(self, pieces: list[bytes]) -> dict[bytes, list[int]]:
        """The ids of many distinct pieces at once: :meth:`_piece_ids` of each, with the cuts made in NumPy.

        All the pieces are decoded as one text; every place between two characters is cut where the two are
        no pair of :func:`merge_junctions` (and where a piece starts: the pieces are independent, see
        :func:`space_cuts`), so each part is merged alone as :func:`junctions` allows; each distinct part is
        merged once (or taken from the cache of parts), a part of one character that is a token is that token,
        and a piece's ids are its parts' ids. Invalid UTF-8 goes through :meth:`_piece_ids` alone (its symbols
        are not its characters).

        >>> m = SPMModel(["a", "b", "1", "2", "ab", "<0x12>"], [0.0, 0.0, 0.0, 0.0, -1.0, 0.0])
        >>> m._batch_ids([b"ab12", b"12ab"])
        {b'ab12': [4, 2, 3], b'12ab': [2, 3, 4]}
        """
        if not pieces:
            return {}
        joined = b"".join(pieces)
        try:
            text = joined.decode("utf-8")
        except UnicodeDecodeError:
            valid, out = [], {}
            for p in pieces:
                try:
                    p.decode("utf-8")
                    valid.append(p)
                except UnicodeDecodeError:
                    out[p] = self._piece_ids(p)
            if valid:
                out.update(self._batch_ids(valid))
            return out
        if self._pair_keys is None:
            self._pair_keys = np.array(sorted(self._junctions()), dtype=np.int64)
            # the tokens of one character (no surrogate escape), by code point, sorted for searchsorted: found in
            # NumPy (a loop over Baichuan's 33,000 took 10 ms, and a table of all 0x110000 code points 15 ms)
            keys = list(self._text_to_id)
            one = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)) == 1
            cps = np.frombuffer("".join(compress(keys, one)).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            ids = np.fromiter(compress(self._text_to_id.values(), one), dtype=np.int64, count=int(one.sum()))
            valid = (cps < 0xD800) | (cps > 0xDFFF)
            order = np.argsort(cps[valid], kind="stable")
            self._char_ids = (cps[valid][order].astype(np.int64), ids[valid][order])
            # each id as one int object, which every cached list shares (a list of 600,000 ints of their own
            # took 20 MB more, and a warm encode 20% longer, reading them)
            self._id_objects = np.empty(len(self.scores), dtype=object)
            self._id_objects[list(self._text_to_id.values())] = list(self._text_to_id.values())
            for tid in self._byte_ids:
                if tid is not None:
                    self._id_objects[tid] = tid
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        n = len(codes)
        # the character where each piece starts: its byte offset counted in lead bytes
        byte_starts = np.zeros(len(pieces), dtype=np.int64)
        np.cumsum(np.fromiter(map(len, pieces[:-1]), dtype=np.int64, count=len(pieces) - 1), out=byte_starts[1:])
        chars_before = np.zeros(len(joined) + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(joined, dtype=np.uint8) & 0xC0 != 0x80, out=chars_before[1:])
        starts = chars_before[byte_starts]
        # a part starts at each piece's start and between two characters that are no pair
        cut = np.ones(n + 1, dtype=bool)
        keys = codes[:-1] << 21 | codes[1:]
        pairs = self._pair_keys
        cut[1:n] = pairs[np.minimum(np.searchsorted(pairs, keys), len(pairs) - 1)] != keys
        cut[starts] = True
        bounds = np.flatnonzero(cut)
        part_start, part_len = bounds[:-1], np.diff(bounds)
        # a part of one character that is a token is its id (most digits, CJK); the others are merged
        char_keys, char_ids = self._char_ids
        first_codes = codes[part_start]
        if len(char_keys):
            at = np.minimum(np.searchsorted(char_keys, first_codes), len(char_keys) - 1)
            single = np.where(char_keys[at] == first_codes, char_ids[at], -1)
        else:
            single = np.full(len(first_codes), -1, dtype=np.int64)
        single[part_len > 1] = -1
        other = np.flatnonzero(single < 0)
        others = [text[a:b] for a, b in zip(part_start[other].tolist(), bounds[other + 1].tolist(), strict=True)]
        known = self._parts
        part_ids = {p: known[p] for p in set(others)}
        lists = list(map(part_ids.__getitem__, others))
        sizes = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        # every part's ids laid end to end: the single ids and the merged lists, each at its offset
        counts = np.ones(len(part_start), dtype=np.int64)
        counts[other] = sizes
        at = np.zeros(len(part_start) + 1, dtype=np.int64)
        np.cumsum(counts, out=at[1:])
        flat = np.empty(at[-1], dtype=np.int64)
        flat[at[:-1]] = single
        if lists:
            list_at = np.repeat(at[other] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
            flat[list_at] = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=len(list_at))
        ids = self._id_objects[flat].tolist()
        first = np.searchsorted(bounds, starts)  # each piece's first part
        piece_at = at[first].tolist()
        piece_at.append(len(ids))
        return {piece: ids[a:b] for piece, a, b in zip(pieces, piece_at, piece_at[1:], strict=False)}

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
        """The ids of one piece: :meth:`encode_whole`, cut first when it is long, each part through the cache of
        parts; or, during :meth:`encode`, what :meth:`_batch_ids` found for it."""
        ids = self._fresh.get(piece)
        if ids is not None:
            return ids
        if self._misses >= 0:
            self._misses += 1
            if self._misses >= BATCH_FROM and (self._pair_keys is not None or self._misses >= BATCH_FROM_COLD):
                raise _ManyMisses
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            return self.encode_whole(piece)
        if len(text) <= CUT_LONGER_THAN or not self._cutting(len(text)):
            return self._merged_ids(text, piece)
        parts = self._cut(text)
        if len(parts) == 1:
            return self._merged_ids(text, piece)
        known, out = self._parts, (Uncached() if len(self._cache) * 4 >= self._cache.limit * 3 else [])
        for part in parts:
            out += known[part]
        return out

    def _cutting(self, n: int) -> bool:
        """Whether a piece of ``n`` characters (more than ``CUT_LONGER_THAN``) is cut: once the junctions exist, or
        once ``CUTS_AFTER`` characters of such pieces (this one too) would have been merged whole."""
        if self._joins is not None:
            return True
        self._uncut += n
        return self._uncut > CUTS_AFTER

    def _part_ids(self, part: str) -> list[int]:
        """The ids of one part (a piece of valid UTF-8 that needs no cut), for the cache of parts."""
        return self._merged_ids(part, part.encode("utf-8"))

    def _merged_ids(self, text: str, piece: bytes) -> list[int]:
        """The ids of one piece of valid UTF-8 (``text``, and ``piece``, its bytes), merged without cuts."""
        if not self._short_ok or len(text) > SHORT_PIECE:
            return self.encode_whole(piece)
        t2i = self._text_to_id
        if len(text) == 1:  # one character: its token, or its bytes' tokens
            tid = t2i.get(text)
            return [tid] if tid is not None else [self.byte_id(b) for b in piece]
        syms = merge_short(list(text), self._score_of)
        ids = list(map(t2i.get, syms))
        if None not in ids:
            return ids
        out: list[int] = []
        for sym, tid in zip(syms, ids, strict=True):
            if tid is not None:
                out.append(tid)
            else:
                out += [self.byte_id(b) for b in sym.encode("utf-8")]
        return out

    def _cut(self, text: str) -> list[str]:
        """``text`` (a piece of valid UTF-8, whose symbols are its characters) cut at every place between two
        characters that no token has side by side (:func:`junctions`)."""
        return junction_parts(text, self._junctions())

    def _junctions(self) -> frozenset[int]:
        """:func:`char_junctions` of the vocabulary, made on the first piece that needs it."""
        if self._joins is None:
            self._joins = merge_junctions(self._text_to_id)
        return self._joins


def merge_junctions(texts: dict[str, int]) -> frozenset[int]:
    """:func:`char_junctions` of the tokens (``texts`` -> ids) that some merge can make: the pairs of characters
    a symbol of the session can hold. A merged symbol is two symbols side by side whose text is a token, each a
    character or a merged symbol in turn; so a token of three characters or more with no place where both sides
    are a character or a token (llama's ``<0x41>``, ``<s>``) is never a symbol, and its pairs need not stop a cut
    (see :func:`junctions`). With them gone, runs of digits are cut between every two digits. Most tokens have a
    token before their last character or after their first (one set lookup, in C); of the others, only those
    holding a pair that no such token holds are tried at each place.

    >>> pairs = merge_junctions({"a": 0, "b": 1, "ab": 2, "abab": 3, "<0x41>": 4})   # "abab" is "ab" "ab"
    >>> sorted(chr(p >> 21) + chr(p & 0x1FFFFF) for p in pairs)
    ['ab', 'ba']
    """
    longer = [t for t in texts if len(t) > 2]
    formed = list(map(or_, map(texts.__contains__, map(itemgetter(slice(None, -1)), longer)),
                      map(texts.__contains__, map(itemgetter(slice(1, None)), longer))))
    sure = [t for t in texts if len(t) == 2] + list(compress(longer, formed))
    pairs = char_junctions(sure)
    rest = list(compress(longer, map(not_, formed)))
    if not rest:
        return pairs
    # the tokens of rest with a pair that is not yet in pairs (in NumPy: a loop over 10,000 tokens took 15 ms)
    cps = np.frombuffer("\0".join(rest).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    keys = cps[:-1] << 21 | cps[1:]
    known = np.array(sorted(pairs), dtype=np.int64)
    new = (cps[:-1] != 0) & (cps[1:] != 0)
    if len(known):
        new &= known[np.minimum(np.searchsorted(known, keys), len(known) - 1)] != keys
    which = np.unique(np.cumsum(cps == 0)[:-1][new]).tolist()
    more = [t for t in map(rest.__getitem__, which)
            if any(t[:k] in texts and t[k:] in texts for k in range(2, len(t) - 1))]
    return pairs | char_junctions(more) if more else pairs


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
    return frozenset(distinct((cps[:-1][inside] << 21) | cps[1:][inside]).tolist())


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


# ------------------------------------------------------------------------------------------- for teaching
class SPMStep:
    """One merge of :func:`spm_trace`: the symbols before it, every adjacent pair whose text is a token (as
    ``(position, token id, score)``, left to right), and which of them merges (``best``, an index into
    ``candidates``: the highest score, the leftmost on ties)."""

    __slots__ = ("best", "candidates", "symbols")

    def __init__(self, symbols: list[bytes], candidates: list[tuple[int, int, float]], best: int) -> None:
        self.symbols = symbols
        self.candidates = candidates
        self.best = best

    @property
    def merged(self) -> bytes:
        """The token the step makes."""
        pos = self.candidates[self.best][0]
        return self.symbols[pos] + self.symbols[pos + 1]

    @property
    def after(self) -> list[bytes]:
        """The symbols after the step."""
        pos = self.candidates[self.best][0]
        return [*self.symbols[:pos], self.merged, *self.symbols[pos + 2:]]


def spm_trace(data: bytes, model: SPMModel) -> tuple[list[SPMStep], list[bytes], list[list[int]]]:
    """Every merge of ``data`` (spaces already ``▁``) on ``model``'s own tables (``bytes_to_id``, ``scores``,
    the byte fallback), one at a time, by the rule :func:`spm_merge`'s queue follows: the pair with the highest
    score merges, the leftmost on ties (see :func:`merge_short`). Returns the steps, the final symbols, and each
    symbol's ids: its token, or its bytes' ``<0xXX>`` tokens when it is none (the byte fallback). For teaching:
    it rescans every pair after each merge; ``tests/test_spm_trace.py`` checks that its ids are
    :meth:`Tokenizer.encode <gguftok.Tokenizer.encode>`'s.

    >>> m = SPMModel(["a", "b", "c", "ab", "bc", "<0x64>"], [0.0, 0.0, 0.0, -2.0, -1.0, 0.0])
    >>> steps, syms, ids = spm_trace(b"abcd", m)
    >>> [(s.candidates, s.merged) for s in steps]
    [([(0, 3, -2.0), (1, 4, -1.0)], b'bc')]
    >>> syms, ids
    ([b'a', b'bc', b'd'], [[0], [4], [5]])
    """
    b2i, scores = model.bytes_to_id, model.scores
    syms = symbols(data)
    steps: list[SPMStep] = []
    while True:
        candidates = []
        for pos, (a, b) in enumerate(pairwise(syms)):
            tid = b2i.get(a + b)
            if tid is not None:
                candidates.append((pos, tid, float(scores[tid])))
        if not candidates:
            break
        best = max(range(len(candidates)), key=lambda k: (candidates[k][2], -k))
        step = SPMStep(syms, candidates, best)
        steps.append(step)
        syms = step.after
    ids = []
    for sym in syms:
        tid = b2i.get(sym)
        ids.append([tid] if tid is not None else [model.byte_id(b) for b in sym])
    return steps, syms, ids
