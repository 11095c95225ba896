"""Lesson 02's exercises: some first differences of the wrong variants, written out by hand."""

from __future__ import annotations

from solutions_loader import wrong_variants

from gguftok.bytemap import CHAR_TO_BYTE
from gguftok.exercises import check

WRONG = wrong_variants()


def test_the_table_names_the_byte_that_differs():
    r = check("02.bytes_to_unicode", WRONG["02.bytes_to_unicode"])
    assert r.call == "bytes_to_unicode()[173]  # byte 0xad" and r.expected == "'Ń'" and r.got == "'\\xad'"


def test_a_list_is_not_the_dict_asked_for():
    r = check("02.bytes_to_unicode", lambda: [chr(b) for b in range(256)])
    assert r.case == 0 and r.call.startswith("sorted(bytes_to_unicode())")
    assert "first difference at index 0: expected 0, got '\\x00'" in r.text


def test_the_inverse_names_the_character_and_one_outside_the_table_must_be_absent():
    r = check("02.unicode_to_bytes", WRONG["02.unicode_to_bytes"])
    assert r.call == "unicode_to_bytes()['ġ']  # U+0121" and (r.expected, r.got) == ("127", "33")
    table = {chr(b): b for b in range(256)}
    r = check("02.unicode_to_bytes", lambda: table)
    assert r.case == 0 and "sorted(unicode_to_bytes())" in r.call


def test_a_character_outside_the_table_must_raise_key_error():
    def skips_them(text):
        return bytes(CHAR_TO_BYTE[c] for c in text if c in CHAR_TO_BYTE)

    r = check("02.decode_token", skips_them)
    assert r.call == "decode_token('a b')" and r.expected.startswith("raises KeyError")
    assert "the reference raises here; yours returned" in r.text
