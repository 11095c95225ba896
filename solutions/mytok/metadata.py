"""Stage 1 (notebook 01): read the key/value section of a GGUF file from its raw bytes.

The layout of GGUF versions 2 and 3, every number little-endian::

    header:   b"GGUF"   u32 version   u64 tensor_count   u64 kv_count
    kv_count times:   string key   u32 type code   value
    string:   u64 byte length, then that many bytes of UTF-8
    array:    u32 item type code   u64 count   then count values of that type

Every length and count is read from the file itself, so each one is checked against the bytes that are
really there before anything is looped over or allocated: a damaged or hostile file raises ``ValueError``.
"""

from __future__ import annotations

import struct

# The 13 GGUF value type codes.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)

# The fixed-size types: their struct format ("<" little-endian) and so their size in bytes.
# BOOL is one byte; "?" reads any non-zero byte as True.
FORMATS = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
           BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}
SIZES = {code: struct.calcsize(fmt) for code, fmt in FORMATS.items()}
# The fewest bytes one item of each type can take: a string is at least its 8-byte length, an array its
# 12-byte header. A count of items that cannot fit in the bytes left is refused before any loop.
SMALLEST = {**SIZES, STRING: 8, ARRAY: 12}


def _need(data: bytes, offset: int, size: int, what: str) -> None:
    """Raise ``ValueError`` unless ``size`` bytes can be read at ``offset``."""
    if offset + size > len(data):
        raise ValueError(f"{what} needs {size} bytes at offset {offset}, but the data ends at {len(data)}")


def read_string(data: bytes, offset: int) -> tuple[str, int]:
    """The GGUF string at ``offset`` (u64 length, then UTF-8 bytes) and the offset just after it.

    >>> read_string(b"\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00hi!", 0)
    ('hi', 10)
    """
    _need(data, offset, 8, "the length of a string")
    (length,) = struct.unpack_from("<Q", data, offset)
    start = offset + 8
    _need(data, start, length, "a string")
    # surrogateescape keeps the exact bytes of a token that is not valid UTF-8 on its own
    return bytes(data[start:start + length]).decode("utf-8", "surrogateescape"), start + length


def read_value(data: bytes, offset: int, type_code: int) -> tuple[object, int]:
    """One value of type ``type_code`` at ``offset``, and the offset just after it; arrays as lists.

    >>> read_value(b"\\x2a\\x00\\x00\\x00", 0, 4)  # type 4 is UINT32
    (42, 4)
    """
    if type_code in FORMATS:
        _need(data, offset, SIZES[type_code], f"a value of type {type_code}")
        (value,) = struct.unpack_from(FORMATS[type_code], data, offset)
        return value, offset + SIZES[type_code]
    if type_code == STRING:
        return read_string(data, offset)
    if type_code == ARRAY:
        _need(data, offset, 12, "an array header")
        item_type, count = struct.unpack_from("<IQ", data, offset)
        offset += 12
        if item_type not in SMALLEST:
            raise ValueError(f"unknown array item type {item_type} at offset {offset - 12}")
        left = len(data) - offset
        if count > left // SMALLEST[item_type]:
            raise ValueError(f"an array of {count} items of type {item_type} cannot fit in the {left} bytes left")
        if item_type in FORMATS:  # all the numbers in one call
            items = struct.unpack_from(f"<{count}{FORMATS[item_type][1]}", data, offset)
            return list(items), offset + count * SIZES[item_type]
        if item_type == STRING:  # the vocabulary and the merges: read_string inlined, a few times faster
            return _read_strings(data, offset, count)
        items = []
        for _ in range(count):  # strings, or arrays: each one says how long it is
            item, offset = read_value(data, offset, item_type)
            items.append(item)
        return items, offset
    raise ValueError(f"unknown value type {type_code} at offset {offset}")


def _read_strings(data: bytes, offset: int, count: int) -> tuple[list[str], int]:
    """``count`` strings one after another from ``offset``, as ``read_string`` reads each, and the offset after.

    >>> _read_strings(b"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00a\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00", 0, 2)
    (['a', ''], 17)
    """
    length_at = struct.Struct("<Q").unpack_from
    end = len(data)
    items = []
    for _ in range(count):
        if offset + 8 > end:
            _need(data, offset, 8, "the length of a string")
        (length,) = length_at(data, offset)
        offset += 8
        if offset + length > end:
            _need(data, offset, length, "a string")
        items.append(bytes(data[offset:offset + length]).decode("utf-8", "surrogateescape"))
        offset += length
    return items, offset


def read_metadata(data: bytes) -> dict[str, object]:
    """Every key/value pair of a GGUF v2/v3 file, in file order (the tensors after them are not read).

    >>> md = read_metadata(open("../data/synthetic/tiny-9.gguf", "rb").read())
    >>> md["tokenizer.ggml.model"], md["tokenizer.ggml.tokens"][:3]
    ('gpt2', ['<|endoftext|>', 'a', 'b'])
    """
    _need(data, 0, 24, "the GGUF header")
    magic, version, _tensor_count, kv_count = struct.unpack_from("<4sIQQ", data, 0)  # no tensor is read
    if magic != b"GGUF":
        raise ValueError(f"not a GGUF file: the magic is {magic!r}, not b'GGUF'")
    if version not in (2, 3):
        raise ValueError(f"GGUF version {version}: only versions 2 and 3 have this layout")
    offset = 24
    metadata: dict[str, object] = {}
    for _ in range(kv_count):  # a count too large runs out of bytes in read_string, within len(data) steps
        key, offset = read_string(data, offset)
        if not key:
            raise ValueError(f"an empty key at offset {offset - 8}")
        if key in metadata:
            raise ValueError(f"the key {key!r} appears twice")
        _need(data, offset, 4, f"the type code of {key!r}")
        (type_code,) = struct.unpack_from("<I", data, offset)
        metadata[key], offset = read_value(data, offset + 4, type_code)
    return metadata
