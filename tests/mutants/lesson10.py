"""Wrong variants of lesson 10's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations


def _fifo(words, size):
    cache, hits = [], 0
    for w in words:
        if w in cache:
            hits += 1
        elif size != 0:
            cache.append(w)
            if size is not None and len(cache) > size:
                cache.pop(0)
    return hits, len(words) - hits, cache


WRONG = {
    "10.lru_replay": _fifo,
    "10.cached": lambda encode, size: encode,  # no cache at all
}
