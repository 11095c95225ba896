"""Lesson 05's exercises: the cost property of merge_word (a rescanning loop gives every right answer and still
fails it; the queue passes it), the reports of the wrong variants, and the notebook's toy tables."""

from __future__ import annotations

import ast
import importlib.util

import pytest
from conftest import REPO, _require_vocab
from solutions_loader import solved

from gguftok.exercises import check, exercise, lesson05
from gguftok.models.bpe import merge_ranks

_spec = importlib.util.spec_from_file_location("mutants_lesson05", REPO / "tests" / "mutants" / "lesson05.py")
MUTANTS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MUTANTS)
WRONG = MUTANTS.WRONG


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def _failed_only_the_property(result) -> None:
    assert result.status == "failed" and result.case is None, result.text
    assert result.agreed == result.total == len(exercise("05.merge_word").cases())
    lines = result.text.splitlines()
    assert lines[0] == (f"✗ 05.merge_word: every one of the {result.total} cases agrees, but a word 4 times as "
                        "long may take at most 6 times the work (lookups of pairs in ranks and comparisons of ranks)")
    assert lines[1].startswith("  measured: merge_word(")


@pytest.mark.parametrize("name", sorted(MUTANTS.SLOW))
def test_a_quadratic_loop_agrees_on_every_case_and_fails_only_the_cost(name):
    slow = MUTANTS.SLOW[name]
    ex = exercise("05.merge_word")
    for k, case in enumerate(ex.cases()):
        assert ex.run(slow, case) == ex.expected(k), (name, ex.describe(case))
    result = check("05.merge_word", slow)
    _failed_only_the_property(result)
    assert result.got.startswith("merge_word('a' * 2000, <Qwen2's ranks>) took more than ")
    assert "over 6 times the " in result.got and " of 'a' * 500: the work grows faster than the word" in result.got


def test_the_queue_passes_the_cost_with_room_to_spare():
    fn = solved("05.merge_word")
    assert lesson05._grows_close_to_linearly(fn) is None
    for _table, ranks, alphabet in lesson05._cost_tables():
        short, long = (lesson05._work(fn, lesson05._long_word(alphabet, n)[0], ranks, 1 << 62)[0]
                       for n in (lesson05.SHORT, 4 * lesson05.SHORT))
        assert 3.5 < long / short < 5, _table  # n log n, well under the bound of 6


def test_the_cost_cannot_be_dodged():
    rescan = MUTANTS.SLOW["rescanning"]

    def swallowing(word, ranks):  # the budget's exception is not an Exception
        try:
            return rescan(word, ranks)
        except Exception:
            return list(word)

    def copying(word, ranks):  # a plain copy of the table: every entry counts
        return rescan(word, dict(ranks))

    for fn in (swallowing, copying):
        _failed_only_the_property(check("05.merge_word", fn))


def test_a_long_word_that_raises_or_gives_other_symbols_is_reported():
    queue = solved("05.merge_word")

    def fails_long(word, ranks):
        if len(word) > 1000:
            raise RecursionError("too deep")
        return queue(word, ranks)

    result = check("05.merge_word", fails_long)
    assert result.case is None and result.got == ("merge_word('a' * 2000, <Qwen2's ranks>) raised RecursionError: "
                                                  "too deep")
    result = check("05.merge_word", lambda word, ranks: queue(word, ranks) if len(word) < 1000 else list(word))
    assert result.got == ("merge_word('a' * 2000, <Qwen2's ranks>) gives other symbols than "
                          "gguftok.models.bpe.merge_word")


def test_the_reports_name_the_lesson_cases():
    r = check("05.word_ids", WRONG["05.word_ids"])
    assert r.text == (f"✗ 05.word_ids: failed on case 4 of {r.total} (3 agreed before it)\n"
                      "  input:    word_ids('newer', TOY, {**TOY_IDS, 'newer': 16}, True)\n"
                      "  expected: [16]\n"
                      "  got:      [2, 0, 15]\n"
                      "  first difference at index 0: expected 16, got 2 (lengths 1 and 3)\n"
                      "  run it again, whole: rerun('05.word_ids', 4)\n"
                      "  the input and both answers, whole: compare('05.word_ids', 4)")
    chars, dropped = MUTANTS.MORE_WRONG["05.word_ids"]
    r = check("05.word_ids", chars)  # Ã and © are tokens, but llama.cpp looks up the bytes of Ã©
    assert r.call == "word_ids('ĠcafÃ©', CAFE, CAFE_IDS, False)" and r.expected == "[8]" and r.got == "[8, 4, 5]"
    r = check("05.word_ids", dropped)
    assert r.call == "word_ids('newer', TOY, TOY_IDS, False)" and r.got == "[15]"


def test_the_real_words_reach_the_whole_word_rule():
    ex = exercise("05.word_ids")
    labels = [c.label for c in ex.cases()]
    assert "word_ids('ĠInsecta', <Llama 3's ranks>, <Llama 3's token ids>, True)" in labels
    assert "word_ids('ĠInsecta', <Qwen2's ranks>, <Qwen2's token ids>, False)" in labels
    k = labels.index("word_ids('ĠInsecta', <Llama 3's ranks>, <Llama 3's token ids>, True)")
    assert ex.expected(k) == [114843]  # one id; its merges alone make three


def _notebook_values(names: set[str]) -> dict[str, object]:
    tree = ast.parse((REPO / "notebooks" / "twins" / "05_merge_queue.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and getattr(node.targets[0], "id", "") in names:
            found[node.targets[0].id] = eval(compile(ast.Expression(node.value), "nb", "eval"),
                                             {"merge_ranks": merge_ranks})
    return found


def test_the_notebook_shows_the_tables_the_check_names():
    values = _notebook_values({"TOY", "TOY_IDS", "CAFE", "CAFE_IDS"})
    assert values == {"TOY": lesson05.TOY, "TOY_IDS": lesson05.TOY_IDS, "CAFE": lesson05.CAFE,
                      "CAFE_IDS": lesson05.CAFE_IDS}
