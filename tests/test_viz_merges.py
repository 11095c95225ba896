"""The merge-rank views: escaped, sanitizer-safe, and right against counts made straight from the file."""

from __future__ import annotations

from collections import Counter

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer, read_metadata
from gguftok.bytemap import BYTE_TO_CHAR
from gguftok.models.bpe import merge_ranks, split_merge
from gguftok.viz.merges_view import (
    MergeIndex,
    first_merges,
    format_merge_facts,
    merge_facts,
    parse_merge_lines,
    rank_lookup,
    rank_lookups,
)


@pytest.fixture(scope="module")
def qwen2(vocab_path):
    return MergeIndex.from_tokenizer(Tokenizer.from_gguf(vocab_path("qwen2")))


@pytest.fixture(scope="module")
def qwen2_md(vocab_path):
    return read_metadata(vocab_path("qwen2"))


@pytest.fixture(scope="module")
def llama3(vocab_path):
    return MergeIndex.from_tokenizer(Tokenizer.from_gguf(vocab_path("llama-bpe")))


@pytest.fixture
def tiny():
    merges = ["a b", "Ġ ab", "ab c", "<x >", "a b"]
    tokens = ["a", "b", "c", "Ġ", "<x", ">", "ab", "Ġab", "abc", "<x>"]
    return MergeIndex(merges, {t: i for i, t in enumerate(tokens)}, frozenset(tokens))


def test_split_is_llama_cpps_find_from_index_1():
    assert split_merge("Ġ t") == ("Ġ", "t")
    assert split_merge("  x") == (" ", "x")  # a search from index 0 would give an empty left side
    assert split_merge("a b c") == ("a", "b c")
    assert split_merge("ab") is None and split_merge(" ab") is None


def test_first_merges_match_the_file(qwen2, qwen2_md):
    raw = list(qwen2_md["tokenizer.ggml.merges"])
    tokens = list(qwen2_md["tokenizer.ggml.tokens"])
    view = first_merges(qwen2, count=8)
    lines = view.text.splitlines()[1:]
    assert len(lines) == 8
    for rank, line in enumerate(lines):
        left, right = raw[rank].split(" ")
        assert line.startswith(f'rank {rank}: "{left}" + "{right}" -> "{left + right}"')
        assert f"id {tokens.index(left + right)} " in line + " "
    assert lines[0].startswith('rank 0: "Ġ" + "Ġ" -> "ĠĠ"') and "id 256" in lines[0]
    assert_sanitizer_safe(view.html)


def test_ranks_are_the_tokenizers_ranks(qwen2, qwen2_md, vocab_path):
    raw = list(qwen2_md["tokenizer.ggml.merges"])
    assert qwen2.ranks == {m: i for i, m in enumerate(raw)}  # no duplicates in Qwen2: one key per line
    assert qwen2.ranks == Tokenizer.from_gguf(vocab_path("qwen2")).model.ranks


def test_lookup_of_the_lessons_pairs(qwen2):
    text = rank_lookups(qwen2, ["i n", "o n", "Ġ t", "t h", "ĠĠ Ġ", "Ġ ĠĠĠ"]).text
    for pair, rank in [("i n", 2), ("o n", 7), ("Ġ t", 3), ("t h", 83), ("ĠĠ Ġ", 6)]:
        left, right = pair.split(" ")
        assert f'pair "{left}" + "{right}": rank {rank} ->' in text
    assert 'pair "Ġ" + "ĠĠĠ": no merge' in text
    assert '"ĠĠĠĠ" (id 257) is built by 1 merge:' in text


def test_lookup_by_text_and_by_plain_text(qwen2, llama3):
    assert rank_lookup(qwen2, "Ġt").text == '"Ġt" (id 259) is built by 1 merge:\n  rank 3: "Ġ" + "t"'
    plain = rank_lookup(qwen2, " the").text
    assert '"␣the" in vocabulary form is "Ġthe"' in plain and "rank 23" in plain
    assert "no merge builds it" in rank_lookup(qwen2, "a").text
    assert "not a token" in rank_lookup(qwen2, "qqqqzzzz").text
    many = rank_lookup(llama3, "ĠĠĠĠ").text
    assert "built by 3 merges" in many and '"Ġ" + "ĠĠĠ"' in many and '"ĠĠĠ" + "Ġ"' in many


def test_lookup_escapes_and_stays_safe(tiny):
    view = rank_lookup(tiny, "<x >")
    assert "<x" not in view.html and "&lt;x" in view.html
    assert view.text == 'pair "<x" + ">": rank 3 -> "<x>" (id 9)'
    assert_sanitizer_safe(view.html)
    assert_sanitizer_safe(first_merges(tiny).html)
    assert "&lt;x&gt;" in first_merges(tiny).html and "<x>" not in first_merges(tiny).html
    assert_sanitizer_safe(rank_lookup(tiny, "").html)


def test_first_duplicate_wins(tiny):
    assert tiny.ranks["a b"] == 0 and tiny.paths("ab") == [0]  # the second "a b" (rank 4) never fires
    text = parse_merge_lines(["Ġ t", "  x", "a b c", "ab", "Ġ t", "cd"]).text.splitlines()
    assert text[0].endswith("rank 0") and '"␣" + "x"' in text[1]
    assert "right side holds a space" in text[2] and "empty pair" in text[3]
    assert "duplicate: rank 0 was registered first" in text[4]
    assert "duplicate empty pair: rank 3 stays" in text[5]
    assert merge_ranks(["Ġ t", "Ġ t"]) == {"Ġ t": 0}
    assert_sanitizer_safe(parse_merge_lines(["<a> b", "a b"]).html)
    assert "&lt;a&gt;" in parse_merge_lines(["<a> b"]).html


def _independent_counts(md):
    merges = list(md["tokenizer.ggml.merges"])
    tokens = list(md["tokenizer.ggml.tokens"])
    types = list(md["tokenizer.ggml.token_type"])
    built = Counter(m.replace(" ", "", 1) for m in merges)
    normal = {t for t, k in zip(tokens, types, strict=True) if int(k) == 1}
    return merges, built, normal


def test_qwen2_merges_are_its_normal_tokens_minus_the_bytes(qwen2, qwen2_md):
    merges, built, normal = _independent_counts(qwen2_md)
    assert len(merges) == 151_387 and len(built) == 151_387 and len(normal) == 151_643
    assert normal - set(built) == set(BYTE_TO_CHAR)
    f = merge_facts(qwen2)
    assert (f.n_merges, f.n_results, f.n_normal, f.max_paths) == (151_387, 151_387, 151_643, 1)
    assert f.results_are_normal and f.normal_not_built == 256 and f.normal_not_built_are_bytes
    assert f.id_is_rank_plus_256 == 151_387 and f.uses_later_side == 0
    assert "151,387 + 256 = 151,643" in format_merge_facts("qwen2", f)


def test_llama3_has_many_paths_per_token(llama3, vocab_path):
    merges, built, normal = _independent_counts(read_metadata(vocab_path("llama-bpe")))
    assert len(merges) == 280_147 and len(built) == 127_744 and max(built.values()) == 80
    f = merge_facts(llama3)
    assert (f.n_merges, f.n_tokens, f.n_results, f.max_paths) == (280_147, 128_256, 127_744, 80)
    assert f.normal_not_built_are_bytes and f.n_results + f.normal_not_built == f.n_normal == len(normal)
    assert f.most_paths == tuple(sorted(t for t, n in built.items() if n == 80))
    assert dict(f.paths_histogram) == dict(Counter(built.values()))
    assert all(set(t) == {"Ġ"} for t in f.most_paths)
