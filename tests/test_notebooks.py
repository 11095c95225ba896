"""The workbook's notebooks as committed: paired, executed in order, deterministic. nbval checks their outputs."""

from __future__ import annotations

import json
import re

import jupytext
import pytest
from conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
MACHINE_PATHS = re.compile(r"/(work|root|home|tmp)/|\.venv|site-packages")


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_has_its_py_percent_twin(path):
    twin = path.parent / "twins" / path.with_suffix(".py").name
    assert twin.exists(), f"{twin.name} is missing: run scripts/run_notebooks.py"
    nb, py = jupytext.read(path), jupytext.read(twin)
    cells = [(c.cell_type, c.source) for c in nb.cells]
    assert cells == [(c.cell_type, c.source) for c in py.cells], "the .py twin differs: re-pair with jupytext"
    assert nb.metadata["jupytext"]["formats"] == "ipynb,twins//py:percent"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_is_executed_top_to_bottom_without_machine_details(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        assert "execution" not in cell["metadata"], "timestamps: run scripts/run_notebooks.py"
        for out in cell["outputs"]:
            assert out["output_type"] != "error"
            text = json.dumps(out.get("text", "")) + json.dumps(out.get("data", {}).get("text/plain", ""))
            assert not MACHINE_PATHS.search(text), f"a path of this machine in an output: {text[:200]}"
