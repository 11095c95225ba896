"""The pre-tokenizer views: pieces that re-join to the input, counts that agree with an independent regex
engine on the lesson's line, escaped text, visible whitespace, inline styles only."""

from __future__ import annotations

import re

import pytest
import regex
from viz_checks import assert_sanitizer_safe

from gguftok.pretokenize import PRE_STRINGS, PreTokenizer, pre_tokenizer_config
from gguftok.pretokenize.unicode import WHITESPACE_SET
from gguftok.viz.pretokenize_view import (
    COLLAPSED,
    HAND_WRITTEN,
    LESSON_LINE,
    SAMPLE_TEXTS,
    WIDE,
    compare_splits,
    engine_view,
    explorer_view,
    path_census,
    piece_count_table,
    piece_counts,
    pieces,
    pre_options,
    split_view,
    steps,
    steps_view,
    vocabulary_words,
    whitespace_splits,
    whitespace_table,
)

# The lesson's three "adapted" patterns, run here by the third-party regex module with Unicode classes:
# an engine independent of llama.cpp's hand-written loops (and of our ports of them).
_CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
LESSON_PATTERNS = {
    "qwen2": _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "llama-bpe": _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                                 r"|\s+(?!\S)|\s+",
    "gpt-2": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)",
}
TEXTS = [LESSON_LINE, *SAMPLE_TEXTS.values(), "", " ", "a\u3000\u3000b\x1c\x1cc\u00a0 12345678 ½\n\n\t x",
         "<b>&amp;</b> 'S 'll \r\n\r\n  end  "]


def independent_split(pattern: str, text: str) -> list[str]:
    """Matches plus the gaps between them, as llama.cpp keeps them (the lesson's Java split)."""
    out, at = [], 0
    for m in regex.finditer(pattern, text):
        if m.start() > at:
            out.append(text[at:m.start()])
        out.append(m.group())
        at = m.end()
    if at < len(text):
        out.append(text[at:])
    return out



def test_lesson_counts_are_18_14_12_and_an_independent_engine_agrees():
    for pre, expected in (("qwen2", 18), ("llama-bpe", 14), ("gpt-2", 12)):
        ours = pieces(pre, LESSON_LINE)
        assert len(ours) == expected
        assert ours == independent_split(LESSON_PATTERNS[pre], LESSON_LINE)
    assert compare_splits(["qwen2", "llama-bpe", "gpt-2"], LESSON_LINE).text.endswith(
        "words: qwen2 18, llama-bpe 14, gpt-2 12")


@pytest.mark.parametrize("pre", sorted(PRE_STRINGS))
def test_pieces_rejoin_to_the_input_for_every_pre_string(pre):
    pt = PreTokenizer(pre_tokenizer_config(pre))
    for text in TEXTS:
        got = pieces(pre, text)
        assert "".join(got) == text
        assert all(got)
        lengths = pt.split_lengths([ord(c) for c in text]) if text else []
        assert len(got) == sum(1 for n in lengths if n)  # the count is the non-empty words
        assert f": {len(got)} word" in split_view(pre, text).text


def test_piece_counts_cover_every_pre_string_once():
    rows = piece_counts()
    members = [p for r in rows for p in r.pres]
    assert sorted(members) == sorted(PRE_STRINGS) and len(rows) == 31
    for r in rows:
        for name, text in SAMPLE_TEXTS.items():
            assert all(len(pieces(p, text)) == r.counts[name] for p in r.pres)
    table = piece_count_table(rows)
    assert table.text.count("\n") == len(rows)
    assert_sanitizer_safe(table.html)


def test_text_is_escaped():
    view = split_view("gpt-2", "<script>alert('x')</script> & \"q\"")
    assert "<script" not in view.html and "</script" not in view.html
    assert ">&lt;</span>" in view.html and ">␣&amp;</span>" in view.html and ">&quot;</span>" in view.html
    for v in (view, explorer_view("qwen2", "<i>"), compare_splits(["gpt-2"], "<i>"),
              whitespace_splits(["gpt-2"], ["<i>"]), engine_view("deepseek-coder", "<i> ½")):
        assert "<i>" not in v.html
        assert_sanitizer_safe(v.html)


def test_whitespace_is_visible():
    view = split_view("qwen2", "a  b\n\n")
    assert view.text.splitlines()[1] == "[a] [␣] [␣b] [↵↵]"
    assert " " not in view.text.splitlines()[1].replace("] [", "][")


