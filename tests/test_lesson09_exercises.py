"""Lesson 09's exercises: the cases read as llama.cpp reads them, an encoder called once per case and in order,
and some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

import pytest
from conftest import _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.conformance.cases import SEPARATOR
from gguftok.exercises import EXERCISES, check
from gguftok.exercises._core import Raises
from gguftok.exercises.lesson09 import ToyEncoder, case_files

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def _read_tests(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """tests/test-tokenizer-0.cpp's read_tests, line by line (its std::map aside): the texts by find() from pos,
    the lines by getline, each line string_strip()ped and cut at single spaces, each part std::stoi'd."""
    texts, pos = [], 0
    while pos < len(inp):
        nxt = inp.find(SEPARATOR, pos)
        if nxt == -1:
            texts.append(inp[pos:])
            break
        texts.append(inp[pos:nxt])
        pos = nxt + len(SEPARATOR)
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # getline: a final newline ends the last line
    if len(texts) != len(lines):
        raise ValueError("input and output files have different number of tests")
    cases = []
    for text, line in zip(texts, lines, strict=True):
        o = line.strip(" \t\n\v\f\r")
        ids, pos = [], 0
        while pos < len(o):
            nxt = o.find(" ", pos)
            nxt = len(o) if nxt == -1 else nxt
            part = o[pos:nxt]
            if not (part.lstrip("-").isascii() and part.lstrip("-").isdigit()) or part.count("-") > 1:
                raise ValueError(f"std::stoi fails on {part!r}")  # (the parts the check generates)
            ids.append(int(part))
            pos = nxt + 1
        cases.append((text, ids))
    return cases


def test_every_case_of_the_check_is_read_as_llama_cpp_reads_it():
    """The reference (gguftok's read_cases) and a literal port of llama.cpp's read_tests agree on every case of
    the check; the lax corners where they part (two spaces between ids, "12abc") are not among them."""
    ex = EXERCISES["09.read_cases"]
    for k, case in enumerate(ex.cases()):
        expected = ex.expected(k)
        try:
            ported = _read_tests(*case.args)
        except ValueError:
            assert isinstance(expected, Raises) and expected.kind is ValueError, case
        else:
            assert ported == expected, case


def test_the_fifteen_pairs_have_46_cases_each_and_qwen35_50():
    counts = {name: len(_read_tests(inp, out)) for name, inp, out in case_files()}
    assert len(counts) == 15
    assert counts.pop("qwen35") == 50 and set(counts.values()) == {46}


def test_an_encoder_called_twice_per_case_or_out_of_order_fails():
    solution = solved("09.run_cases")

    def twice(encode, cases):
        for text, _ in cases:
            encode(text)
        return solution(encode, cases)

    def backwards(encode, cases):
        return solution(encode, cases[::-1])[::-1]

    assert check("09.run_cases", twice).case == 0
    r = check("09.run_cases", backwards)
    assert r.case == 0 and r.expected == "[(b'ab', [97, 98, 0], [97, 98, 0]), (b'c', [99, 0], [99, 1])]"
    assert r.got == "[(b'ab', [97, 98, 0], [97, 98, 1]), (b'c', [99, 0], [99, 0])]"
    assert ToyEncoder()(b"ab") == [97, 98, 0]


def test_the_reports_name_the_lesson_cases():
    r = check("09.run_cases", WRONG["09.run_cases"])
    assert r.status == "failed" and r.case == 1
    assert r.call == "run_cases(ToyEncoder(), [(b'x\\xff', [1]), (b'', []), (b'ok', [111, 107, 2])])"
    assert r.detail.startswith("first difference at index 0: expected (b'x\\xff', [1], 'ValueError: cannot encode "
                               "byte 0xff at 1'), got (b'x\\xff', [1], 'cannot encode byte 0xff at 1')")
    assert r.rerun == "rerun('09.run_cases', 2)"
    r = check("09.read_cases", WRONG["09.read_cases"])
    assert r.status == "error" and r.case == 0 and r.rerun.startswith("read_cases(b'Hello\\n__ggml_vocab_test__")
    assert r.expected == "[(b'Hello', [9707]), (b' world', [1879])]" and r.detail.startswith("ValueError: 3 texts")
    r = check("09.first_difference", WRONG["09.first_difference"])
    assert r.call == "first_difference([1, 2], [1, 2, 5])" and r.expected == "2" and r.got == "None"
