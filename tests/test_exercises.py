"""The exercises: every check passes its solution, says "not attempted" for its template, and catches a wrong
variant at the first case where it differs from the reference; the notebooks hold exactly the library's
exercise cells, committed unsolved."""

from __future__ import annotations

import doctest
import importlib
import json
import re
import struct
import sys
from collections.abc import Callable
from itertools import pairwise

import pytest
import regex
from conftest import REPO, _require_vocab
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.exercises import EXERCISES, check, exercise, lesson_exercises, show, solution
from gguftok.exercises._core import Case, Exercise, Raises, agree
from gguftok.exercises.lesson07 import EOG_TEXTS
from gguftok.viz.cache_view import notebook_text
from gguftok.viz.families_view import toy_spm_vocab
from gguftok.vocab import CONTROL, NORMAL, UNKNOWN, USER_DEFINED

IDS = sorted(EXERCISES)
for _path in (REPO, REPO / "scripts"):  # solutions/ and scripts/exercise_cells.py
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()  # the real-vocabulary cases need data/vocab (skips, or fails under CI, without it)


def solved(exercise_id: str) -> Callable:
    ex = EXERCISES[exercise_id]
    return getattr(importlib.import_module(f"solutions.lesson{ex.lesson:02d}"), ex.name)


def template(exercise_id: str) -> Callable:
    ex = EXERCISES[exercise_id]
    namespace: dict = {}
    exec(ex.template, namespace)
    return namespace[ex.name]


# ----------------------------------------------------------------------------------------- the registry
def test_two_or_three_exercises_per_lesson():
    for lesson in range(1, 13):
        exs = lesson_exercises(lesson)
        assert 2 <= len(exs) <= 3, lesson
        assert all(ex.id.startswith(f"{lesson:02d}.") for ex in exs)


def test_unknown_id_names_the_lesson_exercises():
    with pytest.raises(KeyError, match=r"03\.split_merge, 03\.merge_ranks"):
        exercise("03.split")


def test_the_library_points_to_the_solution_and_holds_none():
    assert solution("05.merge_word") == ("The solution of 05.merge_word is the function merge_word in "
                                         "solutions/lesson05.py at the top of the repository.")
    library = "\n".join(p.read_text() for p in (REPO / "gguftok" / "exercises").glob("*.py"))
    assert "solutions" not in re.sub(r"solutions/lesson|solutions are|solution of", "", library.replace("\n", " "))


@pytest.mark.parametrize("exercise_id", IDS)
def test_statement_and_template(exercise_id):
    ex = EXERCISES[exercise_id]
    view = show(exercise_id)
    assert view.text.startswith(f"Exercise {exercise_id}: {ex.title}") and ex.template in view.text
    assert f'check({exercise_id!r}, {ex.name})' in view.text
    assert_sanitizer_safe(view.html)
    assert re.search(rf"^def {ex.name}\(", ex.template, re.M) and ex.template.rstrip().endswith(
        "raise NotImplementedError")
    assert ">>> " in ex.template, "a tiny example in the docstring"


# ------------------------------------------------------------------------------------------- solutions
@pytest.mark.parametrize("exercise_id", IDS)
def test_the_solution_passes(exercise_id):
    result = check(exercise_id, solved(exercise_id))
    assert result.ok, result.text
    assert result.total == len(EXERCISES[exercise_id].cases()) >= (1 if exercise_id == "02.byte_map" else 70)
    assert result.text.startswith(f"✓ {exercise_id}: passed: ")
    assert_sanitizer_safe(result.rendered().html)


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_template_example_holds_for_the_solution(exercise_id, monkeypatch):
    """The docstring example a student starts from is right: it runs against the solution."""
    ex = EXERCISES[exercise_id]
    monkeypatch.chdir(REPO / "notebooks")  # the examples use notebook-relative paths
    texts, scores = toy_spm_vocab()
    globs = {ex.name: solved(exercise_id), "Tokenizer": Tokenizer, "TOY_TEXTS": texts, "TOY_SCORES": scores,
             "CONTROL": CONTROL, "NORMAL": NORMAL, "USER_DEFINED": USER_DEFINED}
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
    assert result.text == (f"○ {exercise_id}: not attempted: {name} still raises NotImplementedError\n"
                           "  Write the function's body in the cell above, run it, then run this cell again.")
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
def _find_merge(line):
    pos = line.find(" ")
    return None if pos < 0 else (line[:pos], line[pos + 1:])