def test_whitespace_table_says_25_and_names_the_four_separators():
    view = whitespace_table()
    lines = view.text.splitlines()
    rows = {}
    for line in lines:
        m = re.match(r"U\+([0-9A-F]{4}) .*? (yes|NO) +(yes|NO) +(yes|NO) +(.*)$", line)
        if m:
            rows[int(m[1], 16)] = (m[2] == "yes", m[3] == "yes", m[4] == "yes", m[5])
    assert len(rows) == 29
    assert {cp for cp, r in rows.items() if r[0]} == set(WHITESPACE_SET)
    assert {cp for cp, r in rows.items() if r[1]} == {cp for cp in range(0x110000) if chr(cp).isspace()}
    assert [cp for cp, r in rows.items() if r[0] != r[1]] == [0x1C, 0x1D, 0x1E, 0x1F]
    assert all(re.match(r"\s", chr(cp)) for cp, r in rows.items() if r[1])  # re's \s is str.isspace
    assert rows[0x3000][3] == rows[0xA0][3] == "\\v (␋), which \\s matches"
    assert lines[-1].endswith("disagree on U+001C, U+001D, U+001E, U+001F")
    assert_sanitizer_safe(view.html)


def test_ideographic_space_is_a_space_and_file_separator_is_not():
    assert pieces("llama-bpe", "x\u3000\u3000y") == ["x", "\u3000", "\u3000y"]
    assert pieces("llama-bpe", "x\x1c\x1cy") == ["x", "\x1c\x1c", "y"]  # split like punctuation
    assert pieces("bloom", "x\u3000y") == ["x", "\u3000", "y"]  # the wregex path: U+3000 reaches \s as \v
    assert pieces("bloom", "x\x1cy") == ["x\x1cy"]


def test_steps_name_the_path_llama_cpp_takes():
    assert [(s.path, s.splitter) for s in steps("qwen2")] == [(HAND_WRITTEN, "qwen2")]
    assert [s.path for s in steps("starcoder")] == [COLLAPSED, HAND_WRITTEN]
    assert [s.path for s in steps("bloom")] == [WIDE]
    assert "hand-written splitter (gpt2)" in steps_view("gpt-2").text
    census = path_census()
    assert census.text.startswith("91 pre strings, 31 distinct splitters")
    counts = [int(n) for n in re.findall(r"\s(\d+)\s+e\.g\.", census.text)]
    assert len(counts) == 3 and sum(counts) == 91
    assert_sanitizer_safe(census.html)


def test_engine_view_shows_the_collapsed_text():
    view = engine_view("deepseek-coder", "Ünï\u3000x½")
    assert "the engine sees: ⓁnⓁ␋xⓃ" in view.text
    assert "[Ünï] [□x] [½]" in view.text  # \s? took the ideographic space as it would an ASCII one
    assert_sanitizer_safe(view.html)


def test_vocabulary_files_give_the_same_words(vocab_path):
    view = vocabulary_words([vocab_path("qwen2"), vocab_path("gpt-2")], LESSON_LINE)
    assert "ggml-vocab-qwen2.gguf: tokenizer.ggml.pre = 'qwen2', 18 words" in view.text
    assert "ggml-vocab-gpt-2.gguf: tokenizer.ggml.pre = 'gpt-2', 12 words" in view.text
    assert "[Ġpay]" in view.text
    assert_sanitizer_safe(view.html)


def test_drop_down_offers_every_pre_string():
    options = pre_options()
    assert len(options) == 91 and [v for _, v in options] == sorted(PRE_STRINGS)


def test_explorer_widget_follows_its_controls():
    pytest.importorskip("ipywidgets")
    from gguftok.viz.pretokenize_view import pretokenizer_explorer

    box = pretokenizer_explorer("a 12345", "llama-bpe")
    choice, text, out = box.children
    assert out.value == explorer_view("llama-bpe", "a 12345").html
    choice.value = "qwen2"
    assert out.value == explorer_view("qwen2", "a 12345").html
    text.value = "x"
    assert out.value == explorer_view("qwen2", "x").html


def test_chart_has_one_bar_per_splitter_and_text():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gguftok.viz.pretokenize_view import piece_count_chart

    rows = piece_counts()
    fig = piece_count_chart(rows)
    try:
        assert len(fig.axes) == len(SAMPLE_TEXTS)
        assert all(len(ax.patches) == len(rows) for ax in fig.axes)
    finally:
        plt.close(fig)


# --- yours next to llama.cpp's ---------------------------------------------------------------------------


def _module(split=None, regexes_for=None):
    import types

    from gguftok.exercises.workspace import load_solution

    solution = load_solution("pretokenize")
    return types.SimpleNamespace(split=split or solution.split, regexes_for=regexes_for or solution.regexes_for)


