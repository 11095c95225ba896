"""Merge lines and the rank table (how llama.cpp reads ``tokenizer.ggml.merges``), then where the list comes
from: the training loop of byte-pair encoding, and the plainest way to replay its merges on a word."""

from __future__ import annotations

from itertools import pairwise


def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split at the first space from index 1 on; None without one.

    >>> split_merge("Ġ t"), split_merge("  x"), split_merge("ab")
    (('Ġ', 't'), (' ', 'x'), None)
    """
    i = line.find(" ", 1)  # the first space at index 1 or later, -1 when there is none
    if i < 0:
        return None
    return line[:i], line[i + 1:]


def merge_ranks(merges: list[str]) -> dict[str, int]:
    """``"left right"`` -> rank (position in ``merges``); the first occurrence of a pair wins.

    >>> merge_ranks(["a b", "ab c", "a b"])
    {'a b': 0, 'ab c': 1}
    """
    table: dict[str, int] = {}
    for rank, line in enumerate(merges):
        # a line that splits is its own key: left + " " + right puts back the one space split_merge cut at
        if line not in table and split_merge(line) is not None:
            table[line] = rank
    return table


def _join(symbols: list[str], left: str, right: str) -> list[str]:
    """One merge applied to one word: from the left, each ``left`` followed by ``right`` becomes one symbol."""
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2  # the new symbol is not looked at again in this step
        else:
            out.append(symbols[i])
            i += 1
    return out


def train_bpe(words: dict[str, int], n_merges: int) -> list[str]:
    """Learn up to ``n_merges`` merges from a table word -> count; the most frequent pair first, ties to the
    smallest ``(left, right)``.

    >>> train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
    ['e s', 'es t', 'l o', 'lo w']
    """
    table = [(list(word), count) for word, count in words.items()]
    merges: list[str] = []
    for _ in range(n_merges):
        totals: dict[tuple[str, str], int] = {}
        for symbols, count in table:
            for pair in pairwise(symbols):
                totals[pair] = totals.get(pair, 0) + count
        if not totals:  # every word is a single symbol
            break
        best = max(totals.values())
        left, right = min(pair for pair, total in totals.items() if total == best)
        merges.append(left + " " + right)
        table = [(_join(symbols, left, right), count) for symbols, count in table]
    return merges


def apply_merges(word: str, merges: list[str]) -> list[str]:
    """The symbols of ``word`` after each merge line, rank 0 first, is applied to the whole word.

    >>> apply_merges("lowest", ["e s", "es t", "l o", "lo w", "low est"])
    ['lowest']
    """
    symbols = list(word)
    for line in merges:
        pair = split_merge(line)
        if pair is not None:
            symbols = _join(symbols, pair[0], pair[1])
    return symbols
