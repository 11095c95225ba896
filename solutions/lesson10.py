"""Lesson 10: an LRU replay, and an LRU word cache around any encoder."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable


def lru_replay(words: list[str], size: int | None) -> tuple[int, int, list[str]]:
    """``(hits, misses, cached words oldest first)`` after looking ``words`` up in an LRU cache of ``size``.

    >>> lru_replay(["a", "b", "a", "c", "b"], 2)
    (1, 4, ['c', 'b'])
    """
    cache: OrderedDict[str, None] = OrderedDict()
    hits = misses = 0
    for w in words:
        if w in cache:
            hits += 1
            cache.move_to_end(w)
        else:
            misses += 1
            if size != 0:
                cache[w] = None
                if size is not None and len(cache) > size:
                    cache.popitem(last=False)
    return hits, misses, list(cache)


def cached(encode: Callable[[str], list[int]], size: int | None) -> Callable[[str], list[int]]:
    """``encode`` with an LRU cache of at most ``size`` words (None: unbounded, 0: none).

    >>> fast = cached(lambda w: [len(w)], 2)
    >>> fast("hello"), fast("hello")
    ([5], [5])
    """
    cache: OrderedDict[str, list[int]] = OrderedDict()

    def lookup(word: str) -> list[int]:
        if word in cache:
            cache.move_to_end(word)
            return cache[word]
        ids = encode(word)
        if size != 0:
            cache[word] = ids
            if size is not None and len(cache) > size:
                cache.popitem(last=False)
        return ids

    return lookup
