"""The Tokenizer's contract beyond llama.cpp's answers: errors, streaming, tracing, caching, inputs."""

from __future__ import annotations

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import EncodeError, Tokenizer, VocabError, read_metadata
from gguftok.conformance.golden import fixture_paths, read_fixture
from gguftok.vocab import CONTROL, NORMAL


@pytest.fixture(scope="module")
def qwen2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("qwen2"))


@pytest.fixture(scope="module")
def gpt2(vocab_path):
    return Tokenizer.from_gguf(vocab_path("gpt-2"))


def test_lesson_vocabulary():
    tok = Tokenizer.from_gguf(REPO / "data" / "synthetic" / "byte-level-286.gguf")
    assert tok.encode("Hello world") == [259, 264]
    assert tok.encode("Hello the cat") == [259, 270, 267]
    assert tok.encode("2026") == [50, 48, 50, 54]
    assert tok.encode("<|im_start|>user\nHello<|im_end|>\n", parse_special=True) == [283, 273, 10, 259, 284, 10]
    assert tok.decode(tok.encode("héllo 😀")) == "héllo 😀"
    assert tok.add_bos is False and tok.is_eog(282) and tok.is_eog(284)


def test_facts(qwen2, vocab_path):
    assert qwen2.n_vocab == 151936 and qwen2.eot_id == 151645  # <|im_end|>, by libstdc++'s map order
    assert qwen2.token_text(151645) == "<|im_end|>" and qwen2.token_id("<|im_end|>") == 151645
    assert qwen2.attrs[qwen2.token_id("</s>")] == NORMAL | CONTROL  # an EOG text becomes CONTROL
    llama = Tokenizer.from_gguf(vocab_path("llama-bpe"))
    assert llama.eot_id == 128009 and llama.add_bos and llama.encode("") == [llama.bos_id]


def test_parse_special_is_off_by_default(qwen2):
    text = "<|im_end|>"
    assert qwen2.encode(text) != [151645] and qwen2.encode(text, parse_special=True) == [151645]


def test_str_and_bytes_agree_and_lone_surrogates_go_as_their_bytes(qwen2):
    assert qwen2.encode("naïve café") == qwen2.encode("naïve café".encode())
    assert qwen2.encode("a\ud800b") == qwen2.encode(b"a\xed\xa0\x80b")


def test_code_points_past_u10ffff_raise_where_llama_aborts(qwen2):
    with pytest.raises(EncodeError) as e:
        qwen2.encode(b"ok \xf4\x90\x80\x80 then")
    assert isinstance(e.value, ValueError) and e.value.offset == 3 and "offset 3" in str(e.value)
    with pytest.raises(EncodeError) as e:  # after a special token: the offset counts from the input's start
        qwen2.encode(b"<|im_end|>ok \xf4\x90\x80\x80", parse_special=True)
    assert e.value.offset == 13


def test_out_of_range_ids_raise_index_error(qwen2):
    with pytest.raises(IndexError, match=r"token id 151936 is out of range: the vocabulary has 151936 tokens"):
        qwen2.decode([1, 151936])
    with pytest.raises(IndexError, match="-1"):
        qwen2.token_to_piece(-1)


def test_streaming_holds_incomplete_characters(gpt2):
    ids = gpt2.encode(" 😀 naïve 東京!")
    parts = list(gpt2.decode_stream(ids))
    assert "".join(parts) == gpt2.decode(ids) == " 😀 naïve 東京!"
    assert "" in parts  # the emoji's first bytes produced nothing yet
    stream, emitted, pieces, held = gpt2.stream(), "", b"", []
    for i in ids:  # the bytes held are exactly those not yet given out as text: a character's start
        emitted += stream.push(i)
        pieces += gpt2.token_to_piece(i)
        assert emitted.encode() + stream.pending == pieces and len(stream.pending) < 4
        held.append(stream.pending)
    assert held[:2] == [b"\xf0\x9f\x98", b""] and b"\xe6\x9d" in held  # starts of 😀 and 東 waited
    assert stream.pending == b"" and stream.flush() == ""


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60))
def test_round_trip_and_stream_agree(gpt2, text):
    ids = gpt2.encode(text)
    assert gpt2.decode_bytes(ids) == text.encode("utf-8", "surrogatepass") or gpt2.vocab.clean_spaces
    # the stream joins the pieces as they come; llama_detokenize's clean-up of " ." etc. is not streamed
    pieces = b"".join(gpt2.token_to_piece(i) for i in ids)
    assert "".join(gpt2.decode_stream(ids)) == pieces.decode("utf-8", "replace")


