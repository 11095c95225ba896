"""The BPE merge loop's two forms agree: the queue (merge_word, which the trace shows) and the list
(merge_pairs, which encoding runs for short words); and the batch loop of encode_words keeps the cache."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import EncodeError, Tokenizer
from gguftok.conformance.generate import Generators
from gguftok.metadata import read_metadata
from gguftok.models import bpe
from gguftok.models.bpe import (
    CUT_LONGER_THAN,
    SHORT_WORD,
    TRACE_LIMIT,
    BPEModel,
    junction_cuts,
    junctions,
    merge_pairs,
    merge_ranks,
    merge_word,
    rank_table,
    safe_cuts,
)


@pytest.fixture(scope="module", params=["qwen2", "llama-bpe", "gpt-2"])
def tok(request, vocab_path):
    return Tokenizer.from_gguf(vocab_path(request.param))


def test_list_and_queue_merge_alike_on_real_words(tok):
    rng = random.Random(5)
    words = set(tok.words(Generators([], []).long_text(rng, 60_000)))
    words |= {w for w in tok.vocab.texts[:3000] if " " not in w}  # tokens spelled out: long merge chains
    words = sorted(w for w in words if isinstance(w, str) and w)
    assert len(words) > 3000
    ranks = tok.model.ranks
    for w in words:
        assert merge_pairs(w, ranks) == merge_word(w, ranks), w


@settings(max_examples=300, deadline=None)
@given(st.text("abcĠ", min_size=0, max_size=SHORT_WORD))
def test_list_and_queue_merge_alike_on_a_dense_table(word):
    # every pair of a 4-letter alphabet merges, in an order that makes stale queue entries common
    ranks = merge_ranks(["a a", "b c", "a b", "c a", "Ġ a", "ab c", "aa a", "bc a", "Ġa b", "c c", "aa b",
                         "ca b", "b b", "Ġ Ġ", "cc c", "bb b", "a c", "ab ab"])
    assert merge_pairs(word, ranks) == merge_word(word, ranks)


def test_both_refuse_a_space_in_a_word():
    ranks = merge_ranks(["a b"])
    for merge in (merge_pairs, merge_word):
        with pytest.raises(EncodeError, match="space inside a word"):
            merge("a b", ranks)
        assert merge(" ", ranks) == [" "]  # a lone symbol never reaches the lookup


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ab ", max_size=5), max_size=12))
def test_the_rank_table_agrees_with_merge_ranks_on_every_lookup(merges):
    # lines with no space, a space first, two spaces, repeats: every pair of symbols (no space) finds the same
    table, ranks = rank_table(merges), merge_ranks(merges)
    symbols = ["a", "b", "ab", "ba", "aa", "bb", "aab", "abb"]
    for left in symbols:
        for right in symbols:
            assert table.get(f"{left} {right}") == ranks.get(f"{left} {right}")


def test_the_rank_table_is_merge_ranks_on_every_real_vocabulary(each_vocab):
    merges = read_metadata(each_vocab).get("tokenizer.ggml.merges") or []
    assert rank_table(merges) == merge_ranks(merges)


def test_a_trace_refuses_a_word_too_long_to_record(vocab_path):
    gpt2_tok = Tokenizer.from_gguf(vocab_path("gpt-2"))
    word = "ab" * TRACE_LIMIT
    ranks = gpt2_tok.model.ranks
    with pytest.raises(EncodeError, match=f"{2 * TRACE_LIMIT} characters, more than {TRACE_LIMIT}"):
        merge_word(word, ranks, [])
    with pytest.raises(EncodeError, match="encode it without a trace"):
        gpt2_tok.trace(word)
    assert merge_word(word, ranks) == merge_pairs(word, ranks)  # without a trace it merges as ever
    steps = []
    assert merge_word(word[:TRACE_LIMIT], ranks, steps) == merge_pairs(word[:TRACE_LIMIT], ranks) and steps


@pytest.mark.parametrize("size", [4, 30, 1000])  # evicting often, sometimes, never
def test_encode_words_equals_word_ids_one_by_one(tok, size):
    words = tok.words("the cat sat on the mat, and the cat slept " * 3 + "naïve 日本語 1234")
    fresh = Tokenizer(tok.vocab.md, cache_size=size)
    again = Tokenizer(tok.vocab.md, cache_size=size)
    for batch in (words[:9], words, words[::-1]):  # a second and third call: hits among new words
        expect = [i for w in batch for i in fresh.model.word_ids(w)]
        assert again.model.encode_words(batch) == expect
        assert again.model.encode_words([*batch, ""]) == expect  # an empty word gives nothing
        for w in batch:
            fresh.model.word_ids(w)
        assert list(again.model._cache) == list(fresh.model._cache)  # the same LRU contents, in the same order


def test_gemma4_lines_cut_at_safe_places_give_the_ids_of_the_whole_line(vocab_path):
    # Gemma 4's words are whole lines; BPEModel cuts them where no merge can join the two sides (junctions:
    # before "▁" first, then inside long parts). The same lines merged whole (no cuts) must give the same ids.
    cut = Tokenizer.from_gguf(vocab_path("gemma-4"))
    whole = Tokenizer.from_gguf(vocab_path("gemma-4"))
    whole.model.cut_marker = None
    rng = random.Random(11)
    text = Generators([], []).long_text(rng, 40_000) + "".join(
        f"{'    ' * (i % 4)}if (x{i} >  y) {{ return a->b[{i}];  }} // naïve ▁ café\n"
        f"{'  ' * (i % 3)}ggml_backend_dev_by_type{i}(GGML_BACKEND_DEVICE_TYPE_CPU)->tensorDataUTF8_{i};\n"
        for i in range(60))
    lines = [w for w in cut.words(text) if len(w) > CUT_LONGER_THAN]
    assert len(lines) > 150
    for line in lines:
        assert cut.model.word_ids(line) == whole.model.word_ids(line), line
    # both kinds of cut happened: before "▁" (in C), and inside a long part at a place no merge joins
    spaced = next(w for w in lines if w.startswith("if▁(x"))
    code = next(w for w in lines if w.startswith("ggml_backend_dev_by_type"))
    assert len(cut.model._cuts.split(spaced)) > 5 and len(cut.model._cut(code)) > 3
    assert cut.encode(text) == whole.encode(text)


def test_safe_cuts_keep_every_place_a_merge_spans():
    joins = junctions(merge_ranks(["a ▁", "▁ b", "x ▁b"]))  # merges join a to ▁, ▁ to b, x to ▁b
    assert joins == {"a": "▁", "▁": "b", "x": "▁"}
    assert safe_cuts(joins, "▁").split("a▁bx▁by▁b▁b") == ["a▁bx▁by", "▁b", "▁b"]
    assert junction_cuts("a▁bx▁by▁b▁b", joins) == ["a▁b", "x▁b", "y", "▁b", "▁b"]
    # a line with two spaces: both places count as joined (one more than a lookup can reach, so no cut lost)
    assert junctions(merge_ranks(["a b c"])) == {"a": "b", "b": "c"}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.text("ab▁c", min_size=1, max_size=3), st.text("ab▁c", min_size=1, max_size=3)),
                max_size=25),
       st.text("ab▁cd", max_size=40))
def test_a_word_merges_as_its_junction_cuts_do(merges, word):
    # random merge lists over a small alphabet (so that many places are joined), random words: BPE of the word is
    # BPE of its parts, one after the other
    ranks = merge_ranks([f"{a} {b}" for a, b in merges])
    parts = junction_cuts(word, junctions(ranks))
    assert "".join(parts) == word
    assert [s for p in parts for s in merge_word(p, ranks)] == merge_word(word, ranks)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=20))
def test_a_word_spelled_and_unspelled_is_itself(word):
    # the cache keeps words as written; word_ids of a spelled word finds its entry by unspelling it
    m = BPEModel({}, [])
    assert m.unspell(m.spell(word)) == word
    assert BPEModel({}, [], byte_encode=False).spell(word) == word


def test_unspell_refuses_what_no_text_spells():
    m = BPEModel({"a": 0}, [])
    assert m.unspell("Ġcat") == " cat" and m.unspell("ĠcafÃ©") == " café"
    assert m.unspell(" cat") is None  # a space is not in the byte map (it is spelled Ġ)
    assert m.unspell("Ã") is None  # a lone lead byte: not UTF-8
    assert m.word_ids("Ã") == [] and not m._cache  # merged without the cache (no fallback token for 0xC3)


def test_a_newline_run_inside_a_long_word_is_merged_not_taken_whole():
    # Gemma 4 takes a word that is a run of newlines whole (if it is a token); inside a longer word BPE merges
    # it, so the word is not cut there (encode never meets such a word: its pre-tokenizer splits them off).
    # Here no merge makes "\n\n", so taken whole it would be one token, merged it is two.
    m = BPEModel({"\n": 0, "\n\n": 1, "▁": 2, "a": 3, "▁a": 4}, ["▁ a"], byte_encode=False,
                 newline_runs_whole=True, cut_marker="▁")
    word = "\n\n" + "▁a" * 9
    assert m.word_ids(word) == m.symbol_ids(merge_word(word, m.ranks)) == [0, 0] + [4] * 9
    assert m.word_ids("\n\n") == [1]


def test_a_thrashing_word_cache_grows_to_its_bound_and_a_fixed_one_keeps_its_size(vocab_path):
    """More distinct words than the cache holds, read again in order: an LRU cache finds none of them. The words it
    evicted come back, so it doubles (up to cache_max) and the third pass finds them all; a cache whose bound is
    its size keeps evicting. The ids never change."""
    qwen2 = Tokenizer.from_gguf(vocab_path("qwen2"))
    v = qwen2.vocab
    words = [f" w{i}x" for i in range(150)]
    expect = qwen2.model.encode_text_words(words)

    def model(size, top):
        return BPEModel(v.token_to_id, v.merges, cache_size=size, cache_max=top)

    grows, fixed = model(100, 400), model(100, None)
    assert fixed.cache_max == 100 and BPEModel(v.token_to_id, v.merges).cache_max == bpe.GROWN_CACHE_SIZE
    for _ in range(2):
        assert grows.encode_text_words(words) == fixed.encode_text_words(words) == expect
    assert grows.cache_size == 200 and len(grows._cache) == 150
    assert fixed.cache_size == 100 and len(fixed._cache) == 100
    hits = []
    real = grows._spelled_ids
    grows._spelled_ids = lambda w: hits.append(w) or real(w)
    assert grows.encode_text_words(words) == expect and not hits  # the third pass: every word from the cache
    more = [f" y{i}z" for i in range(300)]  # back after 300 other words: within twice 200, so it grows again
    assert grows.encode_text_words(more * 3) == qwen2.model.encode_text_words(more * 3)
    assert grows.cache_size == 400
    for n in (500, 1000):  # but never past its bound, nor for words that come back only after twice its size
        grows.encode_text_words([f" z{i}y{n}" for i in range(n)] * 3)
    assert grows.cache_size == 400 and len(grows._cache) == 400
