"""The reference solutions and the wrong variants (mutants) of every exercise, for the tests.

A solution is the function of ``solutions/mytok/<stage>.py`` for an exercise written in the student's package,
else the function of ``solutions/lessonNN.py``. The wrong variants live in ``tests/mutants/lessonNN.py``, one
``WRONG`` dict per lesson.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from gguftok.exercises import EXERCISES, lesson_exercises
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


VERDICT = re.compile(r"^[✓✗○] \d\d\.\w+: ")  # the first line of a check's report
SOLUTIONS_PACKAGE = REPO / "solutions" / "mytok"  # as $GGUFTOK_WORKSPACE: the reference solutions as the student's


def verdicts(texts: Iterable[str]) -> list[str]:
    """The first line of every check report in a notebook's output texts, in order."""
    lines = (line.strip() for text in texts for line in text.splitlines())
    return [line for line in lines if VERDICT.match(line)]


def assert_every_check_passes(notebook: str, shown: list[str]) -> None:
    """Each exercise of ``notebook``'s lesson is checked at least once and every check shown passed."""
    lesson = int(notebook[:2])
    for ex in lesson_exercises(lesson):
        mine = [line for line in shown if line[2:].startswith(f"{ex.id}:")]
        assert mine and all(line.startswith("✓ ") for line in mine), (notebook, ex.id, mine)
    assert not [line for line in shown if not line.startswith("✓ ")], json.dumps(shown, ensure_ascii=False)
