"""Stage 2 (notebook 02): the byte-level alphabet, 256 bytes <-> 256 printable characters.

A byte-level BPE vocabulary (GPT-2, Llama 3, Qwen2, ...) stores each token as text in which every character
stands for one byte. The bytes that print as themselves keep their own character; the 68 others are moved,
in byte order, to the characters from U+0100 on. So a space is ``Ġ`` (U+0120) and a newline ``Ċ`` (U+010A).

``encode_bytes`` and ``decode_token`` run once for every word: build the tables they use once, when the
module is loaded (``_BYTE_TO_CHAR = bytes_to_unicode()`` under the two functions that build them), not at
every call.
"""

from __future__ import annotations


def bytes_to_unicode() -> dict[int, str]:
    """The character that stands for each byte value 0..255.

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\n")]
    ('a', 'Ġ', 'Ċ')
    """
    raise NotImplementedError


def unicode_to_bytes() -> dict[str, int]:
    """The inverse table: the byte each of the 256 characters stands for.

    >>> inverse = unicode_to_bytes()
    >>> inverse["Ġ"], inverse["a"], len(inverse)
    (32, 97, 256)
    """
    raise NotImplementedError


def encode_bytes(data: bytes) -> str:
    """``data`` written in the vocabulary's alphabet: one character per byte.

    >>> encode_bytes(" world".encode())
    'Ġworld'
    """
    raise NotImplementedError


def decode_token(text: str) -> bytes:
    """The bytes a byte-level token's text stands for; ``KeyError`` for a character outside the table.

    >>> decode_token("Ġworld")
    b' world'
    """
    raise NotImplementedError
