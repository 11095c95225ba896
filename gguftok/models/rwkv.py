"""RWKV's tokenizer as llama.cpp runs it: greedy longest match over bytes, in a trie of unescaped tokens.

>>> m = RWKVModel(["a", "ab", "b"], unk=-1)
>>> m.encode(b"abbc")
[1, 2, -1]
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
        values, has_prefix = self.values, self.prefixes.has_prefix
        while pos < n:
            if not has_prefix(data[pos:pos + 1]):
                out.append(self.unk)  # no token starts with this byte: llama.cpp emits the unknown id (often -1)
                pos += 1
                continue
            best = 0
            end = pos + 1
            while end <= n and has_prefix(data[pos:end]):
                if data[pos:end] in values:
                    best = end
                end += 1
            if best == 0:
                raise EncodeError("no RWKV token ends on the longest matching path; llama.cpp would restart at "
                                  "the beginning of the text and never finish", offset=pos)
            out.append(values[data[pos:best]])
            pos = best
        return out
