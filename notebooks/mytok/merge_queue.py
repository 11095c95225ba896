"""Stage 05, the merge queue: encode one word. Merge its symbols, lowest rank first, with a heap that skips
stale entries, then turn the symbols left into token ids (notebook 05).

A word arrives in the byte-level alphabet (``"Ġtokenization"``, see ``bytemap.py``); ``ranks`` is the table
``merges.merge_ranks`` makes, ``"left right"`` -> rank; ``token_ids`` maps each token's text to its id.
``heapq`` is Python's heap: ``heappush(heap, entry)`` and ``heappop(heap)`` (the smallest entry).
"""

from __future__ import annotations

import heapq  # noqa: F401  (for merge_word)


def lowest_pair(symbols: list[str], ranks: dict[str, int]) -> int | None:
    """Position of the neighbouring pair with the lowest rank (leftmost on ties), or None.

    >>> lowest_pair(["l", "o", "w", "e", "r"], {"e r": 0, "l o": 1})
    3
    """
    raise NotImplementedError


def merge_word(word: str, ranks: dict[str, int], *, trace: list | None = None) -> list[str]:
    """The symbols of ``word`` after every merge, lowest rank first (ties: leftmost).

    Give a list as ``trace`` to have one tuple ``(rank, position, left, right, merged)`` appended per pop of
    the queue (``merged`` is False for a stale entry that was skipped); notebook 05 plays it.

    >>> merge_word("lower", {"e r": 0, "l o": 1, "lo w": 2, "low er": 3})
    ['lower']
    """
    raise NotImplementedError


def word_ids(word: str, ranks: dict[str, int], token_ids: dict[str, int], ignore_merges: bool) -> list[int]:
    """The token ids of one word (already in the byte-level alphabet), as llama.cpp's BPE gives them.

    >>> word_ids("lower", {"e r": 0, "l o": 1, "lo w": 2}, {"low": 7, "er": 4, "lower": 9}, False)
    [7, 4]
    >>> word_ids("lower", {"e r": 0, "l o": 1, "lo w": 2}, {"low": 7, "er": 4, "lower": 9}, True)
    [9]
    """
    raise NotImplementedError
