"""The pre-tokenizer tables (generated from llama.cpp's source) and the engine's quirks."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from gguftok import VocabError
from gguftok.pretokenize import PRE_STRINGS, PRE_TYPE_REGEXES, PreTokenizer, pre_tokenizer_config
from gguftok.pretokenize.regex_split import collapse_pattern, split_regex
from gguftok.pretokenize.splitters import CUSTOM

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
