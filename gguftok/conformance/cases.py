"""llama.cpp's own tokenizer test cases: ``models/ggml-vocab-*.gguf.inp`` and ``.out``.

Read exactly as ``tests/test-tokenizer-0.cpp`` reads them: inputs split on ``"\\n__ggml_vocab_test__\\n"`` (a
trailing separator adds no empty case), one ``.out`` line of space-separated ids per input. They are encoded
with ``add_special=False, parse_special=False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SEPARATOR = b"\n__ggml_vocab_test__\n"


def read_cases(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """``[(input bytes, expected ids)]``; ``ValueError`` if the two files disagree on the number of cases."""
    texts = inp.split(SEPARATOR)
    if texts and texts[-1] == b"":
        texts.pop()
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(texts) != len(lines):
        raise ValueError(f"different number of tests: {len(texts)} inputs, {len(lines)} expected outputs")
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, lines, strict=True)]


@dataclass
class CaseResult:
    text: bytes
    expected: list[int]
    got: list[int] | str  # the ids, or the error raised

    @property
    def ok(self) -> bool:
        return self.got == self.expected


def first_difference(candidate: Sequence, reference: Sequence) -> int | None:
    """The first index where the two lists differ (a missing token counts as a difference), or ``None``.

    >>> first_difference([1, 2, 3], [1, 2]), first_difference([1, 2], [1, 2])
    (2, None)
    """
    for k, (a, b) in enumerate(zip(candidate, reference, strict=False)):
        if a != b:
            return k
    return None if len(candidate) == len(reference) else min(len(candidate), len(reference))


def run_cases(tok, gguf: Path) -> list[CaseResult] | None:
    """Every case of ``gguf``'s ``.inp``/``.out`` pair through ``tok``; ``None`` if the files are absent."""
    inp, out = Path(f"{gguf}.inp"), Path(f"{gguf}.out")
    if not (inp.exists() and out.exists()):
        return None
    results = []
    for text, expected in read_cases(inp.read_bytes(), out.read_text(encoding="utf-8")):
        try:
            got: list[int] | str = tok.encode(text, add_special=False, parse_special=False)
        except ValueError as e:
            got = f"{type(e).__name__}: {e}"
        results.append(CaseResult(text, expected, got))
    return results
