"""gguftok.export.ugm on nomic-bert-moe (Unigram): exact encoding on llama.cpp's golden inputs, on fuzz and on
every code point, and the two rules no ``tokenizers`` pipeline can follow, each proved on its example."""

from __future__ import annotations

import json
import random

import pytest
from conftest import REPO

pytest.importorskip("tokenizers")

from gguftok.conformance.golden import read_fixture
from gguftok.errors import ExportError
from gguftok.export import build, decode, plan, specials, to_tokenizers, ugm
from gguftok.export.verify import verify
from gguftok.vocab import CONTROL, UNKNOWN

NAME = "nomic-bert-moe"
MASK_LSTRIP = "\x85<mask>"  # U+0085 is whitespace to tokenizers' lstrip, not to llama.cpp's, and the map keeps it


@pytest.fixture(scope="module")
def pair(toks):
    tok = toks(NAME)
    st = plan(tok)
    return tok, st, build(st)


def leading_special(tok, ids, unparse_special) -> bool:
    """The declared decoder difference's class: ids that start with a control or unknown token, decoded with
    unparse_special=False."""
    return not unparse_special and bool(ids) and bool(tok.vocab.attrs[ids[0]] & (CONTROL | UNKNOWN))


def test_exact_on_cases_golden_and_fuzz_under_every_flag(pair, vocab_path):
    """Every encode call agrees with gguftok (llama.cpp), and every decode call but on the declared difference:
    decoding ids that start with a special token without unparse_special."""
    tok, st, hf = pair
    extra = [" " * n + "x" for n in range(1, 12)] + ["\t\tx  y\n", "e\u0304\u0300 \U0001f149\u0301 \u1100\u1161\u11a8",
                                                      "\uff21\uff22 \u2581x \x01\x02a\x03", "<s></s><pad><unk>x",
                                                      "\uff1cs\uff1e", "[PAD250001]"]
    report = verify(tok, hf, gguf=vocab_path(NAME), fixture=read_fixture(REPO / "data" / "golden" / f"{NAME}.jsonl.xz"),
                    fuzz=2000, seed=11, extra=extra, keep=10**6, name=NAME)
    assert report.encode_calls > 10000 and report.decode_calls > 3000
    for m in report.mismatches:
        assert m.what == "decode" and leading_special(tok, m.value, m.flags[1]), m
    assert report.encode_differences == 0
    assert {d.stage for d in st.differences} == {"decoder"}


def test_normalizer_is_llamas_on_every_code_point(pair):
    """Each code point, alone between spaces, normalises as gguftok's (llama.cpp's) character map and spaces:
    every code point of the planes with characters, and a sample of the others."""
    tok, st, _ = pair
    cps = [c for p in (0, 1, 2, 3, 14) for c in range(p << 16, (p + 1) << 16) if not 0xD800 <= c < 0xE000]
    cps += list(range(0x40000, 0x110000, 97))
    for at in range(0, len(cps), 1 << 16):
        text = " ".join(map(chr, cps[at:at + (1 << 16)]))
        ours = st.normalizer.normalize_str(text).replace("\x03", "<")  # the one escaped character
        assert ours == tok.model.normalize(text.encode()).decode(), f"from U+{cps[at]:04X}"


