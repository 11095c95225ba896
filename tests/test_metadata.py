"""The GGUF metadata reader: the same values as gguf.GGUFReader, and a clear GGUFError on bad input."""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import gguf
import numpy as np
import pytest
from conftest import MANIFEST
from gguf_reference import cached_reader_digests, ours_digests, reader_digests, recorded
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import GGUFError, ValueType, read_metadata
from gguftok.metadata import _Parser
from gguftok.writer import gguf_bytes, write_gguf, write_metadata

# --------------------------------------------------------------------------------------------- agreement


def test_value_types_are_ggufs():
    assert {t.name: int(t) for t in ValueType} == {t.name: int(t) for t in gguf.GGUFValueType}


def test_every_key_of_every_vocabulary_matches_gguf_reader(each_vocab):
    md = read_metadata(each_vocab)
    assert ours_digests(md) == cached_reader_digests(each_vocab)
    assert md.version in (2, 3) and md.byte_order == "little" and md.tensor_count == 0


def test_the_record_of_gguf_reader_covers_every_pinned_vocabulary():
    record = {entry["file"]: sha for sha, entry in recorded().items()}
    assert record == {name: facts["sha256"] for name, facts in MANIFEST.items() if name.endswith(".gguf")}, \
        "data/golden/gguf-reader.json is out of date: run python tests/gguf_reference.py"


@pytest.mark.parametrize("name", ["bert-bge", "llama-spm", "deepseek-coder"])
def test_the_record_of_gguf_reader_is_what_gguf_reads_now(vocab_path, name):
    """The three smallest vocabularies (one of each of three families) read live: the record is gguf's."""
    path = vocab_path(name)
    (entry,) = [e for e in recorded().values() if e["file"] == path.name]
    assert reader_digests(path) == entry["digests"]


def test_bytes_and_path_give_the_same_result(vocab_path):
    path = vocab_path("llama-spm")
    a, b = read_metadata(path), read_metadata(path.read_bytes())
    assert ours_digests(a) == ours_digests(b) and a.offsets == b.offsets and a.kv_end == b.kv_end


def test_qwen2_tokenizer_keys(vocab_path):
    md = read_metadata(vocab_path("qwen2"))
    tokens, merges, types = (md[f"tokenizer.ggml.{k}"] for k in ("tokens", "merges", "token_type"))
    assert (len(tokens), len(merges), types.shape) == (151936, 151387, (151936,))
    assert md["tokenizer.ggml.model"] == "gpt2" and md["tokenizer.ggml.pre"] == "qwen2"
    assert tokens[:3] == ["!", '"', "#"] and merges[0] == "Ġ Ġ"
    assert types.dtype == np.int32 and not types.flags.writeable
    assert md.type_name("tokenizer.ggml.eos_token_id") == "uint32"


ALL_TYPES = {
    "t.u8": (ValueType.UINT8, 255), "t.i8": (ValueType.INT8, -128), "t.u16": (ValueType.UINT16, 65535),
    "t.i16": (ValueType.INT16, -32768), "t.u32": (ValueType.UINT32, 2**32 - 1),
    "t.i32": (ValueType.INT32, -(2**31)), "t.f32": (ValueType.FLOAT32, 0.25), "t.bool": (ValueType.BOOL, True),
    "t.str": (ValueType.STRING, "héllo\n\x00😀"), "t.u64": (ValueType.UINT64, 2**64 - 1),
    "t.i64": (ValueType.INT64, -(2**63)), "t.f64": (ValueType.FLOAT64, -1e300),
    "a.u8": (ValueType.UINT8, [0, 1, 255]), "a.i8": (ValueType.INT8, [-1, 2]),
    "a.u16": (ValueType.UINT16, [7]), "a.i16": (ValueType.INT16, [-7, 7]),
    "a.u32": (ValueType.UINT32, [1, 2**32 - 1]), "a.i32": (ValueType.INT32, [-5, 5, 6]),
    "a.f32": (ValueType.FLOAT32, [1.5, -0.0, float("inf")]), "a.bool": (ValueType.BOOL, [True, False, True]),
    "a.str": (ValueType.STRING, ["", "a b", "Ġ"]), "a.u64": (ValueType.UINT64, [2**64 - 1]),
    "a.i64": (ValueType.INT64, [-(2**63), 3]), "a.f64": (ValueType.FLOAT64, [2.5, 1e-300]),
    "a.nested": (ValueType.ARRAY, [[1, 2], [3]]),
}


