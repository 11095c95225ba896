"""Stage 09: run llama.cpp's own test files against a tokenizer.

llama.cpp ships, beside many of its vocabulary files, a pair ``ggml-vocab-NAME.gguf.inp`` / ``.out``: test
texts, and the ids each must encode to. ``read_cases`` reads the pair the way llama.cpp's
``tests/test-tokenizer-0.cpp`` does, ``run_cases`` encodes every text, and ``first_difference`` says where a
list of ids first goes wrong. ``word_stages`` proves at which stage two engines part. Notebook 09
explains the format and the proof.
"""

from __future__ import annotations

# Given: the line between two texts of an .inp file.
SEPARATOR = b"\n__ggml_vocab_test__\n"


def read_cases(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """The cases of an .inp/.out pair: (text as bytes, expected ids), in file order.

    >>> read_cases(b"Hello\\n__ggml_vocab_test__\\n world\\n__ggml_vocab_test__\\n", " 9707\\n 1879\\n")
    [(b'Hello', [9707]), (b' world', [1879])]
    """
    raise NotImplementedError


def run_cases(encode, cases: list[tuple[bytes, list[int]]]) -> list[tuple[bytes, list[int], list[int] | str]]:
    """Every case through ``encode`` (bytes -> ids), in order: (text, expected, got), where ``got`` is the ids or,
    when ``encode`` raised, the exception as ``"Type: message"``.

    >>> run_cases(lambda text: list(text), [(b"hi", [104, 105]), (b"", [])])
    [(b'hi', [104, 105], [104, 105]), (b'', [], [])]
    """
    raise NotImplementedError


def first_difference(got: list[int], expected: list[int]) -> int | None:
    """The first index where ``got`` and ``expected`` differ; None if they are equal.

    >>> first_difference([9906, 1917], [128000, 9906, 1917]), first_difference([1, 2], [1, 2])
    (0, None)
    """
    raise NotImplementedError


def word_stages(ours_words: list[str], theirs_words: list[str], theirs_on_ours: list[int] | None,
                ours_ids: list[int]) -> list[str]:
    """The stages up to the model at which two engines part on one text, proved from their model inputs:
    ``"normalizer"`` (other characters), else ``"pre-tokenizer"`` (the same characters cut elsewhere), then
    ``"model"`` (the other model on llama.cpp's words gives other ids; ``theirs_on_ours`` is None when it was
    not run).

    >>> word_stages(["ĉThe", "Ġcat"], ["ĉ", "The", "Ġcat"], [25859, 5939], [25859, 5939])
    ['pre-tokenizer']
    """
    raise NotImplementedError