def test_yours_says_not_written_yet_for_the_committed_template(monkeypatch):
    from conftest import REPO

    from gguftok.viz.pretokenize_view import yours_view

    monkeypatch.setenv("GGUFTOK_WORKSPACE", str(REPO / "notebooks" / "mytok"))
    view = yours_view("qwen2", LESSON_LINE)
    assert view.text.splitlines()[1].startswith("  llama.cpp's 18 words: [We] ['LL]")
    assert view.text.splitlines()[2] == "  yours: not written yet: your split still raises NotImplementedError"
    assert "✗" not in view.text
    assert_sanitizer_safe(view.html)
    monkeypatch.setenv("GGUFTOK_WORKSPACE", str(REPO / "solutions" / "mytok"))
    assert yours_view("qwen2", LESSON_LINE).text.endswith("(your split with your regexes_for('qwen2'))\n"
                                                          "the same 18 words")


def test_yours_marks_the_pieces_that_differ_and_names_the_first():
    from gguftok.viz.pretokenize_view import yours_view

    llama3 = _module().regexes_for("llama-bpe")
    view = yours_view("qwen2", LESSON_LINE, _module(regexes_for=lambda pre: llama3))
    lines = view.text.splitlines()
    assert lines[1] == ("  llama.cpp's 18 words: [We] ['LL] [␣pay] [␣] [1]✗ [2]✗ [3]✗ [4]✗ [5]✗ [␣for] [↵↵] [␣] "
                        "[␣int] [␣x] [=] [4]✗ [2]✗ [;]")
    assert lines[2] == "  yours 14 words: [We] ['LL] [␣pay] [␣] [123]✗ [45]✗ [␣for] [↵↵] [␣] [␣int] [␣x] [=] [42]✗ [;]"
    assert lines[-1] == "first difference at word 5: llama.cpp's is '1', yours '123'"
    assert view.html.count("✗</span>") == 10 and view.html.count("border-style:dashed") == 10
    assert_sanitizer_safe(view.html)


def test_yours_falls_back_to_llama_cpps_list_and_never_raises():
    from gguftok.viz.pretokenize_view import NOT_WRITTEN, your_pieces, yours_view

    def unwritten(pre):
        raise NotImplementedError

    got = your_pieces("llama-bpe", "a 12345", _module(regexes_for=unwritten))
    assert got.pieces == ["a", " ", "123", "45"]
    assert got.how == "your split with llama.cpp's regex list (your regexes_for is not written yet)"
    assert your_pieces("tekken", "a", _module()).how.endswith("(your regexes_for does not know 'tekken')")

    def boom(text, regexes):
        raise KeyError("x")

    assert your_pieces("qwen2", "a", _module(split=boom)).how == (
        "your split with your regexes_for('qwen2') raised KeyError: 'x'")
    assert your_pieces("qwen2", "a", _module(split=lambda t, r: "a")).pieces is None
    assert your_pieces("qwen2", "a", object()).how == f"{NOT_WRITTEN}: there is no split in it"
    view = yours_view("qwen2", "abc", _module(split=lambda t, r: ["ab"]))
    assert view.text.endswith("first difference at word 1: llama.cpp's is 'abc', yours 'ab'; and your words do "
                              "not join back to the text")
    for v in (view, yours_view("gpt-2", "<b>&</b>", _module()), yours_view("gpt-2", "<i>", object())):
        assert "<b>" not in v.html and "<i>" not in v.html
        assert_sanitizer_safe(v.html)


def test_yours_reads_a_broken_package_without_failing(tmp_path, monkeypatch):
    from gguftok.viz.pretokenize_view import your_pieces

    pkg = tmp_path / "mytok"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "pretokenize.py").write_text("def split(text, regexes:\n")
    monkeypatch.setenv("GGUFTOK_WORKSPACE", str(pkg))
    got = your_pieces("qwen2", "a")
    assert got.pieces is None and got.how.startswith("not written yet: mytok/pretokenize.py does not load (")


def test_explorer_with_yours_puts_them_first_and_keeps_its_own_view_last():
    pytest.importorskip("ipywidgets")
    from gguftok.viz.pretokenize_view import pretokenizer_explorer, yours_view

    module = _module()
    box = pretokenizer_explorer("a 12345", "llama-bpe", yours=True, module=module)
    choice, _text, mine, out = box.children
    assert mine.value == yours_view("llama-bpe", "a 12345", module).html
    assert out.value == explorer_view("llama-bpe", "a 12345").html
    choice.value = "qwen2"
    assert mine.value == yours_view("qwen2", "a 12345", module).html
    assert len(pretokenizer_explorer("x", "gpt-2").children) == 3


