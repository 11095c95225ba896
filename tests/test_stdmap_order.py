"""llama.cpp's token map order: the order of a few ids, found without ordering the whole map, is the full
order's; the vectorised hash is libstdc++'s (checked against a plain-Python MurmurHash2)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import read_metadata
from gguftok.stdmap_order import hash_bytes, iteration_order, relative_order
from gguftok.vocab import Vocab

MASK = (1 << 64) - 1
MUL = 0xC6A4A7935BD1E995


def murmur(key: bytes, seed: int = 0xC70F6907) -> int:
    """std::_Hash_bytes for 64-bit size_t, one key, in plain Python (libstdc++'s hash_bytes.cc)."""
    def mix(v):
        return v ^ (v >> 47)
    h = seed ^ (len(key) * MUL & MASK)
    full = len(key) & ~7
    for i in range(0, full, 8):
        d = mix(int.from_bytes(key[i:i + 8], "little") * MUL & MASK) * MUL & MASK
        h = (h ^ d) * MUL & MASK
    if len(key) & 7:
        h = (h ^ int.from_bytes(key[full:], "little")) * MUL & MASK
    h = mix(h) * MUL & MASK
    return mix(h)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=60))
def test_hash_is_libstdcxx(keys):
    assert hash_bytes(keys).tolist() == [murmur(k) for k in keys]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 2**32), st.integers(1, 8))
def test_a_few_keys_in_the_order_of_all(n, seed, k):
    rng = random.Random(seed)
    keys = list(dict.fromkeys(rng.randbytes(rng.randint(1, 12)) for _ in range(n)))
    wanted = rng.sample(range(len(keys)), min(k, len(keys)))
    full = iteration_order(keys)
    assert relative_order(hash_bytes(keys), wanted) == [i for i in full if i in set(wanted)]


def test_real_vocabularies_in_map_order(vocab_path):
    for name in ("qwen2", "llama-bpe", "gpt-2", "command-r"):
        v = Vocab(read_metadata(vocab_path(name)))
        full = v._map_order()
        rng = random.Random(name)
        for wanted in ([v.token_to_id["<|endoftext|>"]] if "<|endoftext|>" in v.token_to_id else [],
                       rng.sample(range(v.n_vocab), 2), rng.sample(range(v.n_vocab), 50)):
            assert v._in_map_order(wanted) == [i for i in full if i in set(wanted)]
        keys = [t.encode("utf-8", "surrogateescape") for t in v.token_to_id]
        assert np.array_equal(v._key_hashes(), hash_bytes(keys))
