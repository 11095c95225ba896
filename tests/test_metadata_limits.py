"""Issue 19, item 7: the byte limit bounded bytes, not memory or time. Counts are now bounded too.

85 MB of 20-byte pairs (4.3 million keys) took 209 s and 958 MB; one array of 30 million empty strings 175 s
and 735 MB. A file's counts are now checked against what a tokenizer can need (``max_keys`` pairs,
``max_array_items`` strings and inner arrays in all) as well as against its bytes, from the header of the
file or of the array, before the loop: the memory of a parse stays within 4 times the bytes read plus a
constant set by the limits, and a refusal is one GGUFError naming the key, the count, the limit and the
offset, after reading the first block only.
"""

from __future__ import annotations

import os
import struct
import time
import tracemalloc

import numpy as np
import pytest

from gguftok import GGUFError, read_metadata
from gguftok.metadata import MAX_ARRAY_ITEMS, MAX_KEY_BYTES, MAX_KEYS
from gguftok.sources import open_source

# What one unit under a limit may cost beyond 4x its bytes, measured (tracemalloc, CPython 3.11): a key of a
# uint8 164 B in all, a key of a one-item uint8 array 331 B; a string of one U+1F600 96 B, an empty inner
# array 121 B. The constant: the bulk string reader's candidate offsets (a margin of 2^20 of them, 8 bytes
# each while they are found) and small change.
PER_KEY = 400
PER_ITEM = 160
SLACK = 12 << 20


def bound(bytes_read: int, max_keys: int, max_items: int) -> int:
    return 4 * bytes_read + PER_KEY * max_keys + PER_ITEM * max_items + SLACK


# ------------------------------------------------------------------------------------------- hostile files


def header(n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 0, n_kv)


def key(name: bytes) -> bytes:
    return struct.pack("<Q", len(name)) + name


def array_head(name: bytes, etype: int, count: int) -> bytes:
    return key(name) + struct.pack("<IIQ", 9, etype, count)


def many_keys(n: int) -> bytes:
    """``n`` pairs of 20 bytes: a 7-byte key, a uint8."""
    return header(n) + b"".join(key(b"k%06x" % i) + b"\0\0\0\0\x01" for i in range(n))


def many_int_arrays(n: int) -> bytes:
    """``n`` keys, each a uint8 array of one item (30 bytes a pair)."""
    return header(n) + b"".join(array_head(b"a%06x" % i, 0, 1) + b"\x07" for i in range(n))


def long_keys(n: int, length: int = MAX_KEY_BYTES) -> bytes:
    """``n`` keys of ``length`` bytes (ASCII), each a uint8."""
    return header(n) + b"".join(key(b"k%06x" % i + b"x" * (length - 7)) + b"\0\0\0\0\x01" for i in range(n))


def strings(n: int, body: bytes | None = None) -> bytes:
    """One array of ``n`` strings ``body``, or empty ones (each string decodes to a new object, but for the
    empty one and those of one ASCII character, which CPython caches)."""
    head = header(1) + array_head(b"tokenizer.ggml.tokens", 8, n)
    if body is None:
        return head + bytes(8 * n)
    rec = np.zeros(n, dtype=[("len", "<u8"), ("body", f"S{len(body)}")])
    rec["len"], rec["body"] = len(body), body
    return head + rec.tobytes()


def nested(n: int) -> bytes:
    """One array of ``n`` empty uint8 arrays."""
    return header(1) + array_head(b"test.nested", 9, n) + struct.pack("<IQ", 0, 0) * n


def nested_of_strings(n: int) -> bytes:
    """One array of ``n`` arrays of one 1-byte string each: the strings count as well as the arrays."""
    return header(1) + array_head(b"test.nested", 9, n) + (struct.pack("<IQQ", 8, 1, 1) + b"a") * n


