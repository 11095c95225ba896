"""Hostile files: truncated and mutated real vocabularies give a result or a GGUFError, quickly, never else.

Mutations aim at the places where a reader trusts the file: the header, each key's length, type and
array header (element type, count), and string lengths inside the token arrays; plus uniform noise.
Hypothesis's deadline bounds the time of each read: a hang or a runaway loop fails the test.
"""

from __future__ import annotations

import functools
import os
import struct
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_metadata import ALL_TYPES  # at import time: imported inside a hypothesis test, it failed as nested @given

from gguftok import GGUFError, GGUFMetadata, read_metadata
from gguftok.writer import gguf_bytes

EXAMPLES = int(os.environ.get("GGUFTOK_FUZZ_EXAMPLES", "20"))  # raise it for a longer hunt
FUZZ = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=5), print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


@functools.lru_cache(maxsize=2)
def original(path) -> tuple[bytes, tuple[int, ...]]:
    """The file's bytes and the offsets worth attacking."""
    blob = path.read_bytes()
    md = read_metadata(blob)
    spots = set(range(0, 24))
    for key, off in md.offsets.items():
        type_at = off + 8 + len(key.encode())
        spots.update({off, type_at, type_at + 4, type_at + 8})  # key length, type, array type / count
        if md.types[key] == md.types.get("tokenizer.ggml.tokens"):
            first = type_at + 16  # the first strings of a string array
            spots.update(range(first, first + 64, 8))
    spots.add(len(blob) - 1)
    return blob, tuple(sorted(spots))


def check(blob: bytes) -> None:
    try:
        assert isinstance(read_metadata(blob), GGUFMetadata)
    except GGUFError as e:
        assert e.offset is None or 0 <= e.offset <= len(blob), e


values = st.one_of(st.binary(min_size=1, max_size=8),
                   st.sampled_from([b"\xff" * 8, b"\x00" * 8, b"\x7f", b"\x09\x00\x00\x00",
                                    b"\x08\x00\x00\x00", struct.pack("<Q", 2**62), struct.pack("<Q", 1 << 20)]))


def mutate(data, blob: bytes, spots: tuple[int, ...]) -> bytearray:
    """``blob`` with one to three patches of hostile ``values``, mostly at the ``spots`` worth attacking."""
    mutated = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.one_of(st.sampled_from(spots).flatmap(lambda s: st.integers(s, s + 3)),
                                 st.integers(0, len(blob) - 1)))
        patch = data.draw(values)
        mutated[at:at + len(patch)] = patch
    return mutated


@FUZZ
@given(data=st.data())
def test_truncated_files(each_vocab, data):
    blob, spots = original(each_vocab)
    cut = data.draw(st.one_of(st.sampled_from(spots).map(lambda s: s + 1), st.integers(0, len(blob) - 1)))
    check(blob[:cut])


@FUZZ
@given(data=st.data())
def test_mutated_files(each_vocab, data):
    blob, spots = original(each_vocab)
    check(bytes(mutate(data, blob, spots)[:len(blob)]))


@functools.lru_cache(maxsize=1)
def all_types_blob() -> bytes:
    return gguf_bytes(ALL_TYPES)


@settings(max_examples=10 * FUZZ.max_examples, deadline=timedelta(seconds=5))
@given(st.data())
def test_mutated_files_of_every_value_type(data):
    blob = bytearray(all_types_blob())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(blob) - 1))
        patch = data.draw(values)
        blob[at:at + len(patch)] = patch
    cut = data.draw(st.integers(0, len(blob)))
    check(bytes(blob[:cut]))
