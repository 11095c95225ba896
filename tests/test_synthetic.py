"""The lessons' synthetic vocabularies in data/synthetic/ and the byte map they are built with."""

from __future__ import annotations

import pytest
from conftest import REPO

from gguftok import read_metadata
from gguftok.bytemap import BYTE_TO_CHAR, bytes_to_text, text_to_bytes
from gguftok.synthetic import CONTROL, NORMAL, SYNTHETIC, USER_DEFINED
from gguftok.writer import write_tokenizer


@pytest.mark.parametrize("name", sorted(SYNTHETIC))
def test_committed_files_are_what_the_script_writes(name, tmp_path):
    fresh = write_tokenizer(tmp_path / name, **SYNTHETIC[name]())
    committed = REPO / "data" / "synthetic" / name
    assert committed.read_bytes() == fresh.read_bytes(), "run `make synthetic` and commit data/synthetic/"


def test_tiny_vocabulary_reads_back():
    md = read_metadata(REPO / "data" / "synthetic" / "tiny-9.gguf")
    assert md["tokenizer.ggml.tokens"] == ["<|endoftext|>", "a", "b", "c", "Ġ", "ab", "Ġab", "abc", "[PAD0]"]
    assert md["tokenizer.ggml.token_type"].tolist() == [CONTROL] + [NORMAL] * 7 + [USER_DEFINED]
    assert md["tokenizer.ggml.merges"] == ["a b", "Ġ ab", "ab c"]
    assert (md["tokenizer.ggml.model"], md["tokenizer.ggml.pre"]) == ("gpt2", "qwen2")
    assert md["tokenizer.ggml.eos_token_id"] == 0
    assert "tokenizer.ggml.bos_token_id" not in md and "tokenizer.ggml.add_bos_token" not in md


def test_byte_level_vocabulary_has_the_lessons_shape():
    md = read_metadata(REPO / "data" / "synthetic" / "byte-level-286.gguf")
    tokens, types, merges = md["tokenizer.ggml.tokens"], md["tokenizer.ggml.token_type"], md["tokenizer.ggml.merges"]
    assert (len(tokens), len(merges)) == (286, 26)
    assert tokens[256:260] == ["He", "Hel", "Hell", "Hello"]
    assert [tokens[i] for i in range(282, 286)] == ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "[PAD0]"]
    assert types.tolist()[282:] == [CONTROL, CONTROL, CONTROL, USER_DEFINED]
    assert md["tokenizer.ggml.eos_token_id"] == md["tokenizer.ggml.bos_token_id"] == 282
    # every merge joins two existing tokens into the next new one, in id order
    for rank, merge in enumerate(merges):
        left, right = merge.split(" ")
        assert left in tokens[: 256 + rank] and right in tokens[:256] and tokens[256 + rank] == left + right


def test_byte_map_is_gpt2s(vocab_path):
    # GPT-2's and Qwen2's vocabularies start with the 256 byte characters in code point order.
    for name in ("gpt-2", "qwen2"):
        assert read_metadata(vocab_path(name))["tokenizer.ggml.tokens"][:256] == sorted(BYTE_TO_CHAR, key=ord)
    assert len(set(BYTE_TO_CHAR)) == 256
    assert (BYTE_TO_CHAR[0x20], BYTE_TO_CHAR[0x0A], BYTE_TO_CHAR[0xAD], BYTE_TO_CHAR[0x41]) == ("Ġ", "Ċ", "Ń", "A")
    every_byte = bytes(range(256))
    assert text_to_bytes(bytes_to_text(every_byte)) == every_byte
