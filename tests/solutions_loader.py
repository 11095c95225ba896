"""The reference solutions and the wrong variants (mutants) of every exercise, for the tests.

A solution is the function of ``solutions/mytok/<stage>.py`` for an exercise written in the student's package,
else the function of ``solutions/lessonNN.py``. The wrong variants live in ``tests/mutants/lessonNN.py``, one
``WRONG`` dict per lesson.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from gguftok.exercises import EXERCISES
from gguftok.exercises.workspace import load_solution

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # solutions/lessonNN.py
    sys.path.insert(0, str(REPO))


def solved(exercise_id: str) -> Callable:
    ex = EXERCISES[exercise_id]
    if ex.module:
        return getattr(load_solution(ex.module), ex.name)
    return getattr(importlib.import_module(f"solutions.lesson{ex.lesson:02d}"), ex.name)


def wrong_variants() -> dict[str, Callable]:
    found: dict[str, Callable] = {}
    for path in sorted((REPO / "tests" / "mutants").glob("lesson*.py")):
        spec = importlib.util.spec_from_file_location(f"mutants_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found.update(module.WRONG)
    return found
