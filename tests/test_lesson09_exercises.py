"""Lesson 09's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("09.parse_ids", WRONG["09.parse_ids"])
    assert r.status == "error" and r.call == "parse_ids('9707 1879 0')" and r.expected == "[9707, 1879, 0]"
    assert r.detail.startswith("ValueError: invalid literal for int() with base 10: '9707 1879 0'")
