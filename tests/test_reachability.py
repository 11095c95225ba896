"""gguftok.reachability and its view: on a vocabulary built so that the unreachable tokens are known, and on
real ones checked id by id with plain ``encode``."""

from __future__ import annotations

import random

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.bytemap import BYTE_TO_CHAR
from gguftok.reachability import (
    ENCODES_OTHERWISE,
    PART_OF_A_CHARACTER,
    PRE_TOKENIZER_CUTS,
    SPECIAL_TAKES_IT,
    check_reachability,
    considered,
    counts,
    trailing_space_ids,
    unreachable,
)
from gguftok.synthetic import CONTROL, NORMAL, UNUSED, USER_DEFINED, byte_level_vocab
from gguftok.viz.reachability_view import counts_view, reachability_view, trailing_space_examples
from gguftok.writer import write_tokenizer

# (text as bytes, type, why it is unreachable or None); merges below make each reachable or not
EXTRA = [
    (b"xy", NORMAL, ENCODES_OTHERWISE),  # no merge "x y": "xy" stays two tokens
    (b"ab", NORMAL, None),
    (b"bc", NORMAL, None),
    (b"abc", NORMAL, ENCODES_OTHERWISE),  # "b c" merges first, and "a bc" is no merge
    (b" 1", NORMAL, PRE_TOKENIZER_CUTS),  # Qwen2's pre-tokenizer cuts " " from "1"
    (b"<x>", USER_DEFINED, "excluded"),
    (b"<x", NORMAL, None),
    (b"<x>y", NORMAL, SPECIAL_TAKES_IT),  # the user-defined "<x>" is cut out of the text first
    (b"<|ctl|>", CONTROL, "excluded"),
    (b"[unused0]", UNUSED, "excluded"),
    (b"<|eot_id|>", NORMAL, "excluded"),  # written NORMAL, made CONTROL at load: it ends a turn
]
MERGES = ["b c", "a b", "ab c", "Ġ 1", "< x", "<x >", "<x> y"]


def spell(data: bytes) -> str:
    return "".join(BYTE_TO_CHAR[b] for b in data)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    v = byte_level_vocab()
    tokens, types = list(v["tokens"]), list(v["token_types"])
    first = len(tokens)
    for data, kind, _ in EXTRA:
        tokens.append(spell(data) if kind == NORMAL else data.decode())
        types.append(kind)
    path = write_tokenizer(tmp_path_factory.mktemp("reach") / "v.gguf", tokens, model="gpt2", pre="qwen2",
                           token_types=types, merges=v["merges"] + MERGES, special_ids=v["special_ids"])
    return Tokenizer.from_gguf(path), first, v


def test_known_by_construction(built):
    tok, first, _ = built
    expected = {b: PART_OF_A_CHARACTER for b in range(0x80, 0x100)}  # byte b is token b: alone, no text
    expected |= {first + k: why for k, (_, _, why) in enumerate(EXTRA) if why not in (None, "excluded")}
    found = check_reachability(tok)
    assert {u.id: u.reason for u in found.unreachable} == expected
    assert unreachable(tok) == sorted(expected)
    specials = {tok.token_id(t) for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "[PAD0]")}
    excluded = {first + k for k, (_, _, why) in enumerate(EXTRA) if why == "excluded"} | specials
    assert set(considered(tok)) == set(range(tok.n_vocab)) - excluded
    assert found.considered == tok.n_vocab - len(excluded)
    by_id = {u.id: u for u in found.unreachable}
    assert by_id[first + 3].encodes_to == [tok.token_id("a"), first + 2]  # abc -> a, bc


def test_brute_force_on_the_synthetic_vocabulary(built):
    """Every token, from the bytes it was written from (not from gguftok's pieces), encoded with plain encode."""
    tok, first, v = built
    texts = {b: bytes([b]) for b in range(256)}
    texts |= {first + k: data for k, (data, kind, why) in enumerate(EXTRA) if kind == NORMAL and why != "excluded"}
    byte_of = {c: b for b, c in enumerate(BYTE_TO_CHAR)}
    for word_token in range(256, first):  # the words' prefixes, written in GPT-2 characters
        if tok.vocab.types[word_token] == NORMAL:
            texts[word_token] = bytes(map(byte_of.__getitem__, v["tokens"][word_token]))
    brute = sorted(i for i, data in texts.items() if tok.encode(data, add_special=False) != [i])
    assert unreachable(tok) == brute


@pytest.mark.parametrize("name", ["qwen2", "llama-spm", "bert-bge"])
def test_a_sample_of_real_ids_with_plain_encode(toks, name):
    tok = toks(name)
    found = set(unreachable(tok))
    ids = considered(tok)
    rng = random.Random(20)
    sample = rng.sample(ids, 300) + rng.sample(sorted(found), min(50, len(found)))
    prefix = tok.vocab.add_space_prefix
    for i in sample:
        piece = tok.token_to_piece(i)
        text = piece[1:] if prefix and piece.startswith(b" ") and len(piece) > 1 else piece
        assert (tok.encode(text, add_special=False) != [i]) == (i in found), (i, tok.token_text(i))


def test_counts_and_views(built):
    tok = built[0]
    table = counts({"toy": tok})
    assert table == {"toy": {"considered": tok.n_vocab - 8, "unreachable": 132, PART_OF_A_CHARACTER: 128,
                             SPECIAL_TAKES_IT: 1, PRE_TOKENIZER_CUTS: 1, ENCODES_OTHERWISE: 2}}
    view = counts_view(table)
    assert "132" in view.text.splitlines()[1] and PRE_TOKENIZER_CUTS in view.text
    assert_sanitizer_safe(view.html)
    shown = reachability_view(tok, [*unreachable(tok)[-4:], tok.token_id("ab")], limit=5)
    lines = shown.text.splitlines()
    assert lines[0] == "5 of 5 tokens" and len(lines) == 7
    assert lines[-1].split()[0] == str(tok.token_id("ab")) and lines[-1].endswith("encodes to itself")
    assert any(line.endswith(SPECIAL_TAKES_IT) for line in lines)
    assert_sanitizer_safe(shown.html)
    assert "12 of 128" in reachability_view(tok, unreachable(tok)[:128]).text


@pytest.mark.parametrize("name", ["qwen2", "llama-bpe", "llama-spm"])
def test_trailing_space(toks, name):
    tok = toks(name)
    words = ["Hello", "The capital of France is", "def"]
    rows = trailing_space_ids(tok, words)
    assert rows == [(w, tok.encode(w, add_special=False), tok.encode(w + " ", add_special=False),
                     tok.encode(" " + w, add_special=False)) for w in words]
    for _, alone, spaced, _ in rows:
        assert spaced[:-1] == alone and tok.token_to_piece(spaced[-1]) == b" "  # a lone space token at the end
    view = trailing_space_examples(tok, words)
    assert view.text.count("ends in a lone space token") == 3
    assert_sanitizer_safe(view.html)
