"""Execute the workbook's notebooks top to bottom and write them with deterministic metadata.

The ``py:percent`` twin (``notebooks/twins/NN_*.py``) is the source a reviewer reads; this script runs it in a fresh
kernel from ``notebooks/`` and writes the paired ``.ipynb`` with its outputs, without execution timestamps
or this machine's Python version, so that a re-run changes a notebook only when its outputs change.

    python scripts/run_notebooks.py                 # every notebook, the instructor's too
    python scripts/run_notebooks.py notebooks/twins/00_start_here.py   # or notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TWINS = NOTEBOOKS / "twins"  # the py:percent twins, out of the student's way
FORMATS = "ipynb,twins//py:percent"


def run(py: Path) -> Path:
    nb = jupytext.read(py)
    nb.cells = [c for c in nb.cells if c.cell_type != "code" or c.source.strip()]  # no empty code cells
    nb.metadata.setdefault("jupytext", {})["formats"] = FORMATS
    NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    nb.metadata.get("language_info", {}).pop("version", None)
    # Widget state changes with every run (fresh model ids) and only matters in a live kernel: not kept.
    nb.metadata.pop("widgets", None)
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesced(cell.outputs)
        cell.id = f"cell-{i}"  # stable ids: a re-run changes the file only where outputs change
    out = NOTEBOOKS / py.with_suffix(".ipynb").name
    jupytext.write(nb, out)
    jupytext.write(nb, py, fmt="py:percent")  # keep the twin byte-for-byte what jupytext would pair
    return out


def coalesced(outputs: list) -> list:
    """Consecutive stream outputs of one stream as one output: how printed text is split into messages depends on
    the kernel's timing, not on the cell (nbval compares streams joined the same way).

    >>> import nbformat.v4 as v4
    >>> [o.text for o in coalesced([v4.new_output("stream", text="a\\n"), v4.new_output("stream", text="b\\n")])]
    ['a\\nb\\n']
    """
    out: list = []
    for o in outputs:
        if (o.output_type == "stream" and out and out[-1].output_type == "stream"
                and out[-1].name == o.name):
            out[-1].text += o.text
        else:
            out.append(o)
    return out


def main(paths: list[str]) -> None:
    targets = [TWINS / Path(p).with_suffix(".py").name for p in paths] or [
        *sorted(TWINS.glob("[0-9][0-9]_*.py")), TWINS / "instructor.py"]
    for py in targets:
        print(f"running {py.name} ...", flush=True)
        print(f"  wrote {run(py).relative_to(NOTEBOOKS.parent)}")


if __name__ == "__main__":
    main(sys.argv[1:])
