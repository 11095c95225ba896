"""Decoding's fast paths against their literal forms: the space clean-up as substitutions against llama.cpp's
loop, and the joined pieces against one piece at a time."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import Tokenizer
from gguftok.detokenize import clean_spaces, clean_spaces_loop


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=30) | st.lists(st.sampled_from([b" ", b"'", b"?", b".", b",", b"!", b"s", b"m", b"re",
                                                           b"ve", b"t", b"\x00", b"a"]), max_size=20).map(b"".join))
def test_clean_spaces_substitutions_equal_the_loop(data):
    assert clean_spaces(data) == clean_spaces_loop(data)


def test_clean_spaces_quirks():
    assert clean_spaces(b"a ' ' b") == b"a'' b"  # the loop's NUL: a match's trailing space starts no other
    assert clean_spaces(b" ?x 'll 's 're") == b"?x 'll's're"


@pytest.mark.parametrize("name", ["qwen2", "llama-spm", "gpt-2", "bert-bge"])
def test_joined_pieces_equal_one_by_one(vocab_path, name):
    tok = Tokenizer.from_gguf(vocab_path(name))
    rng = random.Random(name)
    ids = [rng.randrange(tok.n_vocab) for _ in range(3000)] + sorted(tok.vocab.special_cache)[:20]
    for special in (False, True):
        assert tok.pieces.join(ids, special) == b"".join(tok.token_to_piece(i, special) for i in ids)
        assert tok.pieces.join(ids, special) == b"".join(tok.token_to_piece(i, special) for i in ids)  # cached
    with pytest.raises(IndexError, match="out of range"):
        tok.decode_bytes([1, -1])
    with pytest.raises(IndexError, match="out of range"):
        tok.decode_bytes([tok.n_vocab])
