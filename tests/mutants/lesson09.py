"""Wrong variants of lesson 09's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

SEPARATOR = b"\n__ggml_vocab_test__\n"


def read_cases_split(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """bytes.split: the separator that ends the file gives one empty text too many."""
    texts = inp.split(SEPARATOR) if inp else []
    lines = out.splitlines()
    if len(texts) != len(lines):
        raise ValueError(f"{len(texts)} texts, {len(lines)} lines")
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, lines, strict=True)]


def run_cases_message_only(encode, cases):
    """An exception recorded by its message alone, without its type."""
    results = []
    for text, expected in cases:
        try:
            got = encode(text)
        except Exception as e:
            got = str(e)
        results.append((text, expected, got))
    return results


def word_stages_lists(ours_words, theirs_words, theirs_on_ours, ours_ids):
    """Other words are blamed on the pre-tokenizer, even when they are other characters."""
    stages = ["pre-tokenizer"] if ours_words != theirs_words else []
    if theirs_on_ours is not None and theirs_on_ours != ours_ids:
        stages.append("model")
    return stages


WRONG = {
    "09.read_cases": read_cases_split,
    "09.run_cases": run_cases_message_only,
    "09.first_difference": lambda got, exp: next(  # a list that is a prefix of the other: None
        (k for k, (a, b) in enumerate(zip(got, exp, strict=False)) if a != b), None),
    "09.word_stages": word_stages_lists,
}
