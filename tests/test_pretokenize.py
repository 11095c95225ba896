"""The pre-tokenizer tables (generated from llama.cpp's source) and the engine's quirks."""

from __future__ import annotations

import json
import random
import re

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import VocabError
from gguftok.bytemap import bytes_to_text
from gguftok.conformance.generate import Generators
from gguftok.pretokenize import (
    PRE_STRINGS,
    PRE_TYPE_REGEXES,
    PreTokenizer,
    byte_encode_words,
    cut,
    pre_tokenizer_config,
    regex_split,
)
from gguftok.pretokenize.fast import ASTRAL, FAST, bmp_pattern
from gguftok.pretokenize.regex_split import (
    collapse,
    collapse_pattern,
    collapsed_text,
    compile_std_regex,
    split_regex,
    stl_split,
    stl_split_fast,
    uses_categories,
    wide,
    wide_text,
)
from gguftok.pretokenize.splitters import CUSTOM
from gguftok.pretokenize.unicode import decode_lax, to_lower

SHARED = REPO.parent / "shared" / "reference" / "llama-pre-regex.json"


def pieces(text: str, regexes: list[str]) -> list[str]:
    cps = [ord(c) for c in text]
    lengths = [len(cps)]
    for rx in regexes:
        lengths = CUSTOM[rx](cps, lengths) if rx in CUSTOM else split_regex(cps, lengths, rx)
    out, at = [], 0
    for n in lengths:
        out.append(text[at:at + n])
        at += n
    return out


def test_regex_lists_equal_the_independent_dump():
    if not SHARED.exists():
        pytest.skip(f"the reference dump {SHARED} is not beside this checkout")
    for entry in json.loads(SHARED.read_text()):
        for case in entry["cases"]:
            name = "DEFAULT" if case == "default" else case.removeprefix("LLAMA_VOCAB_PRE_TYPE_")
            assert PRE_TYPE_REGEXES[name]["regexes"] == [r["regex"] for r in entry["regexes"]], name
            assert PRE_TYPE_REGEXES[name]["byte_encode"] == entry["byte_encode"], name


def test_91_pre_strings_all_resolve():
    assert len(PRE_STRINGS) == 91
    for pre in PRE_STRINGS:
        assert pre_tokenizer_config(pre).regexes


def test_unknown_and_missing_pre():
    with pytest.raises(VocabError, match="unknown pre-tokenizer type: 'nope'") as e:
        pre_tokenizer_config("nope")
    assert e.value.key == "tokenizer.ggml.pre"
    assert pre_tokenizer_config(None).type == pre_tokenizer_config("").type == "DEFAULT"


def test_llama_cpps_own_unicode_test():  # tests/test-unicode.cpp
    assert pieces(" ~foo", ["[~][A-Za-z]+| ?[\\p{S}]+|\\s+"]) == [" ~", "foo"]


def test_zero_length_matches_give_empty_pieces():  # SUPERBPE's lookahead regex
    assert pieces("1234567", [pre_tokenizer_config("superbpe").regexes[1]])[:5] == ["1", "", "234", "", "567"]


def test_afmoe_digit_grouping():
    assert pieces("ab1234 x12", list(pre_tokenizer_config("afmoe").regexes)) == ["ab", "1", "234", " x", "12"]
    assert pieces("ab1234 x12", list(pre_tokenizer_config("tiny_aya").regexes)) == ["ab", "1", "234", " x", "12"]


def test_collapse_rewrites_categories_as_llama_does():
    assert collapse_pattern("\\p{Lu}\\p{Ll}") == "[\xd2A-Za-z][\xd2A-Za-z]"  # every letter class is "any letter"
    assert collapse_pattern("[^\\s\\p{L}]") == "[^\\s\xd2A-Za-z]"
    with pytest.raises(ValueError, match="non-ASCII"):
        collapse_pattern("\\p{L}é")


def test_non_ascii_whitespace_is_whitespace_to_the_regexes():
    # U+3000 and NBSP split like spaces under the collapsed path; \d stays ASCII in the wregex path
    assert pieces("a\u3000b", ["\\p{L}+"]) == ["a", "\u3000", "b"]
    assert pieces("a\u3000\u3000b", ["\\s+"]) == ["a", "\u3000\u3000", "b"]
    assert pieces("١٢3", ["\\d+"]) == ["١٢", "3"]


def test_words_are_byte_encoded():
    assert PreTokenizer(pre_tokenizer_config("gpt-2")).split("Hi\nyou é") == ["Hi", "Ċ", "you", "ĠÃ©"]


# --- the fast path (pretokenize/fast.py and PreTokenizer.split) against the ported loops ----------------

