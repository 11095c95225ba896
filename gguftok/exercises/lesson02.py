"""Lesson 02 · the byte-level alphabet, written in the student's ``mytok/bytemap.py``: GPT-2's table of 256
characters and its inverse, then both directions through them (bytes to a vocabulary's text, a token back
to its bytes)."""

from __future__ import annotations

from typing import Any

from ..bytemap import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_text, text_to_bytes
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer

_LESSON_TOKENS = ["Ġworld", "Ċ", "ĠðŁĺĢ", "ä¸ĸçķĮ", "Hello", "ðŁ"]


class _Absent:
    """What a table answers for a key it does not have."""

    def __repr__(self) -> str:
        return "(not in the table)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Absent)

    def __hash__(self) -> int:
        return 0


_ABSENT = _Absent()


def _entry(table: Any, key: Any) -> Any:
    """``table[key]`` of the student's table, or ``_ABSENT``; the sorted keys for ``key is None``."""
    if not isinstance(table, dict):
        return table  # shown as it is: the statement asks for a dict
    if key is None:
        try:
            return sorted(table)
        except TypeError:  # keys of more than one type
            return sorted(table, key=repr)
    return table.get(key, _ABSENT)


# ----------------------------------------------------------------------------------------- bytes_to_unicode
def _forward_cases() -> list[Case]:
    cases = [Case((None,), "sorted(bytes_to_unicode())  # the keys: the 256 byte values")]
    cases += [Case((b,), f"bytes_to_unicode()[{b}]  # byte 0x{b:02x}") for b in range(256)]
    return cases


bytes_to_unicode = Exercise(
    id="02.bytes_to_unicode",
    title="build GPT-2's byte-to-character table",
    statement=(
        "Build the table of this notebook from its rule: a `dict` from each byte value 0..255 to the one\n"
        "character that stands for it.\n\n"
        "1. The bytes `!`..`~` (0x21..0x7E), `¡`..`¬` (0xA1..0xAC) and `®`..`ÿ` (0xAE..0xFF) keep their own\n"
        "   character, `chr(b)`.\n"
        "2. Every other byte, in increasing order, gets the next character from U+0100 on.\n\n"
        "The cases: the table's keys, then its entry for each of the 256 bytes, against\n"
        "`gguftok.bytemap.BYTE_TO_CHAR`."),
    template="",
    reference=lambda key: list(range(256)) if key is None else BYTE_TO_CHAR[key],
    reference_name="gguftok.bytemap.BYTE_TO_CHAR",
    examples=_forward_cases,
    call=lambda fn, key: _entry(fn(), key),
    module="bytemap",
)


# ----------------------------------------------------------------------------------------- unicode_to_bytes
def _inverse_cases() -> list[Case]:
    cases = [Case((None,), "sorted(unicode_to_bytes())  # the keys: the table's 256 characters")]
    cases += [Case((c,), f"unicode_to_bytes()[{c!r}]  # U+{ord(c):04X}") for c in BYTE_TO_CHAR]
    cases += [Case((c,), f"unicode_to_bytes().get({c!r})  # U+{ord(c):04X}, not a table character")
              for c in (" ", "\n", "\x00", "\xad", "€", "▁", "Ń")]
    return cases


unicode_to_bytes = Exercise(
    id="02.unicode_to_bytes",
    title="the inverse table: character to byte",
    statement=(
        "Write `unicode_to_bytes()`, the inverse of your table: a `dict` from each of its 256 characters to\n"
        "the byte it stands for (`\"Ġ\"` gives 32). A character outside the table, such as the space itself,\n"
        "is not a key.\n\n"
        "The cases: the keys, the entry of each of the 256 characters, and seven characters that must be\n"
        "absent, against `gguftok.bytemap.CHAR_TO_BYTE`."),
    template="",
    reference=lambda key: sorted(CHAR_TO_BYTE) if key is None else CHAR_TO_BYTE.get(key, _ABSENT),
    reference_name="gguftok.bytemap.CHAR_TO_BYTE",
    examples=_inverse_cases,
    call=lambda fn, key: _entry(fn(), key),
    module="bytemap",
)


# ------------------------------------------------------------------------------------------ encode_bytes
def _encode_generated() -> list[Case]:
    r = rng(202)
    cases = [Case((bytes(range(256)),), "encode_bytes(bytes(range(256)))")]
    cases += [Case((bytes(r.randrange(256) for _ in range(r.randint(0, 12))),)) for _ in range(120)]
    cases += [Case((random_text(r, "Hi 世界😀\n\t", 0, 8).encode(),)) for _ in range(60)]
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        normal = [i for i, t in enumerate(qwen2.vocab.types) if t == 1]
        cases += [Case((text_to_bytes(qwen2.token_text(i)),)) for i in sorted(r.sample(normal, 100))]
    return cases


encode_bytes = Exercise(
    id="02.encode_bytes",
    title="bytes to the vocabulary's text",
    statement=(
        "Before a stretch of text can be looked up in a byte-level vocabulary, its UTF-8 bytes are written with\n"
        "the table's characters. Write `encode_bytes(data)` that does it: one character per byte.\n\n"
        "The cases: ` world`, a tab, text with emoji and Chinese, every byte value, random bytes, and the bytes\n"
        "of 100 Qwen2 tokens, against `gguftok.bytemap.bytes_to_text`."),
    template="",
    reference=bytes_to_text,
    reference_name="gguftok.bytemap.bytes_to_text",
    examples=lambda: [Case((b,)) for b in (b" world", b"\t", b"Hello world", " 😀".encode(), "世界".encode(), b"")],
    generated=_encode_generated,
    module="bytemap",
)


# ------------------------------------------------------------------------------------------ decode_token
def _decode_generated() -> list[Case]:
    r = rng(201)
    cases = [Case((c,)) for c in BYTE_TO_CHAR]
    cases += [Case((bytes_to_text(bytes(r.randrange(256) for _ in range(r.randint(0, 10)))),)) for _ in range(120)]
    cases += [Case((t,)) for t in ("a b", "€", "Ġx\u2581", "ĠĠ\t", "\udc80")]  # characters outside the table
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        normal = [i for i, t in enumerate(qwen2.vocab.types) if t == 1]
        cases += [Case((qwen2.token_text(i),)) for i in sorted(r.sample(normal, 150))]
    return cases


decode_token = Exercise(
    id="02.decode_token",
    title="a stored token back to its bytes",
    statement=(
        "A byte-level vocabulary stores each token as text in which every character stands for one byte.\n"
        "Write `decode_token(text)` that returns those bytes, with your inverse table. A character that is not\n"
        "in the table cannot come from a byte: raise `KeyError` for it (a dict lookup does).\n\n"
        "The cases: this notebook's five tokens and `ðŁ`, each of the 256 table characters, random tokens, a few\n"
        "texts with characters outside the table, and 150 normal tokens of Qwen2, against\n"
        "`gguftok.bytemap.text_to_bytes`."),
    template="",
    reference=text_to_bytes,
    reference_name="gguftok.bytemap.text_to_bytes",
    examples=lambda: [Case((t,)) for t in _LESSON_TOKENS],
    generated=_decode_generated,
    module="bytemap",
)

EXERCISES = [bytes_to_unicode, unicode_to_bytes, encode_bytes, decode_token]
