"""Lesson 01: read a GGUF string and the 24-byte header with ``struct``."""

from __future__ import annotations

import struct


def read_string(data: bytes, offset: int) -> tuple[str, int]:
    """The GGUF string at ``offset`` (u64 length + UTF-8 bytes) and the offset after it.

    >>> read_string(b"\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00hi!", 0)
    ('hi', 10)
    """
    if offset + 8 > len(data):
        raise ValueError(f"the length at offset {offset} needs 8 bytes")
    (n,) = struct.unpack_from("<Q", data, offset)
    start = offset + 8
    if start + n > len(data):
        raise ValueError(f"a string of {n} bytes at offset {start} runs past the end")
    return bytes(data[start:start + n]).decode("utf-8", "surrogateescape"), start + n


def read_header(data: bytes) -> tuple[int, int, int]:
    """``(version, tensor_count, kv_count)`` from the first 24 bytes of a GGUF file."""
    if len(data) < 24:
        raise ValueError("a GGUF header has 24 bytes")
    magic, version, tensors, kvs = struct.unpack_from("<4sIQQ", data, 0)
    if magic != b"GGUF":
        raise ValueError(f"not a GGUF file: magic {magic!r}")
    return version, tensors, kvs
