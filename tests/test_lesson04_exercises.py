"""Lesson 04's exercises: the reports of the wrong variants written out by hand, the mistakes a student is likely
to make caught where the lesson says, the given data of the template held to llama.cpp's tables, and the
random inputs held to the characters on which plain ``regex`` and llama.cpp's engine agree."""

from __future__ import annotations

import ast
import random

import pytest
import regex
from conftest import REPO
from solutions_loader import solved, wrong_variants

from gguftok.exercises import EXERCISES, check, workspace
from gguftok.exercises.lesson04 import (
    ALPHABET,
    ALPHABET_DEEPSEEK,
    DEEPSEEK,
    SAME_AS,
    VOCABULARIES,
    WIDE_SPACES,
    llama_regexes,
    plain_split,
    random_text,
    reference_split,
)
from gguftok.pretokenize import PreTokenizer, pre_tokenizer_config
from gguftok.pretokenize.regex_split import collapsed_text
from gguftok.viz.pretokenize_view import alternatives

WRONG = wrong_variants()
TEMPLATE = REPO / "notebooks" / "mytok" / "pretokenize.py"
SOLUTION = REPO / "solutions" / "mytok" / "pretokenize.py"


def test_the_reports_name_the_lesson_cases():
    r = check("04.split", WRONG["04.split"])
    assert r.text == (f"✗ 04.split: failed on case 3 of {r.total} (2 agreed before it)\n"
                      "  input:    split('ab  12', ['\\\\d', '\\\\s+(?!\\\\S)'])\n"
                      "  expected: ['ab', '  ', '1', '2']\n"
                      "  got:      ['ab', ' ', ' ', '1', '2']\n"
                      "  first difference at index 1: expected '  ', got ' ' (lengths 4 and 5)\n"
                      "  run it again, whole: split('ab  12', ['\\\\d', '\\\\s+(?!\\\\S)'])")
    r = check("04.regexes_for", WRONG["04.regexes_for"])
    lines = r.text.splitlines()
    assert lines[0] == f"✗ 04.regexes_for: failed on case 3 of {r.total} (2 agreed before it)"
    assert lines[1] == ("  input:    regexes_for('qwen2'), then the text \"We'LL pay 12345 for\\n\\n  int x=42;\" "
                        "cut with it")
    assert lines[4] == "  first difference at index 4: expected '1', got '123' (lengths 18 and 14)"
    assert lines[5] == "  run it again, whole: rerun('04.regexes_for', 3)"


def _findall_split(text, regexes):
    pieces = [text] if text else []
    for rx in regexes:
        out = []
        for p in pieces:
            at = 0
            for found in regex.findall(rx, p):  # the groups of a pattern with groups, not the match
                found = found if isinstance(found, str) else "".join(found)
                i = p.find(found, at)
                if i > at:
                    out.append(p[at:i])
                if found:
                    out.append(found)
                at = i + len(found)
            if at < len(p):
                out.append(p[at:])
        pieces = out
    return pieces


def _no_empty_cuts(text, regexes):
    """Skips zero-length matches altogether, so they cut nothing."""
    split = solved("04.split")
    return split(text, [rx for rx in regexes if not rx.startswith("(?=")])


def test_likely_mistakes_fail_at_the_case_that_teaches_them():
    # findall gives a pattern's groups: SuperBPE's lookahead has one, and so does GPT-4o's pattern
    assert check("04.split", _findall_split).case == 3
    r = check("04.split", lambda t, rs: _findall_split(t, rs) if rs != llama_regexes("superbpe")
              else solved("04.split")(t, rs))
    assert r.call.startswith("split(\"HTTPServer's 2026 Ünï\", the regex list of 'gpt-4o'")
    r = check("04.split", _no_empty_cuts)
    assert r.case == 3 and r.call.startswith("split('pay 1234567 now', the regex list of 'superbpe'")
    assert "expected: ['pay ', '1', '234', '567', ' now']" in r.text

    def drops_gaps(text, regexes):
        pieces = [text] if text else []
        for rx in regexes:
            pieces = [m.group() for p in pieces for m in regex.finditer(rx, p) if m.group()]
        return pieces

    assert check("04.split", drops_gaps).case == 0


