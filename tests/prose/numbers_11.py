"""Numbers of notebook 11's prose that no cell prints: the sizes of the exercise checks, counted from the checks."""

from __future__ import annotations

from gguftok.exercises import lesson11


def _toy_texts() -> int:
    """The generated cases of 11.spm_merge on the toy vocabulary (its 275 token ids)."""
    toy = lesson11.toy_ids()[0]
    return sum(case.args[1] == toy for case in lesson11._merge_generated())


def _random_vocabularies() -> int:
    """The generated cases of 11.spm_merge with a small vocabulary of their own (at most 10 tokens)."""
    return sum(len(case.args[1]) <= 10 for case in lesson11._merge_generated())


def _toy_words() -> int:
    """The generated cases of 11.wordpiece_word on the toy vocabulary."""
    toy = lesson11.toy_wordpiece()[0]
    return sum(case.args[1] == toy for case in lesson11._wordpiece_generated())


def _glued_words() -> int:
    """The words of 11.wordpiece_word glued from bert-bge's tokens (asked for; a repeat is checked once)."""
    return lesson11.VOCAB_WORDS


def _toy_lattices() -> int:
    """The generated cases of 11.unigram_encode on the toy vocabulary."""
    toy = lesson11.toy_unigram()[0]
    return sum(case.args[1] == toy for case in lesson11._unigram_generated())


def _random_lattices() -> int:
    """The generated cases of 11.unigram_encode with a small vocabulary of their own (at most 10 tokens)."""
    toy = lesson11.toy_unigram()[0]
    return sum(len(case.args[1]) <= 10 and case.args[1] != toy for case in lesson11._unigram_generated())


def _same(*counts) -> int:
    """The one number the prose states for several checks, each counted."""
    values = {c() for c in counts}
    assert len(values) == 1, values
    return values.pop()


COMPUTED = {
    "100": lambda: _same(_toy_texts, _toy_words, _toy_lattices),
    "150": lambda: _same(_random_vocabularies, _glued_words, _random_lattices),
}
