"""Stage 09: run llama.cpp's own test files against a tokenizer.

llama.cpp ships, beside many of its vocabulary files, a pair ``ggml-vocab-NAME.gguf.inp`` / ``.out``: test
texts, and the ids each must encode to. ``read_cases`` reads the pair the way llama.cpp's
``tests/test-tokenizer-0.cpp`` does, ``run_cases`` encodes every text, and ``first_difference`` says where a
list of ids first goes wrong. Notebook 09 explains the format.
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
