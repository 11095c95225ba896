"""The exercises: every check passes its solution, says "not attempted" for its template, and catches a wrong
variant at the first case where it differs from the reference; the notebooks hold exactly the library's
exercise cells, committed unsolved."""

from __future__ import annotations

import doctest
import inspect
import json
import re
import sys
from collections.abc import Callable

import pytest
from conftest import REPO, _require_vocab
from solutions_loader import solved, wrong_variants
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.exercises import EXERCISES, check, exercise, lesson_exercises, show, solution, workspace
from gguftok.exercises._core import Case, Exercise, Raises, agree
from gguftok.viz.cache_view import notebook_text
from gguftok.viz.families_view import toy_spm_vocab
from gguftok.vocab import CONTROL, NORMAL, USER_DEFINED

IDS = sorted(EXERCISES)
for _path in (REPO, REPO / "scripts"):  # solutions/ and scripts/exercise_cells.py
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()  # the real-vocabulary cases need data/vocab (skips, or fails under CI, without it)


def template(exercise_id: str) -> Callable:
    """The function as a student first sees it: in the committed package notebooks/mytok/, or the notebook's
    template cell."""
    ex = EXERCISES[exercise_id]
    if ex.module:
        return getattr(workspace._import("mytok_template", REPO / "notebooks" / "mytok", ex.module), ex.name)
    namespace: dict = {}
    exec(ex.template, namespace)
    return namespace[ex.name]


# ----------------------------------------------------------------------------------------- the registry
def test_two_to_four_exercises_per_lesson():
    for lesson in range(1, 13):
        exs = lesson_exercises(lesson)
        assert 2 <= len(exs) <= 4, lesson
        assert all(ex.id.startswith(f"{lesson:02d}.") for ex in exs)


def test_unknown_id_names_the_lesson_exercises():
    with pytest.raises(KeyError, match=r"03\.split_merge, 03\.merge_ranks"):
        exercise("03.split")


def test_the_library_points_to_the_solution_and_holds_none():
    assert solution("05.merge_word") == ("The solution of 05.merge_word is merge_word in "
                                         "solutions/mytok/merge_queue.py at the top of the repository.")
    # workspace.py and capstone.py only say where the solutions are (they load them for the capstone's fallback)
    library = "\n".join(p.read_text() for p in (REPO / "gguftok" / "exercises").glob("*.py")
                        if p.name not in ("workspace.py", "capstone.py"))
    assert "solutions" not in re.sub(r"solutions/(lesson|mytok)|solutions are|solution of", "",
                                     library.replace("\n", " "))


@pytest.mark.parametrize("exercise_id", IDS)
def test_statement_and_template(exercise_id):
    ex = EXERCISES[exercise_id]
    view = show(exercise_id)
    assert view.text.startswith(f"Exercise {exercise_id}: {ex.title}")
    assert_sanitizer_safe(view.html)
    if ex.module:
        assert f"Write {ex.name} in mytok/{ex.module}.py." in view.text and f"check({exercise_id!r})" in view.text
        source = inspect.getsource(template(exercise_id))
    else:
        assert ex.template in view.text and f'check({exercise_id!r}, {ex.name})' in view.text
        source = ex.template
    assert re.search(rf"^(def|class) {ex.name}\b", source, re.M) and "raise NotImplementedError" in source
    assert ">>> " in source, "a tiny example in the docstring"


