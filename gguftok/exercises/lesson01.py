"""Lesson 01 · the GGUF key/value reader, written in the student's ``mytok/metadata.py``: one string, one
value of any of the 13 types (arrays of any type, nested ones too), then the whole key/value section, with
every length and count checked against the bytes there are.

The expected values are ``gguftok.metadata``'s (its arrays of numbers turned into lists; a NaN agrees with a
NaN). A file of ``data/`` is checked key by key, the student's reader running once per file. An array of
more than ``_BIG`` items is kept by the cases as its length and a fingerprint, not its items: the check
compares the student's array with it (item by item, against a fresh read of gguftok's, only when they
differ), and the case shows either that they agree or the first item that differs. So a check keeps no copy
of 19 vocabularies in memory, reads each with gguftok's reader once, and names the token that is wrong.
"""

from __future__ import annotations

import math
import struct
import time
import tracemalloc
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..data import vocab_dir
from ..metadata import ValueType, _Parser, read_metadata
from ._core import Case, Exercise, Property, agree, short
from ._data import SYNTHETIC, random_text, rng, vocab_file

_TINY = SYNTHETIC / "tiny-9.gguf"
(UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64,
 FLOAT64) = range(13)
_FORMATS = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
            BOOL: "<B", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}
_NAMES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64",
          "int64", "float64"]
_BIG = 1000  # arrays longer than this are compared in the check (see the module docstring)


# ------------------------------------------------------------------------------------- writing test bytes
def _pack(code: int, value: Any) -> bytes:
    """``value`` as GGUF bytes of type ``code``: an array is ``(item_code, items)``, a string str or bytes."""
    if code == STRING:
        raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
        return struct.pack("<Q", len(raw)) + raw
    if code == ARRAY:
        item_code, items = value
        return struct.pack("<IQ", item_code, len(items)) + b"".join(_pack(item_code, v) for v in items)
    return struct.pack(_FORMATS[code], value)


def _gguf(pairs: list[tuple[str, int, Any]], version: int = 3, tensors: int = 0, count: int | None = None) -> bytes:
    """A GGUF file of ``(key, code, value)`` pairs (``count`` overrides the number the header claims)."""
    body = b"".join(_pack(STRING, key) + struct.pack("<I", code) + _pack(code, value) for key, code, value in pairs)
    return b"GGUF" + struct.pack("<IQQ", version, tensors, len(pairs) if count is None else count) + body


def _type_name(code: int, value: Any) -> str:
    if code == ARRAY:
        item_code, items = value
        return f"array[{_type_name(item_code, items[0]) if item_code == ARRAY and items else _NAMES[item_code]}]"
    return _NAMES[code]


def _random_value(r, code: int, depth: int = 0) -> Any:
    """A random value of type ``code`` in the form ``_pack`` takes."""
    if code in (UINT8, UINT16, UINT32, UINT64):
        bits = {UINT8: 8, UINT16: 16, UINT32: 32, UINT64: 64}[code]
        return r.choice([0, 1, (1 << bits) - 1, r.randrange(1 << bits), r.randrange(min(300, 1 << bits))])
    if code in (INT8, INT16, INT32, INT64):
        bits = {INT8: 8, INT16: 16, INT32: 32, INT64: 64}[code]
        return r.choice([0, -1, -(1 << (bits - 1)), (1 << (bits - 1)) - 1, r.randrange(-(1 << (bits - 1)),
                                                                                       1 << (bits - 1))])
    if code in (FLOAT32, FLOAT64):
        x = r.choice([0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, 1e-45, r.uniform(-1e6, 1e6), r.uniform(-1, 1)])
        return struct.unpack("<f", struct.pack("<f", x))[0] if code == FLOAT32 else x
    if code == BOOL:
        return r.choice([0, 1, 1, 0, 2, 255])  # a byte: non-zero is true
    if code == STRING:
        raw = random_text(r, "abcĠĊ <|>é世😀", 0, 8).encode()
        return raw + bytes([r.choice([0x80, 0xFF, 0xC3])]) if r.random() < 0.15 else raw
    item_code = r.choice([c for c in range(13) if c != ARRAY or depth < 2])
    return item_code, [_random_value(r, item_code, depth + 1) for _ in range(r.randint(0, 5))]


