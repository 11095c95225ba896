"""Stage 2 (notebook 02): the byte-level alphabet, 256 bytes <-> 256 printable characters.

A byte-level BPE vocabulary (GPT-2, Llama 3, Qwen2, ...) stores each token as text in which every character
stands for one byte. The bytes that print as themselves keep their own character; the 68 others are moved,
in byte order, to the characters from U+0100 on. So a space is ``Ġ`` (U+0120) and a newline ``Ċ`` (U+010A).
"""

from __future__ import annotations

# The bytes that keep their own character: "!".."~", "¡".."¬" and "®".."ÿ".
KEPT = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))


def bytes_to_unicode() -> dict[int, str]:
    """The character that stands for each byte value 0..255.

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\n")]
    ('a', 'Ġ', 'Ċ')
    """
    table: dict[int, str] = {}
    moved = 0
    for byte in range(256):
        if byte in KEPT:
            table[byte] = chr(byte)
        else:  # the next free character from U+0100 on
            table[byte] = chr(0x100 + moved)
            moved += 1
    return table


def unicode_to_bytes() -> dict[str, int]:
    """The inverse table: the byte each of the 256 characters stands for.

    >>> inverse = unicode_to_bytes()
    >>> inverse["Ġ"], inverse["a"], len(inverse)
    (32, 97, 256)
    """
    return {char: byte for byte, char in bytes_to_unicode().items()}


# Built once, when the module is loaded: encode_bytes and decode_token run for every word.
_BYTE_TO_CHAR = bytes_to_unicode()
_CHAR_TO_BYTE = unicode_to_bytes()


def encode_bytes(data: bytes) -> str:
    """``data`` written in the vocabulary's alphabet: one character per byte.

    >>> encode_bytes(" world".encode())
    'Ġworld'
    """
    return "".join(_BYTE_TO_CHAR[byte] for byte in data)


def decode_token(text: str) -> bytes:
    """The bytes a byte-level token's text stands for; ``KeyError`` for a character outside the table.

    >>> decode_token("Ġworld")
    b' world'
    """
    return bytes(_CHAR_TO_BYTE[char] for char in text)
