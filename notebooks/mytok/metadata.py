"""Stage 1 (notebook 01): read the key/value section of a GGUF file from its raw bytes.

The layout of GGUF versions 2 and 3, every number little-endian::

    header:   b"GGUF"   u32 version   u64 tensor_count   u64 kv_count
    kv_count times:   string key   u32 type code   value
    string:   u64 byte length, then that many bytes of UTF-8
    array:    u32 item type code   u64 count   then count values of that type

Every length and count is read from the file itself: check each one against the bytes that are really
there (``len(data)``) before you loop over it or make room for it, and raise ``ValueError`` when it does
not fit. ``struct.unpack_from(format, data, offset)`` reads numbers: ``"<Q"`` is a little-endian u64.
"""

from __future__ import annotations

import struct  # noqa: F401  (you will need it)

# The 13 GGUF value type codes. How many bytes a value of each type takes is yours to write.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)


def read_string(data: bytes, offset: int) -> tuple[str, int]:
    """The GGUF string at ``offset`` (u64 length, then UTF-8 bytes) and the offset just after it.

    >>> read_string(b"\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00hi!", 0)
    ('hi', 10)
    """
    raise NotImplementedError


def read_value(data: bytes, offset: int, type_code: int) -> tuple[object, int]:
    """One value of type ``type_code`` at ``offset``, and the offset just after it; arrays as lists.

    >>> read_value(b"\\x2a\\x00\\x00\\x00", 0, 4)  # type 4 is UINT32
    (42, 4)
    """
    raise NotImplementedError


def read_metadata(data: bytes) -> dict[str, object]:
    """Every key/value pair of a GGUF v2/v3 file, in file order (the tensors after them are not read).

    >>> md = read_metadata(open("../data/synthetic/tiny-9.gguf", "rb").read())
    >>> md["tokenizer.ggml.model"], md["tokenizer.ggml.tokens"][:3]
    ('gpt2', ['<|endoftext|>', 'a', 'b'])
    """
    raise NotImplementedError
