"""Lessons 06-11 in JupyterLab, in a lab of their own (see workbook.py)."""

from __future__ import annotations

import pytest
from workbook import GROUPS, browser, check_notebook, context, lab, page, pytestmark


@pytest.mark.parametrize("notebook", GROUPS["later lessons"])
def test_notebook_in_jupyterlab(page, lab, notebook):
    check_notebook(page, lab, notebook)
