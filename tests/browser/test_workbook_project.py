"""The project (12) and the instructor's page in JupyterLab, in a lab of their own (see workbook.py)."""

from __future__ import annotations

import pytest
from workbook import GROUPS, browser, check_notebook, context, lab, page, pytestmark


@pytest.mark.parametrize("notebook", GROUPS["project"])
def test_notebook_in_jupyterlab(page, lab, notebook):
    check_notebook(page, lab, notebook)