@pytest.mark.parametrize("byte_order", ["little", "big"])
def test_all_thirteen_types_and_both_byte_orders(tmp_path, byte_order):
    path = write_gguf(tmp_path / "all.gguf", ALL_TYPES, byte_order=byte_order)
    md = read_metadata(path)
    assert md.byte_order == byte_order
    assert ours_digests(md) == reader_digests(path)
    for key, (vtype, value) in ALL_TYPES.items():
        got = md[key]
        if key == "a.nested":
            assert [a.tolist() for a in got] == value and md.type_name(key) == "array[array[int32]]"
        elif isinstance(value, list) and vtype != ValueType.STRING:
            assert got.tolist() == value and got.dtype.isnative
        else:
            assert got == value and type(got) is type(value)


def test_a_big_endian_vocabulary_reads_like_the_little_endian_one(vocab_path, tmp_path):
    little = read_metadata(vocab_path("phi-3"))
    big = read_metadata(write_metadata(tmp_path / "big.gguf", little, byte_order="big"))
    assert big.byte_order == "big"
    assert ours_digests(big) == ours_digests(little)


def test_relabelling_keeps_every_key_and_type(vocab_path, tmp_path):
    md = read_metadata(vocab_path("gpt-2"))
    out = read_metadata(write_metadata(tmp_path / "r.gguf", md, {"tokenizer.ggml.pre": "tekken",
                                                                 "tokenizer.ggml.bos_token_id": None}))
    assert out["tokenizer.ggml.pre"] == "tekken" and "tokenizer.ggml.bos_token_id" not in out
    changed = ("tokenizer.ggml.pre", "tokenizer.ggml.bos_token_id")
    expect = {k: v for k, v in ours_digests(md).items() if k not in changed}
    assert {k: v for k, v in ours_digests(out).items() if k != "tokenizer.ggml.pre"} == expect


def test_strings_that_are_not_utf8_keep_their_bytes():
    raw = [b"\xff", b"ab\xc3", b"\xed\xa0\x80", "é".encode()]
    md = read_metadata(gguf_bytes({"tokenizer.ggml.tokens": (ValueType.STRING, raw), "s": b"\x80x"}))
    assert [t.encode("utf-8", "surrogateescape") for t in md["tokenizer.ggml.tokens"]] == raw
    assert md["s"] == "\udc80x"


# -------------------------------------------------------------------------------------------- bad input


def header(version=3, n_tensors=0, n_kv=1, order="<"):
    return b"GGUF" + struct.pack(order + "IQQ", version, n_tensors, n_kv)


def s(text, order="<"):
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack(order + "Q", len(raw)) + raw


def kv(key, vtype, payload):
    return s(key) + struct.pack("<I", vtype) + payload


def err(blob) -> GGUFError:
    with pytest.raises(GGUFError) as info:
        read_metadata(blob)
    assert isinstance(info.value, ValueError)
    return info.value


def test_wrong_magic():
    e = err(b"GGML" + bytes(20))
    assert e.offset == 0 and "not a GGUF file" in str(e)


def test_empty_and_short_files(tmp_path):
    (tmp_path / "empty.gguf").write_bytes(b"")
    assert "not a GGUF file" in str(err(tmp_path / "empty.gguf"))
    e = err(b"GGUF\x03\x00\x00\x00")
    assert "the GGUF header needs 24 bytes" in str(e)


@pytest.mark.parametrize("version", [0, 1, 4, 0xFFFF])
def test_unsupported_versions(version):
    e = err(header(version=version))
    assert e.offset == 4 and f"unsupported GGUF version {version}" in str(e)


def test_big_endian_header_of_an_unknown_version_is_refused():
    assert "unsupported GGUF version" in str(err(header(version=7, order=">")))


def test_unknown_value_type():
    e = err(header() + kv("general.x", 13, b"\x00" * 8))
    assert e.key == "general.x" and "unknown value type 13" in str(e) and e.offset == 24 + 8 + 9


def test_unknown_array_element_type():
    e = err(header() + kv("a", ValueType.ARRAY, struct.pack("<IQ", 99, 1) + bytes(8)))
    assert e.key == "a" and "unknown array element type 99" in str(e)


def test_string_length_past_the_end():
    e = err(header() + kv("k", ValueType.STRING, struct.pack("<Q", 2**63) + b"abc"))
    assert e.key == "k" and "a string value of 9223372036854775808 bytes" in str(e)


@pytest.mark.parametrize("etype", [ValueType.UINT8, ValueType.STRING, ValueType.ARRAY, ValueType.FLOAT64])
def test_absurd_array_counts_are_refused_before_any_allocation(etype):
    e = err(header() + kv("tokenizer.ggml.tokens", ValueType.ARRAY, struct.pack("<IQ", etype, 2**64 - 1)))
    assert e.key == "tokenizer.ggml.tokens" and "cannot fit" in str(e)