def test_trace_gives_the_same_ids_as_encode(vocab_path):
    for name in ("gpt-2", "llama-bpe", "qwen2", "deepseek-coder"):
        tok = Tokenizer.from_gguf(vocab_path(name))
        fx = read_fixture(next(p for p in fixture_paths() if p.name == f"{name}.jsonl.xz"))
        for case in fx.encode[:300]:
            if isinstance(case.answers[0], list):
                traced = [i for w in tok.trace(case.text) for i in w.ids]
                assert traced == tok.encode(case.text, add_special=False) == case.answers[0]


def test_word_cache_is_bounded(vocab_path):
    tok = Tokenizer(read_metadata(vocab_path("gpt-2")), cache_size=50)
    tok.encode(" ".join(f"w{i}" for i in range(500)))
    assert len(tok.model._cache) == 50


def test_very_long_words_need_no_recursion(gpt2):
    word = "ab" * 50_000  # llama.cpp's std::regex paths overflow their stack near 25k code points
    ids = gpt2.encode(word)
    assert gpt2.decode(ids) == word


def test_load_errors_name_the_key(vocab_path):
    md = read_metadata(vocab_path("gpt-2"))
    with pytest.raises(VocabError, match=r"tokenizer\.ggml\.merges"):
        Tokenizer(md.with_changes({"tokenizer.ggml.merges": None}))
    with pytest.raises(VocabError, match="unknown tokenizer: 'nope'"):
        Tokenizer(md.with_changes({"tokenizer.ggml.model": "nope"}))
    tokens = list(md["tokenizer.ggml.tokens"])
    tokens[5] = tokens[4]
    with pytest.raises(VocabError, match="tokens 4 and 5 have the same text") as e:
        Tokenizer(md.with_changes({"tokenizer.ggml.tokens": tokens}))
    assert e.value.token_id == 5


def test_inconsistent_vocabularies_raise_naming_the_key(vocab_path):
    md = read_metadata(vocab_path("llama-spm"))
    with pytest.raises(VocabError, match="scores") as e:
        Tokenizer(md.with_changes({"tokenizer.ggml.scores": md["tokenizer.ggml.scores"][:100]}))
    assert e.value.key == "tokenizer.ggml.scores"
    with pytest.raises(VocabError, match="toktypes") as e:
        Tokenizer(md.with_changes({"tokenizer.ggml.token_type": md["tokenizer.ggml.token_type"][:5]}))
    assert e.value.key == "tokenizer.ggml.token_type"
    nomic = read_metadata(vocab_path("nomic-bert-moe"))
    charsmap = nomic["tokenizer.ggml.precompiled_charsmap"]
    with pytest.raises(VocabError, match="precompiled charsmap") as e:
        Tokenizer(nomic.with_changes({"tokenizer.ggml.precompiled_charsmap": charsmap[:1000]}))
    assert e.value.key == "tokenizer.ggml.precompiled_charsmap"
    plamo = read_metadata(REPO / "data" / "synthetic" / "plamo2.gguf")
    types = plamo["tokenizer.ggml.token_type"].copy()
    types[4 + 0x41] = 1  # <0x41> is no longer a byte token
    with pytest.raises(VocabError, match="Byte token for <0x65> is not set"):
        Tokenizer(plamo.with_changes({"tokenizer.ggml.token_type": types}))


def test_rwkv_path_without_a_token_raises_instead_of_looping():
    from gguftok.models.rwkv import RWKVModel

    with pytest.raises(EncodeError, match="never finish"):
        RWKVModel(["abc"], unk=-1).encode(b"abx")


def test_gemma4_has_no_default_special_ids():
    """llama.cpp's load() sets all six default ids to none for the gemma4 model (a BPE model, whose usual default
    BOS and EOS are 11): a file without the keys has no BOS, no EOS, and nothing ends generation by default."""
    from gguftok.vocab import NULL, Vocab
    from gguftok.writer import gguf_bytes

    tokens = [f"t{i}" for i in range(20)]
    kv = {"tokenizer.ggml.model": "gemma4", "tokenizer.ggml.tokens": tokens,
          "tokenizer.ggml.token_type": [NORMAL] * 20, "tokenizer.ggml.merges": ["t 1"]}
    vocab = Vocab(read_metadata(gguf_bytes(kv)))
    assert {k: vocab.special[k] for k in ("bos", "eos", "unk", "sep", "pad", "mask")} == dict.fromkeys(
        ("bos", "eos", "unk", "sep", "pad", "mask"), NULL)
    assert 11 not in vocab.eog
    kv["tokenizer.ggml.model"] = "gpt2"
    assert Vocab(read_metadata(gguf_bytes(kv))).special["bos"] == 11
