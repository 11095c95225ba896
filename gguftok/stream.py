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


class TextStream:
    """Push ids, get text. ``piece(id)`` gives a token's bytes; invalid bytes become U+FFFD, one per
    maximal invalid sequence (Python's rule), when it is certain they cannot complete a character."""

    def __init__(self, piece: Callable[[int], bytes]) -> None:
        self._piece = piece
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, token_id: int) -> str:
        """The text that ``token_id`` completes (often ``""`` in the middle of a character)."""
        return self._decoder.decode(self._piece(token_id))

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
        for i in ids:
            yield self.push(i)
        yield self.flush()
