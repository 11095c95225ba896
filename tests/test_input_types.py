"""Text in, ids out, and back: only the types each entry point means (issue 19, item 10).

``encode`` takes ``str`` or a bytes-like object; anything else was read as ``bytes(x)`` (``encode(5)`` gave five
NUL bytes, ``encode(10**10)`` ran out of memory). Ids are ints (NumPy integers included); a float, a bool, a
string or ``None`` among them was read as an id (``True`` as 1) or failed inside a list index, naming nothing.
"""

from __future__ import annotations

import array
import tracemalloc

import numpy as np
import pytest
from conftest import REPO

from gguftok import Tokenizer

TEXT_ENTRY_POINTS = ["encode", "words", "trace", "encode_batch_item"]
BAD_TEXTS = [5, 10**10, 2.5, None, True, [104, 105], (104,), {"a": 1}, object()]


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.from_gguf(REPO / "data" / "synthetic" / "byte-level-286.gguf")


def _call(tok, entry, text):
    if entry == "encode_batch_item":
        return tok.encode_batch(["Hello", text])
    return getattr(tok, entry)(text)


@pytest.mark.parametrize("entry", TEXT_ENTRY_POINTS)
@pytest.mark.parametrize("text", BAD_TEXTS, ids=lambda t: type(t).__name__ + (str(t)[:12] if t is not None else ""))
def test_text_must_be_str_or_bytes_like(tok, entry, text):
    with pytest.raises(TypeError, match="str or a bytes-like object") as e:
        _call(tok, entry, text)
    assert type(text).__name__ in str(e.value)
    if entry == "encode_batch_item":
        assert "texts[1]" in str(e.value)


def test_the_issue_reproducers(tok):
    tracemalloc.start()
    try:
        with pytest.raises(TypeError):
            tok.encode(5)
        with pytest.raises(TypeError):
            tok.encode(10**10)  # was MemoryError after trying to allocate 10 GB
        assert tracemalloc.get_traced_memory()[1] < 10 << 20
    finally:
        tracemalloc.stop()
    with pytest.raises(TypeError, match="position 1"):
        tok.decode([259, 264.0])


def test_bytes_like_texts_are_their_bytes(tok):
    want = tok.encode("Hello world")
    for data in (b"Hello world", bytearray(b"Hello world"), memoryview(b"Hello world"),
                 array.array("B", b"Hello world"), np.frombuffer(b"Hello world", dtype=np.uint8),
                 memoryview(b"xHello worldx")[1:-1]):
        assert tok.encode(data) == want, type(data)
        assert tok.words(data) == tok.words("Hello world")
    assert tok.encode_batch([bytearray(b"Hello world"), memoryview(b"Hello world")], workers=2) == [want, want]


def test_encode_batch_takes_a_sequence_of_texts_not_one_text(tok):
    for texts in ("Hello", b"Hello", bytearray(b"Hello"), 5, None):
        with pytest.raises(TypeError, match="texts"):
            tok.encode_batch(texts)
    assert tok.encode_batch(t for t in ["Hello", "world"]) == [tok.encode("Hello"), tok.encode("world")]
    with pytest.raises(TypeError, match=r"texts\[2\].*int"):
        tok.encode_batch(["a", "b", 5], workers=2)  # checked here, before any worker starts


BAD_IDS = [1.0, 259.0, True, False, np.float64(3), np.bool_(True), "259", b"\x01", None, [259], 2.5 + 0j]


@pytest.mark.parametrize("bad", BAD_IDS, ids=lambda b: f"{type(b).__name__}-{b!r:.10}")
def test_ids_must_be_ints_naming_the_position(tok, bad):
    ids = [259, 264, bad]
    for call in (tok.decode, tok.decode_bytes, lambda i: list(tok.decode_stream(i)), tok.pieces.join,
                 lambda i: tok.decode(i, remove_special=True, unparse_special=True)):
        with pytest.raises(TypeError, match=r"position 2\b") as e:
            call(ids)
        assert type(bad).__name__ in str(e.value)
    s = tok.stream()
    s.push(259)
    s.push(264)
    with pytest.raises(TypeError, match=r"position 2\b"):
        s.push(bad)
    for call in (tok.token_to_piece, tok.token_text, tok.is_eog, tok.pieces.piece, tok.pieces.check):
        with pytest.raises(TypeError, match="token id") as e:
            call(bad)
        assert type(bad).__name__ in str(e.value)


def test_a_text_is_not_a_sequence_of_ids(tok):
    for ids in ("abc", b"\x01\x02", bytearray(b"\x01"), 5, None, 2.5):
        for call in (tok.decode, tok.decode_bytes, lambda i: list(tok.decode_stream(i))):
            with pytest.raises(TypeError, match="ids"):
                call(ids)


def test_integer_ids_of_any_kind_decode_alike(tok):
    ids = tok.encode("Hello world, the cat")
    want = tok.decode(ids)
    for form in (tuple(ids), np.array(ids), np.array(ids, dtype=np.int32), np.array(ids, dtype=np.uint16),
                 [np.int64(i) for i in ids], array.array("i", ids), iter(ids), range(0)):
        got = tok.decode(form)
        assert got == (want if not isinstance(form, range) else "")
    assert tok.token_to_piece(np.int64(ids[0])) == tok.token_to_piece(ids[0])
    assert tok.decode(np.array([], dtype=np.float64)) == ""  # an empty array has no float in it
    with pytest.raises(TypeError, match="position 0"):
        tok.decode(np.array([259.0, 264.0]))
    with pytest.raises(TypeError, match="position 0"):
        tok.decode(np.array([True]))
    with pytest.raises(IndexError, match="out of range"):  # an int out of range stays an IndexError
        tok.decode([259, 10**6])


def test_token_id_takes_text(tok):
    assert tok.token_id("Hello") == tok.token_id(b"Hello") is not None
    for bad in (5, None, ["Hello"]):
        with pytest.raises(TypeError, match="str"):
            tok.token_id(bad)


def test_words_and_trace_say_which_models_have_words(vocab_path):
    spm = Tokenizer.from_gguf(vocab_path("llama-spm"))
    for call in (spm.words, spm.trace):
        with pytest.raises(NotImplementedError, match="pre-tokenizer"):
            call("Hello")
