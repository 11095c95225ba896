"""Stage 09: run llama.cpp's own test files against a tokenizer.

llama.cpp ships, beside many of its vocabulary files, a pair ``ggml-vocab-NAME.gguf.inp`` / ``.out``: test
texts, and the ids each must encode to. ``read_cases`` reads the pair the way llama.cpp's
``tests/test-tokenizer-0.cpp`` does, ``run_cases`` encodes every text, and ``first_difference`` says where a
list of ids first goes wrong. ``word_stages`` proves at which stage two engines part.
"""

from __future__ import annotations

# Given: the line between two texts of an .inp file.
SEPARATOR = b"\n__ggml_vocab_test__\n"


def read_cases(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """The cases of an .inp/.out pair: (text as bytes, expected ids), in file order.

    >>> read_cases(b"Hello\\n__ggml_vocab_test__\\n world\\n__ggml_vocab_test__\\n", " 9707\\n 1879\\n")
    [(b'Hello', [9707]), (b' world', [1879])]
    """
    texts = []
    pos = 0
    while pos < len(inp):  # a separator at the very end starts no further text
        end = inp.find(SEPARATOR, pos)
        if end == -1:
            texts.append(inp[pos:])
            break
        texts.append(inp[pos:end])
        pos = end + len(SEPARATOR)
    lines = out.split("\n")
    if lines[-1] == "":  # the newline that ends the last line
        lines.pop()
    if len(texts) != len(lines):
        raise ValueError(f"the files hold different numbers of cases: {len(texts)} texts, {len(lines)} lines of ids")
    cases = []
    for text, line in zip(texts, lines, strict=True):
        line = line.strip()
        ids = [int(part) for part in line.split(" ")] if line else []
        cases.append((text, ids))
    return cases


def run_cases(encode, cases: list[tuple[bytes, list[int]]]) -> list[tuple[bytes, list[int], list[int] | str]]:
    """Every case through ``encode`` (bytes -> ids), in order: (text, expected, got), where ``got`` is the ids or,
    when ``encode`` raised, the exception as ``"Type: message"``.

    >>> run_cases(lambda text: list(text), [(b"hi", [104, 105]), (b"", [])])
    [(b'hi', [104, 105], [104, 105]), (b'', [], [])]
    """
    results = []
    for text, expected in cases:
        try:
            got = encode(text)
        except Exception as e:
            got = f"{type(e).__name__}: {e}"
        results.append((text, expected, got))
    return results


def first_difference(got: list[int], expected: list[int]) -> int | None:
    """The first index where ``got`` and ``expected`` differ; None if they are equal.

    >>> first_difference([9906, 1917], [128000, 9906, 1917]), first_difference([1, 2], [1, 2])
    (0, None)
    """
    for k in range(min(len(got), len(expected))):
        if got[k] != expected[k]:
            return k
    if len(got) == len(expected):
        return None
    return min(len(got), len(expected))  # one list stops early: the missing id is the difference


def word_stages(ours_words: list[str], theirs_words: list[str], theirs_on_ours: list[int] | None,
                ours_ids: list[int]) -> list[str]:
    """The stages up to the model at which two engines part on one text, proved from their model inputs:
    ``"normalizer"`` (other characters), else ``"pre-tokenizer"`` (the same characters cut elsewhere), then
    ``"model"`` (the other model on llama.cpp's words gives other ids; ``theirs_on_ours`` is None when it was
    not run).

    >>> word_stages(["ĉThe", "Ġcat"], ["ĉ", "The", "Ġcat"], [25859, 5939], [25859, 5939])
    ['pre-tokenizer']
    """
    stages = []
    if "".join(ours_words) != "".join(theirs_words):
        stages.append("normalizer")  # the model was handed other characters
    elif [len(w) for w in ours_words] != [len(w) for w in theirs_words]:
        stages.append("pre-tokenizer")  # the same characters, cut elsewhere
    if theirs_on_ours is not None and list(theirs_on_ours) != list(ours_ids):
        stages.append("model")  # the same words, and still other ids
    return stages
