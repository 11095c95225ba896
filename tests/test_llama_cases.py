"""llama.cpp's own tokenizer test cases (models/ggml-vocab-*.gguf.inp/.out), read as test-tokenizer-0 reads them."""

from __future__ import annotations

import pytest
from conftest import MANIFEST

from gguftok import Tokenizer
from gguftok.conformance.cases import read_cases, run_cases

WITH_CASES = sorted(n.removeprefix("ggml-vocab-").removesuffix(".gguf.inp") for n in MANIFEST if n.endswith(".inp"))
NOT_BUILT: dict[str, str] = {}  # vocabulary -> the issue that will make its cases pass


def test_fifteen_vocabularies_have_cases():
    assert len(WITH_CASES) == 15


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(reason=NOT_BUILT[n], strict=True)]
                                               if n in NOT_BUILT else []) for n in WITH_CASES])
def test_llama_cpp_cases(name, vocab_path):
    results = run_cases(Tokenizer.from_gguf(vocab_path(name)), vocab_path(name))
    assert len(results) in (46, 50)
    bad = [r for r in results if not r.ok]
    assert not bad, f"{len(bad)} of {len(results)} cases differ, first: {bad[0]}"


def test_case_files_are_read_as_llama_does():
    assert read_cases(b"a\n__ggml_vocab_test__\n\n__ggml_vocab_test__\n", " 1 2\n\n") == [(b"a", [1, 2]), (b"", [])]
    with pytest.raises(ValueError, match="different number of tests"):
        read_cases(b"a", "")
