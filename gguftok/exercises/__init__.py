"""Exercises for the workbook: the student writes each stage of a tokenizer in a package of their own, and the
checks compare it with gguftok.

The package is ``notebooks/mytok/``, one module per stage (:mod:`gguftok.exercises.workspace`); each lesson
(01 to 12) has two to four exercises, each a function or class of its stage. In a notebook::

    from gguftok.exercises import check
    check("03.split_merge")          # reads mytok/merges.py afresh; or check("03.split_merge", some_function)

The check runs the function on the lesson's examples and on seeded random and real-vocabulary inputs,
compares every answer with the reference (the gguftok function the lesson explains, or an independent
computation), and reports the first case that differs: the input, the expected answer, the student's, for a
list the first differing index, a call that runs the case again whole (``rerun("03.split_merge", 2)``), and one
that returns the input and both answers whole (``compare("03.split_merge", 2)``).
Where the lesson is about cost, a :class:`Property` measures it once every case agrees. A template that still
raises ``NotImplementedError`` is reported as "not attempted". Notebook 12's capstone
(:mod:`gguftok.exercises.capstone`) assembles the student's ``GgufTokenizer`` and grades it against llama.cpp.

>>> from gguftok.exercises import EXERCISES, check
>>> len(EXERCISES), sorted({ex.lesson for ex in EXERCISES.values()}) == list(range(1, 13))
(37, True)
>>> print(check("09.first_difference", lambda got, expected: 0).text.splitlines()[0])
✗ 09.first_difference: failed on case 2 of 255 (1 agreed before it)

The solutions are not in the library: they are in ``solutions/mytok/`` at the top of the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..viz.render import Rendered
from . import (
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lesson11,
    lesson12,
)
from ._core import Case, CheckResult, Comparison, Exercise, Property

__all__ = ["EXERCISES", "Case", "CheckResult", "Comparison", "Exercise", "Property", "case_args", "check", "compare",
           "exercise", "lesson_exercises", "rerun", "show", "solution"]

_LESSONS = [lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07, lesson08, lesson09, lesson10,
            lesson11, lesson12]
EXERCISES: dict[str, Exercise] = {ex.id: ex for m in _LESSONS for ex in m.EXERCISES}


def exercise(exercise_id: str) -> Exercise:
    """The exercise ``"NN.name"``; ``KeyError`` naming the lesson's exercises for a wrong id."""
    if exercise_id in EXERCISES:
        return EXERCISES[exercise_id]
    lesson = exercise_id.split(".")[0]
    same = [k for k in EXERCISES if k.startswith(lesson + ".")] or list(EXERCISES)
    raise KeyError(f"no exercise {exercise_id!r}; there are: {', '.join(same)}")


def lesson_exercises(lesson: int) -> list[Exercise]:
    """The exercises of one lesson, in the order the notebook has them.

    >>> [ex.id for ex in lesson_exercises(3)]
    ['03.split_merge', '03.merge_ranks', '03.train_bpe', '03.apply_merges']
    """
    return [ex for ex in EXERCISES.values() if ex.lesson == lesson]


def check(exercise_id: str, fn: Callable[..., Any] | None = None) -> CheckResult:
    """Check an exercise: by default the function as it is now in the student's package (``mytok/``, read
    afresh from disk), or ``fn`` when given."""
    return exercise(exercise_id).check(fn)


def rerun(exercise_id: str, number: int) -> Any:
    """Run case ``number`` of a report again through the student's function, whole and with nothing caught."""
    return exercise(exercise_id).rerun(number)


def compare(exercise_id: str, number: int) -> Comparison:
    """Case ``number`` of a report run again: ``.args``, ``.expected`` (the reference's answer) and ``.got``
    (the student's), each whole, and ``.agree``. The student's function runs with nothing caught."""
    return exercise(exercise_id).compare(number)


def case_args(exercise_id: str, number: int) -> tuple:
    """The whole arguments of case ``number`` (from 1, as the reports count), to call a function with by hand."""
    from ._core import fresh_copy

    case = exercise(exercise_id).case(number)
    return fresh_copy(case.args) if case.copy else case.args


def show(exercise_id: str) -> Rendered:
    """The task of an exercise: its statement and the template to start from.

    >>> print(show("03.split_merge").text.splitlines()[0])
    Exercise 03.split_merge: split one merge line as llama.cpp does
    """
    return exercise(exercise_id).show()


def solution(exercise_id: str) -> str:
    """Where the solution of an exercise is: the library never contains it.

    >>> solution("03.split_merge")
    'The solution of 03.split_merge is split_merge in solutions/mytok/merges.py at the top of the repository.'
    """
    ex = exercise(exercise_id)
    where = f"solutions/mytok/{ex.module}.py" if ex.module else f"solutions/lesson{ex.lesson:02d}.py"
    return f"The solution of {ex.id} is {ex.name} in {where} at the top of the repository."
