"""SentencePiece-style BPE (``tokenizer.ggml.model = "llama"``) as llama.cpp runs it: merges by score.

There is no merge list: two adjacent symbols merge if their concatenation is a token, and the pair whose
token has the highest score merges first (the leftmost on ties). The text has its spaces turned into ``▁``
beforehand, and symbols are bytes grouped by their UTF-8 lead byte, without validation: an invalid byte
swallows what follows it. A symbol that is no token falls back to ``<0xXX>`` byte tokens.

>>> spm_merge(b"ab", {b"a": 0, b"b": 1, b"ab": 2}, [0.0, 0.0, -1.0])
[b'ab']
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ..errors import EncodeError

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


class SPMModel:
    """Raw-text fragment (bytes, spaces already ``▁``) -> ids, for one SentencePiece vocabulary."""

    def __init__(self, texts: Sequence[str], scores: Sequence[float]) -> None:
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

    def byte_id(self, b: int) -> int:
        tid = self._byte_ids[b]
        if tid is None:
            raise EncodeError(f"byte 0x{b:02X} has no <0x{b:02X}> token to fall back on (llama.cpp aborts)")
        return tid

    def encode(self, data: bytes) -> list[int]:
        out: list[int] = []
        for sym in spm_merge(data, self.bytes_to_id, self.scores):
            tid = self.bytes_to_id.get(sym)
            if tid is not None:
                out.append(tid)
            else:
                out += [self.byte_id(b) for b in sym]
        return out
