"""gguftok.export.wpm: the WordPiece pipeline gives gguftok's ids on llama.cpp's cases, on fuzz and on every
code point, except on the Differences it names, each proved on its example."""

from __future__ import annotations

import pytest

pytest.importorskip("tokenizers")

from conftest import REPO

from gguftok.conformance.golden import read_fixture
from gguftok.export import build, plan, wpm
from gguftok.export.verify import verify
from gguftok.models.wpm import _preprocess_slow, preprocess


@pytest.fixture(scope="module")
def pair(toks):
    tok = toks("bert-bge")
    return tok, wpm.stages(tok), build(plan(tok))


def test_exact_on_cases_and_fuzz(pair, vocab_path):
    tok, _, ht = pair
    extra = ["x" * 300, "héllo wörld ÀÉÎ", "한국어 텍스트", "a\x0bb\x0cc\x85d", "x\u0488y ஔ",
             *(" " * n for n in range(1, 40)), *("a" + " " * n + "b" for n in range(1, 40)),
             "----->", "-->--", "---- --", "\t\t x  y   z"]
    report = verify(tok, ht, gguf=vocab_path("bert-bge"), fixture=read_fixture(REPO / "data" / "golden" /
                                                                               "bert-bge.jsonl.xz"),
                    fuzz=300, seed=20261202, extra=extra)
    assert report.encode_differences == 0, report.mismatches[:3]


def test_cls_and_sep(pair):
    tok, _, ht = pair
    assert ht.encode("hello").ids == tok.encode("hello") == [101, 7592, 102]


def test_every_code_point_reads_as_llama(pair):
    """Each code point between two letters gives llama.cpp's words (gguftok's reference loop), but for the
    named differences."""
    tok, st, _ = pair
    v = tok.vocab
    skip = {cp for a, b, _ in wpm.AS_UNKNOWN for cp in range(a, b + 1)}  # by id below
    skip |= {cp for a, b in wpm.NEW_CASE for cp in range(a, b + 1)}
    cps = [c for c in range(0x110000) if not (0xD800 <= c <= 0xDFFF or c in skip)]
    for at in range(0, len(cps), 8192):
        text = " ".join(f"x{chr(c)}y" for c in cps[at:at + 8192])
        ours = _preprocess_slow(text.encode(), v.lowercase, v.strip_accents)
        words = st.pre_tokenizer.pre_tokenize_str(st.normalizer.normalize_str(text))
        theirs = [w.removeprefix("\u2581") for w, _ in words]
        assert ours == theirs, f"code points from U+{cps[at]:04X}"


WORD_START = ["\u2581x", "\u2581\u2581x", "(\u2581x)", "\u6f22\u2581x", "a \u2581", "\u2581", "x\u2581", "a\u2581x b",
              "\t\u2581hello world", "\u2581\u0301x", "x\u166dy", "hello\u166d", "\u166d", "\u166d\u2581x"]


def test_words_llama_cpp_makes_unknown_are_unknown(pair, monkeypatch):
    """A word that starts with ``▁`` itself (llama.cpp looks up ``▁▁...``, which no token starts) and a word
    with U+166D (a symbol to llama.cpp, punctuation to tokenizers; no token holds it) are one unknown token in
    llama.cpp; the normalizer's last steps make them so here. Without those steps the ids differ."""
    tok, st, ht = pair
    assert st.differences == []
    for text in WORD_START:
        assert ht.encode(text, add_special_tokens=False).ids == tok.encode(text, add_special=False), text
    monkeypatch.setattr(wpm, "unknown_mends", lambda texts: ([], []))
    plain = build(plan(tok))  # the same pipeline without the two replacements
    assert plain.encode("\u2581x", add_special_tokens=False).ids != tok.encode("\u2581x", add_special=False)
    assert plain.encode("x\u166dy", add_special_tokens=False).ids != tok.encode("x\u166dy", add_special=False)


