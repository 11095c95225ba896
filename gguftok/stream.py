"""Streamed decoding: text out as token ids arrive, never splitting a character.

One token can end in the middle of a UTF-8 character (byte-level vocabularies split an emoji into four
byte tokens). Decoding each piece on its own would print garbage; a stream keeps the incomplete bytes until
the character is whole, using the standard library's incremental UTF-8 decoder.

>>> import codecs
>>> s = TextStream(lambda i: [b" ", b"\\xf0\\x9f", b"\\x98", b"\\x80", b"!"][i])
>>> [s.push(i) for i in range(5)] + [s.flush()]
[' ', '', '', '😀', '!', '']
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator
from typing import Any


class TextStream:
    """Push ids, get text. ``piece(id)`` gives a token's bytes; invalid bytes become U+FFFD, one per
    maximal invalid sequence (Python's rule), when it is certain they cannot complete a character.

    ``check(value, position)``, when given, turns what is pushed into an id or raises (``Tokenizer.stream``
    passes :func:`gguftok.detokenize.as_token_id`, so a float or a bool is a ``TypeError`` naming its position
    in the stream: the number of ids pushed before it)."""

    def __init__(self, piece: Callable[[int], bytes], check: Callable[[Any, int], int] | None = None) -> None:
        self._piece = piece
        self._check = check
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._position = 0

    def push(self, token_id: int) -> str:
        """The text that ``token_id`` completes (often ``""`` in the middle of a character)."""
        if self._check is not None and type(token_id) is not int:
            token_id = self._check(token_id, self._position)
        text = self._decoder.decode(self._piece(token_id))
        self._position += 1
        return text

    @property
    def pending(self) -> bytes:
        """The bytes held back: the start of a character that the next pieces may complete.

        >>> s = TextStream(lambda i: [b"\\xf0\\x9f", b"\\x98\\x80"][i])
        >>> s.push(0), s.pending, s.push(1), s.pending
        ('', b'\\xf0\\x9f', '😀', b'')
        """
        return self._decoder.getstate()[0]

    def flush(self) -> str:
        """Whatever is still held at the end (an incomplete character becomes U+FFFD)."""
        return self._decoder.decode(b"", final=True)

    def feed(self, ids: Iterable[int]) -> Iterator[str]:
        """Each id's text in turn, then the flush; empty strings included, so positions line up."""
        if self._check is not None and isinstance(ids, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"ids must be a sequence of token ids (ints), not {type(ids).__name__}")
        try:
            it = iter(ids)
        except TypeError:
            raise TypeError(f"ids must be a sequence of token ids (ints), not {type(ids).__name__}") from None
        return self._feed(it)

    def _feed(self, ids: Iterator[int]) -> Iterator[str]:
        for i in ids:
            yield self.push(i)
        yield self.flush()
