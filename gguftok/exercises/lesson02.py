"""Lesson 02 · the byte-to-character map: build it, decode a stored token, encode bytes."""

from __future__ import annotations

from ..bytemap import BYTE_TO_CHAR, bytes_to_text, text_to_bytes
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer

# --------------------------------------------------------------------------------------------- byte_map
byte_map = Exercise(
    id="02.byte_map",
    title="build GPT-2's byte-to-character table",
    statement=(
        "Build the table of this notebook from its rule, without importing it: a list of 256 one-character\n"
        "strings, where entry `b` is the character that stands for byte `b`.\n\n"
        "1. The bytes `!`..`~` (0x21..0x7E), `¡`..`¬` (0xA1..0xAC) and `®`..`ÿ` (0xAE..0xFF) keep their own\n"
        "   character, `chr(b)`.\n"
        "2. Every other byte, in increasing order, gets the next character from U+0100 on.\n\n"
        "The check compares all 256 entries with `gguftok.bytemap.BYTE_TO_CHAR` and names the first byte that\n"
        "differs."),
    template='''def byte_map() -> list[str]:
    """Entry ``b`` is the character a byte-level vocabulary writes for byte ``b``.

    >>> table = byte_map()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\\\n")]
    ('a', 'Ġ', 'Ċ')
    """
    raise NotImplementedError''',
    reference=lambda: list(BYTE_TO_CHAR),
    reference_name="gguftok.bytemap.BYTE_TO_CHAR",
    examples=lambda: [Case(())],
)


# ------------------------------------------------------------------------------------------ decode_token
_LESSON_TOKENS = ["Ġworld", "Ċ", "ĠðŁĺĢ", "ä¸ĸçķĮ", "Hello", "ðŁ"]


def _decode_generated() -> list[Case]:
    r = rng(201)
    cases = [Case((bytes_to_text(bytes(r.randrange(256) for _ in range(r.randint(0, 10)))),)) for _ in range(120)]
    cases += [Case((t,)) for t in ("a b", "€", "Ġx\u2581", "ĠĠ\t")]  # characters outside the map
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
        "Write `decode_token(text)` that returns those bytes, using your table from the exercise above (or\n"
        "`BYTE_TO_CHAR`, if you skipped it). A character that is not in the table cannot come from a byte:\n"
        "raise `KeyError` for it.\n\n"
        "The check uses the lesson's five tokens and `ðŁ`, 150 normal tokens of Qwen2, random ones, and a\n"
        "few texts with characters outside the table, against `gguftok.bytemap.text_to_bytes`."),
    template='''def decode_token(text: str) -> bytes:
    """The bytes a byte-level vocabulary's token text stands for.

    >>> decode_token("Ġworld")
    b' world'
    """
    raise NotImplementedError''',
    reference=text_to_bytes,
    reference_name="gguftok.bytemap.text_to_bytes",
    examples=lambda: [Case((t,)) for t in _LESSON_TOKENS],
    generated=_decode_generated,
)


# ------------------------------------------------------------------------------------------ encode_bytes
def _encode_generated() -> list[Case]:
    r = rng(202)
    cases = [Case((bytes(r.randrange(256) for _ in range(r.randint(0, 12))),)) for _ in range(120)]
    cases += [Case((random_text(r, "Hi 世界😀\n\t", 0, 8).encode(),)) for _ in range(60)]
    return cases


encode_bytes = Exercise(
    id="02.encode_bytes",
    title="bytes to the vocabulary's text",
    statement=(
        "The other direction: before a piece of text can be looked up in a byte-level vocabulary, its UTF-8\n"
        "bytes are written with the table's characters. Write `encode_bytes(data)` that does it.\n\n"
        "The check uses the lesson's ` world` and tab, text with emoji and Chinese, and random bytes (all 256\n"
        "values occur), against `gguftok.bytemap.bytes_to_text`."),
    template='''def encode_bytes(data: bytes) -> str:
    """``data`` in the vocabulary's alphabet: one character per byte.

    >>> encode_bytes(" world".encode())
    'Ġworld'
    """
    raise NotImplementedError''',
    reference=bytes_to_text,
    reference_name="gguftok.bytemap.bytes_to_text",
    examples=lambda: [Case((b,)) for b in (b" world", b"\t", b"Hello world", " 😀".encode(), b"")],
    generated=_encode_generated,
)

EXERCISES = [byte_map, decode_token, encode_bytes]
