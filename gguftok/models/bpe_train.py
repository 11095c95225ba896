"""Training a toy BPE, step by step: count the pairs, merge the most frequent, rewrite the corpus, again.

The corpus is cut into words at whitespace, and each word starts as one symbol per character. A step counts
every pair of neighbouring symbols over the whole corpus (a word that occurs 3 times counts 3 times), merges
the most frequent pair into a new token everywhere (left to right in each word, never overlapping: ``a a a``
becomes ``aa a``), and the merge list grows by one line, ``"left right"``, in the order the merges were
learnt. That list is a merge list as GGUF stores it: the rank of a merge is its step.

**The tie rule.** Among pairs with the same count, the one that occurs first in the corpus wins (reading the
words in order, each from left to right, as they are at that step). It is deterministic, and it is the order
in which the class reads the corpus on the board.

>>> steps = train_bpe("low low low lower lowest", 3)
>>> [(s.pair, s.count) for s in steps]
[(('l', 'o'), 5), (('lo', 'w'), 5), (('low', 'e'), 2)]
>>> merges(steps)
['l o', 'lo w', 'low e']
>>> [" ".join(w) for w, _ in steps[-1].words]
['low', 'lowe r', 'lowe s t']

Encoding the training corpus with the learnt merges (:func:`gguftok.models.bpe.merge_word`: lowest rank
first) gives back the final segmentation; ``tests/test_bpe_train.py`` checks it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

Word = tuple[str, ...]


@dataclass(frozen=True)
class TrainStep:
    """One step of training: every pair's count before the merge (most frequent first, ties in corpus order),
    the pair chosen and its count, the new token, and the corpus after the merge (each distinct word, in order
    of first appearance, with how often it occurs)."""

    counts: tuple[tuple[tuple[str, str], int], ...]
    pair: tuple[str, str]
    count: int
    token: str
    words: tuple[tuple[Word, int], ...]


def corpus_words(corpus: str) -> list[tuple[Word, int]]:
    """The distinct words of ``corpus`` (cut at whitespace), in order of first appearance, each as one symbol
    per character, with how often it occurs.

    >>> corpus_words("ab b ab")
    [(('a', 'b'), 2), (('b',), 1)]
    """
    return [(tuple(w), n) for w, n in Counter(corpus.split()).items()]


def pair_counts(words: Sequence[tuple[Word, int]]) -> list[tuple[tuple[str, str], int]]:
    """Every pair of neighbouring symbols with its count over the corpus, most frequent first; pairs of the same
    count in the order they first occur (the tie rule).

    >>> pair_counts([(("a", "b", "a", "b"), 1), (("b", "a"), 2)])
    [(('b', 'a'), 3), (('a', 'b'), 2)]
    """
    counts: Counter[tuple[str, str]] = Counter()  # a Counter keeps the order pairs were first seen
    for word, n in words:
        for pair in pairwise(word):
            counts[pair] += n
    first = {pair: k for k, pair in enumerate(counts)}
    return sorted(counts.items(), key=lambda item: (-item[1], first[item[0]]))


def apply_merge(word: Word, pair: tuple[str, str]) -> Word:
    """``word`` with every occurrence of ``pair`` merged, left to right, never overlapping.

    >>> apply_merge(("a", "a", "a", "b"), ("a", "a"))
    ('aa', 'a', 'b')
    """
    out: list[str] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train_bpe(corpus: str, n_merges: int) -> list[TrainStep]:
    """Up to ``n_merges`` steps of BPE training on ``corpus`` (fewer when no pair is left: every word is one
    token)."""
    words = corpus_words(corpus)
    steps: list[TrainStep] = []
    for _ in range(n_merges):
        counts = pair_counts(words)
        if not counts:
            break
        pair, count = counts[0]
        words = [(apply_merge(w, pair), n) for w, n in words]
        steps.append(TrainStep(tuple(counts), pair, count, pair[0] + pair[1], tuple(words)))
    return steps


def merges(steps: Sequence[TrainStep]) -> list[str]:
    """The merge list the steps learnt, as GGUF's ``tokenizer.ggml.merges`` stores it (``"left right"``, rank
    = position)."""
    return [f"{a} {b}" for a, b in (s.pair for s in steps)]
