"""Lesson 01's exercises: some first differences of the wrong variants written out by hand, the long arrays of
the real vocabularies compared item by item, NaN, and what the checks measure on absurd counts."""

from __future__ import annotations

import math
import struct
import time

import pytest
from conftest import _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.exercises import check, exercise, lesson01
from gguftok.exercises.lesson01 import _gguf

WRONG = wrong_variants()
STRING, ARRAY, FLOAT32 = 8, 9, 6


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def test_a_bool_is_a_bool_not_its_byte():
    r = check("01.read_value", WRONG["01.read_value"])
    assert r.case == 3 and r.expected == "(True, 1)" and r.got == "(1, 1)"
    assert r.rerun == r"read_value(b'\x01', 0, 7)"


def test_a_version_1_file_must_be_refused():
    r = check("01.read_metadata", WRONG["01.read_metadata"])
    assert r.call == "read_metadata(<tiny-9.gguf as version 1>)"
    assert r.expected.startswith("raises ValueError (<bytes>: unsupported GGUF version 1")
    assert "the reference raises here; yours returned" in r.text
    assert r.rerun == f"rerun('01.read_metadata', {r.case + 1})"


def test_a_wrong_token_of_a_real_vocabulary_is_named_by_its_index():
    read = solved("01.read_metadata")

    def one_wrong_token(data):
        md = read(data)
        tokens = md.get("tokenizer.ggml.tokens", [])
        if len(tokens) > 5000:
            tokens[4321] = "Ġoops"
        return md

    r = check("01.read_metadata", one_wrong_token)
    assert r.status == "failed" and r.call.endswith(">)['tokenizer.ggml.tokens']"), r.text
    assert r.expected.startswith("'all ") and r.expected.endswith(" items as gguftok reads them'")
    assert r.got.startswith("\"item 4321 is 'Ġoops', where gguftok reads ")
    # the same case again, through the student's function, gives the same answer
    assert exercise("01.read_metadata").rerun(r.case + 1, one_wrong_token) == eval(r.got)


def test_a_long_array_of_another_type_or_length_is_named():
    read = solved("01.read_metadata")

    def ints_as_floats_and_one_merge_short(data):
        md = read(data)
        for key in ("tokenizer.ggml.token_type", "tokenizer.ggml.merges"):
            if len(md.get(key, [])) > 1000:
                md[key] = md[key][:-1] if key.endswith("merges") else tuple(float(x) for x in md[key])
        return md

    r = check("01.read_metadata", ints_as_floats_and_one_merge_short)  # floats equal to the ints agree
    assert r.status == "failed" and r.call.endswith("['tokenizer.ggml.merges']"), r.text
    assert r.got.startswith("'") and ", where gguftok reads " in r.got and "items" in r.got


def test_a_nan_agrees_with_a_nan_and_only_with_one():
    blob = _gguf([("test.nan", FLOAT32, math.nan)])
    read = solved("01.read_metadata")
    assert math.isnan(read(blob)["test.nan"])
    assert check("01.read_metadata", read).ok

    def nan_as_zero(data):
        return {k: 0.0 if isinstance(v, float) and math.isnan(v) else v for k, v in read(data).items()}

    r = check("01.read_metadata", nan_as_zero)
    assert r.call.startswith("read_metadata(<a file with a float32 NaN") and "('test.nan', nan)" in r.expected


def test_making_room_for_an_absurd_count_fails_the_measure():
    read_value = solved("01.read_value")

    def makes_room_first(data, offset, type_code):
        if type_code == ARRAY and len(data) >= offset + 12:
            _item_type, count = struct.unpack_from("<IQ", data, offset)
            _room = [None] * min(count, 10**7)  # room for the items before knowing they are there
        return read_value(data, offset, type_code)

    r = check("01.read_value", makes_room_first)
    assert r.status == "failed" and r.case is None, r.text
    assert r.text.splitlines()[0].endswith("but it must refuse an array whose count the bytes cannot hold before "
                                           "making room for its items")
    assert "it allocated 80 MB before raising ValueError" in r.got


def test_a_reader_too_slow_for_a_real_vocabulary_stops_on_the_smallest(monkeypatch):
    monkeypatch.setattr(lesson01, "_budget", lambda size: 0.0 if size > 100_000 else 1e9)
    r = check("01.read_metadata", solved("01.read_metadata"))
    assert r.status == "error" and r.call == "list(read_metadata(<the bytes of ggml-vocab-bert-bge.gguf>))  # the " \
        "keys, in order", r.text
    assert r.detail.startswith("TimeoutError: reading ggml-vocab-bert-bge.gguf (0.6 MB) took ")


def test_the_check_of_every_vocabulary_takes_seconds():
    exercise("01.read_metadata").cases()
    start = time.perf_counter()
    assert check("01.read_metadata", solved("01.read_metadata")).ok
    assert time.perf_counter() - start < 20


def test_the_real_files_checked_hold_every_kind_of_value_of_the_nineteen_and_the_largest():
    """01.read_metadata reads one file per tokenizer model, not all 19: that must lose no GGUF type (or array
    item type) that any of the 19 holds, nor the largest file, on which a reader slow in the size shows."""
    from gguftok.data import vocab_dir
    from gguftok.metadata import read_metadata

    def kinds(path):
        return set(read_metadata(path).types.values())

    every = sorted(vocab_dir().glob("*.gguf"))
    assert len(every) == 19
    chosen = lesson01._family_files()
    assert set().union(*map(kinds, every)) <= set().union(*map(kinds, chosen))
    assert max(every, key=lambda p: p.stat().st_size) in chosen
    models = {read_metadata(p)["tokenizer.ggml.model"] for p in every}
    assert len(chosen) == len(models)
    labels = [c.label for c in exercise("01.read_metadata").cases() if c.label and "ggml-vocab-" in c.label]
    assert {label.split("<the bytes of ")[1].split(">")[0] for label in labels} == {p.name for p in chosen}
