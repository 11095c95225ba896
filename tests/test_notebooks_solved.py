"""The ladder can be climbed: every notebook, run top to bottom with the reference solutions as the student's
package, raises nothing and passes every check it shows (the committed notebooks are checked by nbval in their
untouched "not attempted" state).

Where the browser layer runs (always under CI), ``tests/browser/test_workbook_*.py`` runs each notebook so, in
JupyterLab, and asserts the same of what the page shows: one run there checks the solved state and every view,
and this run, which would repeat it, is skipped. Without a browser it runs here, in a plain kernel.
"""

from __future__ import annotations

import jupytext
import pytest
from browser.labdriver import missing_browser
from conftest import REPO, _require_vocab
from nbclient import NotebookClient
from solutions_loader import SOLUTIONS_PACKAGE, assert_every_check_passes, verdicts

from gguftok.exercises import workspace

LESSONS = sorted((REPO / "notebooks" / "twins").glob("[0-9][0-9]_*.py"))


@pytest.mark.skipif(missing_browser() is None,
                    reason="the browser run (tests/browser/test_workbook_*.py) runs each notebook with the solutions "
                           "and asserts the same")
@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_notebook_runs_and_passes_its_checks_with_the_solutions(path, monkeypatch):
    _require_vocab()
    monkeypatch.setenv(workspace.ENV, str(SOLUTIONS_PACKAGE))  # the kernel inherits it
    nb = jupytext.read(path)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO / "notebooks")}}).execute()
    texts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: {out.get('ename')}: {out.get('evalue')}"
            texts.append("".join(out.get("data", {}).get("text/plain", "")) + "".join(out.get("text", "")))
    assert_every_check_passes(path.name, verdicts(texts))
