"""Lesson 01 · the tokenizer keys of a GGUF file: read a string, read the header."""

from __future__ import annotations

import struct

from ..metadata import _Parser, read_metadata
from ..writer import gguf_bytes
from ._core import Case, Exercise
from ._data import SYNTHETIC, random_text, rng, vocab_file

_TINY = SYNTHETIC / "tiny-9.gguf"


def _gguf_string(data: bytes) -> bytes:
    return struct.pack("<Q", len(data)) + data


# --------------------------------------------------------------------------------------------- read_string
def _ref_string(data: bytes, offset: int) -> tuple[str, int]:
    return _Parser(bytes(data), "exercise").string(offset, "a string")


def _string_examples() -> list[Case]:
    tiny = _TINY.read_bytes()
    return [Case((tiny, 24), "read_string(<the bytes of tiny-9.gguf>, 24)"),
            Case((tiny, 69), "read_string(<the bytes of tiny-9.gguf>, 69)"),
            Case((tiny, 69 + 8 + len("tokenizer.ggml.model") + 4),
                 "read_string(<the bytes of tiny-9.gguf>, 101)"),
            Case((_gguf_string("Ġworld".encode()), 0)),
            Case((b"xyz" + _gguf_string(b""), 3)),
            Case((_gguf_string(b"\xf0\x9f") + b"rest", 0)),
            Case((b"\x05\x00\x00\x00\x00\x00\x00\x00abc", 0)),
            Case((b"\x03\x00\x00", 0))]


def _string_generated() -> list[Case]:
    r = rng(101)
    cases = []
    for _ in range(150):
        raw = random_text(r, "abcĠĊ <|>é世😀", 0, 12).encode()
        if r.random() < 0.1:
            raw += bytes([r.choice([0x80, 0xFF, 0xC3])])  # a token that is not valid UTF-8
        prefix = bytes(r.randrange(256) for _ in range(r.randint(0, 6)))
        blob = prefix + _gguf_string(raw) + bytes(r.randrange(256) for _ in range(r.randint(0, 4)))
        if r.random() < 0.08:
            blob = blob[: len(prefix) + r.randint(0, 8 + len(raw) - 1)]  # cut short: must raise
        cases.append(Case((blob, len(prefix))))
    for name in ("qwen2", "llama-bpe", "gpt-2", "llama-spm", "bert-bge"):
        path = vocab_file(name)
        if path is None:
            continue
        md = read_metadata(path)
        head = path.read_bytes()[: md.kv_end]
        for key, off in list(md.offsets.items())[:6]:
            cases.append(Case((head, off), f"read_string(<the key/value bytes of {path.name}>, {off})  # key {key}",
                              copy=False))
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
        "- If `data` ends before the 8-byte count or before the string's last byte, raise `ValueError`.\n\n"
        "`struct.unpack_from(\"<Q\", data, offset)` reads the count. The check compares your answers with\n"
        "gguftok's reader (`gguftok.metadata`) on the keys of `tiny-9.gguf` and of five real vocabularies, and on\n"
        "random strings, some cut short."),
    template='''def read_string(data: bytes, offset: int) -> tuple[str, int]:
    """The GGUF string at ``offset`` (u64 length + UTF-8 bytes) and the offset after it.

    >>> read_string(b"\\\\x02\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00\\\\x00hi!", 0)
    ('hi', 10)
    """
    raise NotImplementedError''',
    reference=_ref_string,
    reference_name="gguftok.metadata's string reader",
    examples=_string_examples,
    generated=_string_generated,
)


# --------------------------------------------------------------------------------------------- read_header
def _ref_header(data: bytes) -> tuple[int, int, int]:
    md = read_metadata(bytes(data))
    return md.version, md.tensor_count, len(md)


def _with_header(blob: bytes, version: int, tensors: int) -> bytes:
    return blob[:4] + struct.pack("<IQ", version, tensors) + blob[16:]


def _header_examples() -> list[Case]:
    tiny = _TINY.read_bytes()
    return [Case((tiny,), "read_header(<the bytes of tiny-9.gguf>)"),
            Case((_with_header(tiny, 2, 291),), "read_header(<tiny-9.gguf as version 2, with 291 tensors>)"),
            Case((b"GGML" + tiny[4:],), "read_header(<tiny-9.gguf with the magic b'GGML'>)"),
            Case((tiny[:20],), "read_header(<the first 20 bytes of tiny-9.gguf>)")]


def _header_generated() -> list[Case]:
    r = rng(102)
    cases = []
    for path in sorted(SYNTHETIC.glob("*.gguf")):
        cases.append(Case((path.read_bytes(),), f"read_header(<the bytes of {path.name}>)", copy=False))
    for k in range(60):
        kv = {f"test.key{i}": random_text(r, "abc", 1, 5) for i in range(r.randint(0, 9))}
        blob = _with_header(gguf_bytes(kv), r.choice([2, 3]), r.choice([0, 1, 7, 291, 2**33 + 5]))
        if k % 15 == 14:
            blob = r.choice([b"GGUF"[:3] + b"X", b"FUGG", b"\x00\x00\x00\x00"]) + blob[4:]
        cases.append(Case((blob,), f"read_header(<a file with {len(kv)} keys{', bad magic' if k % 15 == 14 else ''}: "
                                   f"{blob[:24].hex(' ')} ...>)"))
    for name in ("qwen2", "llama-bpe", "gpt-2"):
        path = vocab_file(name)
        if path is not None:
            cases.append(Case((path.read_bytes(),), f"read_header(<the bytes of {path.name}>)", copy=False))
    return cases


read_header = Exercise(
    id="01.read_header",
    title="read the 24-byte header",
    statement=(
        "A GGUF file starts with 24 bytes: the magic `b\"GGUF\"`, the format version (unsigned 32-bit), the number\n"
        "of tensors and the number of key/value pairs (both unsigned 64-bit), all little-endian. Write\n"
        "`read_header(data)` that returns `(version, tensor_count, kv_count)`, and raises `ValueError` when the\n"
        "magic is not `b\"GGUF\"` or `data` is shorter than 24 bytes.\n\n"
        "The check runs it on `tiny-9.gguf`, the other synthetic vocabularies, files written with random keys\n"
        "(versions 2 and 3, large tensor counts) and three real vocabularies, against `gguftok.read_metadata`."),
    template='''def read_header(data: bytes) -> tuple[int, int, int]:
    """``(version, tensor_count, kv_count)`` from the first 24 bytes of a GGUF file.

    >>> read_header(open("../data/synthetic/tiny-9.gguf", "rb").read())
    (3, 0, 7)
    """
    raise NotImplementedError''',
    reference=_ref_header,
    reference_name="gguftok.read_metadata",
    examples=_header_examples,
    generated=_header_generated,
)

EXERCISES = [read_string, read_header]
