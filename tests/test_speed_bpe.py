"""The byte-level BPE fast paths (issue 21) against the paths they replace, on hostile inputs: the pre-tokenizer's
pieces cut in one search (``joined_pattern``), ``symbol_ids`` in C, and Gemma 4's parts looked up inline. None
is timed (performance lives in bench/)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import Tokenizer
from gguftok.conformance.generate import Generators
from gguftok.models import bpe
from gguftok.models.bpe import CUT_LONGER_THAN, SHORT_WORD, BPEModel
from gguftok.pretokenize import PreTokenizer, join_pieces, pre_tokenizer_config
from gguftok.pretokenize.fast import FAST, PIECE_END, joined_pattern
from gguftok.pretokenize.regex_split import collapse

HOSTILE = st.text(st.sampled_from(" \n\r\t\x0b\u2028\u3000\u00a0'sSlLtTeEreveRmMdD0129١²aZé\u0301漢😀!?.-_\x00\ud800")
                  | st.sampled_from("\uffff\U0010ffff") | st.characters(), max_size=80)


@settings(max_examples=400, deadline=None)
@given(HOSTILE, st.lists(st.integers(0, 80), max_size=12))
def test_joined_pattern_cuts_every_piece_as_the_piece_alone(text, cuts):
    # the reference: each piece of the collapsed text searched alone, up to its end (endpos), as fast_lengths did
    collapsed = collapse(text)
    ends = sorted({min(c, len(text)) for c in cuts} | {len(text)})
    lengths = [b - a for a, b in zip([0, *ends], ends, strict=False)]
    for pattern in set(FAST.values()):
        expect, start = [], 0
        for n in lengths:
            expect += map(len, pattern.findall(collapsed, start, start + n))
            start += n
        got = list(map(len, joined_pattern(pattern).findall(join_pieces(collapsed, lengths, PIECE_END))))
        assert got == expect, (pattern.pattern, text, lengths)


def test_joined_pattern_refuses_what_it_cannot_prove():
    import re

    with pytest.raises(ValueError):
        joined_pattern(re.compile("a*"))  # matches the empty string
    with pytest.raises(ValueError):
        joined_pattern(re.compile("(?s:.)|(?s:.)b"))


@pytest.mark.parametrize("pre", ["falcon", "command-r", "starcoder", "refact", None])
def test_pre_types_with_a_fast_step_among_several_cut_as_the_loops(pre):
    # many pieces before the fast step (punctuation runs, single digits), and every script, space and odd code point
    pt = PreTokenizer(pre_tokenizer_config(pre))
    assert len(pt.regexes) > 1 and any(rx in FAST for rx in pt.regexes[1:])
    rng = random.Random(21)
    texts = [Generators([], []).long_text(rng, 6_000) for _ in range(3)]
    texts += ["1,000.5;'s'LL\u3000\u00a0\n\n 12 ab!!c", "x" + PIECE_END + "1 2", "\ud800\U0010ffff99.9"]
    for text in texts:
        assert pt.fast_lengths(text) == pt.split_lengths([ord(c) for c in text]), (pre, text[:200])


def test_symbol_ids_falls_back_to_bytes_as_the_loop_does():
    # a symbol that is no token falls back to one token per UTF-8 byte of it, the byte's text being the raw byte
    # (llama.cpp's byte_to_token); a byte with no token is dropped
    t2i = {"a": 0, "b": 1, "ab": 2, chr(0xDCC3): 3, chr(0xDC83): 4}
    m = BPEModel(t2i, ["a b"])
    assert m.symbol_ids(["ab", "a"]) == [2, 0]
    assert m.symbol_ids(["\u00c3", "b"]) == [3, 4, 1]  # U+00C3 is 0xC3 0x83
    assert m.symbol_ids(["\u00a9", "a"]) == [0]  # 0xC2 0xA9: neither has a token
    assert m.symbol_ids([]) == []
    plain = BPEModel({"<0x41>": 7, "x": 8}, [], byte_encode=False)
    assert plain.symbol_ids(["x", "AB"]) == [8, 7]  # A -> <0x41>; B has no byte token


def test_gemma4_parts_go_through_the_cache_as_text_word_ids_takes_them(vocab_path, monkeypatch):
    # the cut path looks each part up inline: the ids, the cache's entries and their order must be what calling
    # text_word_ids on each part gives
    monkeypatch.setattr(bpe, "CUTS_AFTER", -1)  # every long word is cut from the first
    tok = Tokenizer.from_gguf(vocab_path("gemma-4"))
    rng = random.Random(5)
    text = Generators([], []).long_text(rng, 30_000).replace(" ", "\u2581")
    lines = [w for w in tok.pre.words(text) if len(w) > CUT_LONGER_THAN][:300]
    assert len(lines) > 100
    for size in (20, 5_000):
        inline = Tokenizer.from_gguf(vocab_path("gemma-4"), cache_size=size).model
        calls = Tokenizer.from_gguf(vocab_path("gemma-4"), cache_size=size).model
        cut = 0
        for line in lines + lines[::-1]:
            got = inline._spelled_ids(line)
            parts = calls._cut(line)
            if len(parts) > 1 and ("\n" not in line or not any(map(calls._newline_run_token, parts))):
                cut += 1
                expect = [i for p in parts for i in calls.text_word_ids(p)]
            else:
                expect = calls._spelled_ids(line)
            assert got == expect, line
            assert list(inline._cache.items()) == list(calls._cache.items())
        assert cut > 100


def test_gemma4_first_prompt_merges_its_lines_whole_and_the_cuts_come_later(vocab_path):
    """A fresh tokenizer merges its first long words (Gemma 4's lines) whole, without the cut tables (junctions of
    every merge), until CUTS_AFTER characters of them; then it cuts. The ids are the whole merge's throughout."""
    from pydoc_data.topics import topics  # English prose: Python's reference, as CPython ships it for help()

    prose = "\n\n".join(topics[name] for name in sorted(topics))
    tok = Tokenizer.from_gguf(vocab_path("gemma-4"))
    whole = Tokenizer.from_gguf(vocab_path("gemma-4"))
    whole.model.cut_marker = None
    first, *rest = [prose[i:i + 1000] for i in range(0, 40_000, 1000)]
    long = [w for w in tok.words(first) if len(w) > CUT_LONGER_THAN]
    assert len(long) > 5 and sum(map(len, long)) < bpe.CUTS_AFTER
    assert tok.encode(first) == whole.encode(first)
    assert tok.model._joins is None and tok.model._uncut == sum(len(w) for w in set(long))  # each new line once
    for text in rest:
        assert tok.encode(text) == whole.encode(text)
    assert tok.model._joins is not None and tok.model._uncut > bpe.CUTS_AFTER
    assert any(len(tok.model._cut(w)) > 1 for w in long)
    # a fresh tokenizer merges a long word whole (the queue: n log n), but one past the budget is cut at once
    fresh = Tokenizer.from_gguf(vocab_path("gemma-4"))
    line = "▁".join(["alpha", "beta", "gamma", "delta"] * 8)
    assert len(line) > SHORT_WORD and fresh.model.word_ids(line) == whole.model.word_ids(line)
    assert fresh.model._joins is None
    line = "▁".join(["alpha", "beta", "gamma", "delta"] * (bpe.CUTS_AFTER // 20))
    assert fresh.model.word_ids(line) == whole.model.word_ids(line) and fresh.model._joins is not None
