"""Lesson 09's exercises: the cases read as llama.cpp reads them, an encoder called once per case and in order,
the model inputs of the lesson's disagreements as the two engines give them, and some first differences of the
wrong variants, written out by hand."""

from __future__ import annotations

import pytest
from conftest import _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.conformance.cases import SEPARATOR
from gguftok.exercises import EXERCISES, check
from gguftok.exercises._core import Raises
from gguftok.exercises.lesson09 import LESSON_WORDS, ToyEncoder, case_files

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def _read_tests(inp: bytes, out: str) -> list[tuple[bytes, list[int]]]:
    """tests/test-tokenizer-0.cpp's read_tests, line by line (its std::map aside): the texts by find() from pos,
    the lines by getline, each line string_strip()ped and cut at single spaces, each part std::stoi'd."""
    texts, pos = [], 0
    while pos < len(inp):
        nxt = inp.find(SEPARATOR, pos)
        if nxt == -1:
            texts.append(inp[pos:])
            break
        texts.append(inp[pos:nxt])
        pos = nxt + len(SEPARATOR)
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # getline: a final newline ends the last line
    if len(texts) != len(lines):
        raise ValueError("input and output files have different number of tests")
    cases = []
    for text, line in zip(texts, lines, strict=True):
        o = line.strip(" \t\n\v\f\r")
        ids, pos = [], 0
        while pos < len(o):
            nxt = o.find(" ", pos)
            nxt = len(o) if nxt == -1 else nxt
            part = o[pos:nxt]
            if not (part.lstrip("-").isascii() and part.lstrip("-").isdigit()) or part.count("-") > 1:
                raise ValueError(f"std::stoi fails on {part!r}")  # (the parts the check generates)
            ids.append(int(part))
            pos = nxt + 1
        cases.append((text, ids))
    return cases


def test_every_case_of_the_check_is_read_as_llama_cpp_reads_it():
    """The reference (gguftok's read_cases) and a literal port of llama.cpp's read_tests agree on every case of
    the check; the lax corners where they part (two spaces between ids, "12abc") are not among them."""
    ex = EXERCISES["09.read_cases"]
    for k, case in enumerate(ex.cases()):
        expected = ex.expected(k)
        try:
            ported = _read_tests(*case.args)
        except ValueError:
            assert isinstance(expected, Raises) and expected.kind is ValueError, case
        else:
            assert ported == expected, case


def test_the_fifteen_pairs_have_46_cases_each_and_qwen35_50():
    counts = {name: len(_read_tests(inp, out)) for name, inp, out in case_files()}
    assert len(counts) == 15
    assert counts.pop("qwen35") == 50 and set(counts.values()) == {46}


def test_an_encoder_called_twice_per_case_or_out_of_order_fails():
    solution = solved("09.run_cases")

    def twice(encode, cases):
        for text, _ in cases:
            encode(text)
        return solution(encode, cases)

    def backwards(encode, cases):
        return solution(encode, cases[::-1])[::-1]

    assert check("09.run_cases", twice).case == 0
    r = check("09.run_cases", backwards)
    assert r.case == 0 and r.expected == "[(b'ab', [97, 98, 0], [97, 98, 0]), (b'c', [99, 0], [99, 1])]"
    assert r.got == "[(b'ab', [97, 98, 0], [97, 98, 1]), (b'c', [99, 0], [99, 0])]"
    assert ToyEncoder()(b"ab") == [97, 98, 0]


def test_the_reports_name_the_lesson_cases():
    r = check("09.run_cases", WRONG["09.run_cases"])
    assert r.status == "failed" and r.case == 1
    assert r.call == "run_cases(ToyEncoder(), [(b'x\\xff', [1]), (b'', []), (b'ok', [111, 107, 2])])"
    assert r.detail.startswith("first difference at index 0: expected (b'x\\xff', [1], 'ValueError: cannot encode "
                               "byte 0xff at 1'), got (b'x\\xff', [1], 'cannot encode byte 0xff at 1')")
    assert r.rerun == "rerun('09.run_cases', 2)"
    r = check("09.read_cases", WRONG["09.read_cases"])
    assert r.status == "error" and r.case == 0 and r.rerun.startswith("read_cases(b'Hello\\n__ggml_vocab_test__")
    assert r.expected == "[(b'Hello', [9707]), (b' world', [1879])]" and r.detail.startswith("ValueError: 3 texts")
    r = check("09.first_difference", WRONG["09.first_difference"])
    assert r.call == "first_difference([1, 2], [1, 2, 5])" and r.expected == "2" and r.got == "None"


