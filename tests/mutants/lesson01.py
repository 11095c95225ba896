"""Wrong variants of lesson 01's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

import struct

from solutions_loader import solved


def _bool_as_its_byte(data: bytes, offset: int, type_code: int):
    """Reads a bool as the byte it is stored in: 1, not True."""
    if type_code == 7:
        return data[offset], offset + 1
    return solved("01.read_value")(data, offset, type_code)


def _any_version(data: bytes):
    """Never looks at the version: reads a version 1 (or 4) file as if it were version 3."""
    if len(data) >= 8:
        data = data[:4] + struct.pack("<I", 3) + data[8:]
    return solved("01.read_metadata")(data)


WRONG = {
    "01.read_string": lambda data, off: (data[off + 8:off + 8 + struct.unpack_from("<Q", data, off)[0]].decode(
        "utf-8", "surrogateescape"), off + struct.unpack_from("<Q", data, off)[0]),  # forgets the 8 length bytes
    "01.read_value": _bool_as_its_byte,
    "01.read_metadata": _any_version,
}