def _generated_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    gen = Generators([], ["<|endoftext|>"])
    texts = []
    for _ in range(n):
        t = gen.text(rng)
        texts.append(decode_lax_text(t) if isinstance(t, bytes) else t)
    # dense mixes of the characters the loops branch on, and any code point at all (surrogates included)
    alphabet = " \n\r\t\v\x85\xa0\u3000'’sStTlLeEvVdDmM1١a\u0301é漢😀!.\x00"
    for _ in range(n // 4):
        texts.append("".join(rng.choice(alphabet) if rng.random() < 0.7 else chr(rng.randrange(0x110000))
                             for _ in range(rng.randint(1, 40))))
    texts.append(gen.long_text(rng, 5000))
    return texts


def decode_lax_text(data: bytes) -> str:
    return "".join(map(chr, [min(c, 0x10FFFF) for c in decode_lax(data)]))


def _reference_words(pt: PreTokenizer, text: str) -> list[str]:
    words = cut(text, pt.split_lengths([ord(c) for c in text]))
    return [bytes_to_text(w.encode("utf-8", "surrogatepass")) for w in words] if pt.byte_encode else words


def test_fast_split_cuts_as_the_loops_for_every_pre_string():
    texts = _generated_texts(11, 160)
    seen = set()
    for pre in PRE_STRINGS:
        pt = PreTokenizer(pre_tokenizer_config(pre))
        if pt.regexes in seen:
            continue
        seen.add(pt.regexes)
        for text in texts:
            assert pt.fast_lengths(text) == pt.split_lengths([ord(c) for c in text]), (pre, text)
            assert pt.split(text) == _reference_words(pt, text), (pre, text)
    assert len(seen) > 30


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(" \n\r\t\x0b\u2028\u3000'sSlLtTeEreveRmMdD0129١²aZé\u0301漢😀!?.-_\x00\ud800")
               | st.characters(), max_size=60))
def test_fast_patterns_cut_as_their_loops(text):
    for rx, pattern in FAST.items():
        cps = [ord(c) for c in text]
        words = pattern.findall(collapse(text))
        assert list(map(len, words)) == (CUSTOM[rx](cps, [len(cps)]) if cps else []), rx
        if not ASTRAL.search(text):  # the same pattern on the text itself: the same cuts
            assert "".join(bmp_pattern(pattern).findall(text)) == text
            assert list(map(len, bmp_pattern(pattern).findall(text))) == list(map(len, words)), rx


def test_bmp_patterns_cut_every_bmp_code_point_as_the_collapsed_text():
    # every BMP code point once, in runs of each category and around spaces, contractions and digits
    every = "".join(map(chr, range(0x10000)))
    texts = [every, " ".join(every[i:i + 5] for i in range(0, 0x10000, 5)), "'s " + every[::-1] + "'LL 1234"]
    for pattern in set(FAST.values()):
        for text in texts:
            assert (list(map(len, bmp_pattern(pattern).findall(text)))
                    == list(map(len, pattern.findall(collapse(text))))), pattern.pattern
    with pytest.raises(ValueError, match="outside a class"):
        bmp_pattern(re.compile("\u00e9+"))


def test_contraction_letters_are_ascii_in_llamas_lowercase_table():
    # fast.py's contraction classes list [sS] etc.: no other code point lowercases to these letters
    for cp in range(0x110000):
        low = to_lower(cp)
        if low != cp and chr(low) in "stmdrevl":
            assert chr(cp) == chr(low).upper(), hex(cp)


def test_cut_and_byte_encoding_with_and_without_nul():
    assert cut("ab\u00e9c", [1, 0, 2, 1]) == ["a", "", "b\u00e9", "c"] == cut("ab\u00e9c", iter([1, 0, 2, 1]))
    assert cut("a\x00b", [1, 1, 1]) == ["a", "\x00", "b"]  # a NUL of its own: piece by piece
    assert cut("ab", [2, 0]) == ["ab", ""] and cut("ab", [0, 2]) == ["", "ab"]
    words = ["a", " é", "", "\n\ud800"]
    assert byte_encode_words(words) == [bytes_to_text(w.encode("utf-8", "surrogatepass")) for w in words]
    assert byte_encode_words(words)[:3] == ["a", "ĠÃ©", ""]
    assert byte_encode_words(["a\x00", "b"]) == ["aĀ", "b"]


@pytest.mark.parametrize("joined_min", [0, 1 << 62], ids=["numpy", "strings"])
def test_fast_regex_split_cuts_as_the_reference_on_any_pieces(monkeypatch, joined_min):
    # stl_split_fast searches the joined pieces at once (NumPy above _JOINED_MIN code points, strings below)
    # or skips pieces the whole text's matches prove whole; against stl_split on random cuts
    monkeypatch.setattr(regex_split, "_JOINED_MIN", joined_min)
    rng = random.Random(4)
    texts = _generated_texts(5, 60)
    texts.append("".join(texts) * 3)  # with NUL and noncharacters: the separator is one the text lacks
    texts.append("Tab\t\tthen  spaces \n\nDONE 123'S\r\n" * 9)
    texts.append(regex_split._SEPARATORS + " every separator, so no joined search 12")
    for rx in sorted({rx for e in PRE_TYPE_REGEXES.values() for rx in e["regexes"] if rx not in CUSTOM}):
        pattern = compile_std_regex(collapse_pattern(rx)) if uses_categories(rx) else compile_std_regex(rx)
        for text in texts:
            cps = [ord(c) for c in text]
            form = collapsed_text(cps) if uses_categories(rx) else wide_text(cps)
            lengths, left = [], len(cps)
            while left:
                lengths.append(min(left, rng.choice([0, 1, 2, 3, 7, 30, 1000])))
                left -= lengths[-1]
            assert stl_split_fast(form, pattern, lengths) == stl_split(form, pattern, lengths), (rx, text)
    assert wide("a\u3000b\x85 \u2028") == wide_text([ord(c) for c in "a\u3000b\x85 \u2028"])