def _plain(value: Any) -> Any:
    """gguftok's value with its NumPy arrays as lists (the student's reader returns lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _NaN:
    """Stands for a NaN on both sides of a comparison: NaN is not equal to itself, but a reader that reads a
    NaN where the file has one is right."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _NaN)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "nan"


_NAN = _NaN()


def _comparable(value: Any) -> Any:
    """``value`` with every float NaN replaced by ``_NAN`` (lists, tuples and dicts walked)."""
    if isinstance(value, float | np.floating):
        return _NAN if value != value else value
    if isinstance(value, list | tuple):
        return type(value)(_comparable(v) for v in value)
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    return value


class _Missing:
    def __repr__(self) -> str:
        return "(no such key)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Missing)

    def __hash__(self) -> int:
        return 1


_MISSING = _Missing()


# --------------------------------------------------------------------------------------------- read_string
def _ref_string(data: bytes, offset: int) -> tuple[str, int]:
    return _Parser(bytes(data), "<bytes>").string(offset, "a string")


def _string_examples() -> list[Case]:
    tiny = _TINY.read_bytes()
    return [Case((tiny, 24), "read_string(<the bytes of tiny-9.gguf>, 24)"),
            Case((tiny, 69), "read_string(<the bytes of tiny-9.gguf>, 69)"),
            Case((tiny, 101), "read_string(<the bytes of tiny-9.gguf>, 101)"),
            Case((_pack(STRING, "Ġworld"), 0)),
            Case((b"xyz" + _pack(STRING, b""), 3)),
            Case((_pack(STRING, b"\xf0\x9f") + b"rest", 0)),
            Case((b"\x05\x00\x00\x00\x00\x00\x00\x00abc", 0)),
            Case((b"\x03\x00\x00", 0))]


def _string_generated() -> list[Case]:
    r = rng(101)
    cases = []
    for _ in range(150):
        raw = _random_value(r, STRING)
        prefix = bytes(r.randrange(256) for _ in range(r.randint(0, 6)))
        blob = prefix + _pack(STRING, raw) + bytes(r.randrange(256) for _ in range(r.randint(0, 4)))
        if r.random() < 0.08:
            blob = blob[: len(prefix) + r.randint(0, 8 + len(raw) - 1)]  # cut short: must raise
        cases.append(Case((blob, len(prefix))))
    cases += [Case((struct.pack("<Q", n) + b"abc", 0)) for n in (2**63, 2**64 - 1, 4)]  # absurd lengths
    for name in ("qwen2", "llama-bpe", "gpt-2", "llama-spm", "bert-bge"):
        path = vocab_file(name)
        if path is None:
            continue
        md = read_metadata(path)
        blob = path.read_bytes()
        for key, off in list(md.offsets.items())[:6]:
            end = off + 8 + len(key.encode()) + 16
            cases.append(Case((blob[:end], off), f"read_string(<the first {end} bytes of {path.name}>, {off})"
                                                 f"  # the key {key!r}", copy=False))
    return cases


read_string = Exercise(
    id="01.read_string",
    title="read one GGUF string",
    statement=(
        "Every key and every string value of a GGUF file is stored the same way: a little-endian unsigned 64-bit\n"
        "byte count, then that many bytes of UTF-8. Write `read_string(data, offset)` that reads the string\n"
        "starting at `offset` of the bytes `data` and returns it with the offset just after it.\n\n"
        "- Decode with `errors=\"surrogateescape\"`: a token may be part of a character, and its exact bytes\n"
        "  must survive (`s.encode(\"utf-8\", \"surrogateescape\")` gives them back).\n"
        "- If `data` ends before the 8-byte count or before the string's last byte, raise `ValueError`: the\n"
        "  count comes from the file, and a damaged file can claim any number, up to 2**64 - 1.\n\n"
        "`struct.unpack_from(\"<Q\", data, offset)` reads the count. The cases: the keys of `tiny-9.gguf` and of\n"
        "five real vocabularies, random strings (some not valid UTF-8, some cut short), absurd counts."),
    template="",
    reference=_ref_string,
    reference_name="gguftok.metadata's string reader",
    examples=_string_examples,
    generated=_string_generated,
    module="metadata",
)


