"""Lesson 03's exercises: some first differences of the wrong variants, written out by hand, and the two
references of the training exercises held against independent facts."""

from __future__ import annotations

import random

from solutions_loader import solved, wrong_variants

from gguftok.exercises import check
from gguftok.exercises.lesson03 import (
    CORPUS,
    corpus_words,
    reference_apply_merges,
    reference_train_bpe,
    word_table,
)
from gguftok.models.bpe import merge_ranks, merge_word
from gguftok.pretokenize import PreTokenizer, pre_tokenizer_config

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("03.split_merge", WRONG["03.split_merge"])
    assert r.text == (f"✗ 03.split_merge: failed on case 2 of {r.total} (1 agreed before it)\n"
                      "  input:    split_merge('  x')\n"
                      "  expected: (' ', 'x')\n"
                      "  got:      ('', ' x')\n"
                      "  first difference at index 0: expected ' ', got '' (lengths 2 and 2)\n"
                      "  run it again, whole: split_merge('  x')")
    r = check("03.merge_ranks", WRONG["03.merge_ranks"])
    assert r.case == 1 and r.expected.startswith("[('Ġ t', 0),") and r.got.startswith("[('Ġ t', 4),")
    assert "first difference at index 0: expected ('Ġ t', 0), got ('Ġ t', 4)" in r.text


def test_a_tie_broken_by_counting_order_fails_at_the_first_tied_rank():
    r = check("03.train_bpe", WRONG["03.train_bpe"])
    assert r.case == 0 and "first difference at index 4: expected 'e w', got 'n e'" in r.text
    assert "run it again, whole: train_bpe({'low': 5, 'lower': 2, 'newest': 6, 'widest': 3}, 10)" in r.text


def test_replacing_in_the_joined_text_fails_where_a_symbol_is_used_up():
    r = check("03.apply_merges", WRONG["03.apply_merges"])
    assert r.text.splitlines()[1:4] == ["  input:    apply_merges('abc', ['a b', 'b c'])",
                                        "  expected: ['ab', 'c']", "  got:      ['abc']"]


def test_the_lessons_toy_table_trains_as_the_paper_says():
    # Sennrich, Haddow and Birch (2016), figure 1: the first four merges on this table
    assert reference_train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4) == ["e s", "es t", "l o", "lo w"]
    assert reference_train_bpe({"ba": 2, "ab": 2}, 3) == ["a b", "b a"]  # the tie, then nothing left
    assert reference_train_bpe({"aaa": 2}, 5) == ["a a", "aa a"]  # (a, a) counted 4 times, merged to aa a


def test_the_reference_trainer_agrees_with_the_solution_on_many_tables():
    train = solved("03.train_bpe")
    r = random.Random(31)
    for _ in range(2000):
        alphabet = r.choice(["ab", "abc", "abcdĠ", "aĠ"])
        words = {"".join(r.choice(alphabet) for _ in range(r.randint(1, 12))): r.randint(1, 9)
                 for _ in range(r.randint(0, 10))}
        n = r.randint(0, 40)
        assert train(words, n) == reference_train_bpe(words, n), (words, n)


def test_on_trained_merges_the_naive_replay_is_the_merge_queue():
    """apply_merges is notebook 05's merge_word on a list that training produced (no side of a merge is
    built only later), so the notebook can say the two agree."""
    words = corpus_words()
    merges = reference_train_bpe(words, 300)
    ranks = merge_ranks(merges)
    probes = [*words, "Ġlighthousekeeper", "Ġtokenizer", "ĠMöwen", "aaaa", "Ġ" * 9]
    for w in probes:
        assert reference_apply_merges(w, merges) == list(merge_word(w, ranks)), w
    everything = reference_train_bpe(words, 10_000)
    assert len(everything) < 10_000 and all(reference_apply_merges(w, everything) == [w] for w in words)


def test_the_corpus_word_table_is_gguftoks_gpt2_split():
    text = CORPUS.read_text(encoding="utf-8")
    assert CORPUS.with_name("README.md").read_text(encoding="utf-8").count("written for this workbook") == 1
    words = PreTokenizer(pre_tokenizer_config("gpt-2")).split(text)
    assert list(word_table(text)) == list(dict.fromkeys(words))
    assert sum(word_table(text).values()) == len(words)