def test_a_list_step_by_step_and_a_pattern_alternative_by_alternative():
    from gguftok.viz.pretokenize_view import (
        alternative_matches,
        alternatives,
        alternatives_view,
        list_steps,
        list_view,
        literal,
    )

    regexes = pre_tokenizer_config("starcoder").regexes
    steps_cut = list_steps(regexes, LESSON_LINE)
    assert steps_cut[-1] == pieces("starcoder", LESSON_LINE) and all("".join(s) == LESSON_LINE for s in steps_cut)
    assert list_steps(pre_tokenizer_config("superbpe").regexes, "1234567")[-1] == ["1", "234", "567"]
    view = list_view(regexes, LESSON_LINE)
    assert f"after regex 2, {literal(regexes[1])}: 18 words" in view.text  # the pattern whole, never cut
    for pre in ("gpt-2", "llama-bpe", "qwen2"):
        pattern = pre_tokenizer_config(pre).regexes[0]
        assert "|".join(alternatives(pattern)) == pattern
        found = alternative_matches(pattern, LESSON_LINE)
        assert [p for p, _ in found] == independent_split(pattern, LESSON_LINE)
        assert_sanitizer_safe(alternatives_view(pattern, "<b> x=1;").html)
    assert len(alternatives(LESSON_PATTERNS["qwen2"])) == 7 and len(alternatives(LESSON_PATTERNS["gpt-2"])) == 11
    assert alternatives(r"[|(]|\||(a|b)") == ["[|(]", r"\|", "(a|b)"]
    gpt2 = alternatives_view(LESSON_PATTERNS["gpt-2"], "a\tb")
    assert "no alternative, the text between two matches: [→]" in gpt2.text
    assert_sanitizer_safe(view.html)


def test_steps_show_each_pattern_whole():
    view = steps_view("deepseek-llm")
    for rx in pre_tokenizer_config("deepseek-llm").regexes:
        assert rx in view.text or repr(rx) in view.text
    assert "…" not in view.text and "…" not in engine_view("qwen2", "x").text


def test_class_differences_are_only_newer_code_points():
    from gguftok.viz.pretokenize_view import class_differences, class_differences_view

    diffs = class_differences()
    assert all(not theirs for _, theirs in diffs.values())  # every class llama.cpp's tables give, regex agrees
    assert 0x1C89 in diffs["L"][0] and pieces("qwen2", "a\u1c89b") == ["a", "\u1c89b"]
    view = class_differences_view()
    assert view.text.splitlines()[-1] == f"{sum(len(a) for a, _ in diffs.values()):,} code points in all"
    assert_sanitizer_safe(view.html)


# --- two vocabularies side by side ----------------------------------------------------------------------


def test_vocab_splits_are_each_tokenizers_words(toks):
    from gguftok.bytemap import text_to_bytes
    from gguftok.viz.pretokenize_view import vocab_pieces, vocab_splits

    text = "We'LL pay 12345 for\n\n  int x=42; <b>"
    qwen2, gpt2 = toks("qwen2"), toks("gpt-2")
    for tok in (qwen2, gpt2):
        assert vocab_pieces(tok, text) == [text_to_bytes(w).decode() for w in tok.words(text)]
        assert "".join(vocab_pieces(tok, text)) == text
    view = vocab_splits([("qwen2", qwen2), ("gpt-2", gpt2)], text)
    lines = view.text.splitlines()
    n1, n2 = len(vocab_pieces(qwen2, text)), len(vocab_pieces(gpt2, text))
    assert lines[1].startswith(f"  qwen2 (pre 'qwen2', pre-type QWEN2), {n1} words: ")
    assert lines[2].startswith(f"  gpt-2 (pre 'gpt-2', pre-type GPT2), {n2} words: ")
    assert lines[3].startswith(f"qwen2 {n1}, gpt-2 {n2} words; the first difference is word ")
    assert_sanitizer_safe(view.html)
    assert "<b>" not in view.html
    same = vocab_splits([("qwen2", qwen2), ("qwen2", qwen2)], text)
    assert same.text.splitlines()[-1] == f"the same {n1} words" and "✗" not in same.text


def test_vocab_split_explorer_follows_its_controls(toks):
    pytest.importorskip("ipywidgets")
    from gguftok.viz.pretokenize_view import vocab_split_explorer, vocab_splits

    box = vocab_split_explorer("a 12345", "qwen2", "gpt-2")
    choices, text, out = box.children
    one, two = choices.children
    assert "llama-spm" not in one.options and "gemma-4" in one.options
    assert out.value == vocab_splits([("qwen2", toks("qwen2")), ("gpt-2", toks("gpt-2"))], "a 12345").html
    two.value = "llama-bpe"
    text.value = "x  y"
    assert out.value == vocab_splits([("qwen2", toks("qwen2")), ("llama-bpe", toks("llama-bpe"))], "x  y").html