# ---------------------------------------------------------------------------------------------- read_value
def _ref_value(data: bytes, offset: int, type_code: int) -> tuple[Any, int]:
    value, _, end = _Parser(bytes(data), "<bytes>").value(type_code, offset, 0)
    return _plain(value), end


def _value_case(code: int, value: Any, prefix: bytes = b"", suffix: bytes = b"", cut: int | None = None) -> Case:
    blob = prefix + _pack(code, value) + suffix
    if cut is not None:
        blob = blob[:cut]
    return Case((blob, len(prefix), code))


def _value_examples() -> list[Case]:
    return [_value_case(UINT32, 42),
            _value_case(INT8, -1),
            _value_case(FLOAT32, 1.5, prefix=b"ab"),
            _value_case(BOOL, 1),
            _value_case(STRING, "Ġworld"),
            _value_case(UINT64, 2**64 - 1),
            _value_case(ARRAY, (INT32, [7, -8, 9])),
            _value_case(ARRAY, (STRING, ["a b", "Ġ t"])),
            _value_case(ARRAY, (ARRAY, [(UINT8, [1, 2]), (STRING, ["x"])])),
            _value_case(UINT16, 513, cut=1),
            Case((b"\x00" * 8, 0, 13))]


_ABSURD = (10**7, 2**40, 2**62, 2**64 - 1)


def _value_generated() -> list[Case]:
    r = rng(103)
    cases = []
    for code in range(13):  # every type, with random neighbours around it
        for _ in range(14):
            prefix = bytes(r.randrange(256) for _ in range(r.randint(0, 5)))
            suffix = bytes(r.randrange(256) for _ in range(r.randint(0, 5)))
            cases.append(_value_case(code, _random_value(r, code), prefix, suffix))
    for item_code in range(13):  # arrays of each type, empty to a few items
        for n in (0, 1, 3, 6):
            cases.append(_value_case(ARRAY, (item_code, [_random_value(r, item_code, 1) for _ in range(n)])))
    for _ in range(60):  # cut short anywhere: must raise
        code = r.choice([*range(13), ARRAY, ARRAY, STRING])
        blob = _pack(code, _random_value(r, code))
        cases.append(Case((blob[:r.randrange(len(blob))], 0, code)))
    for item_code in (UINT8, UINT32, FLOAT64, BOOL, STRING, ARRAY):  # counts the bytes cannot hold
        for count in _ABSURD:
            cases.append(Case((struct.pack("<IQ", item_code, count) + bytes(40), 0, ARRAY),
                              f"read_value(<an array header: {count:,} items of type {item_code} "
                              f"({_NAMES[item_code]}), then 40 zero bytes>, 0, 9)"))
    cases += [Case((bytes(16), 0, code)) for code in (13, 14, 99, 2**31, 2**32 - 1)]  # no such type
    cases += [Case((struct.pack("<IQ", code, 1) + bytes(16), 0, ARRAY)) for code in (13, 200)]
    cases.append(Case((struct.pack("<IQ", ARRAY, 1) + struct.pack("<IQ", 13, 0), 0, ARRAY)))
    for name in ("qwen2", "llama-spm", "gemma-4", "aquila", "nomic-bert-moe"):  # the small values of real files
        path = vocab_file(name)
        if path is None:
            continue
        md = read_metadata(path)
        blob = path.read_bytes()
        starts = [*md.offsets.values(), md.kv_end]
        for (key, start), end in zip(md.offsets.items(), starts[1:], strict=True):
            value = md[key]
            if hasattr(value, "__len__") and not isinstance(value, str) and len(value) > 64:
                continue
            at = 8 + len(key.encode())
            (code,) = struct.unpack_from("<I", blob, start + at)
            cases.append(Case((blob[start:end], at + 4, code),
                              f"read_value(<the pair of {key!r} in {path.name}>, {at + 4}, {code})", copy=False))
    return cases


