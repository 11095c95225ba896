"""Lessons 00-05 in JupyterLab, and the checks that every notebook and every widget cell is covered (see
workbook.py)."""

from __future__ import annotations

import re

import pytest
from workbook import (
    GROUPS,
    NOTEBOOKS,
    REPO,
    VIEWS,
    browser,
    check_notebook,
    context,
    lab,
    page,
    pytestmark,
)


def test_every_notebook_is_in_one_group():
    grouped = [nb for group in GROUPS.values() for nb in group]
    assert sorted(grouped) == NOTEBOOKS, f"grouped {grouped}, notebooks {NOTEBOOKS}"


def test_every_notebook_with_a_widget_is_covered():
    """A new interactive cell must get an interaction in workbook.VIEWS: each call of a widget factory has its View."""
    factories = re.compile(r"^\s*(\w+_(?:browser|inspector|widget|explorer|player|playground))\(", re.M)
    for nb in NOTEBOOKS:
        source = (REPO / "notebooks" / "twins" / nb).with_suffix(".py").read_text(encoding="utf-8")
        calls = factories.findall(source)
        assert len(calls) == len(VIEWS.get(nb, [])), f"{nb}: widget cells {calls}, views {VIEWS.get(nb)}"


@pytest.mark.parametrize("notebook", GROUPS["lessons"])
def test_notebook_in_jupyterlab(page, lab, notebook):
    check_notebook(page, lab, notebook)
