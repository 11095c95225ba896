"""The one exception hierarchy of gguftok.

Every error the library raises on purpose is a :class:`GguftokError`; each subclass also derives from the
built-in exception a caller would naturally catch (``ValueError`` for bad input, ``RuntimeError`` for a
failed download), and its message says what went wrong and where.

>>> from gguftok import read_metadata, GGUFError
>>> try:
...     read_metadata(b"GGML" + bytes(20))
... except GGUFError as e:
...     print(e.offset, e)
0 <bytes>: not a GGUF file: magic is b'GGML', expected b'GGUF' (at offset 0)
"""

from __future__ import annotations


class GguftokError(Exception):
    """Base class of every error gguftok raises on purpose."""


class GGUFError(GguftokError, ValueError):
    """A GGUF file is malformed or unsupported.

    ``source`` names the file, ``offset`` is the byte offset where reading failed, and ``key`` is the
    metadata key being read at the time (``None`` while reading the header or a key's name).
    """

    def __init__(self, message: str, *, source: str = "<bytes>", offset: int | None = None,
                 key: str | None = None) -> None:
        self.source = source
        self.offset = offset
        self.key = key
        where = []
        if key is not None:
            where.append(f"key {key!r}")
        if offset is not None:
            where.append(f"at offset {offset}")
        suffix = f" ({', '.join(where)})" if where else ""
        super().__init__(f"{source}: {message}{suffix}")


class DataError(GguftokError, RuntimeError):
    """Fetching or verifying the pinned reference files failed (offline, checksum mismatch, missing file)."""
