"""The fast paths of the SentencePiece, WordPiece, Unigram, RWKV and PLaMo-2 models give the ids of the plain
loops they replace (issue 21): the bulk preprocessing, the cuts where no token spans, the caches. Structure
and equivalence only; nothing here is timed (``bench/bench_peers.py --all`` and ``--growth`` measure)."""

from __future__ import annotations

import random
import re
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from gguftok import Tokenizer
from gguftok import synthetic as S
from gguftok.conformance.generate import Generators
from gguftok.models import spm, ugm, wpm
from gguftok.models.piece_cache import PieceCache, Uncached, char_pattern, encode_pieces, longest_first
from gguftok.synthetic import CONTROL, NORMAL, UNKNOWN
from gguftok.writer import write_tokenizer

SPACE = "\u2581"
SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic"
SPM_VOCABS = ("llama-spm", "phi-3", "baichuan")


def texts(rng: random.Random, pieces: list[bytes], n: int, extra: list[str] = (), *, hard: list[str] | None = None,
          scale: int = 1, long_sizes: tuple[int, ...] = (300, 1200)) -> list[bytes]:
    """Inputs of every kind the fuzzer makes, and some: its short and long texts, byte soup around the
    multi-byte characters and ``▁``, mixes of ``hard`` cases, random code points; ``scale`` times as long."""
    gen = Generators(pieces, [])
    if hard is None:
        hard = [SPACE, SPACE * 2, " ", "  ", "a", "é", "e\u0301", "\u304b\u3099", "ｶﾞ", "中", "😀", "the", "\n", "x",
                "ﬁ", "①", "Ａ", "\u3000", "<unk>", "\x00", "\ufeff", "\U000e0067", *extra]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.25:
            t = gen.text(rng)
        elif r < 0.35:
            t = gen.long_text(rng, rng.choice(long_sizes))
        elif r < 0.55:
            t = bytes(rng.choice(b"ab \xe2\x96\x81\xc3\xa9\xf0\x9f\x98\x80\xff\xc0\xcc\x81\n\t\xed\xa0\x80")
                      for _ in range(rng.randrange(60 * scale)))
        elif r < 0.85:
            t = "".join(rng.choice(hard) for _ in range(rng.randrange(80 * scale)))
        else:
            t = "".join(chr(rng.choice([rng.randrange(0x110000), rng.randrange(0x3100), rng.randrange(128)]))
                        for _ in range(rng.randrange(40 * scale)))
        out.append(t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass"))
    return out


def outcome(fn, *args):
    try:
        return fn(*args)
    except ValueError as e:  # EncodeError: the same error both ways
        return type(e).__name__, str(e)


def vocab_pieces(tok: Tokenizer) -> list[bytes]:
    return [t.encode("utf-8", "surrogateescape") for t in tok.vocab.texts]


# ------------------------------------------------------------------------------------------- the cache
def test_piece_cache_is_bounded_and_keeps_no_long_or_uncached_piece():
    calls = []

    def compute(piece):
        calls.append(piece)
        return Uncached([0]) if piece.startswith("u") else [len(piece)]

    cache = PieceCache(compute, limit=4, longest=5)
    assert encode_pieces(cache, ["a", "bb", "a", "toolong", "toolong", "uu", "uu"]) == [1, 2, 1, 7, 7, 0, 0]
    assert calls == ["a", "bb", "toolong", "toolong", "uu", "uu"]  # hits computed once; long, uncached: each time
    for k in range(20):
        cache[str(k)]
        assert len(cache) <= 4
    assert PieceCache(compute, limit=0)["a"] == [1]


def test_tokenizer_cache_size_bounds_every_family(vocab_path):
    for name in ("llama-spm", "bert-bge", "nomic-bert-moe"):
        tok = Tokenizer.from_gguf(vocab_path(name), cache_size=50)
        tok.encode(" ".join(f"w{i}x" for i in range(500)))
        caches = [c for c in vars(tok.model).values() if isinstance(c, PieceCache)]
        assert caches and all(len(c) <= 50 for c in caches), name


def test_char_pattern_matches_its_mask_on_both_sides_of_u_ffff():
    rng = random.Random(1)
    mask = np.zeros(0x110000, dtype=bool)
    mask[rng.sample(range(0x110000), 3000)] = True
    mask[0x61:0x7B] = True
    one, run = re.compile(char_pattern(mask)), re.compile(char_pattern(mask, run=True))
    for cp in [*rng.sample(range(0x110000), 3000), *np.flatnonzero(mask)[:2000].tolist()]:
        if 0xD800 <= cp < 0xE000:
            continue
        assert bool(one.fullmatch(chr(cp))) == bool(mask[cp]), hex(cp)
    s = "".join(chr(c) for c in rng.sample(range(0x10FFFF), 500) if not 0xD800 <= c < 0xE000)
    assert run.findall(s) == re.findall("[" + "".join(re.escape(c) for c in set(s) if mask[ord(c)]) + "]+", s)


def test_longest_first_is_the_longest_key_at_each_place():
    rng = random.Random(2)
    for _ in range(200):
        keys = {bytes(rng.choice(b"abc") for _ in range(rng.randint(2, 5))) for _ in range(rng.randint(1, 12))}
        pat = re.compile(longest_first(keys))
        text = bytes(rng.choice(b"abcd") for _ in range(40))
        pos = 0
        while pos < len(text):
            m = pat.match(text, pos)
            want = max((k for k in keys if text.startswith(k, pos)), key=len, default=None)
            assert (m.group() if m else None) == want
            pos += len(want) if want else 1


# ------------------------------------------------------------------------------------------- WordPiece
@pytest.mark.parametrize("lowercase,strip_accents", [(True, True), (True, False), (False, True), (False, False)])
def test_wordpiece_bulk_preprocessing_is_the_loop(lowercase, strip_accents):
    rng = random.Random(3)
    inputs = texts(rng, [], 600)
    inputs += ["".join(chr(rng.randrange(0x80)) for _ in range(100)).encode(),            # ASCII scope
               "".join(chr(rng.randrange(0x3000)) for _ in range(300)).encode("utf-8", "surrogatepass"),
               b"\xf4\x90\x80\x80 past U+10FFFF"]                                      # raises both ways
    for data in inputs:
        assert outcome(wpm.preprocess, data, lowercase, strip_accents) == outcome(
            wpm._preprocess_slow, data, lowercase, strip_accents), data


def test_wordpiece_words_through_the_cache_are_matched_alone(toks):
    tok = toks("bert-bge")
    m = tok.model
    rng = random.Random(4)
    for data in texts(rng, vocab_pieces(tok), 400):
        slow = outcome(lambda d: [i for w in wpm._preprocess_slow(d, m.lowercase, m.strip_accents)
                                  for i in m.match(w)], data)
        assert outcome(m.encode, data) == slow, data
        assert outcome(m.encode, data) == slow  # again, from the cache


def test_wordpiece_match_is_the_prefix_index_walk(toks):
    m = toks("bert-bge").model
    rng = random.Random(5)
    keys, longest = m.prefixes.keys, m.prefixes.longest
    for _ in range(2000):
        word = "".join(rng.choice(["a", "b", "ing", "##", "é", "中", "x", "un", "able"]) for _ in range(8))
        w = SPACE.encode() + word.encode()
        ids, i = [], 0
        while i < len(w):
            j = longest(w, i)
            if j < 0:
                ids = [m.unk]
                break
            ids.append(m.bytes_to_id[keys[j]])
            i += len(keys[j])
        assert m.match(word) == (ids or [m.unk])


# ------------------------------------------------------------------------------------------- SentencePiece
@pytest.mark.parametrize("name", SPM_VOCABS)
def test_sentencepiece_pieces_give_the_ids_of_the_whole_merge(toks, name):
    tok = toks(name)
    m = tok.model
    rng = random.Random(6)
    for data in texts(rng, vocab_pieces(tok), 500):
        data = data.replace(b" ", SPACE.encode())
        whole = outcome(m.encode_whole, data)
        assert outcome(m.encode, data) == whole, data
        assert outcome(m.encode, data) == whole


def test_sentencepiece_cuts_are_symbol_starts_before_a_safe_space(toks):
    m = toks("llama-spm").model
    rng = random.Random(7)
    for data in texts(rng, [], 300):
        data = data.replace(b" ", SPACE.encode())
        pieces = m._pieces.findall(data)
        assert b"".join(pieces) == data
        starts, at = set(), 0
        for sym in spm.symbols(data):
            starts.add(at)
            at += len(sym)
        at = 0
        for p in pieces[:-1]:
            at += len(p)
            assert at in starts and data.startswith(SPACE.encode(), at)
            assert not data[:at].endswith(SPACE.encode())  # llama's only token with ▁ inside is ▁▁...


def test_sentencepiece_short_merge_is_the_queue():
    rng = random.Random(8)
    for _ in range(500):
        alphabet = "abcd"
        tokens = {"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4))) for _ in range(12)}
        scores = {t: float(rng.choice([-1, -2, -3, -2.5])) for t in tokens}
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        b2i = {t.encode(): i for i, t in enumerate(sorted(tokens))}
        by_id = [scores[t] for t in sorted(tokens)]
        assert spm.merge_short(list(text), scores) == [s.decode() for s in spm.spm_merge(text.encode(), b2i, by_id)]


def test_sentencepiece_junctions_hold_every_pair_inside_a_token(toks):
    m = toks("llama-spm").model
    joins = spm.char_junctions(m._text_to_id)
    surrogate = re.compile("[\ud800-\udfff]")
    for t in m._text_to_id:
        for a, b in pairwise(t):
            if not surrogate.match(a) and not surrogate.match(b):
                assert ord(a) << 21 | ord(b) in joins, (t, a, b)
    assert spm.junctions([b"ab"]) == {b"a": frozenset({b"b"})}
    assert spm.junction_parts("abxab", spm.char_junctions(["ab"])) == ["ab", "x", "ab"]


def test_sentencepiece_nan_scores_cut_nothing():
    m = spm.SPMModel(["a", "b", "ab", SPACE], [0.0, 0.0, float("nan"), 0.0])
    assert m._pieces is None
    assert m.encode(b"ab\xe2\x96\x81ab") == m.encode_whole(b"ab\xe2\x96\x81ab")


# ------------------------------------------------------------------------------------------- Unigram
def test_unigram_fast_path_gives_the_whole_viterbi(toks):
    tok = toks("nomic-bert-moe")
    m = tok.model
    assert m._fast
    rng = random.Random(9)
    for data in texts(rng, vocab_pieces(tok), 500, extra=list(m._facts.simple)[:40]):
        assert outcome(m.normalize, data) == outcome(m.normalize_slow, data), data
        whole = outcome(m.encode_whole, data)
        assert outcome(m.encode, data) == whole, data
        assert outcome(m.encode, data) == whole


def test_unigram_simple_characters_are_what_the_walker_makes(toks):
    m = toks("nomic-bert-moe").model
    facts = m._facts
    for c, repl in facts.simple.items():
        data = c.encode()
        piece, used = m.charsmap.replace(data, 0)
        assert (piece.decode(), used) == (repl, len(data))
    quiet = [chr(c) for c in range(0x20, 0x3000) if not 0xD800 <= c < 0xE000]
    for c in quiet:
        if not facts.pattern.match(c):  # quiet alone (a prefix character is quiet when nothing follows)
            assert m.charsmap.replace(c.encode(), 0) == (c.encode(), len(c.encode())), c


def test_unigram_rounding_guard_falls_back_to_the_whole_text(toks, monkeypatch):
    tok = toks("nomic-bert-moe")
    m = tok.model
    data = b"hello world, and again hello"
    want = m.encode_whole(data)
    monkeypatch.setattr(m, "_limit", 1.0)  # every text now "could round": encoded whole
    calls = []
    real = m.encode_whole
    monkeypatch.setattr(m, "encode_whole", lambda d: calls.append(d) or real(d))
    assert m.encode(data) == want and calls == [data]


def test_exact_sums_bounds_float32_sums():
    limit, largest = ugm.exact_sums([-0.5, -10.25, 0.0])
    assert (limit, largest) == (2.0**51, 10.25)
    assert ugm.exact_sums([float("nan")]) is None
    scores = np.float32(np.random.default_rng(1).uniform(-20, -1, 1000)).astype(np.float64).tolist()
    limit, _ = ugm.exact_sums(scores)
    unit = limit / 2.0**53
    assert all((s / unit).is_integer() for s in scores)


def test_unigram_unknown_runs_merge_across_words(tmp_path):
    tokens = ["<pad>", "</s>", "<unk>", *"abc", SPACE, SPACE + "a"]
    types = [CONTROL, CONTROL, UNKNOWN] + [NORMAL] * 5
    scores = [0.0] * 3 + [-1.0, -2.0, -3.0, -1.0, -0.5]
    path = write_tokenizer(tmp_path / "u.gguf", tokens, model="t5", pre=None, token_types=types, scores=scores,
                           special_ids={"unknown": 2, "eos": 1, "padding": 0})
    m = Tokenizer.from_gguf(path).model
    for data in (b"xy zz a", b"a xx  yy b", "\u2581\u2581x".encode(), b"x" * 40 + b" " + b"y" * 40):
        assert m.encode(data) == m.encode_whole(data)


# ------------------------------------------------------------------------------------------- RWKV, PLaMo-2
def test_rwkv_bulk_walk_is_the_greedy_walk():
    from gguftok.models.rwkv import RWKVModel

    rng = random.Random(10)
    for trial in range(60):
        texts_ = ["<s>"] + [S._rwkv_escape(bytes([b])) for b in range(256) if rng.random() < 0.9]
        texts_ += [S._rwkv_escape(bytes(rng.choice(b"ab \n\xc3\xa9") for _ in range(rng.randint(2, 6))))
                   for _ in range(rng.randint(0, 20))]
        m = RWKVModel(texts_, unk=-1)
        assert m._bulk
        for data in texts(rng, [], 40):
            assert outcome(m.encode, data) == outcome(m.encode_slow, data), (trial, data)


def test_plamo2_cut_runs_give_the_whole_program(tmp_path):
    rng = random.Random(11)
    tok = Tokenizer.from_gguf(SYNTHETIC / "plamo2.gguf")
    m = tok.model
    for data in texts(rng, [p.encode() for p in m.pieces], 600):
        assert outcome(m.encode, data) == outcome(m.encode_whole, data), data
    v = S.plamo2_vocab()  # a piece of many code points: cuts only where none joins
    v["tokens"].append("abcabc")
    v["token_types"].append(NORMAL)
    v["scores"].append(-0.1)
    m = Tokenizer.from_gguf(write_tokenizer(tmp_path / "p.gguf", **v)).model
    for data in texts(rng, [b"abc", b"ab", b"c"], 300):
        assert outcome(m.encode, data) == outcome(m.encode_whole, data), data

