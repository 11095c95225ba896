"""The ladder can be climbed: every notebook, run top to bottom with the reference solutions as the student's
package, raises nothing and passes every check it shows (the committed notebooks are checked by nbval in their
untouched "not attempted" state)."""

from __future__ import annotations

import json
import re

import jupytext
import pytest
from conftest import REPO, _require_vocab
from nbclient import NotebookClient

from gguftok.exercises import lesson_exercises, workspace

VERDICT = re.compile(r"^[✓✗○] \d\d\.\w+: ")  # the first line of a check's report
LESSONS = sorted((REPO / "notebooks" / "twins").glob("[0-9][0-9]_*.py"))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_notebook_runs_and_passes_its_checks_with_the_solutions(path, monkeypatch):
    _require_vocab()
    monkeypatch.setenv(workspace.ENV, str(REPO / "solutions" / "mytok"))  # the kernel inherits it
    nb = jupytext.read(path)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO / "notebooks")}}).execute()
    lesson = int(path.stem[:2])
    shown = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: {out.get('ename')}: {out.get('evalue')}"
            text = "".join(out.get("data", {}).get("text/plain", "")) + "".join(out.get("text", ""))
            shown += [line for line in text.splitlines() if VERDICT.match(line)]
    for ex in lesson_exercises(lesson):
        mine = [line for line in shown if line[2:].startswith(f"{ex.id}:")]
        assert mine and all(line.startswith("✓ ") for line in mine), (ex.id, mine)
    assert not [line for line in shown if not line.startswith("✓ ")], json.dumps(shown, ensure_ascii=False)