def test_a_string_array_running_past_the_end_names_the_string():
    body = struct.pack("<IQ", ValueType.STRING, 3) + s("a") + s("b") + struct.pack("<Q", 50) + b"xyz"
    e = err(header() + kv("tokenizer.ggml.tokens", ValueType.ARRAY, body))
    assert "string 2 of 3 claims 50 bytes" in str(e) and e.offset == 24 + 8 + 21 + 4 + 12 + 9 + 9


def test_a_string_array_cut_inside_a_length():
    body = struct.pack("<IQ", ValueType.STRING, 2) + s("abcdefgh") + b"\x01\x00"
    assert "string 1 of 2: its length needs 8 bytes" in str(err(header() + kv("t", ValueType.ARRAY, body)))


def test_absurd_key_count():
    e = err(header(n_kv=2**64 - 1))
    assert e.offset == 16 and "claims 18446744073709551615 key/value pairs" in str(e)


def test_truncated_scalar():
    e = err(header() + kv("general.alignment", ValueType.UINT32, b"\x20\x00"))
    assert e.key == "general.alignment" and "a uint32 value needs 4 bytes" in str(e)


def test_key_that_is_not_utf8():
    e = err(header() + s(b"tok\xffen") + struct.pack("<I", ValueType.BOOL) + b"\x01")
    assert e.key is None and e.offset == 24 and "a key is not valid UTF-8" in str(e)


def test_duplicate_and_empty_keys():
    one = kv("k", ValueType.UINT8, b"\x01")
    assert "duplicate key 'k' (first at offset 24)" in str(err(header(n_kv=2) + one + one))
    assert "empty key" in str(err(header() + kv("", ValueType.UINT8, b"\x01") + b"\x00"))


def test_arrays_nested_too_deep_are_refused_without_recursion_error():
    deep = struct.pack("<IQ", ValueType.ARRAY, 1) * 10_000 + struct.pack("<IQ", ValueType.UINT8, 0)
    assert "nested more than 16 deep" in str(err(header() + kv("n", ValueType.ARRAY, deep)))


def test_message_names_source_and_place(tmp_path):
    path = tmp_path / "bad.gguf"
    path.write_bytes(header() + kv("tokenizer.ggml.model", 42, b""))
    e = err(path)
    assert str(e) == (f"{path}: unknown value type 42 (GGUF has types 0 to 12) "
                      f"(key 'tokenizer.ggml.model', at offset 52)")  # 24 header + 8 + 20 key bytes
    assert e.source == str(path)


def _string_array(items: list[bytes], order: str) -> bytes:
    return b"".join(struct.pack(order + "Q", len(b)) + b for b in items)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=12), st.binary(min_size=250, max_size=300),
                          st.sampled_from([b"", b"\x00", b"\x00" * 9, b"Hello", "Ġthe".encode(), b"\xe2\x82",
                                           b"\x80abc", bytes(range(1, 255))])),
                min_size=1, max_size=600),
       st.sampled_from("<>"), st.integers(0, 40))
def test_string_arrays_read_in_bulk_as_one_by_one(items, order, tail):
    # whatever the strings (long ones, NULs, zero runs that look like lengths, invalid UTF-8), the bulk path
    # either gives up or returns exactly what the loop reads; what follows the array does not matter
    buf = b"pad!" + _string_array(items, order) + b"\x00" * tail + b"\x07" * (tail % 3)
    parser = _Parser(buf, "<test>")
    parser.order = order
    expect = parser.string_array_loop(4, len(items))
    assert expect[0] == [b.decode("utf-8", "surrogateescape") for b in items]
    bulk = parser.string_array_bulk(4, len(items))
    assert bulk is None or bulk == expect
    if not any(b"\x00" in b or b"\xff" in b for b in items):
        assert bulk == expect  # only a NUL or 0xFF inside a string stops the bulk path on arrays this short


def test_bulk_string_arrays_give_up_on_truncated_files():
    items = [b"abc"] * 300
    buf = _string_array(items, "<")
    parser = _Parser(buf[:-2], "<test>")
    assert parser.string_array_bulk(0, 300) is None
    with pytest.raises(GGUFError, match="string 299 of 300"):
        read_metadata(gguf_bytes({"tokenizer.ggml.tokens": ["abc"] * 300})[:-2])