def _allocation(fn, args: tuple, what: str, limit: int = 4 << 20) -> str | None:
    """``None`` if ``fn(*args)`` raises ``ValueError`` within a second, having allocated less than ``limit``
    bytes, else what was measured."""
    tracing = tracemalloc.is_tracing()  # someone may be tracing already: then only the peak is reset
    if tracing:
        tracemalloc.reset_peak()
    else:
        tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    try:
        fn(*args)
    except ValueError:
        problem = None
    except Exception as e:
        problem = f"on {what}, it raised {type(e).__name__} ({short(str(e), 80)}) instead of ValueError"
    else:
        problem = f"on {what}, it returned instead of raising ValueError"
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] - before
    if not tracing:
        tracemalloc.stop()
    if problem is None and peak > limit:
        problem = (f"on {what}, it allocated {peak / 1e6:.0f} MB before raising ValueError: compare the count "
                   f"with the bytes left before making room for the items")
    if problem is None and seconds > 1:
        problem = f"on {what}, it took {seconds:.1f} s to raise ValueError"
    return problem


def _value_allocation(fn) -> str | None:
    for item_code in (STRING, UINT32, ARRAY):
        blob = struct.pack("<IQ", item_code, 10**7) + bytes(40)
        problem = _allocation(fn, (blob, 0, ARRAY),
                              f"an array header claiming 10,000,000 {_NAMES[item_code]} items, then 40 bytes")
        if problem:
            return problem
    return None


read_value = Exercise(
    id="01.read_value",
    title="read one value of any GGUF type",
    statement=(
        "After its key, each pair stores a type code (unsigned 32-bit) and a value of that type. Write\n"
        "`read_value(data, offset, type_code)` that reads the value at `offset` and returns it with the offset\n"
        "just after it.\n\n"
        "- The fixed-size types, little-endian: 0 uint8, 1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32,\n"
        "  6 float32, 7 bool (one byte, any non-zero byte is `True`: return a `bool`), 10 uint64, 11 int64,\n"
        "  12 float64. Type 8 is a string (your `read_string`).\n"
        "- Type 9 is an array: the item type (u32), the number of items (u64), then the items one after the\n"
        "  other. Return them as a Python `list`. The items can be of any type, strings and arrays too (each\n"
        "  inner array with its own item type and count).\n"
        "- Raise `ValueError` for a type code that does not exist, and for a value the bytes do not hold. An array\n"
        "  can claim up to 2**64 - 1 items: compare the count with the bytes left (each item takes at least\n"
        "  its size, 8 bytes for a string, 12 for an array) **before** looping or making room for the items.\n\n"
        "The cases: every type between random bytes, arrays of every item type, nested arrays, values cut\n"
        "short, absurd counts, unknown types, the small values of five real vocabularies; then what your reader\n"
        "allocates for an array that claims ten million items in 40 bytes."),
    template="",
    reference=_ref_value,
    reference_name="gguftok.metadata's value reader",
    examples=_value_examples,
    generated=_value_generated,
    module="metadata",
    properties=lambda: [Property("it must refuse an array whose count the bytes cannot hold before making room "
                                 "for its items", _value_allocation)],
)


# ------------------------------------------------------------------------------------------- read_metadata
def _values(path: Path) -> dict[str, Any]:
    """gguftok's values of a file, arrays as lists."""
    md = read_metadata(path)
    string_array = (ValueType.ARRAY, ValueType.STRING)  # already a list of str: nothing to convert
    return {k: v if md.types[k] == string_array else _plain(v) for k, v in md.items()}


@lru_cache(maxsize=1)
def _theirs(path: Path) -> dict[str, Any]:
    """:func:`_values`, for the one file whose long array is being compared item by item."""
    return _values(path)


def _fingerprint(items: list) -> tuple | None:
    """Equal for two lists of equal items of the same types (``None`` if an item cannot be hashed)."""
    try:
        return hash(tuple(items)), frozenset(map(type, items))
    except TypeError:
        return None


@dataclass(frozen=True)
class _Long:
    """A long array as the cases keep it: its length and fingerprint, not its items."""

    length: int
    fingerprint: tuple | None

    @property
    def text(self) -> str:
        return f"all {self.length:,} items as gguftok reads them"


@cache
def _summary(path: Path) -> dict[str, Any]:
    """Per key of a file: gguftok's value, or for an array longer than ``_BIG`` a :class:`_Long`."""
    return {k: _Long(len(v), _fingerprint(v)) if isinstance(v, list) and len(v) > _BIG else _comparable(v)
            for k, v in _values(path).items()}


