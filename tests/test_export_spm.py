"""gguftok.export on SentencePiece (llama-spm, phi-3, baichuan): exact encoding, exact decoding through
``gguftok.export.decode``, and the two rules no ``tokenizers`` pipeline can follow, each proved on a text."""

from __future__ import annotations

import pytest
from conftest import REPO

pytest.importorskip("tokenizers")

from gguftok.conformance.golden import read_fixture
from gguftok.errors import ExportError
from gguftok.export import build, decode, plan, spm, to_tokenizers
from gguftok.export.verify import verify
from gguftok.vocab import RSTRIP

NAMES = ["llama-spm", "phi-3", "baichuan"]


_EXPORTS: dict[str, tuple] = {}  # name -> (differences, pipeline): each vocabulary exported once per module


def _export(tok, name: str) -> tuple:
    if name not in _EXPORTS:
        st = plan(tok)
        _EXPORTS[name] = st.differences, build(st)
    return _EXPORTS[name]


@pytest.fixture(scope="module", params=NAMES)
def pair(request, toks):
    tok = toks(request.param)
    return request.param, tok, *_export(tok, request.param)


def test_exact_on_cases_golden_and_fuzz_under_every_flag(pair, vocab_path):
    name, tok, diffs, hf = pair
    report = verify(tok, hf, gguf=vocab_path(name), fixture=read_fixture(REPO / "data" / "golden" /
                                                                          f"{name}.jsonl.xz"),
                    fuzz=150, seed=7, name=name, extra=[" " * n + "x" for n in range(1, 20)] + ["----->", "\t\tx  y"])
    rstrip = {m.value for m in report.mismatches if m.what == "encode"}
    known = {d.example for d in diffs if d.stage == "added tokens"}
    # phi-3 alone strips spaces after some tokens (RSTRIP); its differences are the non-ASCII spaces it strips
    assert report.decode_differences == 0, report.failing_flags()
    assert report.encode_differences == 0 or (name == "phi-3" and all(
        any(c in t for c in "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u2028\u2029\u202f\u205f\u3000\x85") for t in rstrip)), report.mismatches[:3]
    assert {d.stage for d in diffs} == ({"decoder", "added tokens"} if name == "phi-3" else {"decoder"})
    assert known or name != "phi-3"


def test_refused_by_default_exported_for_encoding(pair):
    name, tok, _, _ = pair
    with pytest.raises(ExportError) as e:
        to_tokenizers(tok)
    assert "decoder: add_space_prefix" in str(e.value)
    if name != "phi-3":
        hf = to_tokenizers(tok, exact="encode")
        assert hf.encode("Hello world").ids == tok.encode("Hello world")


def test_no_decoder_can_keep_the_space_after_a_leading_special(pair):
    """llama.cpp strips the leading space of the first id's piece only; a leading BOS (rendered as nothing)
    takes that strip, so ``[BOS, ▁Hello]`` decodes as " Hello" and ``[▁Hello]`` as "Hello". With
    ``skip_special_tokens=True``, tokenizers drops the BOS before any decoder sees the ids, so the two are the
    same input to every decoder: one of them must come out wrong. ``gguftok.export.decode`` gets both right."""
    _, tok, _, hf = pair
    with_bos = tok.encode("Hello world", add_special=True)
    without = with_bos[1:]
    assert tok.decode(with_bos) == " Hello world" and tok.decode(without) == "Hello world"
    assert hf.decode(with_bos, skip_special_tokens=True) == hf.decode(without, skip_special_tokens=True)
    assert decode(hf, tok, with_bos) == " Hello world" and decode(hf, tok, without) == "Hello world"
    for remove in (False, True):
        for unparse in (False, True):
            assert decode(hf, tok, with_bos, remove, unparse) == tok.decode(with_bos, remove, unparse)


def test_phi3_strips_only_ascii_whitespace_after_a_token(toks):
    """An RSTRIP token strips what C's isspace calls space; ``AddedToken(rstrip=True)`` strips every Unicode
    space (Rust's ``char::is_whitespace``), the only stripping tokenizers has: U+00A0 shows it."""
    tok = toks("phi-3")
    _, hf = _export(tok, "phi-3")
    text = "<|user|>\u00a0x"
    hf.encode_special_tokens = False
    assert tok.encode(text, parse_special=True) != hf.encode(text).ids
    assert tok.encode("<|user|> \tx", parse_special=True) == hf.encode("<|user|> \tx").ids
    # No other stage can strip in its place: the normalizer, pre-tokenizer and model see each text between added
    # tokens alone, and llama.cpp gives " \tx" other ids after <|user|> than at the start of a text, or after a
    # token that strips nothing (<s>); so only the added token's own rstrip can tell them apart.
    user, bos = tok.vocab.token_to_id["<|user|>"], tok.vocab.token_to_id["<s>"]
    alone = tok.encode(" \tx", add_special=False)
    assert tok.encode("<|user|> \tx", False, True)[1:] != alone
    assert tok.encode("<s> \tx", False, True) == [bos, *alone] and not tok.vocab.attrs[bos] & RSTRIP
    assert tok.vocab.attrs[user] & RSTRIP


def test_merge_order():
    assert spm.merges(["▁", "▁▁", "▁▁▁"], [0.0, -1.0, -1.0]) == [("▁▁", "▁"), ("▁", "▁"), ("▁", "▁▁")]


def test_byte_runs_decode_as_llama_cpp_reads_them(pair):
    """A valid byte beside an invalid one, and an incomplete character: one U+FFFD per maximal invalid
    sequence, as llama.cpp's bytes read as UTF-8 (tokenizers' ByteFallback would give one per byte)."""
    _, tok, _, hf = pair
    b = {n: tok.vocab.token_to_id[f"<0x{n:02X}>"] for n in (0x13, 0xE2, 0x82, 0xAC, 0x41)}
    for ids in ([b[0x13], b[0xE2]], [b[0xE2], b[0x82]], [b[0xE2], b[0x82], b[0xAC], b[0x41]], [b[0x82], b[0x41]]):
        assert hf.decode(ids) == tok.decode(ids), ids
