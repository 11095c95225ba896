"""Lesson 05: the next pair to merge, and a whole word with a heap and stale entries."""

from __future__ import annotations

import heapq


def lowest_pair(symbols: list[str], ranks: dict[str, int]) -> int | None:
    """Position of the neighbouring pair with the lowest rank (leftmost on ties), or None.

    >>> lowest_pair(["l", "o", "w", "e", "r"], {"e r": 0, "l o": 1})
    3
    """
    best = None
    for k in range(len(symbols) - 1):
        r = ranks.get(symbols[k] + " " + symbols[k + 1])
        if r is not None and (best is None or r < best[0]):
            best = (r, k)
    return None if best is None else best[1]


def merge_word(word: str, ranks: dict[str, int]) -> list[str]:
    """The symbols of ``word`` after every merge, lowest rank first (ties: leftmost).

    >>> merge_word("lower", {"e r": 0, "l o": 1, "lo w": 2, "low er": 3})
    ['lower']
    """
    syms = list(word)
    nxt = [*range(1, len(syms)), -1]
    prv = list(range(-1, len(syms) - 1))
    heap: list[tuple[int, int, str, str]] = []

    def push(i: int, j: int) -> None:
        if i >= 0 and j >= 0:
            r = ranks.get(syms[i] + " " + syms[j])
            if r is not None:
                heapq.heappush(heap, (r, i, syms[i], syms[j]))

    for i in range(len(syms) - 1):
        push(i, i + 1)
    while heap:
        _, i, left, right = heapq.heappop(heap)
        j = nxt[i]
        if syms[i] != left or j < 0 or syms[j] != right:
            continue  # stale: one side was merged away or has grown
        syms[i] = left + right
        syms[j] = ""
        nxt[i] = nxt[j]
        if nxt[j] >= 0:
            prv[nxt[j]] = i
        push(prv[i], i)
        push(i, nxt[i])
    return [s for s in syms if s]
