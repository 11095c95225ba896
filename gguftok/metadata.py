"""Read the key/value metadata of a GGUF file, fast and safely, without touching tensor data.

A GGUF file starts with a small header and a list of typed key/value pairs; the tokenizer lives in the
``tokenizer.ggml.*`` keys. Layout (v2 and v3; all integers little-endian, or big-endian in a BE file)::

    b"GGUF"  u32 version  u64 tensor_count  u64 kv_count
    kv_count times:  string key  u32 value_type  value
    string = u64 byte_length + UTF-8 bytes;  array = u32 element_type + u64 count + count values

>>> from gguftok.writer import gguf_bytes
>>> md = read_metadata(gguf_bytes({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": ["a", "b"]}))
>>> md["tokenizer.ggml.model"], md["tokenizer.ggml.tokens"], md.type_name("tokenizer.ggml.tokens")
('gpt2', ['a', 'b'], 'array[string]')

Values come back as plain Python objects: ``int``, ``float``, ``bool``, ``str``; arrays of strings as
``list[str]``; numeric and boolean arrays as read-only, native-order NumPy arrays; arrays of arrays as lists.

Strings are decoded as UTF-8 with ``errors="surrogateescape"``: llama.cpp treats token texts as raw bytes,
so a vocabulary with a token that is not valid UTF-8 must still load, and ``s.encode("utf-8",
"surrogateescape")`` gives the exact bytes back. Key names must be valid UTF-8.

Untrusted input: every length and count read from the file is checked against the bytes left in it before
anything is allocated or looped over, so a malformed file raises :class:`~gguftok.errors.GGUFError` (naming
the offset and the key) and never a crash, a hang or a huge allocation. Counts are also checked against what
a tokenizer can need (``max_keys`` pairs, ``max_array_items`` strings and inner arrays in all: see
:data:`MAX_KEYS`), since bytes alone do not bound memory: a pair or a string costs a Python object of 50 to
90 bytes for as few as 8 to 14 bytes of file. A file past a limit is refused from the count in its header,
before the loop, with one GGUFError naming the key, the count, the limit and the offset.

Why not ``gguf.GGUFReader``: it builds a NumPy view per string and per array element, which takes about 16 s
for the 151,936 tokens and 151,387 merges of Qwen2 on our 2-core machines (``bench/bench_metadata.py``);
this reader needs a small fraction of a second and returns the same values (``tests/test_metadata.py``).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
from collections.abc import Iterator, Mapping
from enum import IntEnum
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import GGUFError
from .sources.local import file_kind, open_regular_file  # (here for the modules that import them from here)

if TYPE_CHECKING:
    from .sources import Reader, ReadReport, Source

__all__ = ["GGUF_MAGIC", "MAX_ARRAY_ITEMS", "MAX_KEYS", "MAX_KEY_BYTES", "GGUFMetadata", "ValueType", "file_kind",
           "open_regular_file", "read_metadata"]

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
HEADER_SIZE = 24  # magic, version, tensor_count, kv_count
MAX_ARRAY_NESTING = 16  # the format allows arrays of arrays; nobody needs them this deep
_BULK_MIN = 256  # string arrays at least this long are read in bulk when they can be
# The bulk reader's window over the file: its candidate offsets cost up to 8 bytes per byte of window, so a
# crafted run of zero bytes must not grow it with the file (a model file is GBs). Real token and merge arrays
# are a few MB; a longer array is read by the loop, which allocates nothing per byte.
_BULK_MAX_WINDOW = 16 << 20
_BULK_CHUNK = 1 << 20  # the bulk reader decodes about this many bytes of strings at a time

# Limits on counts (issue 19, item 7). Bytes alone bound neither memory nor time: 85 MB of 20-byte pairs are
# 4.3 million keys (about 200 bytes of Python objects each: the key, its offset, three dict entries), and 240 MB
# of zero bytes are 30 million empty strings (a list of 240 MB; each short string that is not cached is a
# 50-90-byte object for 9-12 bytes of file). So the counts a file claims are checked against what a tokenizer
# can need, before anything is read; the caller can raise them (``read_metadata(..., max_keys=...)``).
# - MAX_KEYS: the vocabularies of llama.cpp carry 16 to 42 keys, whole model files 30 to a few hundred (a
#   multimodal MoE model); 16,384 leaves a margin of 40x over the largest, and costs at most ~6 MB and 0.1 s.
#   llama.cpp checks every new key against all the previous ones (quadratic), so it cannot load a few
#   million keys either.
# - MAX_ARRAY_ITEMS: the strings and inner arrays of all the arrays of a file together (numeric arrays are
#   NumPy arrays of one byte of memory per byte of file, and need no count limit). The largest vocabularies
#   have 250k-262k tokens (command-r 256,000; gemma 262,144) and 280k-515k merges (llama-bpe 280,147;
#   gemma-4 514,906); gemma-4's 777,050 strings are the most of data/vocab. 4,194,304 (2^22) is 5x that: a
#   vocabulary of a million tokens and two million merges still loads. Its cost is bounded: ~90 bytes per item
#   at worst, ~380 MB (against ~2.7 GB for the 32 million strings 256 MB could hold); an inner array counts as
#   8 items (_ARRAY_WEIGHT).
# - MAX_KEY_BYTES: the GGUF specification says a key "must be at most 2^16-1 bytes long"; error messages
#   quote the key, so a longer one (up to the whole file) would also be copied into every message.
MAX_KEYS = 1 << 14
MAX_ARRAY_ITEMS = 1 << 22
MAX_KEY_BYTES = (1 << 16) - 1
# An inner array (of an array of arrays) counts as this many items: it costs ~121 bytes and ~5 us to read,
# against ~60-90 bytes and ~0.5 us for a string; llama.cpp refuses arrays of arrays altogether.
_ARRAY_WEIGHT = 8
_DECODE_IN_PLACE = 1 << 16  # strings at least this long are decoded from a view of the buffer, not a copy


class ValueType(IntEnum):
    """The 13 GGUF value types (numbers as in ``gguf.GGUFValueType``; a test checks they agree)."""

    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12


# struct / NumPy codes of the fixed-size types (BOOL is read as int8, non-zero meaning true, like llama.cpp).
_FIXED_CODES = {
    ValueType.UINT8: "B", ValueType.INT8: "b", ValueType.UINT16: "H", ValueType.INT16: "h",
    ValueType.UINT32: "I", ValueType.INT32: "i", ValueType.FLOAT32: "f", ValueType.BOOL: "b",
    ValueType.UINT64: "Q", ValueType.INT64: "q", ValueType.FLOAT64: "d",
}
_NUMPY_CODES = {**_FIXED_CODES, ValueType.BOOL: "u1"}
_STRUCTS = {
    order: {vt: struct.Struct(order + code) for vt, code in _FIXED_CODES.items()} for order in "<>"
}
# Smallest number of bytes one element of each type can take: bounds counts before any loop.
_MIN_SIZE = {vt: s.size for vt, s in _STRUCTS["<"].items()} | {ValueType.STRING: 8, ValueType.ARRAY: 12}
_TYPE_NAMES = {vt: vt.name.lower() for vt in ValueType}


# The pairs whose bytes name the tables prepared from a vocabulary (GGUFMetadata.merges_digest).
DIGESTED_KEYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.merges")


class GGUFMetadata(Mapping[str, Any]):
    """The key/value pairs of one GGUF file, in file order, with their GGUF types and offsets.

    A read-only mapping from key to value, plus:

    - ``version`` (2 or 3), ``byte_order`` (``"little"`` or ``"big"``), ``tensor_count``;
    - ``types[key]``: the :class:`ValueType`, or for an array a tuple ``(ARRAY, element type, ...)``;
    - ``offsets[key]``: the byte offset of the key/value pair in the file;
    - ``kv_end``: the offset just past the last pair (where the tensor infos begin);
    - ``source``: the file's path or reference, or ``"<bytes>"``;
    - ``origin``: where the bytes came from and how many were read (a
      :class:`~gguftok.sources.base.ReadReport`), or ``None`` for bytes in memory;
    - ``merges_digest``: the sha256 (hex) of the bytes of the ``tokenizer.ggml.tokens`` and
      ``tokenizer.ggml.merges`` pairs as the file holds them, or ``None`` without both (or once
      :meth:`with_changes` replaced one): the name of the tables prepared from them (:mod:`gguftok.tables`);
    - ``tokens_digest``: the same for the ``tokenizer.ggml.tokens`` pair alone (the name of what is prepared from
      the token texts only: SentencePiece's junctions), or ``None``.
    """

    def __init__(self, source: str, version: int, byte_order: str, tensor_count: int,
                 values: dict[str, Any], types: dict[str, Any], offsets: dict[str, int], kv_end: int) -> None:
        self.source = source
        self.version = version
        self.byte_order = byte_order
        self.tensor_count = tensor_count
        self._values = values
        self.types = types
        self.offsets = offsets
        self.kv_end = kv_end
        self.origin: ReadReport | None = None
        self.merges_digest: str | None = None
        self.tokens_digest: str | None = None

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def with_changes(self, changes: Mapping[str, Any]) -> GGUFMetadata:
        """A copy with some values replaced (types kept or inferred from a like key), ``None`` removing a key.

        >>> from gguftok.writer import gguf_bytes
        >>> md = read_metadata(gguf_bytes({"tokenizer.ggml.pre": "qwen2"}))
        >>> md.with_changes({"tokenizer.ggml.pre": "tekken"})["tokenizer.ggml.pre"]
        'tekken'
        """
        values, types, offsets = dict(self._values), dict(self.types), dict(self.offsets)
        for key, value in changes.items():
            if value is None:
                values.pop(key, None)
                types.pop(key, None)
                offsets.pop(key, None)
                continue
            if key not in types:
                types[key] = _infer_type(value)
            values[key] = value
        md = GGUFMetadata(self.source, self.version, self.byte_order, self.tensor_count, values, types, offsets,
                          self.kv_end)
        md.origin = self.origin
        if not set(changes) & set(DIGESTED_KEYS):
            md.merges_digest = self.merges_digest
        if DIGESTED_KEYS[0] not in changes:
            md.tokens_digest = self.tokens_digest
        return md

    def type_name(self, key: str) -> str:
        """The GGUF type of ``key`` as text: ``"uint32"``, ``"string"``, ``"array[int32]"``, ..."""
        t = self.types[key]
        if isinstance(t, tuple):
            name = _TYPE_NAMES[t[-1]]
            for _ in t[:-1]:
                name = f"array[{name}]"
            return name
        return _TYPE_NAMES[t]

    def __repr__(self) -> str:
        return (f"<GGUFMetadata {self.source} v{self.version} {self.byte_order}-endian, "
                f"{len(self)} keys, {self.tensor_count} tensors>")


def _infer_type(value: Any) -> Any:
    if isinstance(value, bool):
        return ValueType.BOOL
    if isinstance(value, int):
        return ValueType.UINT32 if value >= 0 else ValueType.INT32
    if isinstance(value, float):
        return ValueType.FLOAT32
    if isinstance(value, str):
        return ValueType.STRING
    if isinstance(value, list) and value and isinstance(value[0], str):
        return (ValueType.ARRAY, ValueType.STRING)
    if isinstance(value, np.ndarray):
        codes = {np.dtype(c).newbyteorder("="): vt for vt, c in _NUMPY_CODES.items() if vt != ValueType.BOOL}
        return (ValueType.ARRAY, ValueType.BOOL if value.dtype == np.bool_ else codes[value.dtype])
    raise TypeError(f"cannot infer a GGUF type for {type(value).__name__}")


def read_metadata(source: Source | str | os.PathLike[str] | bytes | bytearray | memoryview, *,
                  max_keys: int = MAX_KEYS, max_array_items: int = MAX_ARRAY_ITEMS) -> GGUFMetadata:
    """Read every key/value pair of a GGUF v2/v3 file: the file's bytes, or where it is.

    ``source`` is the file's bytes, a path, any reference :func:`gguftok.sources.open_source` takes (the
    first shard of a split model, an ``https://`` URL, ``hf://owner/repo/file.gguf[@revision]``,
    ``ollama:model[:tag]``), or a :class:`~gguftok.sources.Source`. Only the bytes up to the end of the
    key/value section are read, a block at a time as the parse needs them: a local path is memory-mapped, so
    only the header pages of a multi-gigabyte model are read; a remote file is read with range requests.
    ``origin`` of the result says where the bytes came from and how many were read.

    A local path must be a regular file (a device, FIFO or directory is a :class:`~gguftok.errors.GGUFError`,
    never read), since the file's size is what every length and count in it is checked against.
    ``max_keys`` and ``max_array_items`` bound the number of key/value pairs and the number of strings and
    inner arrays in all the arrays of the file (:data:`MAX_KEYS`, :data:`MAX_ARRAY_ITEMS`: generous for any
    real model); a file that claims more is refused before it is read further. With them, the memory a parse
    allocates stays within 4 times the bytes read plus about ``400 * max_keys + 160 * max_array_items``
    bytes and a few MB (``tests/test_metadata_limits.py`` measures it).

    Raises :class:`~gguftok.errors.GGUFError` if the file is malformed or past a limit,
    :class:`~gguftok.errors.SourceError` if a remote file cannot be had, ``OSError`` if a local one cannot be
    opened.
    """
    limits = {"max_keys": max_keys, "max_array_items": max_array_items}
    for name, value in limits.items():
        if not (isinstance(value, int) and value >= 0):
            raise ValueError(f"{name} must be a non-negative int, not {value!r}")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _Parser(bytes(source), "<bytes>", **limits).parse()
    from .sources import as_source

    src = as_source(source)
    with src.open() as reader:
        md = _Parser(b"", reader.name, reader=reader, **limits).parse()
        reader.done(md.kv_end)
    md.origin = src.report
    return md


class _Parser:
    """One pass over the key/value section; ``buf`` is ``bytes`` or an ``mmap`` (slicing gives ``bytes``).

    From a ``reader`` (:mod:`gguftok.sources`), the bytes arrive as the parse needs them: ``size`` is the whole
    file's, which every length is checked against; ``avail`` how many of its first bytes ``buf`` holds so far,
    and :meth:`ensure` asks the reader for more. Nothing is read past ``avail`` but the next string of the
    loop in an ``mmap`` (which the reader then counts), so a parse reads at most one block past the end of the
    key/value section.
    """

    def __init__(self, buf: bytes | mmap.mmap, source: str, *, reader: Reader | None = None,
                 max_keys: int = MAX_KEYS, max_array_items: int = MAX_ARRAY_ITEMS) -> None:
        self.source = source
        self.key: str | None = None  # the key being read, for error messages
        self.order = "<"
        self.reader = reader
        self.max_keys = max_keys
        self.max_items = max_array_items
        self.items = 0  # strings and inner arrays of the arrays read so far
        if reader is None:
            self.buf, self.size = buf, len(buf)
            self.avail = self.size
        else:
            self.size = reader.size
            self.buf, self.avail = reader.read_to(min(self.size, HEADER_SIZE))

    def ensure(self, end: int) -> None:
        """Make the file's bytes up to ``end`` (at most its size) available in ``buf``."""
        if end > self.avail and self.reader is not None:
            self.buf, self.avail = self.reader.read_to(min(end, self.size))

    def fail(self, message: str, offset: int) -> GGUFError:
        return GGUFError(message, source=self.source, offset=offset, key=self.key)

    def need(self, offset: int, nbytes: int, what: str) -> None:
        if offset + nbytes > self.size:
            raise self.fail(f"{what} needs {nbytes} bytes but the file ends after {self.size - offset}", offset)
        if offset + nbytes > self.avail:
            self.ensure(offset + nbytes)

    def parse(self) -> GGUFMetadata:
        buf = self.buf
        if self.size < 4 or buf[:4] != GGUF_MAGIC:
            raise self.fail(f"not a GGUF file: magic is {bytes(buf[:4])!r}, expected {GGUF_MAGIC!r}", 0)
        self.need(0, HEADER_SIZE, "the GGUF header")
        (version,) = struct.unpack_from("<I", buf, 4)
        if version & 0xFFFF == 0 and struct.unpack_from(">I", buf, 4)[0] in SUPPORTED_VERSIONS:
            self.order = ">"
            (version,) = struct.unpack_from(">I", buf, 4)
        if version not in SUPPORTED_VERSIONS:
            raise self.fail(f"unsupported GGUF version {version} (this reader reads versions 2 and 3)", 4)
        tensor_count, kv_count = struct.unpack_from(self.order + "QQ", buf, 8)
        off = HEADER_SIZE
        # Each pair takes at least 8 (key length) + 1 (key) + 4 (type) + 1 (smallest value) bytes.
        if kv_count > (self.size - off) // 14:
            raise self.fail(f"the header claims {kv_count} key/value pairs; "
                            f"the {self.size - off} bytes left hold at most {(self.size - off) // 14}", 16)
        if kv_count > self.max_keys:
            raise self.fail(f"the header claims {kv_count:,} key/value pairs; the limit is {self.max_keys:,} "
                            f"(real models have fewer than a thousand; read_metadata(..., max_keys=N) raises it)", 16)
        structs = _STRUCTS[self.order]
        u32 = structs[ValueType.UINT32]
        values: dict[str, Any] = {}
        types: dict[str, Any] = {}
        offsets: dict[str, int] = {}
        for _ in range(kv_count):
            start = off
            self.key = None
            key, off = self.string(off, "a key", strict=True)
            if not key:
                raise self.fail("empty key", start)
            if key in values:
                raise self.fail(f"duplicate key {key!r} (first at offset {offsets[key]})", start)
            self.key = key
            self.need(off, 4, "the value type")
            (vtype,) = u32.unpack_from(self.buf, off)
            values[key], types[key], off = self.value(vtype, off + 4, 0)
            offsets[key] = start
        md = GGUFMetadata(self.source, version, "little" if self.order == "<" else "big",
                          tensor_count, values, types, offsets, off)
        md.tokens_digest, md.merges_digest = self.digest(offsets, off)
        return md

    def digest(self, offsets: dict[str, int], kv_end: int) -> tuple[str | None, str | None]:
        """``(tokens_digest, merges_digest)``: the sha256 of the bytes of the tokens pair (each pair from its key to
        the next pair), and of the pairs of ``DIGESTED_KEYS`` in that order, ``None`` where the file lacks one. One
        pass, about 1 ms a MB (Qwen2's: 4.5 ms)."""
        tokens, merges = DIGESTED_KEYS
        if tokens not in offsets:
            return None, None
        ends = dict(pairwise([*sorted(offsets.values()), kv_end]))
        h = hashlib.sha256()
        with memoryview(self.buf) as view:
            h.update(view[offsets[tokens]:ends[offsets[tokens]]])
            tokens_digest = h.hexdigest()
            if merges not in offsets:
                return tokens_digest, None
            h.update(view[offsets[merges]:ends[offsets[merges]]])
        return tokens_digest, h.hexdigest()

    def string(self, off: int, what: str, strict: bool = False) -> tuple[str, int]:
        """A string at ``off``; ``strict``: a key (valid UTF-8, at most :data:`MAX_KEY_BYTES` long)."""
        self.need(off, 8, f"the length of {what}")
        (n,) = _STRUCTS[self.order][ValueType.UINT64].unpack_from(self.buf, off)
        off += 8
        if strict and n > MAX_KEY_BYTES:
            raise self.fail(f"{what} of {n:,} bytes: GGUF keys are at most {MAX_KEY_BYTES:,} bytes long", off - 8)
        self.need(off, n, f"{what} of {n} bytes")
        errors = "strict" if strict else "surrogateescape"
        try:
            if n < _DECODE_IN_PLACE:
                return self.buf[off:off + n].decode("utf-8", errors), off + n
            with memoryview(self.buf) as whole, whole[off:off + n] as view:  # no copy of a long string's bytes
                return str(view, "utf-8", errors), off + n
        except UnicodeDecodeError as e:
            raise self.fail(f"{what} is not valid UTF-8 ({e.reason} at byte {e.start})", off - 8) from None

    def value(self, vtype: int, off: int, depth: int) -> tuple[Any, Any, int]:
        """Read one value of type ``vtype`` at ``off``: returns (value, its type, offset after it)."""
        if vtype == ValueType.STRING:
            s, off = self.string(off, "a string value")
            return s, ValueType.STRING, off
        if vtype == ValueType.ARRAY:
            return self.array(off, depth)
        try:
            vt = ValueType(vtype)
        except ValueError:
            raise self.fail(f"unknown value type {vtype} (GGUF has types 0 to 12)", off - 4) from None
        s = _STRUCTS[self.order][vt]
        self.need(off, s.size, f"a {_TYPE_NAMES[vt]} value")
        (v,) = s.unpack_from(self.buf, off)
        return (v != 0 if vt == ValueType.BOOL else v), vt, off + s.size

    def array(self, off: int, depth: int) -> tuple[Any, Any, int]:
        if depth >= MAX_ARRAY_NESTING:
            raise self.fail(f"arrays nested more than {MAX_ARRAY_NESTING} deep", off)
        self.need(off, 12, "an array header")
        etype, count = struct.unpack_from(self.order + "IQ", self.buf, off)
        off += 12
        try:
            et = ValueType(etype)
        except ValueError:
            raise self.fail(f"unknown array element type {etype} (GGUF has types 0 to 12)", off - 12) from None
        left = self.size - off
        if count > left // _MIN_SIZE[et]:
            raise self.fail(f"an array of {count} {_TYPE_NAMES[et]} elements cannot fit "
                            f"in the {left} bytes left in the file", off - 8)
        if et in (ValueType.STRING, ValueType.ARRAY):  # Python objects, one per item: bounded by count
            weight = _ARRAY_WEIGHT if et == ValueType.ARRAY else 1
            if count * weight > self.max_items - self.items:
                before = f" (with the {self.items:,} of the arrays before it)" if self.items else ""
                each = f" (each inner array counts as {weight})" if weight > 1 else ""
                raise self.fail(f"an array of {count:,} {_TYPE_NAMES[et]} items{each} is past the limit of "
                                f"{self.max_items:,} strings and inner arrays per file{before}; real "
                                f"vocabularies have at most about a million; read_metadata(..., "
                                f"max_array_items=N) raises it", off - 8)
            self.items += count * weight
        if et == ValueType.STRING:
            strings, off = self.string_array(off, count)
            return strings, (ValueType.ARRAY, ValueType.STRING), off
        if et == ValueType.ARRAY:
            items = []
            inner: Any = (ValueType.ARRAY, ValueType.UINT8)  # the element type of an empty array of arrays
            for _ in range(count):
                item, inner, off = self.array(off, depth + 1)
                items.append(item)
            return items, (ValueType.ARRAY, *inner), off
        nbytes = count * _MIN_SIZE[et]
        self.ensure(off + nbytes)  # it fits in the file: checked above
        dtype = np.dtype(self.order + _NUMPY_CODES[et])
        arr = np.frombuffer(self.buf[off:off + nbytes], dtype=dtype)
        if et == ValueType.BOOL:
            arr = arr != 0
        elif not dtype.isnative:
            arr = arr.astype(dtype.newbyteorder("="))  # a file of the other byte order than this host
        arr.flags.writeable = False
        return arr, (ValueType.ARRAY, et), off + nbytes

    def string_array(self, off: int, count: int) -> tuple[list[str], int]:
        """``count`` strings from ``off``: in bulk when :meth:`string_array_bulk` can, else one by one."""
        if count >= _BULK_MIN:
            found = self.string_array_bulk(off, count)
            if found is not None:
                return found
        return self.string_array_loop(off, count)

    def string_array_bulk(self, off: int, count: int) -> tuple[list[str], int] | None:
        """The strings of an array in a few NumPy passes, or ``None`` when this shortcut does not apply.

        Each string is a u64 length and its bytes, so a loop must read the lengths one after the other. But
        the length of a string shorter than 256 bytes (most tokens and merges) has seven zero bytes, so every
        offset where the eight bytes read as a number below 256 is a *candidate*. From a known offset ``p``,
        the next string starts at ``p + 8 + length(p)``; a run of candidates in which each one is its
        predecessor's next is a run of real strings, by induction. Where a run breaks (a string of 256 bytes
        or more, which is no candidate; or zero bytes inside a string, which make a false one), one step of
        the loop finds the next real offset and the runs go on from there.

        The strings are then decoded a chunk of about a MB at a time (so that the copies stay small), in one
        call per chunk: each length field becomes a 0xFF byte (never part of UTF-8, so it decodes alone, as
        U+DCFF) and seven NULs, the NULs are deleted, and the text is split at U+DCFF. ``None`` if a string
        holds a NUL or a 0xFF byte itself, if the runs break too often, if zero bytes make far more
        candidates than strings, or if something does not fit: then the loop reads the array (and names any
        error).
        """
        dtype = np.dtype(self.order + "u8")
        if self.size - off < 8 * count:
            return None
        room = min(self.size - off - 7, _BULK_MAX_WINDOW)  # offsets from which eight bytes can be read
        covered = 0  # candidates are known for the offsets below this (a model file goes on for GBs)
        fields = np.ndarray((0,), dtype=dtype)
        cand = np.empty(0, dtype=np.int32)  # window offsets (< 2^31)
        runs: list[np.ndarray] = []
        found = breaks = 0
        span = 1024
        pos = 0  # relative to off
        while found < count:
            if pos >= covered:
                if covered == room or off + pos + 8 > self.size:
                    return None
                self.ensure(off + pos + 8)  # the window grows over the bytes there are, not past them
                grown = min(room, max(2 * covered, count * 12, pos + 4096), self.avail - off - 7)
                fields = np.ndarray((grown,), dtype=dtype, buffer=self.buf, offset=off, strides=(1,))
                small = fields[covered:] < 256
                # The real strings are count candidates; zero bytes inside them and in what follows the array
                # (runs of 0.0 scores) make more. A run of zero bytes makes every offset one (8 per empty
                # string: 4 bytes of candidate per byte of file); past 2 per string and a margin, the loop is
                # cheaper.
                if len(cand) + int(np.count_nonzero(small)) > 2 * count + (1 << 20):
                    return None
                if covered == 0:  # the first 8 * count bytes are the array's: at most 1 string in 8 bytes
                    head = min(8 * count, grown)
                    if np.count_nonzero(small[:head]) > head // 8 + head // 32 + 64:  # zero bytes: the loop
                        return None
                cand = np.concatenate((cand, covered + np.flatnonzero(small).astype(np.int32)))
                del small
                covered = grown
                if pos >= covered:  # past the end of the file
                    return None
            k = int(np.searchsorted(cand, np.int32(pos)))  # pos < covered <= 16 MB; an int64 would copy cand
            if k < len(cand) and cand[k] == pos:
                # Candidates are checked ``span`` at a time, doubling while runs go on, back to 1,024 where
                # one breaks: a break wastes at most twice the strings found before it, not 65,536
                # checks (zero bytes, which break a run at every candidate, made that 4096 x 65,536).
                run = cand[k:k + min(count - found, span)]
                nxt = run + 8 + fields[run].astype(np.int64)
                bad = np.flatnonzero(run[1:] != nxt[:-1])
                m = int(bad[0]) + 1 if len(bad) else len(run)
                runs.append(run[:m])
                found += m
                pos = int(nxt[m - 1])
                if m == len(run):
                    span = min(2 * span, 65536)
                    continue
                span = 1024
            else:  # a long string: one step of the loop
                length = int(fields[pos])
                if length > 1 << 20:  # the loop reads it without a window over the bytes it skips
                    return None
                runs.append(np.array([pos]))
                found += 1
                pos += 8 + length
            breaks += 1
            if breaks > min(4096, 16 + count // 64):  # real arrays break at 1 string in 2,000 at most
                return None
        if pos > self.size - off:
            return None
        self.ensure(off + pos)
        starts = np.concatenate(runs).astype(np.int64)
        del runs, cand
        # A chunk of about _BULK_CHUNK bytes at a time: its copies (the bytes, the text) stay small.
        step = max(1, int(count * _BULK_CHUNK // max(pos, 1)))
        out: list[str] = [""] * count if step < count else []
        for i in range(0, count, step):
            j = min(i + step, count)
            a, b = int(starts[i]), (int(starts[j]) if j < count else pos)
            region = np.frombuffer(self.buf, dtype=np.uint8, count=b - a, offset=off + a).copy()
            rel = starts[i:j] - a
            np.ndarray((b - a - 7,), dtype=dtype, buffer=region, strides=(1,))[rel] = 0  # each field: 8 NULs
            if np.count_nonzero(region) != (b - a) - 8 * (j - i):  # a string with a NUL of its own
                return None
            region[rel] = 0xFF
            if np.count_nonzero(region == 0xFF) != j - i:  # a string with a 0xFF byte of its own
                return None
            text = region.tobytes().translate(None, b"\0").decode("utf-8", "surrogateescape")
            if step >= count:
                return text.split("\udcff")[1:], off + pos
            out[i:j] = text.split("\udcff")[1:]
        return out, off + pos

    def string_array_loop(self, off: int, count: int) -> tuple[list[str], int]:
        """The reader's loop over an array of strings.

        The fast path checks nothing per string: ``unpack_from`` raises once a length would be read past
        the end of ``buf`` (or at an offset too large for it), and a string running past it shows as
        ``off > avail`` afterwards. Past the end of the file, the careful loop runs again to name the string
        at fault; before it (a remote file arriving a block at a time), the loop asks for more and goes on
        from the string it stopped at.
        """
        unpack = _STRUCTS[self.order][ValueType.UINT64].unpack_from
        out = [""] * count  # count <= bytes left / 8, checked by the caller
        start = off
        i = n = 0
        while True:
            buf, resume = self.buf, i
            try:
                for i in range(resume, count):
                    (n,) = unpack(buf, off)
                    out[i] = buf[off + 8:off + 8 + n].decode("utf-8", "surrogateescape")
                    off += 8 + n
                i = count
            except (struct.error, OverflowError):  # the length of string i is past the end of buf
                pass
            if off > self.avail:  # string i - 1 ran past the bytes there are: they were cut short
                if off > self.size:
                    self.string_array_error(start, count)
                self.ensure(off)
                out[i - 1] = self.buf[off - n:off].decode("utf-8", "surrogateescape")
            elif i < count:
                if off + 8 > self.size:
                    self.string_array_error(start, count)
                self.ensure(off + 8)
            if i == count:
                return out, off

    def string_array_error(self, off: int, count: int) -> None:
        unpack = _STRUCTS[self.order][ValueType.UINT64].unpack_from
        for i in range(count):
            if off + 8 > self.size:
                raise self.fail(f"string {i} of {count}: its length needs 8 bytes but the file ends", off)
            self.ensure(off + 8)
            (n,) = unpack(self.buf, off)
            if off + 8 + n > self.size:
                raise self.fail(f"string {i} of {count} claims {n} bytes; "
                                f"the file ends after {self.size - off - 8}", off)
            off += 8 + n
        raise AssertionError("string_array_error found no error")  # pragma: no cover
