"""RWKV's tokenizer as llama.cpp runs it: greedy longest match over bytes, in a trie of unescaped tokens.

>>> m = RWKVModel(["a", "ab", "b"], unk=-1)
>>> m.encode(b"abbc")
[1, 2, -1]

Each step is one lookup in a sorted list of the tokens (:class:`~gguftok.models.prefix.PrefixIndex`), which
reads no further into the text than llama.cpp's trie walk does: a long token that the text almost matches
costs a longer comparison, never one search per byte.
"""

from __future__ import annotations

from ..detokenize import rwkv_unescape
from ..errors import EncodeError
from .prefix import PrefixIndex


class RWKVModel:
    def __init__(self, texts: list[str], unk: int) -> None:
        self.values: dict[bytes, int] = {}
        for i, t in enumerate(texts):
            self.values[rwkv_unescape(t)] = i  # a later duplicate wins, as in llama.cpp's trie
        self.prefixes = PrefixIndex(self.values)
        self.unk = unk

    def encode(self, data: bytes) -> list[int]:
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