def _last_wins(merges):
    return {m: r for r, m in enumerate(merges) if " " in m[1:]}


def _greedy_left(word, ranks):
    syms = list(word)
    while True:
        for k in range(len(syms) - 1):
            if f"{syms[k]} {syms[k + 1]}" in ranks:
                syms[k:k + 2] = [syms[k] + syms[k + 1]]
                break
        else:
            return syms


def _fifo(words, size):
    cache, hits = [], 0
    for w in words:
        if w in cache:
            hits += 1
        elif size != 0:
            cache.append(w)
            if size is not None and len(cache) > size:
                cache.pop(0)
    return hits, len(words) - hits, cache


def _forgets_bos(tok, text, parse_special):
    ids = []
    for frag in tok.fragments(text.encode(), parse_special):
        if isinstance(frag, int):
            ids.append(frag)
        else:
            for word in tok.pre.split(text.encode()[frag[0]:frag[0] + frag[1]].decode()):
                ids += tok.model.word_ids(word) if word else []
    return ids


def _lowest_score_first(text, scores):
    syms = list(text)
    while True:
        found = [(scores[a + b], k) for k, (a, b) in enumerate(pairwise(syms)) if a + b in scores]
        if not found:
            return syms
        k = min(found)[1]
        syms[k:k + 2] = [syms[k] + syms[k + 1]]


