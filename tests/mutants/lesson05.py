"""Wrong variants of lesson 05's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations


def _greedy_left(word, ranks):
    syms = list(word)
    while True:
        for k in range(len(syms) - 1):
            if f"{syms[k]} {syms[k + 1]}" in ranks:
                syms[k:k + 2] = [syms[k] + syms[k + 1]]
                break
        else:
            return syms


WRONG = {
    "05.lowest_pair": lambda syms, ranks: next((k for k in range(len(syms) - 1)
                                                if f"{syms[k]} {syms[k + 1]}" in ranks), None),
    "05.merge_word": _greedy_left,
}