# ------------------------------------------------------------------------------------------- solutions
@pytest.mark.parametrize("exercise_id", IDS)
def test_the_solution_passes(exercise_id):
    result = check(exercise_id, solved(exercise_id))
    assert result.ok, result.text
    assert result.total == len(EXERCISES[exercise_id].cases()) >= 70
    assert result.text.startswith(f"✓ {exercise_id}: passed: ")
    assert_sanitizer_safe(result.rendered().html)


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_template_example_holds_for_the_solution(exercise_id, monkeypatch):
    """The docstring example a student starts from is right: it runs against the solution."""
    ex = EXERCISES[exercise_id]
    monkeypatch.chdir(REPO / "notebooks")  # the examples use notebook-relative paths
    texts, scores = toy_spm_vocab()
    globs = {"Tokenizer": Tokenizer, "TOY_TEXTS": texts, "TOY_SCORES": scores,
             "CONTROL": CONTROL, "NORMAL": NORMAL, "USER_DEFINED": USER_DEFINED}
    if ex.module:  # the example may use the module's own names (its given tables, its other functions)
        globs.update(vars(workspace.load_solution(ex.module)))
    globs[ex.name] = solved(exercise_id)
    test = doctest.DocTestParser().get_doctest(template(exercise_id).__doc__, globs, ex.id, None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


# ---------------------------------------------------------------------------------------- not attempted
@pytest.mark.parametrize("exercise_id", IDS)
def test_the_template_is_not_attempted(exercise_id):
    result = check(exercise_id, template(exercise_id))
    name = EXERCISES[exercise_id].name
    assert result.status == "not attempted" and not result.ok
    todo = (f"  Write it in mytok/{EXERCISES[exercise_id].module}.py, save the file, then run this cell again."
            if EXERCISES[exercise_id].module else
            "  Write the function's body in the cell above, run it, then run this cell again.")
    assert result.text == f"○ {exercise_id}: not attempted: {name} still raises NotImplementedError\n{todo}"
    assert_sanitizer_safe(result.rendered().html)


def test_returning_ellipsis_is_not_attempted_and_a_later_not_implemented_is_an_error():
    def ellipsis(line):
        ...

    assert ellipsis("x") is None  # a body of ``...`` alone returns None: that is an attempt (a wrong one)
    assert check("03.split_merge", ellipsis).status == "failed"
    assert check("03.split_merge", lambda line: ...).text.startswith(
        "○ 03.split_merge: not attempted: split_merge still returns ...")

    def partial(line):
        if line.startswith(" "):
            raise NotImplementedError("leading spaces")
        return tuple(line.split(" ", 1)) if " " in line[1:] else None

    result = check("03.split_merge", partial)
    assert result.status == "error" and result.case == 1
    line = partial.__code__.co_firstlineno + 2
    assert result.detail == (f"NotImplementedError: leading spaces "
                             f'(line {line}: raise NotImplementedError("leading spaces"))')



# ------------------------------------------------------------------------------------------ wrong answers
WRONG = wrong_variants()


def test_every_exercise_has_a_wrong_variant():
    assert sorted(WRONG) == IDS


def _first_disagreement(ex: Exercise, fn: Callable) -> tuple[int, object, object]:
    """Found here, independently of the check's loop: the first case where ``fn`` and the reference part."""
    for k, case in enumerate(ex.cases()):
        expected = ex.expected(k)
        try:
            got = ex.run(fn, case)
        except Exception as e:
            if isinstance(expected, Raises) and isinstance(e, expected.kind):
                continue
            return k, expected, e
        if isinstance(expected, Raises) or not agree(expected, got):
            return k, expected, got
    raise AssertionError(f"the wrong variant of {ex.id} passes every case")


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_wrong_variant_fails_at_its_first_difference(exercise_id):
    ex = EXERCISES[exercise_id]
    k, expected, got = _first_disagreement(ex, WRONG[exercise_id])
    result = check(exercise_id, WRONG[exercise_id])
    assert not result.ok and result.case == k and result.agreed == k, result.text
    assert result.call == ex.describe(ex.cases()[k])
    lines = result.text.splitlines()
    assert lines[0] == (f"✗ {exercise_id}: {'error' if isinstance(got, Exception) else 'failed'} on case {k + 1} "
                        f"of {len(ex.cases())} ({k} agreed before it)")
    assert lines[1] == f"  input:    {result.call}"
    if isinstance(got, Exception):
        assert result.status == "error" and lines[3].startswith(f"  raised:   {type(got).__name__}")
    else:
        assert result.status == "failed" and lines[3].startswith("  got:      ")
        if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
            i = next((j for j, (a, b) in enumerate(zip(expected, got, strict=False))
                      if not agree(a, b)),
                     min(len(expected), len(got)))
            assert lines[4].startswith(f"  first difference at index {i}: "), result.text
    assert_sanitizer_safe(result.rendered().html)


def test_an_exception_is_shown_with_its_input_and_line():
    def boom(line):
        table = {}
        return table[line]

    r = check("03.split_merge", boom)
    assert r.status == "error" and r.case == 0
    line = boom.__code__.co_firstlineno + 2
    assert r.text.splitlines()[3] == f"  raised:   KeyError: 'Ġ t' (line {line}: return table[line])"


def test_a_failing_case_is_seen_whole_folded_in_the_report_and_by_one_call():
    """The text report cuts a long input in the middle; its HTML folds the input (repr and length) and both
    answers in whole, and ``compare`` returns the arguments and both answers in one call."""
    import html

    from gguftok.exercises import compare
    from gguftok.exercises.lesson04 import reference_split

    long_only = lambda text, regexes: [text] if len(text) > 300 else reference_split(text, regexes)  # noqa: E731
    r = check("04.split", long_only)
    assert r.status == "failed"
    text, regexes = EXERCISES["04.split"].case(r.case + 1).args
    assert len(text) > 300 and repr(text) not in r.text and " … " in r.text
    assert f"  the input and both answers, whole: compare('04.split', {r.case + 1})" in r.text.splitlines()
    page = html.unescape(r.rendered().html)
    folded = page[page.index("<details>"):page.index("</details>")]
    assert f"{text!r}  (a str of {len(text):,} characters)" in folded
    assert repr(reference_split(text, regexes)) in folded and repr([text]) in folded
    assert_sanitizer_safe(r.rendered().html)
    c = EXERCISES["04.split"].compare(r.case + 1, long_only)
    assert c.args == (text, regexes) and c.expected == reference_split(text, regexes) and c.got == [text]
    assert not c.agree and EXERCISES["04.split"].compare(1, reference_split).agree
    # the default function is the student's own: the committed template, not attempted, raises
    with pytest.raises(NotImplementedError):
        compare("04.split", 1)
    # a short case shows whole in the text already: no pointer to compare there
    short_fails = check("03.split_merge", lambda line: None)
    assert "compare(" not in short_fails.text and "<details>" in short_fails.rendered().html


def test_the_whole_case_is_written_out_for_the_reported_case_only(monkeypatch):
    """Writing a case out whole (a repr of every argument) costs as much as a check: only the reported case
    pays it, never the cases that agree."""
    from gguftok.exercises import _core
    from gguftok.exercises.lesson04 import reference_split

    calls = []
    real = _core._whole_case
    monkeypatch.setattr(_core, "_whole_case", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    assert check("04.split", reference_split).ok and calls == []
    r = check("04.split", lambda text, regexes: [text] if len(text) > 300 else reference_split(text, regexes))
    assert not r.ok and len(calls) == 1 and calls[0] is EXERCISES["04.split"].cases()[r.case]


def test_check_needs_a_function():
    with pytest.raises(TypeError, match="the function you wrote"):
        check("03.split_merge", "split_merge")


def test_answers_of_another_sequence_type_agree_but_not_other_types():
    ex = Exercise("99.f", "t", "s", "def f(x):\n    raise NotImplementedError", lambda x: [x, x], "ref",
                  lambda: [Case((1,)), Case((2,))])
    assert ex.check(lambda x: (x, x)).ok
    r = ex.check(lambda x: [x, True] if x == 2 else [x, x])
    assert r.case == 1 and "first difference at index 1: expected 2, got True" in r.text
    r = ex.check(lambda x: {x})
    assert r.case == 0 and "expected a list, got a set" in r.text


def test_arguments_are_copied_so_a_mutating_answer_cannot_change_the_expected_values():
    def mutating(symbols, ranks):
        ranks.clear()
        symbols.clear()
        return None

    r = check("05.lowest_pair", mutating)
    assert r.case == 0 and r.expected == "3"
    assert check("05.lowest_pair", solved("05.lowest_pair")).ok


def test_the_copy_of_a_case_is_deepcopys_for_its_plain_data_and_shares_nothing_mutable():
    import copy
    import random

    import numpy as np

    from gguftok.exercises._core import fresh_copy

    r = random.Random(5)

    def value(depth):
        kind = r.randrange(9 if depth < 4 else 5)
        return [lambda: r.randrange(-5, 5), lambda: r.choice(["", "a", "é"]), lambda: r.random() < 0.5,
                lambda: None, lambda: b"\xff", lambda: [value(depth + 1) for _ in range(r.randrange(4))],
                lambda: tuple(value(depth + 1) for _ in range(r.randrange(4))),
                lambda: {r.choice("abc"): value(depth + 1) for _ in range(r.randrange(3))},
                lambda: np.arange(r.randrange(3))][kind]()

    def mutables(x):
        if isinstance(x, (list, dict, np.ndarray)):
            yield x
        for item in (x.values() if isinstance(x, dict) else x if isinstance(x, (list, tuple)) else ()):
            yield from mutables(item)

    for _ in range(500):
        x = value(0)
        got, want = fresh_copy(x), copy.deepcopy(x)
        assert repr(got) == repr(want)  # the same values and the same types, arrays included
        assert {id(m) for m in mutables(got)}.isdisjoint(id(m) for m in mutables(x))


# ---------------------------------------------------------------------------------------------- notebooks
def _cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [("".join(c["source"]), c) for c in nb["cells"]]


@pytest.mark.parametrize("lesson", range(1, 13))
def test_each_notebook_has_its_exercises_unsolved(lesson):
    from exercise_cells import TAIL, check_source, exercise_cells

    (path,) = (REPO / "notebooks").glob(f"{lesson:02d}_*.ipynb")
    cells = _cells(path)
    start = next(k for k, (src, _) in enumerate(cells) if src.startswith("## Exercises"))
    end = next((k for k in range(start + 1, len(cells)) if cells[k][0].startswith(TAIL)), len(cells))
    wanted = [c.source for c in exercise_cells(lesson)]
    assert [src for src, _ in cells[start:end]] == wanted, "run scripts/exercise_cells.py and scripts/run_notebooks.py"
    outputs = {src: c["outputs"] for src, c in cells[start:end] if c["cell_type"] == "code"}
    for ex in lesson_exercises(lesson):
        if not ex.module:
            assert outputs[ex.template] == []
        progress, out = outputs[check_source(ex)]
        # a check's progress display: made when the check starts, emptied when it ends (gguftok.viz.progress)
        assert progress["output_type"] == "display_data" and "".join(progress["data"]["text/plain"]) == ""
        assert out["data"]["text/plain"] == repr(check(ex.id, template(ex.id))).splitlines(keepends=True)
        assert "not attempted" in "".join(out["data"]["text/html"])


def test_the_lesson_prose_that_notebook_10_counts_stops_before_the_exercises():
    path = REPO / "notebooks" / "twins" / "03_merge_ranks.py"
    text = notebook_text([path])
    assert "## Tokens no text produces" in text and "Exercise 03.split_merge" not in text