def test_normalizer_is_llamas_on_the_keys_of_several_code_points(pair):
    """The map's keys of several code points (every one but Hangul's, every 20th of those), alone and run
    together with their parts in random orders: llama.cpp's longest match at each place, then the next."""
    tok, st, _ = pair
    keys = [k.decode() for k in ugm.charsmap_keys(tok.vocab.charsmap()) if len(k.decode()) > 1]
    hangul = [k for k in keys if 0x1100 <= ord(k[0]) <= 0x11FF or 0x3130 <= ord(k[0]) <= 0x327F or
              0xFFA0 <= ord(k[0]) <= 0xFFDC]
    in_hangul = set(hangul)
    sample = [k for k in keys if k not in in_hangul] + hangul[::20]
    rng = random.Random(3)
    parts = sorted({c for k in keys for c in k}) + list("ab \x01\x02\x03\u0301\u0302")
    runs = ["".join(rng.choice(parts) for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    for texts in (sample, runs):
        text = " ".join(texts)
        assert st.normalizer.normalize_str(text).replace("\x03", "<") == tok.model.normalize(text.encode()).decode()


def test_precompiled_alone_reads_the_map_otherwise(pair):
    """Why the map is not given to ``Precompiled`` as it is: it takes the shortest key at the start of each
    grapheme cluster for the whole cluster, and a cluster of six bytes or more code point by code point."""
    from tokenizers import normalizers

    tok, st, _ = pair
    plain = normalizers.Precompiled(tok.vocab.charsmap())
    for text, llama in (("e\u0304\u0300", "\u1e15"), ("\U0001f149\u0301", "\u0179")):
        assert tok.model.normalize(text.encode()).decode() == "\u2581" + llama
        assert plain.normalize_str(text) != llama
        assert st.normalizer.normalize_str(text) == "\u2581" + llama


def test_unknown_code_points_fuse_and_specials_are_no_model_tokens(pair):
    """An unknown code point costs min score - 10 and a run of them is one unknown id; the control tokens'
    texts (and text the map turns into them) are never the model's tokens; the unused ones never win."""
    tok, _, hf = pair
    hf.encode_special_tokens = True  # parse_special=False
    try:
        for text in ("x\U00013000\U00013001y", "\u4dc0\u2e80 \u16a0", "<s></s><pad><unk><mask>x",
                     "\uff1cs\uff1e\uff1c/s\uff1e", "[PAD250001] [PAD250046]"):
            assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, add_special=False), text
    finally:
        hf.encode_special_tokens = False
    assert tok.encode("x\U00013000\U00013001y", add_special=False).count(tok.vocab.special["unk"]) == 1
    for ids in ([250002], [250002, 1022], [1022, 250047, 1022]):  # unused: rendered as nothing
        for unparse in (False, True):
            assert decode(hf, tok, ids, unparse_special=unparse) == tok.decode(ids, unparse_special=unparse)


def test_no_decoder_can_keep_the_space_after_a_leading_special(pair):
    """The declared decoder difference, on its example: llama.cpp strips the leading space of the first id's
    piece only, and a leading BOS (rendered as nothing) takes that strip, so ``[BOS, ▁hello, EOS]`` decodes as
    " hello" and ``[▁hello, EOS]`` as "hello". With ``skip_special_tokens=True`` tokenizers drops the BOS before
    any decoder sees the ids, so the two are one input to every decoder: one of them must come out wrong."""
    tok, st, hf = pair
    (d,) = [d for d in st.differences if d.stage == "decoder"]
    with_bos = tok.encode(d.example)
    without = with_bos[1:]
    assert tok.decode(with_bos) == " hello" and tok.decode(without) == "hello"
    assert hf.decode(with_bos, skip_special_tokens=True) == hf.decode(without, skip_special_tokens=True)
    assert decode(hf, tok, with_bos) == " hello" == tok.decode(with_bos)  # mended after the plain token "A"
    assert decode(hf, tok, without) == tok.decode(without)
    # the other flags agree: a rendered BOS strips nothing; a removed one is mended by gguftok.export.decode
    assert decode(hf, tok, with_bos, False, True) == tok.decode(with_bos, False, True) == "<s> hello</s>"
    assert decode(hf, tok, with_bos, True, True) == tok.decode(with_bos, True, True) == " hello"


def test_decoding_after_a_plain_token_would_mend_it(pair):
    """What gguftok.export.decode would need for this vocabulary (it decodes after a ``<0x41>`` token, which a
    Unigram vocabulary has not): decoding after the normal token ``A`` instead and cutting the ``A`` off gives
    llama.cpp's text on every id sequence of the declared class."""
    tok, _, hf = pair
    probe = tok.vocab.token_to_id["A"]
    rng = random.Random(5)
    specials = [i for i, a in enumerate(tok.vocab.attrs) if a & (CONTROL | UNKNOWN)]
    seqs = [tok.encode(t) for t in ("hello world", " x", "\u2581", "a  b")]
    seqs += [[rng.choice(specials)] + [rng.randrange(tok.n_vocab) for _ in range(rng.randint(0, 6))]
             for _ in range(300)]
    for ids in seqs:
        for remove in (False, True):
            text = hf.decode([probe, *ids[1:]], skip_special_tokens=True)
            assert text.startswith("A") and text[1:] == tok.decode(ids, remove, False), ids


def test_mask_keeps_the_spaces_its_lstrip_would_take_which_give_no_ids_here(pair):
    """llama.cpp's LSTRIP on ``<mask>`` strips C's six spaces before it; tokenizers' lstrip would strip U+0085
    too, which this map keeps (as a word's character). The spaces C strips are spaces to the map, and the merging
    of spaces drops them at a fragment's end anyway: so the export leaves them in place, and agrees."""
    tok, st, hf = pair
    assert specials.strip_vanishes(tok)
    assert not any(t.lstrip or t.rstrip for _, t in st.added_tokens)
    texts = (MASK_LSTRIP, "x \t\n\x0b\x0c\r<mask>", "\u2029<mask>y", "\x85 \t<mask>", " <mask>", "<s> \t<mask>",
             "Hello <s> \x85\u2005\x0b\u2005\n<mask>    indented\n        more\n\tTab\n")
    for text in texts:
        assert hf.encode(text).ids == tok.encode(text, parse_special=True), text
    # tokenizers' own lstrip, as the attribute would ask, parts from llama.cpp on U+0085
    data = json.loads(hf.to_str())
    for t in data["added_tokens"]:
        t["lstrip"] = t["content"] == "<mask>"
    stripping = type(hf).from_str(json.dumps(data))
    assert stripping.encode(MASK_LSTRIP).ids != tok.encode(MASK_LSTRIP, parse_special=True)


def test_refused_by_default_naming_the_rules(pair):
    tok, _, _ = pair
    with pytest.raises(ExportError) as e:
        to_tokenizers(tok)
    assert "decoder: llama.cpp strips the space prefix" in str(e.value)
    assert {d.stage for d in e.value.differences} == {"decoder"}
