"""Stage 03: merge lines and the rank table, then where the list comes from.

A byte-level vocabulary stores its merges as lines ``"left right"`` in ``tokenizer.ggml.merges``; a line's
position is its rank, and rank 0 joins first. ``split_merge`` and ``merge_ranks`` read that list the way
llama.cpp does. ``train_bpe`` is the loop that wrote such a list in the first place, and ``apply_merges``
replays a list on one word, the plainest way there is (notebook 05 makes it fast).
"""

from __future__ import annotations


def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split at the first space from index 1 on; None without one.

    >>> split_merge("Ġ t")
    ('Ġ', 't')
    """
    raise NotImplementedError


def merge_ranks(merges: list[str]) -> dict[str, int]:
    """``"left right"`` -> rank (position in ``merges``); the first occurrence of a pair wins.

    >>> merge_ranks(["a b", "ab c", "a b"])
    {'a b': 0, 'ab c': 1}
    """
    raise NotImplementedError


def train_bpe(words: dict[str, int], n_merges: int) -> list[str]:
    """Learn up to ``n_merges`` merge lines from a table word -> count: each time, the pair of neighbouring
    symbols with the highest total count (ties: the smallest ``(left, right)``), recorded, then merged.

    >>> train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
    ['e s', 'es t', 'l o', 'lo w']
    """
    raise NotImplementedError


def apply_merges(word: str, merges: list[str]) -> list[str]:
    """The symbols of ``word`` (one per character at first) after each merge line, rank 0 first, has been
    applied to the whole word.

    >>> apply_merges("lowest", ["e s", "es t", "l o", "lo w", "low est"])
    ['lowest']
    """
    raise NotImplementedError
