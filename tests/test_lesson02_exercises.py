"""Lesson 02's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("02.byte_map", WRONG["02.byte_map"])
    assert "first difference at index 0: expected 'Ā', got None" in r.text
