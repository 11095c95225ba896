"""GPT-2's map between the 256 byte values and 256 printable characters.

Byte-level BPE vocabularies store every token as text in which each byte of the token is one character:
the printable ASCII and Latin-1 bytes stand for themselves, and the 68 others (control bytes, space,
DEL, NBSP, soft hyphen ...) are moved up to U+0100 and beyond, in byte order. So a space is ``Ġ``
(U+0120) and a newline ``Ċ`` (U+010A).

>>> BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[ord("\\n")], BYTE_TO_CHAR[ord("a")]
('Ġ', 'Ċ', 'a')
>>> bytes_to_text("héllo".encode())
'hÃ©llo'
>>> text_to_bytes("ĠhÃ©llo").decode()
' héllo'
"""

from __future__ import annotations

from codecs import charmap_decode

__all__ = ["BYTE_MAP", "BYTE_TO_CHAR", "CHAR_TO_BYTE", "bytes_to_text", "spell_text", "text_to_bytes"]


def _byte_to_char() -> list[str]:
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table = [""] * 256
    for b in printable:
        table[b] = chr(b)
    shifted = 0
    for b in range(256):
        if not table[b]:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


BYTE_TO_CHAR: list[str] = _byte_to_char()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
BYTE_MAP = "".join(BYTE_TO_CHAR)  # the same as a codecs.charmap_decode table: byte b -> BYTE_TO_CHAR[b]


def spell_text(text: str) -> str:
    """The vocabulary form of a text's UTF-8 bytes (surrogates as their own bytes), in one C call.

    >>> spell_text(" café")
    'ĠcafÃ©'
    """
    return charmap_decode(text.encode("utf-8", "surrogatepass"), "strict", BYTE_MAP)[0]


def bytes_to_text(data: bytes) -> str:
    """The vocabulary form of ``data``: one character per byte."""
    return "".join([BYTE_TO_CHAR[b] for b in data])


def text_to_bytes(text: str) -> bytes:
    """The bytes a vocabulary-form text stands for; ``KeyError`` on a character outside the map."""
    return bytes([CHAR_TO_BYTE[c] for c in text])
