"""Wrong variants of lesson 01's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

import struct

WRONG = {
    "01.read_string": lambda data, off: (data[off + 8:off + 8 + struct.unpack_from("<Q", data, off)[0]].decode(
        "utf-8", "surrogateescape"), off + struct.unpack_from("<Q", data, off)[0]),  # forgets the 8 length bytes
    "01.read_header": lambda data: struct.unpack_from("<IQQ", data, 4),  # never looks at the magic
}
