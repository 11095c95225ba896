"""encode_batch: the same ids as encode, in order, in this process or over worker processes."""

from __future__ import annotations

import random

import pytest

from gguftok import EncodeError, Tokenizer, read_metadata
from gguftok.conformance.generate import Generators


@pytest.fixture(scope="module")
def qwen2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("qwen2"))


def _texts(tok: Tokenizer, n: int) -> list[str | bytes]:
    rng = random.Random(3)
    gen = Generators([], ["<|im_start|>", "<|im_end|>"])
    texts = [gen.text(rng) for _ in range(n)] + ["", "<|im_end|>", b"\xff\xfe bytes"]
    return [t for t in texts if _encodes(tok, t)]  # not the ones llama.cpp aborts on (tested below)


def _encodes(tok: Tokenizer, text: str | bytes) -> bool:
    try:
        tok.encode(text)
    except EncodeError:
        return False
    return True


@pytest.mark.parametrize("workers", [1, 2])
def test_batch_equals_one_by_one(qwen2, workers):
    texts = _texts(qwen2, 300)
    assert len(texts) > 250
    for flags in ((True, False), (False, True)):
        expect = [qwen2.encode(t, *flags) for t in texts]
        assert qwen2.encode_batch(texts, *flags, workers=workers, chunk_size=7) == expect


def test_workers_without_a_file_get_the_metadata(vocab_path):
    md = read_metadata(vocab_path("gpt-2"))
    tok = Tokenizer(md.with_changes({"tokenizer.ggml.add_bos_token": True}))  # no file says this
    assert tok.source_path is None and tok.add_bos
    texts = ["Hello world", "naïve café 123", "x" * 1000]
    assert tok.encode_batch(texts, workers=2) == [tok.encode(t) for t in texts]
    assert all(ids[0] == tok.bos_id for ids in tok.encode_batch(texts, workers=2))


def test_progress_bar_and_errors(qwen2, capsys):
    texts = ["one", "two", "three"]
    assert qwen2.encode_batch(texts, workers=2, progress=True) == [qwen2.encode(t) for t in texts]
    assert "3/3" in capsys.readouterr().err
    with pytest.raises(EncodeError, match="past U\\+10FFFF"):
        qwen2.encode_batch(["fine", b"bad \xf4\x90\x80\x80"], workers=2)


def test_cached_tokenizer_loads_once_per_file(vocab_path):
    from gguftok.batch import cached_tokenizer

    a = cached_tokenizer(str(vocab_path("gpt-2")))
    assert cached_tokenizer(str(vocab_path("gpt-2"))) is a and a.source_path == str(vocab_path("gpt-2"))
    assert cached_tokenizer(str(vocab_path("qwen2"))) is not a
