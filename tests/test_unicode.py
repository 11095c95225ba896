"""llama.cpp's Unicode layer: its tables, its lax UTF-8 decoder."""

from __future__ import annotations

import json

import pytest
from conftest import REPO
from hypothesis import given
from hypothesis import strategies as st

from gguftok.pretokenize import unicode as U

SHARED = REPO.parent / "shared" / "reference" / "unicode-data-15.1-llama.json"


def test_tables_equal_the_independent_dump():
    if not SHARED.exists():
        pytest.skip(f"the reference dump {SHARED} is not beside this checkout")
    ref = json.loads(SHARED.read_text())
    ours = json.loads((REPO / "gguftok" / "pretokenize" / "unicode-15.1.json").read_text())
    for key in ("ranges", "ws", "lower", "nfd"):
        assert ours[key] == ref[key], key


@pytest.mark.parametrize(("cp", "flag"), [
    (ord("a"), U.LETTER), (ord("7"), U.NUMBER), (ord("½"), U.NUMBER), (ord("Ⅵ"), U.NUMBER), (0x3007, U.NUMBER),
    (0x0301, U.ACCENT_MARK), (0x0903, U.ACCENT_MARK), (ord("!"), U.PUNCTUATION), (ord("$"), U.SYMBOL),
    (0x0000, U.CONTROL), (0xD800, U.CONTROL), (0xE000, U.CONTROL), (0x00AD, U.CONTROL), (0x0378, U.UNDEFINED),
    (0x2EBF0, U.LETTER),  # CJK Extension I: assigned in 15.1
    (0x10D40, U.UNDEFINED),  # assigned only in 16.0
    (0x110000, U.UNDEFINED), (0x1FFFFF, U.UNDEFINED),
])
def test_categories(cp, flag):
    assert U.flags(cp) & 0xFF == flag


def test_whitespace_is_the_25_white_space_code_points():
    assert frozenset([*range(9, 14), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                                          0x2028, 0x2029, 0x202F, 0x205F, 0x3000]) == U.WHITESPACE_SET
    assert not U.flags(0x1C) & U.WHITESPACE  # Python's str.isspace() says otherwise


@pytest.mark.parametrize(("data", "cps"), [
    (b"\xe2\x82\x41", [0xFFFD, 0xFFFD, 0x41]),  # one U+FFFD per bad byte (Python gives one for both)
    (b"\xc0\x80", [0]), (b"\xc1\x81", [0x41]), (b"\xe0\x80\x80", [0]),  # overlongs decode
    (b"\xed\xa0\x80", [0xD800]),  # surrogates decode
    (b"\xf4\x90\x80\x80", [0x110000]), (b"\xf7\xbf\xbf\xbf", [0x1FFFFF]),  # past U+10FFFF
    (b"\xf8\x88\x80\x80\x80", [0xFFFD] * 5), (b"\xff", [0xFFFD]), (b"\x80", [0xFFFD]),
    (b"\xc3", [0xFFFD]), (b"\xf0\x9f\x98", [0xFFFD] * 3),
])
def test_lax_decoding(data, cps):
    assert U.decode_lax(data) == cps


@given(st.text())
def test_lax_decoding_of_valid_utf8_is_plain_decoding(text):
    assert U.decode_lax(text.encode()) == [ord(c) for c in text]


@given(st.binary(max_size=40))
def test_lax_decoding_never_fails_and_resynchronises(data):
    cps = U.decode_lax(data)
    assert len(cps) <= len(data)
    assert all(0 <= c <= 0x1FFFFF for c in cps)


def test_past_u10ffff_names_the_offset():
    with pytest.raises(ValueError, match="offset 3"):
        U.decode_for_text(b"abc\xf4\x90\x80\x80")


def test_lowercase_and_nfd_are_llamas():
    assert chr(U.to_lower(ord("İ"))) == "i" and chr(U.to_lower(ord("Σ"))) == "σ"
    pairs = {"é": "e", "\u212b": "A", "\u2126": "\u03a9", "한": "\u1112", "가": "\u1100", "ﬁ": "ﬁ", "a": "a"}
    assert {k: chr(U.nfd_first(ord(k))) for k in pairs} == pairs
