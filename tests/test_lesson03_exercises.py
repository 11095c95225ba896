"""Lesson 03's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_reports_name_the_lesson_cases():
    r = check("03.split_merge", WRONG["03.split_merge"])
    assert r.text == (f"✗ 03.split_merge: failed on case 2 of {r.total} (1 agreed before it)\n"
                      "  input:    split_merge('  x')\n"
                      "  expected: (' ', 'x')\n"
                      "  got:      ('', ' x')\n"
                      "  first difference at index 0: expected ' ', got '' (lengths 2 and 2)\n"
                      "  run it again, whole: split_merge('  x')")
    r = check("03.merge_ranks", WRONG["03.merge_ranks"])
    assert r.case == 1 and r.expected.startswith("[('Ġ t', 0),") and r.got.startswith("[('Ġ t', 4),")
    assert "first difference at index 0: expected ('Ġ t', 0), got ('Ġ t', 4)" in r.text
