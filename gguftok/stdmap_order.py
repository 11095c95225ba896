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
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    return hash_joined(b"".join(keys), lengths)


def hash_joined(joined: bytes, lengths: np.ndarray) -> np.ndarray:
    """:func:`hash_bytes` of the keys laid end to end in ``joined``, with these lengths."""
    starts = np.cumsum(lengths) - lengths
    padded = joined + bytes(8)
    # the little-endian u64 at every byte offset (a view, no copy): block j of a key is one element of it
    words = np.ndarray((len(joined) + 1,), dtype="<u8", buffer=padded, strides=(1,))
    with np.errstate(over="ignore"):
        h = np.uint64(_SEED) ^ (lengths.astype(np.uint64) * _MUL)
        j = 0
        while True:
            rows = np.nonzero(lengths > 8 * j)[0]  # keys with bytes in block j
            if len(rows) == 0:
                break
            data = words[starts[rows] + 8 * j].astype(np.uint64)
            left = lengths[rows] - 8 * j  # bytes of the key from this block on
            full = left >= 8
            # a tail block is used as it is, without the bytes that follow the key
            tail_mask = (np.uint64(1) << (np.minimum(left, 7).astype(np.uint64) * np.uint64(8))) - np.uint64(1)
            data = np.where(full, _shift_mix(data * _MUL) * _MUL, data & tail_mask)
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


def relative_order(hashes: np.ndarray, wanted: Sequence[int]) -> list[int]:
    """The indices ``wanted`` in the map's iteration order, given every key's hash (:func:`hash_bytes`):
    :func:`iteration_order` filtered to them, without placing all the other keys.

    Where a node sits after a rehash or an insert follows from two times (see the module's docstring): when
    its bucket's run was created, and when the node joined it. A run is created by the first node that comes
    to its bucket; a node comes at its place in the old list (rehash) or at its insert. So the order of some
    nodes at the end of a bucket count depends only on those nodes, the other nodes of their buckets, and
    their order in the list before: this goes back through the bucket counts with the nodes that matter,
    which are few for the last (large) tables and all of them only for the first (small) ones.
    """
    n = len(hashes)
    if n > BUCKET_COUNTS[-1]:
        raise NotImplementedError(f"libstdc++ bucket counts are tabulated up to {BUCKET_COUNTS[-1]:,} keys, not {n:,}")
    epochs, start = [], 0  # (bucket count, first key inserted under it, end of those keys)
    for buckets in BUCKET_COUNTS:
        end = min(n, buckets)
        epochs.append((buckets, start, end))
        start = end
        if start == n:
            break
    nodes = np.unique(np.asarray(wanted, dtype=np.int64))
    return _order_at(hashes, epochs, len(epochs) - 1, nodes).tolist() if len(nodes) else []


def _order_at(hashes: np.ndarray, epochs: list[tuple[int, int, int]], e: int, nodes: np.ndarray) -> np.ndarray:
    """``nodes`` in their list order at the end of epoch ``e``."""
    buckets, start, end = epochs[e]
    b = np.uint64(buckets)
    bucket_of = (hashes[:end] % b).astype(np.int64)
    need = np.flatnonzero(np.isin(bucket_of, bucket_of[nodes]))  # the nodes and every other node of their buckets
    time = need.copy()  # an insert joins at its own index, after all the old nodes
    old = need < start
    if old.any():
        before = _order_at(hashes, epochs, e - 1, need[old])  # the old nodes in their order before the rehash
        rank = np.empty(end, dtype=np.int64)
        rank[before] = np.arange(len(before))  # the rehash walks them in that order
        time[old] = rank[need[old]]
    bk = bucket_of[need]
    _, group = np.unique(bk, return_inverse=True)
    created = np.full(group.max() + 1, np.iinfo(np.int64).max)
    np.minimum.at(created, group, time)
    # runs created last come first; inside a run, the node that joined last comes first
    ordered = need[np.lexsort((-time, -created[group]))]
    return ordered[np.isin(ordered, nodes)]
