"""Conformance views: escaping, first-difference detection, and the pass table against run_cases."""

from __future__ import annotations

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.conformance.cases import run_cases
from gguftok.data import vocab_dir
from gguftok.viz.conformance_view import (
    case_rows,
    case_table,
    compare_ids,
    conformance_view,
    first_difference,
    parse_ids,
    tokenize_lines,
)

QWEN2 = vocab_dir() / "ggml-vocab-qwen2.gguf"
needs_vocab = pytest.mark.skipif(not QWEN2.exists(), reason="vocabularies not fetched (make vocab)")


@pytest.fixture(scope="module")
def qwen2():
    return Tokenizer.from_gguf(QWEN2)


def test_first_difference():
    assert first_difference([1, 2, 3], [1, 2, 3]) is None
    assert first_difference([], []) is None
    assert first_difference([9, 2, 3], [1, 2, 3]) == 0
    assert first_difference([1, 2, 3], [1, 2, 4]) == 2
    assert first_difference([1, 2], [1, 2, 3]) == 2
    assert first_difference([1, 2, 3, 4], [1, 2, 3]) == 3


def test_parse_ids():
    assert parse_ids("[1, 2, 3]") == parse_ids("1 2 3") == parse_ids("1,2,3") == [1, 2, 3]
    assert parse_ids("  ") == []
    with pytest.raises(ValueError):
        parse_ids("1 two 3")


@needs_vocab
def test_compare_marks_first_difference(qwen2):
    ref = qwen2.encode("Hello world, it's 2026!", add_special=False)
    wrong = [*ref[:4], ref[4] + 1, *ref[5:]]
    view = compare_ids(qwen2, wrong, ref)
    assert "first difference at index 4" in view.text
    assert view.text.count("<<< first difference") == 1
    assert "FIRST DIFFERENCE" in view.html  # a label, not only a colour
    same = compare_ids(qwen2, ref, ref)
    assert "identical" in same.text and "FIRST DIFFERENCE" not in same.html
    short = compare_ids(qwen2, ref[:-1], ref)
    assert f"first difference at index {len(ref) - 1}" in short.text and "(none)" in short.text


@needs_vocab
def test_out_of_range_ids_do_not_crash(qwen2):
    view = conformance_view(qwen2, "Hi", [-1, 10**9])
    assert "-1 (no such token)" in view.text and "first difference at index 0" in view.text


@needs_vocab
def test_escaping_and_sanitizer_safety(qwen2):
    text = "<script>alert(1)</script> a\tb\n"
    for view in (tokenize_lines(qwen2, text), conformance_view(qwen2, text, "1 2 3")):
        assert "<script>" not in view.html
        assert "&lt;" in view.html
        assert_sanitizer_safe(view.html)  # the FIRST DIFFERENCE label too: it once vanished in dark themes
    assert "␣" in tokenize_lines(qwen2, " a b").html
    assert "color:#1A1A1A" in compare_ids(qwen2, [1], [2]).html  # coloured boxes set their own text colour


@needs_vocab
def test_tokenize_lines_format(qwen2):
    view = tokenize_lines(qwen2, "Hello world")
    assert view.text.splitlines()[:2] == ["  9707 -> 'Hello'", "  1879 -> ' world'"]
    assert view.text.splitlines()[-1] == "[9707, 1879]"


@needs_vocab
def test_case_table_totals_match_run_cases():
    rows = case_rows()
    passed = total = 0
    for path in sorted(vocab_dir().glob("ggml-vocab-*.gguf")):
        results = run_cases(Tokenizer.from_gguf(path), path)
        if results is not None:
            passed += sum(r.ok for r in results)
            total += len(results)
    assert len(rows) == 19 and sum(r.total is not None for r in rows) == 15
    assert sum(r.passed for r in rows) == passed and sum(r.total or 0 for r in rows) == total
    assert f"{passed}/{total}" in case_table(rows).text.splitlines()[-1]