_MINE: list[Any] = [None, None, None]  # the function last run, the file, its answer (one file at a time)


def _budget(size: int) -> float:
    """Seconds a reader may take on a file of ``size`` bytes: far more than one that reads each byte once
    needs (a plain reader as notebook 01 describes it reads the largest vocabulary, 16 MB, in about 0.4 s),
    far less than one that copies the whole file at every string."""
    return 2 + size / 1e6


def _mine(fn, path: Path) -> Any:
    """The student's answer for a whole file, read once for all the cases of that file; ``TimeoutError``
    after it if the reading took longer than :func:`_budget`, so that a reader that is quadratic in the file
    stops on the first (smallest) real vocabulary instead of running for hours on the rest."""
    if _MINE[0] is not fn or _MINE[1] != path:
        _MINE[:] = [None, None, None]
        data = path.read_bytes()
        start = time.perf_counter()
        answer = fn(data)
        seconds = time.perf_counter() - start
        if seconds > _budget(len(data)):
            raise TimeoutError(f"reading {path.name} ({len(data) / 1e6:.1f} MB) took {seconds:.1f} s, more than "
                               f"{_budget(len(data)):.0f} s: does something copy or scan the whole data for "
                               f"every string?")
        _MINE[:] = [fn, path, answer]  # holds fn, so no later function can reuse its id
    return _MINE[2]


def _long_difference(path: Path, key: str, expected: _Long, got: Any) -> str:
    """A long array read by the student, next to gguftok's: ``expected.text`` when they agree (by fingerprint,
    else item by item), or the first item that differs."""
    if isinstance(got, tuple):
        got = list(got)
    if not isinstance(got, list):
        return f"a {type(got).__name__}, not a list: {short(got, 80)}"
    if expected.fingerprint is not None and len(got) == expected.length and _fingerprint(got) == \
            expected.fingerprint:
        return expected.text
    items = _theirs(path)[key]
    for i, (e, g) in enumerate(zip(items, got, strict=False)):
        if not agree(_comparable(e), _comparable(g)):
            return f"item {i} is {short(g, 60)}, where gguftok reads {short(e, 60)} ({len(got):,} items)"
    if len(got) != len(items):
        return f"{len(got):,} items, where gguftok reads {len(items):,}"
    return expected.text  # equal, but for NaNs or items of other types that agree


def _ref_metadata(source: Any, key: Any = None) -> Any:
    if isinstance(source, Path):
        values = _summary(source)
        if key is None:
            return list(values)
        return values[key].text if isinstance(values[key], _Long) else values[key]
    return [(k, _comparable(_plain(v))) for k, v in read_metadata(bytes(source)).items()]


def _call_metadata(fn, source: Any, key: Any = None) -> Any:
    """A file of ``data/`` is checked key by key (the first case its keys, in order); a small test file as its
    list of ``(key, value)`` pairs, so that a difference shows its index."""
    if not isinstance(source, Path):
        answer = fn(source)
        return [(k, _comparable(v)) for k, v in answer.items()] if isinstance(answer, dict) else answer
    answer = _mine(fn, source)
    if not isinstance(answer, dict):
        return answer
    if key is None:
        return list(answer)
    got = answer.get(key, _MISSING)
    expected = _summary(source)[key]
    return _long_difference(source, key, expected, got) if isinstance(expected, _Long) else _comparable(got)


def _file_cases(path: Path, folder: str) -> list[Case]:
    name = f"{folder}{path.name}"
    cases = [Case((path, None), f"list(read_metadata(<the bytes of {name}>))  # the keys, in order", copy=False)]
    cases += [Case((path, key), f"read_metadata(<the bytes of {name}>)[{key!r}]", copy=False)
              for key in _summary(path)]
    return cases


def _every_type_file() -> bytes:
    r = rng(104)
    pairs = [(f"test.{_NAMES[code]}", code, _random_value(r, code)) for code in range(13) if code != ARRAY]
    pairs += [("test.array", ARRAY, (INT16, [1, -2, 3])), ("test.nested", ARRAY, (ARRAY, [(STRING, ["a", "b"]),
                                                                                          (BOOL, [0, 3])]))]
    return _gguf(pairs)


