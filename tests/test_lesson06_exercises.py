"""Lesson 06's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("06.partition", WRONG["06.partition"])
    assert r.call.startswith("partition('x' + ' ' * 30 + 'y'") and r.expected == "['x', 22, 4, 'y']"