WRONG = {
    "01.read_string": lambda data, off: (data[off + 8:off + 8 + struct.unpack_from("<Q", data, off)[0]].decode(
        "utf-8", "surrogateescape"), off + struct.unpack_from("<Q", data, off)[0]),  # forgets the 8 length bytes
    "01.read_header": lambda data: struct.unpack_from("<IQQ", data, 4),  # never looks at the magic
    "02.byte_map": lambda: [chr(b) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xFF else None for b in range(256)],
    "02.decode_token": lambda text: bytes(ord(c) - 256 if ord(c) >= 256 else ord(c) for c in text),
    "02.encode_bytes": lambda data: data.decode("latin-1"),
    "03.split_merge": _find_merge,
    "03.merge_ranks": _last_wins,
    "04.gpt2_split": lambda text: regex.findall(
        r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+", text),
    "04.llama3_split": lambda text: regex.findall(
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+"  # digits not cut into threes
        r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        text),
    "05.lowest_pair": lambda syms, ranks: next((k for k in range(len(syms) - 1)
                                                if f"{syms[k]} {syms[k + 1]}" in ranks), None),
    "05.merge_word": _greedy_left,
    "06.is_cut": lambda attr, parse: bool(attr & USER_DEFINED) or (parse and bool(attr & (CONTROL | UNKNOWN))),
    "06.partition": lambda text, specials: _in_list_order(text, specials),
    "07.add_bos": lambda md: (md.get("tokenizer.ggml.add_bos_token") if "tokenizer.ggml.add_bos_token" in md
                              else md["tokenizer.ggml.model"] in ("llama", "bert")
                              or md.get("tokenizer.ggml.pre") == "llama-bpe"),  # no gemma4 rule, one preset
    "07.eog_ids": lambda tokens, eos: sorted(i for i, t in enumerate(tokens) if t in EOG_TEXTS),  # forgets EOS
    "08.held_back": lambda data: next((len(data) - s for s in range(max(0, len(data) - 3), len(data))
                                       if data[s] >= 0xC0 and all(0x80 <= c <= 0xBF for c in data[s + 1:])
                                       and len(data) - s < (2 if data[s] < 0xE0 else 3 if data[s] < 0xF0 else 4)), 0),
    "08.stream_decode": lambda pieces: [p.decode("utf-8", "replace") for p in pieces] + [""],
    "09.first_difference": lambda got, exp: next(  # a list that is a prefix of the other: None
        (k for k, (a, b) in enumerate(zip(got, exp, strict=False)) if a != b), None),
    "09.parse_ids": lambda text: [int(x) for x in text.strip().strip("[]").split(",") if x.strip()],
    "10.lru_replay": _fifo,
    "10.cached": lambda encode, size: encode,  # no cache at all
    "11.spm_merge": _lowest_score_first,
    "11.spm_encode": lambda text, texts, scores: [  # lower-case hex in the byte tokens
        t.lower() if t.startswith("<0x") else t for t in solved("11.spm_encode")(text, texts, scores)],
    "12.encode": _forgets_bos,
    "12.chat_prompt": lambda tok, system, user: tok.encode(
        f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n",
        add_special=False, parse_special=True),
}


def _in_list_order(text, specials):
    """The partition without sorting: MPT's list is shortest first, so its runs of spaces fall apart."""
    fragments = [text] if text else []
    for tid, needle in enumerate(specials):
        out = []
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                continue
            for k, piece in enumerate(frag.split(needle)):
                out += ([tid] if k else []) + ([piece] if piece else [])
        fragments = out
    return fragments


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


def test_the_reports_name_the_lesson_cases():
    """Some first differences, written out by hand."""
    r = check("03.split_merge", _find_merge)
    assert r.text == (f"✗ 03.split_merge: failed on case 2 of {r.total} (1 agreed before it)\n"
                      "  input:    split_merge('  x')\n"
                      "  expected: (' ', 'x')\n"
                      "  got:      ('', ' x')\n"
                      "  first difference at index 0: expected ' ', got '' (lengths 2 and 2)")
    r = check("03.merge_ranks", _last_wins)
    assert r.case == 1 and r.expected.startswith("[('Ġ t', 0),") and r.got.startswith("[('Ġ t', 4),")
    assert "first difference at index 0: expected ('Ġ t', 0), got ('Ġ t', 4)" in r.text
    r = check("02.byte_map", WRONG["02.byte_map"])
    assert "first difference at index 0: expected 'Ā', got None" in r.text
    r = check("01.read_header", WRONG["01.read_header"])
    assert r.case == 2 and r.expected.startswith("raises ValueError (<bytes>: not a GGUF file: magic is b'GGML'")
    assert "the reference raises here; yours returned" in r.text
    r = check("06.partition", WRONG["06.partition"])
    assert r.call.startswith("partition('x' + ' ' * 30 + 'y'") and r.expected == "['x', 22, 4, 'y']"
    r = check("09.parse_ids", WRONG["09.parse_ids"])
    assert r.status == "error" and r.call == "parse_ids('9707 1879 0')" and r.expected == "[9707, 1879, 0]"
    assert r.detail.startswith("ValueError: invalid literal for int() with base 10: '9707 1879 0'")


def test_an_exception_is_shown_with_its_input_and_line():
    def boom(line):
        table = {}
        return table[line]

    r = check("03.split_merge", boom)
    assert r.status == "error" and r.case == 0
    line = boom.__code__.co_firstlineno + 2
    assert r.text.splitlines()[3] == f"  raised:   KeyError: 'Ġ t' (line {line}: return table[line])"


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


# ---------------------------------------------------------------------------------------------- notebooks
def _cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [("".join(c["source"]), c) for c in nb["cells"]]


@pytest.mark.parametrize("lesson", range(1, 13))
def test_each_notebook_ends_with_its_exercises_unsolved(lesson):
    from exercise_cells import check_source, exercise_cells

    (path,) = (REPO / "notebooks").glob(f"{lesson:02d}_*.ipynb")
    cells = _cells(path)
    start = next(k for k, (src, _) in enumerate(cells) if src.startswith("## Exercises"))
    wanted = [c.source for c in exercise_cells(lesson)]
    assert [src for src, _ in cells[start:]] == wanted, "run scripts/exercise_cells.py and scripts/run_notebooks.py"
    outputs = {src: c["outputs"] for src, c in cells[start:] if c["cell_type"] == "code"}
    for ex in lesson_exercises(lesson):
        assert outputs[ex.template] == []
        (out,) = outputs[check_source(ex)]
        assert out["data"]["text/plain"] == repr(check(ex.id, template(ex.id))).splitlines(keepends=True)
        assert "not attempted" in "".join(out["data"]["text/html"])


def test_the_lesson_prose_that_notebook_10_counts_stops_before_the_exercises():
    path = REPO / "notebooks" / "03_merge_ranks.py"
    text = notebook_text([path])
    assert "What you can now explain" in text and "Exercise 03.split_merge" not in text
