"""llama.cpp's own tokenizer test cases (models/ggml-vocab-*.gguf.inp/.out), read as test-tokenizer-0 reads them."""

from __future__ import annotations

import pytest
from conftest import MANIFEST

from gguftok import Tokenizer

WITH_CASES = sorted(n.removeprefix("ggml-vocab-").removesuffix(".gguf.inp") for n in MANIFEST if n.endswith(".inp"))
NOT_BUILT: dict[str, str] = {}  # vocabulary -> the issue that will make its cases pass


def read_cases(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """Inputs split on the exact separator (a trailing one adds no empty case); one stripped .out line each."""
    texts = inp.split(b"\n__ggml_vocab_test__\n")
    if texts and texts[-1] == b"":
        texts.pop()
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    assert len(texts) == len(lines), "different number of tests"
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, lines, strict=True)]


def test_fifteen_vocabularies_have_cases():
    assert len(WITH_CASES) == 15


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(reason=NOT_BUILT[n], strict=True)]
                                               if n in NOT_BUILT else []) for n in WITH_CASES])
def test_llama_cpp_cases(name, vocab_path):
    cases = read_cases(vocab_path(name, ".gguf.inp").read_bytes(), vocab_path(name, ".gguf.out").read_text())
    assert len(cases) in (46, 50)
    tok = Tokenizer.from_gguf(vocab_path(name))
    bad = [(text, want, got) for text, want in cases
           if (got := tok.encode(text, add_special=False, parse_special=False)) != want]
    assert not bad, f"{len(bad)} of {len(cases)} cases differ, first: {bad[0]}"