def test_word_start_rule_is_declared_where_a_token_could_match_it():
    """The mend holds only while no token is ``▁`` or starts ``▁▁``: with one, the rule is named instead."""
    texts = ["[PAD]", "[UNK]", "\u2581", "\u2581a", "\u166d"]
    steps, left = wpm.unknown_mends(texts)
    assert [stage for stage, _, _ in left] == ["pre-tokenizer", "normalizer"] and steps == []
    steps, left = wpm.unknown_mends(["[UNK]", "\u2581a"])
    assert left == [] and len(steps) == 2


def test_new_case_code_points_are_no_difference_here(pair):
    tok, st, ht = pair
    assert st.differences == []  # no token of this vocabulary holds a code point of NEW_CASE
    for a, b in wpm.NEW_CASE:
        for cp in range(a, b + 1):
            s = f"x{chr(cp)}y"
            assert tok.encode(s, add_special=False) == ht.encode(s, add_special_tokens=False).ids


# CJK compatibility ideographs whose NFD (llama.cpp's unicode_ranges_nfd: its first code point) is a CJK ideograph
# above U+FFFF, a word alone. gguftok's bulk preprocess used to drop them from a text with no code point above
# U+FFFF (its classes stopped at U+FFFF); its reference loop, llama.cpp and tokenizers keep them.
NFD_ABOVE_BMP = {0xFA6C: 0x242EE, 0xFACF: 0x2284A, 0xFAD0: 0x22844, 0xFAD1: 0x233D5, 0xFAD5: 0x25249,
                 0xFAD6: 0x25CD0, 0xFAD7: 0x27ED3}
BULK_CASE = "x\ufa6cy"


def test_bulk_preprocess_keeps_what_decomposes_above_the_bmp(pair):
    """Fast path == slow path == llama.cpp's words for each of them; tokenizers reads them the same."""
    _, st, _ = pair
    for cp, nfd in NFD_ABOVE_BMP.items():
        text = f"x{chr(cp)}y"
        want = ["x", chr(nfd), "y"]
        assert _preprocess_slow(text.encode(), True, True) == want
        assert preprocess(text, True, True) == want, f"U+{cp:04X}"
        assert preprocess(text, False, True) == want
        assert preprocess(text, True, False) == ["x", chr(cp), "y"]  # no accent pass: itself, a word alone
    assert [w for w, _ in st.pre_tokenizer.pre_tokenize_str(st.normalizer.normalize_str(BULK_CASE))] == \
        ["\u2581x", "\u2581\U000242ee", "\u2581y"]


def test_bulk_preprocess_is_the_loop_on_every_bmp_code_point():
    """The bulk passes of a text with no code point above U+FFFF (the patterns of that scope) give the loop's
    words, whatever the code point between two letters, under each pair of flags."""
    cps = [c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    text = " ".join(f"x{chr(c)}y" for c in cps)
    for lowercase in (False, True):
        for strip_accents in (False, True):
            fast = preprocess(text, lowercase, strip_accents)
            slow = _preprocess_slow(text.encode("utf-8", "surrogatepass"), lowercase, strip_accents)
            if fast != slow:  # which code point
                at = next(c for c in cps if preprocess(f"x{chr(c)}y", lowercase, strip_accents) !=
                          _preprocess_slow(f"x{chr(c)}y".encode(), lowercase, strip_accents))
                pytest.fail(f"U+{at:04X} (lowercase={lowercase}, strip_accents={strip_accents})")


def test_regression_bulk_nfd_above_the_bmp_in_encode(pair):
    """The tokenizer's ids (a few chunks, read one at a time; and many, joined into one bulk pass) are the
    loop's words matched, and the export's."""
    tok, _, ht = pair
    model = tok.model
    for text in (BULK_CASE, "a\ufacf\ufad0\ufad1 \ufad5\ufad6\ufad7b",
                 " ".join(f"w{i}{chr(cp)}" for i in range(40) for cp in NFD_ABOVE_BMP)):
        words = _preprocess_slow(text.encode(), True, True)
        want = [i for w in words for i in model.match(w)]
        assert tok.encode(text, add_special=False) == want
        assert ht.encode(text, add_special_tokens=False).ids == want
