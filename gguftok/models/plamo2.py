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
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import VocabError
from ..pretokenize.unicode import decode_lax
from .prefix import PrefixIndex

BYTE_TYPE = 6  # GGUF token type
UNKNOWN_COST = 10_000_000


def _wide(cps: Sequence[int]) -> bytes:
    """Code points as 4 big-endian bytes each: byte order is code point order, and any code point fits
    (llama.cpp's lax decoding gives up to 0x1FFFFF), so no code point needs a stand-in."""
    return np.asarray(cps, dtype=">u4").tobytes()


def _round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


class PLaMo2Model:
    def __init__(self, texts: Sequence[str], gguf_types: Sequence[int], scores: Sequence[float]) -> None:
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

    def encode(self, data: bytes) -> list[int]:
        cps = decode_lax(data)
        if cps and cps[0] == 0xFEFF:
            cps = cps[1:]
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
