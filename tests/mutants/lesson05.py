"""Wrong variants of lesson 05's exercises: each must fail its check at the first case where it differs.

``SLOW`` holds variants whose answers are all right but whose work grows with the square of the word's
length: each must agree on every case and fail only the check's cost property (tests/test_lesson05_exercises.py).
``MORE_WRONG`` holds further wrong answers, each caught by some case.
"""

from __future__ import annotations

import heapq
from itertools import pairwise


def _greedy_left(word, ranks):
    """Merges the leftmost pair that has a rank, whatever its rank."""
    syms = list(word)
    while True:
        for k in range(len(syms) - 1):
            if f"{syms[k]} {syms[k + 1]}" in ranks:
                syms[k:k + 2] = [syms[k] + syms[k + 1]]
                break
        else:
            return syms


def _rescanning(word, ranks):
    """Right answers: after every merge, scan every pair again for the lowest rank (lowest_pair in a loop)."""
    syms = list(word)
    while True:
        best = None
        for k in range(len(syms) - 1):
            rank = ranks.get(syms[k] + " " + syms[k + 1])
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, k)
        if best is None:
            return syms
        k = best[1]
        syms[k:k + 2] = [syms[k] + syms[k + 1]]


def _list_of_ranks(word, ranks):
    """Right answers with few lookups: the ranks of all pairs in a list, its minimum found again after every
    merge (only the two changed pairs looked up): still a scan over every pair per merge."""
    syms = list(word)
    none = float("inf")
    pair_ranks = [ranks.get(a + " " + b, none) for a, b in pairwise(syms)]
    while pair_ranks:
        best = min(pair_ranks)
        if best == none:
            break
        i = pair_ranks.index(best)
        syms[i] += syms.pop(i + 1)
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = ranks.get(syms[i - 1] + " " + syms[i], none)
        if i < len(pair_ranks):
            pair_ranks[i] = ranks.get(syms[i] + " " + syms[i + 1], none)
    return syms


def _heap_pushing_everything(word, ranks):
    """Right answers with a heap, but after every merge it pushes every pair of the word again."""
    syms = list(word)
    heap = []

    def push_all():
        for k in range(len(syms) - 1):
            rank = ranks.get(syms[k] + " " + syms[k + 1])
            if rank is not None:
                heapq.heappush(heap, (rank, k, syms[k], syms[k + 1]))

    push_all()
    while heap:
        _, k, left, right = heapq.heappop(heap)
        if k + 1 < len(syms) and syms[k] == left and syms[k + 1] == right:
            syms[k:k + 2] = [left + right]
            heap.clear()
            push_all()
    return syms


def _merge_for_ids(word, ranks):
    from solutions_loader import solved

    return solved("05.merge_word")(word, ranks)


def _no_whole_word_rule(word, ranks, token_ids, ignore_merges):
    """Forgets ignore_merges: always merges."""
    ids = []
    for sym in _merge_for_ids(word, ranks):
        if sym in token_ids:
            ids.append(token_ids[sym])
        else:
            ids += [token_ids[chr(b)] for b in sym.encode("utf-8") if chr(b) in token_ids]
    return ids


def _characters_not_bytes(word, ranks, token_ids, ignore_merges):
    """Falls back to one token per character of the symbol, not per byte."""
    if ignore_merges and word in token_ids:
        return [token_ids[word]]
    ids = []
    for sym in _merge_for_ids(word, ranks):
        ids += [token_ids[sym]] if sym in token_ids else [token_ids[c] for c in sym if c in token_ids]
    return ids


def _unknown_dropped(word, ranks, token_ids, ignore_merges):
    """Drops a symbol that is not a token instead of falling back to its bytes."""
    if ignore_merges and word in token_ids:
        return [token_ids[word]]
    return [token_ids[s] for s in _merge_for_ids(word, ranks) if s in token_ids]


WRONG = {
    "05.lowest_pair": lambda syms, ranks: next((k for k in range(len(syms) - 1)
                                                if f"{syms[k]} {syms[k + 1]}" in ranks), None),
    "05.merge_word": _greedy_left,
    "05.word_ids": _no_whole_word_rule,
}

SLOW = {"rescanning": _rescanning, "list of ranks": _list_of_ranks, "heap refilled": _heap_pushing_everything}

MORE_WRONG = {"05.word_ids": [_characters_not_bytes, _unknown_dropped]}