# ------------------------------------------------------------------------------------------- word_stages
def _both_checked(ours_words, theirs_words, theirs_on_ours, ours_ids):
    """Other characters reported as a split as well: a split cannot be compared on other characters."""
    stages = []
    if "".join(ours_words) != "".join(theirs_words):
        stages.append("normalizer")
    if [len(w) for w in ours_words] != [len(w) for w in theirs_words]:
        stages.append("pre-tokenizer")
    if theirs_on_ours is not None and theirs_on_ours != ours_ids:
        stages.append("model")
    return stages


def _none_differs(ours_words, theirs_words, theirs_on_ours, ours_ids):
    """A model that was not run counted as one that disagrees."""
    stages = solved("09.word_stages")(ours_words, theirs_words, [], [])
    return stages + (["model"] if theirs_on_ours != ours_ids else [])


def _first_stage_only(ours_words, theirs_words, theirs_on_ours, ours_ids):
    """Stops at the first stage that differs: the model is never checked after other words."""
    return solved("09.word_stages")(ours_words, theirs_words, theirs_on_ours, ours_ids)[:1]


def test_word_stages_solution_passes_and_names_the_lesson_stages():
    assert check("09.word_stages", solved("09.word_stages")).ok
    stages = {key: solved("09.word_stages")(*args) for key, args in LESSON_WORDS.items()}
    assert stages == {("deepseek-coder", "\tThe cat"): ["pre-tokenizer"], ("deepseek-coder", "  42"): ["pre-tokenizer"],
                      ("deepseek-coder", " ½"): ["pre-tokenizer"], ("llama-spm", "  42"): ["normalizer"],
                      ("llama-bpe", "Cửa Việt"): ["model"], ("llama-bpe", "Hello world"): [],
                      ("llama-spm", "Hello world"): []}


def test_word_stages_lesson_inputs_are_the_two_engines_own():
    """Each of the notebook's model inputs, recomputed: llama.cpp's words and ids from gguftok, the other words
    and the other model's ids on llama.cpp's words from transformers' conversion of the same file."""
    pytest.importorskip("transformers")
    from gguftok.disagree import transformers_tokenizer
    from gguftok.disagree.engines import as_engine
    from gguftok.disagree.sides import GgufSide, HFSide
    from gguftok.exercises._data import tokenizer

    for (name, text), (ours_words, theirs_words, on_ours, ours_ids) in LESSON_WORDS.items():
        tok = tokenizer(name)
        ours, theirs = GgufSide(tok), HFSide(as_engine(transformers_tokenizer(tok)))
        wo, wt = ours.model_input(text, False), theirs.model_input(text, False)
        assert (wo.words, wt.words, theirs.run_model(wo.words), wo.flat) == (ours_words, theirs_words, on_ours,
                                                                             ours_ids), (name, text)


def test_word_stages_generated_cases_cover_every_outcome():
    ex = EXERCISES["09.word_stages"]
    outcomes = {tuple(ex.expected(k)) for k in range(len(ex.cases()))}
    assert outcomes >= {(), ("normalizer",), ("pre-tokenizer",), ("model",), ("normalizer", "model"),
                        ("pre-tokenizer", "model")}
    assert any(case.args[2] is None and case.args[0] != case.args[1] for case in ex.cases())


def test_word_stages_wrong_versions_fail_with_clear_reports():
    r = check("09.word_stages", WRONG["09.word_stages"])  # other characters blamed on the split
    assert r.status == "failed" and r.case == 3
    assert r.call == "word_stages(['▁▁▁42'], ['▁▁42'], [1678, 29946, 29906], [1678, 29946, 29906])"
    assert r.expected == "['normalizer']" and r.got == "['pre-tokenizer']"
    r = check("09.word_stages", _both_checked)
    assert r.case == 3 and r.got == "['normalizer', 'pre-tokenizer']"
    assert r.detail.startswith("first difference at index 1")
    r = check("09.word_stages", _none_differs)
    assert r.case == 7 and r.expected == "['pre-tokenizer']" and r.got == "['pre-tokenizer', 'model']"
    assert r.call == "word_stages(['ab', 'Ġa'], ['a', 'bĠ', 'a'], None, [5, 6])"
    r = check("09.word_stages", _first_stage_only)
    assert r.case == 8 and r.expected == "['normalizer', 'model']" and r.got == "['normalizer']"
    assert r.rerun == r.call == "word_stages(['▁▁a'], ['▁a', 'b'], [1, 2], [3])"