def _metadata_examples() -> list[Case]:
    every = _every_type_file()
    tiny = _TINY.read_bytes()
    return [*_file_cases(_TINY, "data/synthetic/"),
            Case((every,), "read_metadata(<a file with one key of each type: test.uint8, test.int8, ..., "
                           "test.nested>)"),
            Case((_gguf([("general.name", STRING, "tiny")], version=2),),
                 "read_metadata(<a version 2 file with one key, general.name = 'tiny'>)"),
            Case((b"GGML" + tiny[4:],), "read_metadata(<tiny-9.gguf with the magic b'GGML'>)"),
            Case((tiny[:4] + struct.pack("<I", 1) + tiny[8:],), "read_metadata(<tiny-9.gguf as version 1>)"),
            Case((tiny[:20],), "read_metadata(<the first 20 bytes of tiny-9.gguf>)"),
            Case((tiny[:200],), "read_metadata(<the first 200 bytes of tiny-9.gguf>)")]


def _hostile(blob: bytes, name: str, r) -> list[Case]:
    """Cut short and damaged copies of a small file: the header, each key's length, type and value."""
    md = read_metadata(blob)
    cases = []
    for cut in sorted(r.sample(range(len(blob)), min(12, len(blob)))):
        cases.append(Case((blob[:cut],), f"read_metadata(<{name} cut after {cut} bytes>)"))
    header = [(4, "<I", v, f"version {v}") for v in (0, 1, 4)] + [
        (16, "<Q", n, f"a count of {n:,} pairs") for n in (len(md) + 1, len(md) - 1, 10**7, 2**64 - 1)] + [
        (8, "<Q", 2**63, "a tensor count of 2**63")]
    for at, fmt, value, what in header:
        if value >= 0:
            cases.append(Case((blob[:at] + struct.pack(fmt, value) + blob[at + struct.calcsize(fmt):],),
                              f"read_metadata(<{name} with {what}>)"))
    for key, start in md.offsets.items():
        code_at = start + 8 + len(key.encode())
        (code,) = struct.unpack_from("<I", blob, code_at)
        damage = [(start, "<Q", 2**63, "its key's length 2**63"), (code_at, "<I", 13, "its type code 13")]
        if code == ARRAY:
            damage += [(code_at + 4, "<I", 13, "its item type 13"),
                       (code_at + 8, "<Q", 2**62, "an item count of 2**62")]
        if code == STRING:
            damage.append((code_at + 4, "<Q", 2**64 - 1, "its value's length 2**64 - 1"))
        for at, fmt, value, what in damage:
            cases.append(Case((blob[:at] + struct.pack(fmt, value) + blob[at + struct.calcsize(fmt):],),
                              f"read_metadata(<{name} with {what} for the key {key!r}>)"))
    return cases


def _neutral(case: Case) -> bool:
    """Leave out a damaged file where gguftok refuses a key that is not valid UTF-8, or reads the file as
    big-endian because of its version field: rules of gguftok's, not of the layout this lesson teaches."""
    try:
        return read_metadata(bytes(case.args[0])).byte_order == "little"
    except ValueError as e:
        return "not valid UTF-8" not in str(e)


def _metadata_generated() -> list[Case]:
    r = rng(105)
    cases = []
    for path in sorted(SYNTHETIC.glob("*.gguf")):
        if path != _TINY:
            cases += _file_cases(path, "data/synthetic/")
    for k in range(40):  # random files: every type, versions 2 and 3, any tensor count
        codes = [r.choice(range(13)) for _ in range(r.randint(0, 8))]
        pairs = [(f"test.key{i}", code, _random_value(r, code)) for i, code in enumerate(codes)]
        blob = _gguf(pairs, version=r.choice([2, 3]), tensors=r.choice([0, 1, 291, 2**33 + 5]))
        types = ", ".join(f"{key} {_type_name(code, value)}" for key, code, value in pairs) or "no keys"
        cases.append(Case((blob,), f"read_metadata(<random file {k + 1}: {types}>)"))
    nan = struct.unpack("<f", struct.pack("<I", 0x7FC00000))[0]
    cases.append(Case((_gguf([("test.nan", FLOAT32, nan), ("test.floats", ARRAY, (FLOAT64, [1.0, math.nan]))]),),
                      "read_metadata(<a file with a float32 NaN and an array of float64 [1.0, nan]>)"))
    cases.append(Case((_gguf([("a", UINT8, 1), ("a", UINT8, 2)]),), "read_metadata(<a file with the key 'a' twice>)"))
    cases.append(Case((_gguf([("", UINT8, 1)]),), "read_metadata(<a file with an empty key>)"))
    cases.append(Case((b"",), "read_metadata(b'')"))
    cases += [Case((blob,), f"read_metadata(<{what}>)") for blob, what in _claims()]
    for name, blob in [("tiny-9.gguf", _TINY.read_bytes()), ("the file with one key of each type",
                                                              _every_type_file())]:
        cases += [c for c in _hostile(blob, name, r) if _neutral(c)]
    for path in _family_files():
        cases += _file_cases(path, "")
    return cases


