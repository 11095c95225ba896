"""Lessons 00-05 in JupyterLab, and the checks that every notebook and every widget cell is covered (see
workbook.py)."""

from __future__ import annotations

import pytest
from workbook import (
    GROUPS,
    NOTEBOOKS,
    browser,
    check_notebook,
    context,
    every_notebook_with_a_widget_is_covered,
    lab,
    page,
    pytestmark,
)


def test_every_notebook_is_in_one_group():
    grouped = [nb for group in GROUPS.values() for nb in group]
    assert sorted(grouped) == NOTEBOOKS, f"grouped {grouped}, notebooks {NOTEBOOKS}"


def test_every_notebook_with_a_widget_is_covered():
    every_notebook_with_a_widget_is_covered()


@pytest.mark.parametrize("notebook", GROUPS["lessons"])
def test_notebook_in_jupyterlab(page, lab, notebook):
    check_notebook(page, lab, notebook)