def _solution_with(**patterns):
    """The solution's regexes_for with some of its patterns replaced (what a student might write instead)."""
    module = workspace.load_solution("pretokenize")
    lists = {"gpt-2": [patterns.get("GPT2", module.GPT2)], "llama-bpe": [patterns.get("LLAMA3", module.LLAMA3)],
             "qwen2": [patterns.get("QWEN2", module.QWEN2)]}

    def regexes_for(pre):
        name = module.SAME_AS.get(pre)
        return lists[name] if name in lists else module.regexes_for(pre)

    return regexes_for


def test_the_hugging_face_spelling_of_the_contractions_fails_on_the_long_s():
    hf = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
    solution = workspace.load_solution("pretokenize")
    r = check("04.regexes_for", _solution_with(LLAMA3=solution.LLAMA3.replace(solution._CONTRACTIONS, hf)))
    assert r.status == "failed" and "'ſ" in r.expected and "'ſ" in r.got, r.text
    # GPT-2's pattern with or without its last alternative \s+ (llama.cpp's copy has none) cuts alike
    assert not llama_regexes("gpt-2")[0].endswith(r"|\s+") and solution.GPT2.endswith(r"|\s+")
    assert check("04.regexes_for", _solution_with(GPT2=llama_regexes("gpt-2")[0])).ok


def _without_each_alternative(pattern: str):
    """``(what was deleted, the pattern without it)`` for each top-level alternative of ``pattern``, and for each
    alternative inside a top-level ``(?:...)`` group (Llama 3's contractions)."""
    alts = alternatives(pattern)
    for k, alt in enumerate(alts):
        yield alt, "|".join(alts[:k] + alts[k + 1:])
        if alt.startswith("(?:") and alt.endswith(")"):
            inner = alternatives(alt[3:-1])
            for j, sub in enumerate(inner):
                group = "(?:" + "|".join(inner[:j] + inner[j + 1:]) + ")"
                yield sub, "|".join([*alts[:k], group, *alts[k + 1:]])


# Deleting the last alternative, \s+, changes no split: the whitespace it would take is left between matches, and
# by rule 2 it stays a piece anyway (llama.cpp's copy of GPT-2's pattern has no \s+ at all).
EQUIVALENT = {r"\s+"}
STUDENT_PATTERNS = ("GPT2", "LLAMA3", "QWEN2")


@pytest.mark.parametrize("name", STUDENT_PATTERNS)
def test_every_alternative_of_every_pattern_the_student_writes_decides_some_case(name):
    """A pattern with one alternative deleted (one contraction, say) must fail 04.regexes_for: its ids are wrong
    on ordinary text, so the check must show a case where it cuts otherwise."""
    pattern = getattr(workspace.load_solution("pretokenize"), name)
    tried = survived = 0
    for deleted, mutant in _without_each_alternative(pattern):
        r = check("04.regexes_for", _solution_with(**{name: mutant}))
        if deleted in EQUIVALENT and pattern.endswith("|" + deleted):
            assert r.ok, f"{name} without its last {deleted}: {r.text}"
            continue
        tried += 1
        survived += r.ok
        assert not r.ok, f"{name} without the alternative {deleted!r} passes 04.regexes_for"
    assert tried >= (6 if name == "GPT2" else 12) and not survived


def _given(path):
    """OTHER_REGEXES and SAME_AS of a file of the package, with GPT2 standing for itself."""
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    gpt2 = namespace["GPT2"]
    others = {k: ["GPT2" if rx == gpt2 else rx for rx in v] for k, v in namespace["OTHER_REGEXES"].items()}
    return others, namespace["SAME_AS"]


