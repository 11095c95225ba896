"""llama.cpp's ``test`` vocabulary type: a hash, not a tokenizer (for its own tests of the plumbing).

Raw text is cut into 5-byte chunks; each chunk's id is ``h % n_vocab`` with ``h = h * 31 + byte``
(64-bit, wrapping), and a token's piece is its id in hexadecimal.

>>> HashModel(1000).encode(b"hello world")
[322, 114, 100]
"""

from __future__ import annotations


class HashModel:
    def __init__(self, n_vocab: int) -> None:
        self.n_vocab = n_vocab

    def encode(self, data: bytes) -> list[int]:
        out = []
        for i in range(0, len(data), 5):
            h = 0
            for b in data[i:i + 5]:
                h = (h * 31 + b) & 0xFFFFFFFFFFFFFFFF
            out.append(h % self.n_vocab)
        return out
