"""Write the exercise cells of each lesson's notebook from ``gguftok.exercises`` (the one source of truth).

Each lesson's ``py:percent`` twin (``notebooks/twins/``) has an ``## Exercises`` section (at the end, or before
the closing ``## Recap``, ``## Self-check`` and ``## Going deeper`` parts, which are kept): an introduction, the
import of ``check``, then per exercise a markdown statement, a code cell with the function's template, and a code cell
that checks it. This script replaces that section (or appends it) so the notebooks say exactly what the
library checks; ``tests/test_exercises.py`` fails when they drift apart. Run ``scripts/run_notebooks.py``
afterwards to execute the notebooks.

    python scripts/exercise_cells.py            # every lesson
    python scripts/exercise_cells.py 3 5        # lessons 03 and 05
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
from nbformat.v4 import new_code_cell, new_markdown_cell

from gguftok.exercises import Exercise, lesson_exercises

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
HEADING = "## Exercises"
IMPORT = "from gguftok.exercises import check, rerun  # noqa: E402"


def intro(lesson: int) -> str:
    modules = list(dict.fromkeys(ex.module for ex in lesson_exercises(lesson) if ex.module))  # in the exercises' order
    if len(modules) > 1:
        links = [f"[`mytok/{m}.py`](mytok/{m}.py)" for m in modules]
        return (f"{HEADING}\n\n"
                f"This notebook's stages are {', '.join(links[:-1])} and {links[-1]}: write the body of each\n"
                "function named below in its file, save, and run its check (notebook 00, *How the exercises work*,\n"
                "says what a check does).")
    if modules:
        links = f"[`mytok/{modules[0]}.py`](mytok/{modules[0]}.py)"
        return (f"{HEADING}\n\n"
                f"This notebook's stage is {links}: write the body of each function named below there, save, and\n"
                "run its check (notebook 00, *How the exercises work*, says what a check does).")
    return (f"{HEADING}\n\n"
            "Write each function in the code cell under its statement, run that cell, then run the check below it.\n"
            "The check calls your function on this lesson's examples and on many generated inputs (seeded, so the\n"
            "same every time), compares each answer with gguftok's own, and shows the first input where they\n"
            "differ: the input, the expected answer, yours, and for a list the first index that differs. Until you\n"
            "write the body it says *not attempted*. `gguftok.exercises.show(\"NN.name\")` prints a task again.\n"
            f"The solutions are in `solutions/lesson{lesson:02d}.py` at the top of the repository.")


def statement_markdown(ex: Exercise) -> str:
    return f"### Exercise {ex.id}: {ex.title}\n\n{ex.statement}"


def check_source(ex: Exercise) -> str:
    return f'check("{ex.id}")' if ex.module else f'check("{ex.id}", {ex.name})'


def exercise_cells(lesson: int) -> list:
    cells = [new_markdown_cell(intro(lesson)), new_code_cell(IMPORT)]
    for ex in lesson_exercises(lesson):
        if ex.module:  # written in the student's package: the statement says where, the cell only checks
            cells += [new_markdown_cell(f"{statement_markdown(ex)}\n\nWrite it in [`{ex.where}`]({ex.where})."),
                      new_code_cell(check_source(ex))]
        else:
            cells += [new_markdown_cell(statement_markdown(ex)), new_code_cell(ex.template),
                      new_code_cell(check_source(ex))]
    return cells


TAIL = ("## Recap", "## Self-check", "## Going deeper")  # what follows the exercises in a lesson


def deeper(cells: list, start: int = 0) -> int:
    """Where the part after the exercises starts (the recap, self-check or "Going deeper", all kept), or the end
    of the notebook."""
    return next((k for k in range(start, len(cells)) if cells[k].cell_type == "markdown"
                 and cells[k].source.startswith(TAIL)), len(cells))


def notebook_path(lesson: int) -> Path:
    (path,) = (NOTEBOOKS / "twins").glob(f"{lesson:02d}_*.py")
    return path


def update(lesson: int) -> Path:
    path = notebook_path(lesson)
    nb = jupytext.read(path)
    keep = next((k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith(HEADING)),
                len(nb.cells))
    nb.cells = nb.cells[:keep] + exercise_cells(lesson) + nb.cells[deeper(nb.cells, keep):]
    jupytext.write(nb, path, fmt="py:percent")
    return path


def main(args: list[str]) -> None:
    for lesson in [int(a) for a in args] or range(1, 13):
        print("updated", update(lesson).name)


if __name__ == "__main__":
    main(sys.argv[1:])
