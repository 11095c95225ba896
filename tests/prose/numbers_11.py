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


COMPUTED = {
    "100": _toy_texts,
    "150": _random_vocabularies,
}
