"""PLaMo-2's tokenizer as llama.cpp runs it: a dynamic program over code points, from the end.

Every non-byte token is a *piece* with a score. At each position the candidates are the pieces that start
there (longest first) and an "unknown" step of one code point; the cost of a piece is its score times
10,000, rounded half away from zero, negated; an unknown step costs 10,000,000 and becomes the UTF-8 bytes of
its code point as ``<0xXX>`` tokens. The cheapest path wins; on equal cost the longer piece does.

>>> m = PLaMo2Model(["<unk>"] + ["<0x%02X>" % b for b in range(256)] + ["a", "ab", "b"],
...                 [3] + [6] * 256 + [1, 1, 1], [0.0] * 257 + [-1.0, -1.5, -1.0])
>>> m.encode(b"abz")            # "ab" (cost 15,000) beats "a" + "b" (20,000); "z" is unknown: its byte token
[258, 123]

(llama.cpp treats a byte token with id 0 as missing, and refuses the vocabulary; so does this class.)

The pieces that start at a position are found with one lookup in a sorted list of the pieces, as code
points of 4 bytes each (:class:`~gguftok.models.prefix.PrefixIndex`): the longest, then the chain of its
prefixes that are pieces, the same candidates llama.cpp's suffix table lists, without a search per length.

**Cut, then cached.** Take a place between two code points that no piece of two or more code points spans. No
step of any path crosses it (a piece spanning it would be such a piece; an unknown step is one code point), so
every path passes through it, and the cost from any position left of it is a choice among paths through it:
``cost[i]`` there is the cost of the left part's path to the place plus ``cost[place]``, the same constant for
every candidate, and costs are integers, so every comparison (ties too: equal costs stay equal) comes out as
it does for the left part alone; right of it nothing changes at all. So the ids of the text are the ids of the
two parts, one after the other. :class:`PLaMo2Model` cuts before each space when no piece holds a space after
its first code point (``str.split(" ")`` cuts there in C; the words are kept in a
:class:`~gguftok.models.piece_cache.PieceCache`, each by what follows its space), then at every place next to a
code point that is in no such piece (one C-level scan with a character class), then, in a run of more than two
code points, at every place between two code points no piece has side by side; each part's ids are kept too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import chain, islice

import numpy as np

from ..errors import VocabError
from ..pretokenize.unicode import decode_lax
from .distinct import distinct
from .piece_cache import DEFAULT_PIECES, PieceCache, Uncached, char_pattern, codes_class, encode_pieces
from .prefix import PrefixIndex
from .spm import char_junctions, junction_parts

CUT_LONGER_THAN = 2  # a run longer than this many code points is cut between code points no piece joins
SHORT_RUN = 64  # runs (and pieces) up to this many code points: one lookup per length instead of a search
_WORDS = re.compile("(?s:.[^ ]*)")  # the text cut before each space

BYTE_TYPE = 6  # GGUF token type
UNKNOWN_COST = 10_000_000


def _wide(cps: Sequence[int]) -> bytes:
    """Code points as 4 big-endian bytes each: byte order is code point order, and any code point fits
    (llama.cpp's lax decoding gives up to 0x1FFFFF), so no code point needs a stand-in."""
    return np.asarray(cps, dtype=">u4").tobytes()


def _round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


class PLaMo2Model:
    def __init__(self, texts: Sequence[str], gguf_types: Sequence[int], scores: Sequence[float],
                 cache_size: int = DEFAULT_PIECES) -> None:
        byte_ids = [0] * 256
        pieces: dict[str, int | None] = {}
        last_id: dict[str, int] = {}
        for i, t in enumerate(texts):
            last_id[t] = i
            if gguf_types[i] == BYTE_TYPE:
                if len(t) == 6 and t.startswith("<0x") and t.endswith(">") and all(
                        c in "0123456789abcdefABCDEF" for c in t[3:5]):
                    byte_ids[int(t[3:5], 16)] = i
                continue
            s = scores[i]
            cps = "".join(map(chr, (c for c in decode_lax(t.encode("utf-8", "surrogateescape")) if c <= 0x10FFFF)))
            pieces[cps] = _round_half_away(s * 1e4) if math.isfinite(s) else None
        missing = [b for b in range(256) if byte_ids[b] == 0]
        if missing:
            raise VocabError(f"Byte token for <0x{missing[0]}> is not set (PLaMo-2 needs all 256 byte tokens)",
                             key="tokenizer.ggml.tokens")
        # a piece's token is the last token with that text (llama.cpp's token_to_id map)
        self.pieces = {p: (last_id.get(p, -1), score) for p, score in pieces.items() if score is not None}
        self.byte_ids = byte_ids
        wide = {_wide([ord(c) for c in p]): hit for p, hit in self.pieces.items()}
        self._index = PrefixIndex(wide)
        self._hits = [wide[k] for k in self._index.keys]  # (token id, score) per key of the index
        longer = [p for p in self.pieces if len(p) > 1]
        joined = distinct(np.frombuffer("".join(longer).encode("utf-32-le", "surrogatepass"), dtype=np.uint32))
        # a run of code points that are in some longer piece, or a run of code points that are in none (each of
        # those alone)
        if len(joined) <= 4096:  # a class of a few code points, built without an array of every code point
            inside, outside = codes_class(joined.tolist()) + "+", codes_class(joined.tolist(), negate=True) + "+"
        else:
            mask = np.zeros(0x110000, dtype=bool)
            mask[joined] = True
            inside, outside = char_pattern(mask, run=True), char_pattern(~mask, run=True)
        self._runs = re.compile(f"{inside}|{outside}")
        self._joined = frozenset(map(chr, joined.tolist()))
        self._joins = char_junctions(longer)
        self._width = max(map(len, self.pieces), default=0)
        self._alone = PieceCache(self._short_ids, cache_size)  # one code point of no longer piece
        self._cache = PieceCache(self._run_ids, cache_size)
        # Before a space that no piece holds after its first code point, no piece spans: the text is cut there
        # first (words, each from its space on), and each word's ids are kept too.
        # (keyed by the word without its space: see encode)
        self._words = None if any(" " in p[1:] for p in longer) else PieceCache(self._spaced_ids, cache_size)

    def encode(self, data: bytes) -> list[int]:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self.encode_whole(data)  # lax decoding: surrogates, code points past U+10FFFF
        if text[:1] == "\ufeff":
            text = text[1:]
        if self._words is None:
            return encode_pieces(self._cache, self._runs.findall(text))
        # the words, each from its space on (_WORDS), as str.split gives them in C (2.2-3.3 times faster than
        # findall on the bench texts): the first part, then a space before each further part
        parts = text.split(" ")
        ids = encode_pieces(self._words, islice(parts, 1, None))
        if parts[0]:
            ids[:0] = self._word_ids(parts[0])
        return ids

    def _spaced_ids(self, part: str) -> list[int]:
        """The ids of the word made of a space and ``part``."""
        return self._word_ids(" " + part)

    def _word_ids(self, word: str) -> list[int]:
        runs = self._runs.findall(word)
        return self._cache[runs[0]] if len(runs) == 1 else encode_pieces(self._cache, runs)

    def _run_ids(self, run: str) -> list[int]:
        """The ids of one run (cut again where no piece joins two code points, when long)."""
        if run[0] not in self._joined:  # code points of no longer piece: each alone (concatenated in C)
            return list(chain.from_iterable(map(self._alone.__getitem__, run)))
        if len(run) <= CUT_LONGER_THAN:
            return self._short_ids(run)
        parts = junction_parts(run, self._joins)
        if len(parts) == 1:
            return self._ids(list(map(ord, run)))
        cache = self._cache
        out = Uncached() if len(cache) * 4 >= cache.limit * 3 else []
        for part in parts:
            ids = cache.get(part)
            out += cache.keep(part, self._short_ids(part)) if ids is None else ids
        return out

    def _short_ids(self, run: str) -> list[int]:
        """:meth:`_ids` of a short run: the pieces at each position found by one lookup per length, longest
        first as the suffix table lists them (the first of equal costs wins)."""
        n, width = len(run), self._width
        if n > SHORT_RUN or width > SHORT_RUN:
            return self._ids(list(map(ord, run)))
        get = self.pieces.get
        cost = [1 << 60] * (n + 1)
        cost[n] = 0
        step_len = [0] * (n + 1)
        step_id = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            for length in range(min(n - i, width), 0, -1):
                hit = get(run[i:i + length])
                if hit is not None:
                    c = cost[i + length] - hit[1]
                    if c < cost[i]:
                        cost[i], step_len[i], step_id[i] = c, length, hit[0]
            c = cost[i + 1] + UNKNOWN_COST
            if c < cost[i]:
                cost[i], step_len[i], step_id[i] = c, 1, -1
        return self._steps(list(map(ord, run)), step_len, step_id)

    def encode_whole(self, data: bytes) -> list[int]:
        """The dynamic program over the whole fragment, as llama.cpp runs it (no cuts, no cache)."""
        cps = decode_lax(data)
        if cps and cps[0] == 0xFEFF:
            cps = cps[1:]
        return self._ids(cps)

    def _ids(self, cps: list[int]) -> list[int]:
        n = len(cps)
        if n == 0:
            return []
        # a code point past U+10FFFF is in no piece (pieces keep only code points up to U+10FFFF)
        text = _wide(cps)
        cost = [1 << 60] * (n + 1)
        cost[n] = 0
        step_len = [0] * (n + 1)
        step_id = [0] * (n + 1)
        longest, parent, lens, hits = self._index.longest, self._index.parent, self._index.lens, self._hits
        for i in range(n - 1, -1, -1):
            j = longest(text, 4 * i)
            while j >= 0:  # the pieces that start here, longest first
                length = lens[j] >> 2
                tid, score = hits[j]
                c = cost[i + length] - score
                if c < cost[i]:
                    cost[i], step_len[i], step_id[i] = c, length, tid
                j = parent[j]
            c = cost[i + 1] + UNKNOWN_COST
            if c < cost[i]:
                cost[i], step_len[i], step_id[i] = c, 1, -1
        return self._steps(cps, step_len, step_id)

    def _steps(self, cps: list[int], step_len: list[int], step_id: list[int]) -> list[int]:
        """The ids along the cheapest path: a piece's id, or an unknown code point's UTF-8 byte tokens."""
        n = len(cps)
        out: list[int] = []
        pos = 0
        while pos < n:
            if step_id[pos] >= 0:
                out.append(step_id[pos])
            else:
                c = cps[pos]
                size = 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
                for k in range(size):
                    lead = c if size == 1 else ((0xF00 >> size) & 0xFF if k == 0 else 0x80)
                    out.append(self.byte_ids[(lead | ((c >> ((size - k - 1) * 6)) & 0x3F)) & 0xFF])
            pos += step_len[pos]
        return out