def measure(path, **limits) -> tuple[GGUFError | None, int, int, float]:
    """Read ``path`` (memory-mapped): the refusal or None, the parse's peak of allocated bytes, the bytes read,
    the seconds."""
    src = open_source(str(path))
    error = None
    tracemalloc.start()
    t = time.perf_counter()
    try:
        read_metadata(src, **limits)
    except GGUFError as e:
        error = e
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return error, peak, src.report.bytes_read, seconds


KEYS, ITEMS = 2048, 32768  # the limits of the property test: files at them are read, 16x over are refused
SHAPES = {  # a file at the limits, and one past them
    "many keys": (lambda: many_keys(KEYS), lambda: many_keys(16 * KEYS)),
    "many small int arrays": (lambda: many_int_arrays(KEYS), lambda: many_int_arrays(16 * KEYS)),
    "long key names": (lambda: long_keys(32), lambda: long_keys(32, MAX_KEY_BYTES + 1)),
    "empty strings": (lambda: strings(ITEMS), lambda: strings(16 * ITEMS)),
    "2-byte strings": (lambda: strings(ITEMS, b"ab"), lambda: strings(16 * ITEMS, b"ab")),
    "strings of U+0100": (lambda: strings(ITEMS, "\u0100".encode()), lambda: strings(16 * ITEMS, "\u0100".encode())),
    "strings of U+1F600": (lambda: strings(ITEMS, "\U0001f600".encode()),
                           lambda: strings(16 * ITEMS, "\U0001f600".encode())),
    "strings of a byte that is not UTF-8": (lambda: strings(ITEMS, b"\x80"), lambda: strings(16 * ITEMS, b"\x80")),
    # (an inner array counts as 8 items)
    "arrays of empty arrays": (lambda: nested(ITEMS // 8), lambda: nested(2 * ITEMS)),
    "arrays of arrays of strings": (lambda: nested_of_strings(ITEMS // 9), lambda: nested_of_strings(ITEMS)),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_peak_memory_stays_within_4x_the_bytes_read_plus_a_constant(tmp_path, shape):
    for make, refused in zip(SHAPES[shape], (False, True), strict=True):
        path = tmp_path / "hostile.gguf"
        path.write_bytes(make())
        error, peak, read, _ = measure(path, max_keys=KEYS, max_array_items=ITEMS)
        assert peak <= bound(read, KEYS, ITEMS), (shape, refused, peak, read)
        if not refused:
            assert error is None, error
        else:  # refused from a count or a length in a header: nothing past the first block read, nothing kept
            assert error is not None and ("limit" in str(error) or "at most" in str(error)), (shape, error)
            assert read <= 1 << 20 and peak < 1 << 20, (shape, read, peak)
        path.unlink()


def test_distinct_short_strings_at_the_limit_cost_what_the_constant_allows(tmp_path):
    # the worst a string costs against its bytes: 2-byte strings, each a new object of ~51 bytes + a pointer
    path = tmp_path / "short.gguf"
    path.write_bytes(strings(ITEMS, b"qq"))
    error, peak, read, _ = measure(path, max_array_items=ITEMS)
    assert error is None and peak > 4 * read  # more than 4x its bytes: what the per-item constant is for
    assert peak <= bound(read, MAX_KEYS, ITEMS)


# ---------------------------------------------------------------------------- the shapes, by default


def sparse(path, head: bytes, size: int):
    """A file of ``size`` bytes that starts with ``head``, the rest zero bytes (a hole: no disk space)."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return path


def test_millions_of_pairs_are_refused_from_the_header(tmp_path):
    head = many_keys(1000)[24:]
    path = sparse(tmp_path / "keys.gguf", header(4_300_000) + head, 86_000_024)
    error, peak, read, seconds = measure(path)
    assert error is not None and error.offset == 16 and error.key is None
    assert str(error) == (f"{path}: the header claims 4,300,000 key/value pairs; the limit is {MAX_KEYS:,} "
                          f"(real models have fewer than a thousand; read_metadata(..., max_keys=N) raises it) "
                          f"(at offset 16)")
    assert read <= 1 << 20 and peak < 1 << 20 and seconds < 1


def test_tens_of_millions_of_empty_strings_are_refused_before_the_loop(tmp_path):
    head = header(1) + array_head(b"tokenizer.ggml.tokens", 8, 30_000_000)
    path = sparse(tmp_path / "empty.gguf", head, len(head) + 8 * 30_000_000)
    error, peak, read, seconds = measure(path)
    assert error is not None and error.key == "tokenizer.ggml.tokens" and error.offset == len(head) - 8
    assert str(error) == (f"{path}: an array of 30,000,000 string items is past the limit of "
                          f"{MAX_ARRAY_ITEMS:,} strings and inner arrays per file; real vocabularies have at most "
                          f"about a million; read_metadata(..., max_array_items=N) raises it "
                          f"(key 'tokenizer.ggml.tokens', at offset {len(head) - 8})")
    assert read <= 1 << 20 and peak < 1 << 20 and seconds < 1


def test_one_string_past_the_default_item_limit_is_refused(tmp_path):
    n = MAX_ARRAY_ITEMS + 1
    head = header(1) + array_head(b"tokenizer.ggml.merges", 8, n)
    path = sparse(tmp_path / "merges.gguf", head, len(head) + 8 * n)
    error, _, _, seconds = measure(path)
    assert error is not None and f"an array of {n:,} string items" in str(error) and seconds < 1


def test_the_item_limit_counts_every_array_of_the_file_and_inner_arrays():
    two = header(2) + array_head(b"a", 8, 600) + bytes(8 * 600) + array_head(b"b", 8, 600) + bytes(8 * 600)
    with pytest.raises(GGUFError) as info:
        read_metadata(two, max_array_items=1000)
    e = info.value
    assert e.key == "b" and e.offset == 24 + 9 + 16 + 4800 + 9 + 8
    assert "an array of 600 string items is past the limit of 1,000 strings and inner arrays per file " \
           "(with the 600 of the arrays before it)" in str(e)
    assert [len(v) for v in read_metadata(two, max_array_items=1200).values()] == [600, 600]


def test_nested_strings_within_the_limit_are_read():
    # 500 inner arrays (8 items each: they cost more than a string to read and keep) and their 500 strings
    md = read_metadata(nested_of_strings(500), max_array_items=4500)
    assert md["test.nested"] == [["a"]] * 500 and md.type_name("test.nested") == "array[array[string]]"
    with pytest.raises(GGUFError, match="an array of 1 string items is past the limit of 4,499 strings"):
        read_metadata(nested_of_strings(500), max_array_items=4499)
    with pytest.raises(GGUFError, match=r"an array of 500 array items \(each inner array counts as 8\) is past"):
        read_metadata(nested_of_strings(500), max_array_items=3999)


def test_the_limits_can_be_raised_and_lowered():
    blob = many_keys(3)
    assert len(read_metadata(blob, max_keys=3)) == 3
    with pytest.raises(GGUFError, match="the header claims 3 key/value pairs; the limit is 2 "):
        read_metadata(blob, max_keys=2)
    with pytest.raises(GGUFError, match="the 60 bytes left hold at most 4"):  # a raised limit meets the bytes
        read_metadata(header(4_300_001) + blob[24:], max_keys=10**9)
    big = header(1) + array_head(b"t", 8, 5) + bytes(40)
    assert read_metadata(big, max_array_items=5)["t"] == [""] * 5
    with pytest.raises(GGUFError, match="an array of 5 string items is past the limit of 4 "):
        read_metadata(big, max_array_items=4)
    for bad in (-1, 1.5, None, "10"):
        with pytest.raises(ValueError, match="must be a non-negative int"):
            read_metadata(blob, max_keys=bad)
        with pytest.raises(ValueError, match="must be a non-negative int"):
            read_metadata(blob, max_array_items=bad)


def test_numeric_arrays_need_no_count_limit():
    # one byte of memory per byte of file: bounded by the bytes alone
    blob = header(1) + array_head(b"tokenizer.ggml.precompiled_charsmap", 0, 100) + bytes(range(100))
    assert read_metadata(blob, max_array_items=0)["tokenizer.ggml.precompiled_charsmap"].tolist() == list(range(100))


def test_keys_are_at_most_65535_bytes_as_the_specification_says():
    assert len(next(iter(read_metadata(long_keys(1))))) == MAX_KEY_BYTES == 65535
    with pytest.raises(GGUFError) as info:
        read_metadata(long_keys(1, MAX_KEY_BYTES + 1))
    e = info.value
    assert e.offset == 24 and e.key is None
    assert "a key of 65,536 bytes: GGUF keys are at most 65,535 bytes long" in str(e)
    # refused from its length: a key of 4 GB that the file cannot hold is refused the same way
    with pytest.raises(GGUFError, match="a key of 4,294,967,296 bytes"):
        read_metadata(header(1) + struct.pack("<Q", 1 << 32) + bytes(20))


def test_a_long_string_value_is_decoded_from_the_buffer_not_a_copy(tmp_path):
    text = "x" * 4_000_000 + "é"
    raw = text.encode()
    path = tmp_path / "long.gguf"
    path.write_bytes(header(1) + key(b"tokenizer.chat_template") + struct.pack("<IQ", 8, len(raw)) + raw)
    error, peak, _, _ = measure(path)
    assert error is None and read_metadata(path)["tokenizer.chat_template"] == text
    # the str (Latin-1: a byte a character) and CPython's decoder's own copy of it, but no copy of the bytes
    assert peak < 2.2 * len(raw) + (1 << 20)


# ------------------------------------------------------------------------------------------- real files


def test_a_real_vocabulary_reads_within_a_small_multiple_of_its_bytes(vocab_path):
    # A list of str costs ~4.5x the bytes of real tokens and merges (qwen2: 5.9 MB of file, 26.6 MB kept); the
    # bulk reader now decodes them a MB at a time, so the peak stays near that: 5.2x, against 6.3x before
    # (gemma-4: 5.1x against 7.1x), when the whole array's bytes were copied three times and its text made
    # at once.
    error, peak, read, _ = measure(vocab_path("qwen2"))
    assert error is None
    assert peak <= 5.8 * read, peak / read


def test_real_vocabularies_are_far_inside_the_limits(each_vocab):
    md = read_metadata(each_vocab)
    items = sum(len(v) for v in md.values() if isinstance(v, list))
    assert len(md) * 100 < MAX_KEYS and items * 5 < MAX_ARRAY_ITEMS
    assert max(len(k.encode()) for k in md) * 1000 < MAX_KEY_BYTES


@pytest.mark.skipif(not hasattr(os, "truncate"), reason="needs sparse files")
def test_a_refused_file_is_refused_the_same_from_bytes(tmp_path):
    head = header(1) + array_head(b"tokenizer.ggml.tokens", 8, MAX_ARRAY_ITEMS + 1)
    blob = head + bytes(8 * (MAX_ARRAY_ITEMS + 1))
    with pytest.raises(GGUFError, match=f"an array of {MAX_ARRAY_ITEMS + 1:,} string items"):
        read_metadata(blob)


def test_arrays_of_empty_strings_are_read_in_linear_time():
    # Zero bytes make every offset a candidate length for the bulk string reader, and each candidate broke its
    # run: up to 4096 checks of 65,536 candidates an array (a 32 MB file of 64 such arrays took 235 s, one of
    # 16,384 arrays of 256 empty strings 86 s). Now the reader sees the zero bytes and leaves them to the loop.
    big = header(8) + b"".join(array_head(b"a%d" % i, 8, 65536) + bytes(8 * 65536) for i in range(8))
    small = header(2048) + b"".join(array_head(b"a%d" % i, 8, 256) + bytes(8 * 256) for i in range(2048))
    for blob, n in ((big, 8), (small, 2048)):
        t = time.perf_counter()
        md = read_metadata(blob)
        assert len(md) == n and set(md[f"a{n - 1}"]) == {""}
        assert time.perf_counter() - t < 2.5
