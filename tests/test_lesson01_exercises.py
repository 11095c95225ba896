"""Lesson 01's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("01.read_header", WRONG["01.read_header"])
    assert r.case == 2 and r.expected.startswith("raises ValueError (<bytes>: not a GGUF file: magic is b'GGML'")
    assert "the reference raises here; yours returned" in r.text