def _unescaped(pattern: str) -> str:
    return (regex.sub(r"\\u([0-9a-f]{4})|\\U([0-9a-f]{8})", lambda m: chr(int(m[1] or m[2], 16)), pattern)
            .replace("\\r", "\r").replace("\\n", "\n"))


def test_the_given_lists_are_llama_cpps_and_the_same_in_template_and_solution():
    others, same_as = _given(TEMPLATE)
    assert (others, same_as) == _given(SOLUTION)
    assert same_as == SAME_AS and set(same_as.values()) == {*VOCABULARIES, "default"}
    assert sorted(others) == sorted({*VOCABULARIES, "default"} - {"gpt-2", "llama-bpe", "qwen2"})
    for name, given in others.items():
        llama = [_unescaped(rx) for rx in llama_regexes(name)]
        assert [_unescaped(llama_regexes("gpt-2")[0] if rx == "GPT2" else rx) for rx in given] == llama, name
    for pre, name in SAME_AS.items():
        assert llama_regexes(pre) == llama_regexes(name), pre
    # the template's patterns are left for the student; the solution's are the lesson's
    tree = ast.parse(TEMPLATE.read_text(encoding="utf-8"))
    consts = {n.targets[0].id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
              and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
    assert consts == {"GPT2": "", "LLAMA3": "", "QWEN2": ""}


def test_the_checks_own_split_and_the_solution_cut_alike():
    split = solved("04.split")
    r = random.Random(44)
    for _ in range(3000):
        pre = r.choice([*VOCABULARIES, "gpt-4o", "superbpe", "chameleon"])
        text = random_text(r, pre)
        assert plain_split(text, llama_regexes(pre)) == split(text, llama_regexes(pre)), (pre, text)


def test_the_random_characters_are_ones_both_engines_class_alike():
    """Each random character is in the same class for plain ``regex`` (its newer Unicode) and for llama.cpp's
    tables (Unicode 15.1): so no case turns on a character Unicode assigned after 15.1."""
    markers = {"\xd1": "N", "\xd2": "L", "\xd3": "P", "\xd4": "M", "\xd5": "S"}
    for c in ALPHABET:
        theirs = markers.get(collapsed_text([ord(c)]))
        ours = next((k for k in "LNPMS" if regex.match(rf"\p{{{k}}}", c)), None)
        assert theirs == ours or (ord(c) < 128 and theirs is None), (hex(ord(c)), theirs, ours)
    assert WIDE_SPACES & set(ALPHABET) and not WIDE_SPACES & set(ALPHABET_DEEPSEEK)
    assert "\xa0" in ALPHABET_DEEPSEEK and "ſ" in ALPHABET


@pytest.mark.parametrize("pre", DEEPSEEK)
def test_where_plain_regex_and_llama_cpp_part_the_deepseek_lists(pre):
    """Why the DeepSeek lists get no non-ASCII space from U+1680 on: llama.cpp's engine sees \\v there."""
    text = "a\u3000b"
    assert plain_split(text, llama_regexes(pre)) == ["a", "\u3000", "b"]
    assert reference_split(text, llama_regexes(pre)) == ["a", "\u3000b"]
    assert reference_split("a\xa0b", llama_regexes(pre)) == plain_split("a\xa0b", llama_regexes(pre))


def test_the_reference_is_the_vocabularies_pre_tokenizer(vocab_path):
    from gguftok import Tokenizer

    tok = Tokenizer.from_gguf(vocab_path("qwen2"))
    text = "Hello  world 123\n\n x's"
    assert reference_split(text, llama_regexes("qwen2")) == [w for w in tok.pre.words(text) if w]
    assert [w for w in PreTokenizer(pre_tokenizer_config("qwen2")).words(text) if w] == tok.pre.words(text)


def test_the_committed_workspace_is_not_attempted():
    for exercise_id in ("04.split", "04.regexes_for"):
        assert EXERCISES[exercise_id].module == "pretokenize"
        assert check(exercise_id).status == "not attempted"
