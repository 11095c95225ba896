"""Toy BPE training (gguftok.models.bpe_train): a corpus worked by hand, and the learnt merges, given to the
library's own BPE, giving back the segmentation training ended with."""

from __future__ import annotations

import random

import pytest

from gguftok.models.bpe import merge_ranks, merge_word
from gguftok.models.bpe_train import apply_merge, corpus_words, merges, pair_counts, train_bpe


def test_a_corpus_worked_by_hand():
    # ab ab abc bc: (a,b) occurs 3 times, (b,c) twice -> ab; then (ab,c) and (b,c) once each: the tie goes to
    # (ab,c), which occurs first in the corpus; then (b,c); then no pair is left, whatever n_merges asks
    steps = train_bpe("ab ab abc bc", 5)
    assert [(s.pair, s.count, s.token) for s in steps] == [(("a", "b"), 3, "ab"), (("ab", "c"), 1, "abc"),
                                                         (("b", "c"), 1, "bc")]
    assert steps[0].counts == ((("a", "b"), 3), (("b", "c"), 2))
    assert steps[1].counts == ((("ab", "c"), 1), (("b", "c"), 1))
    assert [s.words for s in steps] == [
        ((("ab",), 2), (("ab", "c"), 1), (("b", "c"), 1)),
        ((("ab",), 2), (("abc",), 1), (("b", "c"), 1)),
        ((("ab",), 2), (("abc",), 1), (("bc",), 1)),
    ]
    assert merges(steps) == ["a b", "ab c", "b c"]


def test_overlapping_pairs_merge_left_to_right_and_are_counted_each_time():
    assert pair_counts([(("a", "a", "a"), 2)]) == [(("a", "a"), 4)]
    assert apply_merge(("a", "a", "a"), ("a", "a")) == ("aa", "a")
    assert apply_merge(("a", "a", "a", "a"), ("a", "a")) == ("aa", "aa")


def test_the_tie_rule_is_first_occurrence_in_the_corpus_not_the_alphabet():
    assert train_bpe("zy ab", 1)[0].pair == ("z", "y")
    assert train_bpe("ab zy", 1)[0].pair == ("a", "b")


def test_whitespace_cuts_words_and_an_empty_corpus_learns_nothing():
    assert corpus_words("a  b\n\ta") == [(("a",), 2), (("b",), 1)]
    assert train_bpe("", 4) == [] and train_bpe("a b c", 4) == []


def _random_corpus(rng: random.Random) -> str:
    alphabet = rng.choice(["ab", "abc", "abcde", "lowernst"])
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(rng.randint(1, 12))]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 30)))


@pytest.mark.parametrize("seed", range(60))
def test_the_learnt_merges_encode_the_corpus_as_training_left_it(seed):
    rng = random.Random(seed)
    corpus = _random_corpus(rng)
    steps = train_bpe(corpus, rng.randint(1, 25))
    for k in range(1, len(steps) + 1):  # after each step: the merges so far give that step's segmentation
        ranks = merge_ranks(merges(steps[:k]))
        for word, _ in steps[k - 1].words:
            assert merge_word("".join(word), ranks) == list(word), (corpus, k, word)
    # and each step's pair is a most frequent one of the counts before it
    words = corpus_words(corpus)
    for s in steps:
        counts = dict(pair_counts(words))
        assert s.count == counts[s.pair] == max(counts.values())
        words = [(apply_merge(w, s.pair), n) for w, n in words]
        assert tuple(words) == s.words