def _family_files() -> list[Path]:
    """Of the vocabularies in ``data/vocab``, the smallest file of each tokenizer model (``gpt2``, ``llama``,
    ``bert``, ``t5``, ...), smallest first: together they hold every kind of value the 19 files hold, and one
    of them (Gemma 4's) is the largest file, so that a reader that slows down with the file's size shows it."""
    smallest: dict[str, Path] = {}
    for path in sorted(vocab_dir().glob("*.gguf"), key=lambda p: (p.stat().st_size, p.name)):
        model = read_metadata(path).get("tokenizer.ggml.model")
        smallest.setdefault(str(model), path)
    return sorted(smallest.values(), key=lambda p: (p.stat().st_size, p.name))


def _claims() -> list[tuple[bytes, str]]:
    """Two files whose counts their bytes cannot hold: of pairs, and of the strings of an array."""
    pairs = _gguf([("a", UINT8, 1), ("b", STRING, "x")], count=10**7)
    strings = _gguf([("test.strings", ARRAY, (STRING, ["a", "bc", "def"]))])
    strings = strings[:-(8 * 3 + 6 + 8)] + struct.pack("<Q", 10**7) + strings[-(8 * 3 + 6):]
    return [(pairs, "a file of two pairs whose header claims 10,000,000"),
            (strings, "a file whose one array holds 3 strings and claims 10,000,000")]


def _metadata_allocation(fn) -> str | None:
    for blob, what in _claims():
        problem = _allocation(fn, (blob,), what)
        if problem:
            return problem
    return None


read_metadata_exercise = Exercise(
    id="01.read_metadata",
    title="read every key/value pair of a GGUF file",
    statement=(
        "Write `read_metadata(data)` that reads the whole key/value section of the bytes of a GGUF file and\n"
        "returns a `dict` from key to value, in the order of the file.\n\n"
        "1. The 24-byte header: the magic `b\"GGUF\"`, the version (u32), the tensor count (u64) and the number\n"
        "   of pairs (u64). Raise `ValueError` for another magic, for a version other than 2 or 3 (they share\n"
        "   this layout), and for data too short to hold a header.\n"
        "2. Then each pair: the key (a string), the type code (u32), the value (your `read_value`). Raise\n"
        "   `ValueError` for an empty key, and for a key that appears twice, as llama.cpp does.\n"
        "3. The number of pairs comes from the file too: a count larger than the pairs there are must end in a\n"
        "   `ValueError`, never in a long loop or a huge allocation.\n\n"
        "The tensors that follow the pairs are not read. The cases: every file of `data/synthetic`, and the\n"
        "smallest file of each tokenizer model in `data/vocab`, key by key (a long array shows its first item\n"
        "that differs); random files with every type; damaged copies (cut short, absurd versions, counts and\n"
        "lengths, unknown types). A NaN agrees with a NaN. A file that takes your reader more than 2 s + 1 s\n"
        "per MB stops the check: something reads the whole data again at every string."),
    template="",
    reference=_ref_metadata,
    reference_name="gguftok.read_metadata",
    examples=_metadata_examples,
    generated=_metadata_generated,
    call=_call_metadata,
    module="metadata",
    properties=lambda: [Property("it must refuse a count that the bytes cannot hold without making room for "
                                 "that many items", _metadata_allocation)],
)

EXERCISES = [read_string, read_value, read_metadata_exercise]
