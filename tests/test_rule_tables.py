"""Every entry of every rule table in the student's package decides some case of its stage's checks.

The stages of ``mytok/`` carry tables that the lessons give (the pre strings that switch BOS on, the texts that
end a turn, the regex lists of the other vocabularies, ...). A student who copies one wrong or leaves an entry
out must see a check fail: here each entry is deleted in turn from the reference solution's table, and some
check of that stage must then fail. (The pre-tokenizer patterns the student writes are mutated alternative by
alternative in test_lesson04_exercises.py.)
"""

from __future__ import annotations

import pytest
from conftest import _require_vocab

from gguftok.exercises import EXERCISES, check
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
    survived, tried = [], 0
    try:
        for label, without in entries(original):
            setattr(module, table, without)
            catcher = next((ex for ex in exercises if not check(ex.id, functions[ex.id]).ok), None)
            caught = catcher is not None
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
