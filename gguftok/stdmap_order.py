"""The order in which llama.cpp's ``token_to_id`` map iterates, as GCC's libstdc++ lays it out.

llama.cpp finds a model's end-of-turn and fill-in-the-middle tokens by *text*, walking its
``std::unordered_map<std::string, llama_token>`` and taking the first token whose text is on a list. When a
vocabulary holds two candidates (Qwen2 has both ``<|endoftext|>`` and ``<|im_end|>``), the winner is whichever
the hash table happens to visit first. That order is not random: it follows from libstdc++'s string hash
(``std::_Hash_bytes``, a 64-bit MurmurHash2), its prime bucket counts, and how it links nodes on insert and
rehash. This module reproduces it (for builds with GCC's standard library, as the pinned Linux build is).

>>> order = iteration_order([b"<|endoftext|>", b"a", b"<|im_end|>"])
>>> sorted(order) == [0, 1, 2]
True

How the list is linked (libstdc++ ``_Hashtable``): nodes of one bucket are contiguous. Inserting into a
non-empty bucket puts the node at the front of that bucket's run; into an empty bucket, at the head of the
whole list. A rehash walks the old list and re-links every node by the same two rules. Before the k-th
insert, if k exceeds the bucket count, the table grows to the next prime of libstdc++'s list that is at
least twice as large.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_MUL = np.uint64(0xC6A4A7935BD1E995)
_SEED = 0xC70F6907
# libstdc++'s bucket counts as a table grows one element at a time from empty (max load factor 1).
BUCKET_COUNTS = [13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933, 351061,
                 712697, 1447153, 2938679, 5967347]


def _shift_mix(v: np.ndarray) -> np.ndarray:
    return v ^ (v >> np.uint64(47))


def hash_bytes(keys: Sequence[bytes]) -> np.ndarray:
    """``std::_Hash_bytes(key, len, 0xc70f6907)`` of every key, as uint64, vectorised over the keys.

    Per key: ``h = seed ^ (len * mul)``; for each full 8-byte little-endian block ``d``:
    ``h = (h ^ mix(d * mul) * mul) * mul``; a 1-7 byte tail ``t`` (little-endian): ``h = (h ^ t) * mul``;
    then ``h = mix(mix(h) * mul)``, where ``mix(v) = v ^ (v >> 47)``.
    """
    n = len(keys)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=n)
    joined = np.frombuffer(b"".join(keys) + bytes(8), dtype=np.uint8)
    starts = np.cumsum(lengths) - lengths
    lane = np.arange(8)
    with np.errstate(over="ignore"):
        h = np.uint64(_SEED) ^ (lengths.astype(np.uint64) * _MUL)
        j = 0
        while True:
            rows = np.nonzero(lengths > 8 * j)[0]  # keys with bytes in block j
            if len(rows) == 0:
                break
            offsets = 8 * j + lane
            block = joined[starts[rows, None] + offsets] * (offsets < lengths[rows, None])
            data = np.ascontiguousarray(block, dtype=np.uint8).view("<u8")[:, 0].astype(np.uint64)
            full = lengths[rows] >= 8 * (j + 1)
            data = np.where(full, _shift_mix(data * _MUL) * _MUL, data)  # a tail block is used as it is
            h[rows] = (h[rows] ^ data) * _MUL
            j += 1
        h = _shift_mix(h) * _MUL
        return _shift_mix(h)


def iteration_order(keys: Sequence[bytes]) -> list[int]:
    """The indices of ``keys`` (inserted in this order, all distinct) in the map's iteration order."""
    n = len(keys)
    if n == 0:
        return []
    if n > BUCKET_COUNTS[-1]:
        raise NotImplementedError(f"libstdc++ bucket counts are tabulated up to {BUCKET_COUNTS[-1]:,} keys, not {n:,}")
    hashes = hash_bytes(keys)
    order = np.empty(0, dtype=np.int64)  # current list, node indices head to tail
    start = 0  # keys[:start] are in the list
    for i, buckets in enumerate(BUCKET_COUNTS):
        # this bucket count is reached before insert number `start + 1`; it lasts while the count fits
        end = min(n, buckets)
        b = np.uint64(buckets)
        # 1. rehash the current list into `buckets` buckets
        if len(order):
            bk = (hashes[order] % b).astype(np.int64)
            walk = np.arange(len(order))
            # the walk position where each bucket first appears
            _, first, inverse = np.unique(bk, return_index=True, return_inverse=True)
            group_key = first[inverse]
            # groups: latest first appearance first; inside a group: latest walked first
            order = order[np.lexsort((-walk, -group_key))]
        # 2. insert keys[start:end] one by one, with no rehash in between
        if end > start:
            order = _insert_run(order, np.arange(start, end), hashes, buckets)
        start = end
        if start == n:
            break
        if i == len(BUCKET_COUNTS) - 1:
            raise NotImplementedError("too many keys")
    return order.tolist()


def _insert_run(order: np.ndarray, new: np.ndarray, hashes: np.ndarray, buckets: int) -> np.ndarray:
    """Insert ``new`` nodes (in this order) into the list ``order`` with a fixed bucket count."""
    b = np.uint64(buckets)
    old_bk = (hashes[order] % b).astype(np.int64)
    new_bk = (hashes[new] % b).astype(np.int64)
    n_new = len(new)
    # The rank of each bucket's run in the final list: runs created by these inserts come first, the latest
    # created at the head; then the old runs, in their old order.
    rank = np.zeros(buckets, dtype=np.int64)
    new_buckets, first_insert = np.unique(new_bk, return_index=True)
    rank[new_buckets] = -first_insert
    old_buckets, first_pos = np.unique(old_bk, return_index=True)
    rank[old_buckets] = n_new + first_pos  # a bucket that already had nodes keeps its old place
    # inside a run: the inserted nodes latest first, then the old nodes in their old order
    nodes = np.concatenate([order, new])
    within = np.concatenate([np.arange(len(order)) + n_new, n_new - 1 - np.arange(n_new)])
    return nodes[np.lexsort((within, rank[np.concatenate([old_bk, new_bk])]))]
