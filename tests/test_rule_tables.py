"""Every entry of every rule table in the student's package decides some case of its stage's checks.

The stages of ``mytok/`` carry tables that the lessons give (the pre strings that switch BOS on, the texts that
end a turn, the regex lists of the other vocabularies, ...). A student who copies one wrong or leaves an entry
out must see a check fail: here each entry is deleted in turn from the reference solution's table, and some
check of that stage must then fail. (The pre-tokenizer patterns the student writes are mutated alternative by
alternative in test_lesson04_exercises.py.)

A check runs its cases in order and fails on the first one that disagrees, and the whole vocabularies come
early in a check, before the small cases that catch most deletions: so each deletion first meets the small
cases alone, and one that disagrees is enough (the check would fail too); only when none does, the check
itself is run, whole.
"""

from __future__ import annotations

import pytest
from conftest import _require_vocab

from gguftok.exercises import EXERCISES, Exercise, check
from gguftok.exercises._core import Raises, agree
from gguftok.exercises.workspace import load_solution

TABLES = {
    "bos_eos": ("BOS_PRESETS", "NO_BOS_ID_PRESETS", "GEMMA4_PRESETS", "BPE_MODELS", "EOT_TEXTS", "EOM_TEXTS",
                "ID_KEYS", "DEFAULT_IDS"),
    "special": ("EOG_TEXTS", "FIM_TEXTS", "FIM_KEYS", "ALWAYS_USER_DEFINED"),
    "pretokenize": ("OTHER_REGEXES", "SAME_AS"),
}
# Entries whose deletion changes nothing in the solution, with the reason: not a gap in the checks.
EQUIVALENT = {
    ("bos_eos", "BPE_MODELS", "'gemma4'"): "the solution's _pre answers for the model gemma4 before it reads "
                                           "BPE_MODELS (llama.cpp's gemma4 always uses the pre gemma4)",
}


def entries(value):
    """``(label, the table without that entry)`` for each entry; in a dict, each key and each item of a value
    that is a list, tuple or dict of two or more."""
    if isinstance(value, frozenset | set):
        for e in sorted(value):
            yield repr(e), type(value)(value - {e})
    elif isinstance(value, tuple | list):
        for k, e in enumerate(value):
            yield repr(e), type(value)(value[:k] + value[k + 1:])
    elif isinstance(value, dict):
        for key, v in value.items():
            yield f"[{key!r}]", {k: x for k, x in value.items() if k != key}
            if isinstance(v, list | tuple | dict) and len(v) > 1:
                for label, inner in entries(v):
                    yield f"[{key!r}] {label}", {**value, key: inner}
    else:
        raise TypeError(f"no entries in a {type(value).__name__}")


def disagrees(ex: Exercise, fn, k: int) -> bool:
    """Whether ``fn`` and the reference part on case ``k`` of ``ex``, compared as the check compares them (the
    module docstring of gguftok/exercises/_core.py): an answer that does not agree, or an exception where the
    reference raised none of that kind. Then the check of ``ex`` fails, on this case or an earlier one."""
    expected = ex.expected(k)
    try:
        got = ex.run(fn, ex.cases()[k])
    except Exception as e:
        return not (isinstance(expected, Raises) and isinstance(e, expected.kind))
    return isinstance(expected, Raises) or not agree(expected, got)


def verdict(ex: Exercise, fn) -> str:
    """``"passes"`` or how the check of ``ex`` was seen to fail: ``"small case"``, a case with small arguments
    (one the check deep-copies) disagrees; ``"check"``, the check itself, run only when no small case does."""
    if any(disagrees(ex, fn, k) for k, case in enumerate(ex.cases()) if case.copy):
        return "small case"
    return "passes" if check(ex.id, fn).ok else "check"


def test_entries_deletes_each_entry_once():
    assert [label for label, _ in entries(("a", "b"))] == ["'a'", "'b'"]
    assert list(entries({"x": [1, 2], "y": 3})) == [("['x']", {"y": 3}), ("['x'] 1", {"x": [2], "y": 3}),
                                                    ("['x'] 2", {"x": [1], "y": 3}), ("['y']", {"x": [1, 2]})]


@pytest.mark.parametrize(("stage", "table"), [(s, t) for s, tables in TABLES.items() for t in tables])
def test_every_entry_of_the_table_decides_a_case(stage, table):
    _require_vocab()
    module = load_solution(stage)
    exercises = [ex for ex in EXERCISES.values() if ex.module == stage]
    functions = {ex.id: getattr(module, ex.name) for ex in exercises}
    assert all(check(ex.id, functions[ex.id]).ok for ex in exercises), "the solution itself must pass"
    original = getattr(module, table)
    survived, tried, confirmed = [], 0, False
    try:
        for label, without in entries(original):
            setattr(module, table, without)
            found = ((ex, verdict(ex, functions[ex.id])) for ex in exercises)
            catcher, how = next(((ex, how) for ex, how in found if how != "passes"), (None, "passes"))
            caught = catcher is not None
            if how == "small case" and not confirmed:  # once a table, the check itself says so too
                assert not check(catcher.id, functions[catcher.id]).ok, f"{catcher.id} passes, a case disagreeing"
                confirmed = True
            if caught:  # the check that caught this entry is tried first on the next: a table is mostly one check's
                exercises.remove(catcher)
                exercises.insert(0, catcher)
            if (stage, table, label) in EQUIVALENT:
                assert not caught, f"{table} without {label} is now caught: drop it from EQUIVALENT"
                continue
            tried += 1
            if not caught:
                survived.append(label)
    finally:
        setattr(module, table, original)
    assert tried >= 1 and not survived, (f"{stage}.{table} without each of {survived} still passes every check "
                                         f"of mytok/{stage}.py")