def test_bulk_window_stays_bounded_on_a_long_run_of_zero_bytes():
    # 2.5 million empty strings: 20 MB of zero bytes, every offset a candidate length. The bulk path's window
    # (and its 8-bytes-per-byte candidate list) must stop at its cap and leave the array to the loop.
    from gguftok.metadata import _BULK_MAX_WINDOW

    count = _BULK_MAX_WINDOW // 8 + 500_000
    buf = struct.pack("<Q", 0) * count + b"tail"
    parser = _Parser(buf, "<test>")
    parser.order = "<"
    assert parser.string_array_bulk(0, count) is None
    strings, end = parser.string_array(0, count)
    assert len(strings) == count and set(strings) == {""} and end == 8 * count


def test_a_plain_int_special_id_is_written_as_llama_cpp_reads_it():
    md = read_metadata(gguf_bytes({"tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.count": 1}))
    assert md.type_name("tokenizer.ggml.bos_token_id") == "uint32" and md["tokenizer.ggml.bos_token_id"] == 1
    assert md.type_name("tokenizer.ggml.count") == "int32"  # other ints keep gguf's default


# ------------------------------------------------------------------------------ files that are not files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX devices and FIFOs")
def test_devices_fifos_and_directories_are_refused_unread(tmp_path):
    """Issue 19 item 8: ``/dev/zero`` was read until memory ran out (its size is 0, so the reader called
    ``read()``), a FIFO blocked in ``open``, a directory was an ``IsADirectoryError``. Only a regular file has
    a size to check lengths against: anything else is a GGUFError naming what it is, before any byte is read."""
    os.mkfifo(tmp_path / "fifo")  # opening it for reading would wait for a writer forever
    (tmp_path / "dir").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero.gguf")
    cases = {"/dev/zero": "a character device", "/dev/null": "a character device",
             str(tmp_path / "zero.gguf"): "a character device", str(tmp_path / "fifo"): "a named pipe (FIFO)",
             str(tmp_path / "dir"): "a directory"}
    for path, kind in cases.items():
        with pytest.raises(GGUFError, match=re.escape(f"{path}: {kind}, not a regular file: a GGUF file must be")):
            read_metadata(path)
        with pytest.raises(GGUFError, match="not a regular file"):
            read_metadata(Path(path))
    with pytest.raises(FileNotFoundError):
        read_metadata(tmp_path / "nothing.gguf")


def test_a_short_regular_file_is_read_no_further_than_its_size(tmp_path):
    (tmp_path / "short.gguf").write_bytes(b"GGUF\x03\x00")
    with pytest.raises(GGUFError, match="the GGUF header needs 24 bytes but the file ends after 6"):
        read_metadata(tmp_path / "short.gguf")


@pytest.mark.parametrize("byte_order", ["little", "big"])
def test_the_writer_packs_arrays_to_the_bytes_gguf_py_packs(tmp_path, byte_order):
    """gguftok's writer packs a typed array in one call; gguf-py's own GGUFWriter, item by item, is the reference."""
    kv = {f"a.{vt.name}": (vt, values) for vt, values in {
        ValueType.UINT8: [0, 255], ValueType.INT8: [-128, 7], ValueType.UINT16: [65535], ValueType.INT16: [-2],
        ValueType.UINT32: [1, 2, 3], ValueType.INT32: [-1], ValueType.FLOAT32: [1.5, float("nan")],
        ValueType.BOOL: [True, False, 3], ValueType.UINT64: [2**64 - 1], ValueType.INT64: [-(2**63)],
        ValueType.FLOAT64: [float("-inf"), 0.1], ValueType.STRING: ["", "é", b"\xff raw", "a b"]}.items()}
    kv["tokenizer.ggml.tokens"] = (ValueType.STRING, np.array(["x", "y"]))
    kv["a.nested"] = [[1, 2], [3]]  # an array of arrays, item type inferred: gguf-py's path
    endian = gguf.GGUFEndian.BIG if byte_order == "big" else gguf.GGUFEndian.LITTLE
    ref = gguf.GGUFWriter(tmp_path / "ref.gguf", "llama", endianess=endian)
    for key, value in kv.items():
        if isinstance(value, tuple):
            vt, items = value
            items = [v.encode("utf-8", "surrogateescape") if isinstance(v, str) else v for v in items]
            ref.add_key_value(key, list(items), gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType(vt))
        else:
            ref.add_key_value(key, value, gguf.GGUFValueType.ARRAY)
    ref.write_header_to_file()
    ref.write_kv_data_to_file()
    ref.write_ti_data_to_file()
    ref.close()
    ours = write_gguf(tmp_path / "ours.gguf", kv, byte_order=byte_order)
    assert ours.read_bytes() == (tmp_path / "ref.gguf").read_bytes()
