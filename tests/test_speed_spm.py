"""The SentencePiece and RWKV fast paths of issue 21 give the ids of the plain paths they replace, on hostile
inputs: SentencePiece's many-piece cuts in NumPy (``SPMModel._batch_ids``) against the whole merge, its
mergeable-token junctions against an independent closure, and RWKV's line cache, walk in C and word path
against the plain greedy walk, on the synthetic vocabulary and on a real-size one of 65,536 tokens built here.
Structure and equivalence only; nothing is timed (``bench/bench_peers.py --all`` measures)."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from test_speed_paths import outcome, texts

from gguftok import Tokenizer
from gguftok import synthetic as S
from gguftok.conformance.generate import WORDS
from gguftok.models import rwkv, spm
from gguftok.models.piece_cache import PieceCache
from gguftok.synthetic import CONTROL, NORMAL
from gguftok.writer import write_tokenizer

SPACE = "\u2581"
SPM_VOCABS = ("llama-spm", "phi-3", "baichuan")
HARD = [SPACE, SPACE * 2, " ", "  ", "a", "é", "e\u0301", "\u304b\u3099", "ｶﾞ", "中", "日本", "😀", "the", "\n", "\n\n",
        "x", "ﬁ", "①", "Ａ", "\u3000", "<unk>", "<s>", "<0x41>", "\x00", "\ufeff", "\U000e0067", "0", "12", "345",
        "\t", "\r\n", "Hello", " world", "ing", "izer", " token", "  ", ".\n", "{\n", " is", " a"]


def hostile(rng: random.Random, n: int, pieces: list[bytes] = ()) -> list[bytes]:
    """Inputs of every kind (:func:`test_speed_paths.texts`), five times as long and with this file's hard pieces
    (digits, ``▁``, byte-token texts, newlines): many have many lines and words."""
    return texts(rng, list(pieces), n, hard=HARD, scale=5, long_sizes=(300, 1200, 3000))


# ------------------------------------------------------------------------------------------- SentencePiece
@pytest.mark.parametrize("name", SPM_VOCABS)
def test_sentencepiece_batch_cuts_give_the_ids_of_the_whole_merge(vocab_path, monkeypatch, name):
    monkeypatch.setattr(spm, "BATCH_FROM", 1)  # every encode with a new piece goes through _batch_ids
    monkeypatch.setattr(spm, "BATCH_FROM_COLD", 1)
    tok = Tokenizer.from_gguf(vocab_path(name), cache_size=300)  # small: evictions, and the "nearly full" rule
    m = tok.model
    pieces = [t.encode("utf-8", "surrogateescape") for t in tok.vocab.texts]
    rng = random.Random(21)
    batches = 0
    real = m._batch_ids

    def counted(new):
        nonlocal batches
        batches += 1
        return real(new)

    monkeypatch.setattr(m, "_batch_ids", counted)
    for data in hostile(rng, 250, pieces):
        data = data.replace(b" ", SPACE.encode())
        whole = outcome(m.encode_whole, data)
        assert outcome(m.encode, data) == whole, data
        assert outcome(m.encode, data) == whole, data  # again: from the caches
        assert len(m._cache) <= 300 and len(m._parts) <= 300
    assert batches > 100


def test_sentencepiece_batch_cuts_every_piece_at_mergeable_junctions(toks):
    m = spm.SPMModel(*_spm_args(toks("llama-spm")))
    pieces = [p.encode() for p in ["\u2581the", "\u2581123456", "\u2581<0x41>", "\u2581中文字"]] + [b"\xff\xfe1"]
    got = m._batch_ids(pieces)
    for p in pieces:
        assert got[p] == m.encode_whole(p), p
    # digits are cut one by one: no token that a merge can make has two digits side by side
    joins = m._junctions()
    assert all(ord(a) << 21 | ord(b) not in joins for a in "0123456789" for b in "0123456789")
    assert ord("1") << 21 | ord("2") in spm.char_junctions(m._text_to_id)  # but <0x12> has them


@pytest.mark.parametrize("name", SPM_VOCABS)
def test_sentencepiece_first_prompt_needs_no_junctions(vocab_path, name):
    """A fresh tokenizer's first prompt merges each piece whole, without the junction table, which a large text
    (BATCH_FROM_COLD missing pieces) or CUTS_AFTER characters of long pieces then make; the ids are the whole
    merge's throughout."""
    tok = Tokenizer.from_gguf(vocab_path(name))
    m = tok.model
    words = [w for w in WORDS if w.isascii() and w.isalpha()]
    rng = random.Random(3)
    # more new pieces than BATCH_FROM, and one piece of 41 characters
    prompt = " ".join(f"{rng.choice(words)}{i}" for i in range(spm.BATCH_FROM + 22)) + " " + "ab" * 20
    data = (" " + prompt).replace(" ", SPACE).encode()
    assert len(set(data.split(SPACE.encode()))) > spm.BATCH_FROM
    assert m.encode(data) == m.encode_whole(data) and m._joins is None and m._uncut == 41
    run = "中文字符" * 40  # one piece of 160 characters: the queue merges it whole
    assert m.encode((SPACE + run).encode()) == m.encode_whole((SPACE + run).encode()) and m._joins is None
    long = SPACE.join(("xy" * 16 + str(i)) for i in range(spm.CUTS_AFTER // 30 + 1)).encode()  # long pieces
    assert m.encode(long) == m.encode_whole(long) and m._joins is not None
    fresh = Tokenizer.from_gguf(vocab_path(name)).model
    big = SPACE.join(f"{w}{i}" for i, w in enumerate(words * (spm.BATCH_FROM_COLD // len(words) + 1))).encode()
    assert len(set(big.split(SPACE.encode()))) >= spm.BATCH_FROM_COLD
    assert fresh.encode(big) == fresh.encode_whole(big) and fresh._joins is not None


def _spm_args(tok):
    return tok.vocab.texts, tok.vocab.scores


@pytest.mark.parametrize("name", SPM_VOCABS)
def test_merge_junctions_are_the_pairs_of_the_tokens_a_merge_can_make(toks, name):
    """An independent closure: a token is made by a merge when some place cuts it into two symbols, each a
    character or a token made by a merge (shorter tokens first); its pairs are exactly merge_junctions'."""
    texts = toks(name).model._text_to_id
    made: set[str] = set()
    for t in sorted((t for t in texts if len(t) > 1), key=len):
        if any((k == 1 or t[:k] in made) and (len(t) - k == 1 or t[k:] in made) for k in range(1, len(t))):
            made.add(t)
    assert spm.merge_junctions(texts) == spm.char_junctions(made)
    assert len(made) < len([t for t in texts if len(t) > 1])  # some token is never made (<0x41>, <s>)


def test_merge_junctions_of_small_vocabularies():
    # "abc" is made from "ab" + "c" only if "ab" is made; "xyz" from nothing (neither "xy" nor "yz" is a token)
    got = spm.merge_junctions({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "xyz": 5, "xyzw": 6, "xy": 7})
    as_text = sorted(chr(p >> 21) + chr(p & 0x1FFFFF) for p in got)
    assert as_text == ["ab", "bc", "xy", "yz", "zw"]
    assert spm.merge_junctions({"<0x41>": 0, "<": 1}) == frozenset()


# ------------------------------------------------------------------------------------------- RWKV
def walk_landings(m: rwkv.RWKVModel, data: bytes) -> set[int]:
    """Every position the plain greedy walk starts a token at, walked here byte by byte as llama.cpp does."""
    tokens = set(m.values)
    prefixes = {t[:k] for t in tokens for k in range(1, len(t) + 1)}
    out, pos = set(), 0
    while pos < len(data):
        out.add(pos)
        end, j = pos + 1, pos + 1
        while j <= len(data) and data[pos:j] in prefixes:
            if data[pos:j] in tokens:
                end = j
            j += 1
        pos = end
    return out


def test_rwkv_walk_lands_on_every_place_byte_junctions_allow():
    rng = random.Random(5)
    for _ in range(40):
        texts = ["<s>"] + [S._rwkv_escape(bytes([b])) for b in range(256)]
        texts += [S._rwkv_escape(bytes(rng.choice(b"ab \n") for _ in range(rng.randint(2, 5)))) for _ in range(12)]
        m = rwkv.RWKVModel(texts, unk=-1)
        for data in hostile(rng, 10):
            data = data[:300]
            places = rwkv.cut_places(data, b" \n", m._joins).tolist()
            assert set(places[1:-1]) <= walk_landings(m, data), data


@pytest.mark.parametrize("few_long", [True, False])
def test_rwkv_lines_and_words_give_the_greedy_walk(monkeypatch, few_long):
    rng = random.Random(22 + few_long)
    if not few_long:
        monkeypatch.setattr(rwkv, "FEW_LONG", 0)  # the word path, as for a real-size vocabulary
    for trial in range(40):
        monkeypatch.setattr(rwkv, "BATCH_FROM", rng.choice([1, 4, 32]))
        texts = ["<s>"] + [S._rwkv_escape(bytes([b])) for b in range(256) if rng.random() < 0.9]
        texts += [S._rwkv_escape(bytes(rng.choice(b"ab \n\xc3\xa9.") for _ in range(rng.randint(2, 6))))
                  for _ in range(rng.randint(0, 30))]
        m = rwkv.RWKVModel(texts, unk=-1, cache_size=rng.choice([0, 8, 1000]))
        assert m._bulk == few_long
        for data in hostile(rng, 12):
            want = outcome(m.encode_slow, data)
            assert outcome(m.encode, data) == want, (trial, data)
            assert outcome(m.encode, data) == want, (trial, data)  # again: from the cache
            assert len(m._cache) <= max(m._cache.limit, 0) and len(m._words) <= max(m._words.limit, 0)


def big_rwkv_vocab() -> dict:
    """A synthetic RWKV vocabulary of real size (65,536 tokens, as RWKV's "world" vocabulary): every byte, then
    multi-byte tokens of the kinds a real one holds: the 2-byte and many 3-byte UTF-8 characters (CJK, kana,
    Hangul), partial UTF-8 sequences, words with and without a leading space and capitalised, runs of spaces,
    newlines and tabs, indentation, punctuation with spaces and newlines, numbers, and CJK pairs."""
    rng = random.Random(65536)
    pieces: dict[bytes, None] = {bytes([b]): None for b in range(256)}

    def add(p: bytes) -> None:
        pieces.setdefault(p, None)

    for cp in [*range(0xA0, 0x800), *range(0x3040, 0x3100), *range(0x4E00, 0x4E00 + 9000), *range(0xAC00, 0xB400)]:
        add(chr(cp).encode())
    for lead in range(0xE4, 0xEA):
        for cont in range(0x80, 0xC0):
            add(bytes([lead, cont]))  # partial 3-byte sequences, as byte-level vocabularies have
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["th", "ch", "sh", "ng", "st"]
    words = list(dict.fromkeys([*WORDS, "token", "tokenizer", "Hello", "world", "python", "return", "class",
                                        "function", "value", "string", "include", "const", "struct", "llama"]))
    while len(words) < 14000:
        w = "".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.3:
            w += rng.choice(["ing", "ed", "s", "er", "ly", "tion"])
        words.append(w)
    for w in dict.fromkeys(words):
        for form in (w, " " + w, w.capitalize(), " " + w.capitalize()):
            add(form.encode())
    for k in range(2, 17):
        add(b" " * k)
        add(b"\n" + b" " * (k - 1))
    for k in range(2, 9):
        add(b"\n" * k)
        add(b"\t" * k)
    for p in [", ", ". ", ".\n", ";\n", ":\n", "{\n", "}\n", ")\n", "()", "();", "->", "::", "==", "!=", "<=",
              ">=", "//", "/*", "*/", '""', "''", "...", "\r\n", " (", " {", " =", " +", " -", " *", " /", " <",
              " >", " &&", " ||", "++", "--", "+=", "-=", "#include", "std::", "</", "/>", "http://", "https://"]:
        add(p.encode())
    for n in range(1000):
        add(str(n).encode())
        add(b" " + str(n).encode())
    cjk = [chr(cp) for cp in range(0x4E00, 0x4E00 + 3000)]
    while len(pieces) < 65535:
        add((rng.choice(cjk) + rng.choice(cjk)).encode())
    tokens = ["<s>"] + [S._rwkv_escape(p) for p in list(pieces)[:65535]]
    return {"tokens": tokens, "token_types": [CONTROL] + [NORMAL] * (len(tokens) - 1), "model": "rwkv", "pre": None}


@pytest.fixture(scope="module")
def big_rwkv(tmp_path_factory):
    path = write_tokenizer(tmp_path_factory.mktemp("rwkv") / "rwkv-65536.gguf", **big_rwkv_vocab())
    return Tokenizer.from_gguf(path)


def test_real_size_rwkv_vocabulary_takes_the_word_path(big_rwkv):
    m = big_rwkv.model
    assert len(big_rwkv.vocab.texts) == 65536
    assert sum(len(k) > 1 for k in m.values) > 60000 and not m._bulk  # too many for the walk in C
    # a space and a newline after a letter are places the walk always lands on: the word cuts exist
    assert not m._joins[ord("e") << 8 | ord(" ")] and not m._joins[ord("e") << 8 | ord("\n")]
    text = "Hello world, the tokenizer is a llama.\n  return value;\n"
    data = text.encode()
    assert m.encode(data) == m.encode_slow(data)
    inside = {t[i:i + 2] for t in m.values for i in range(len(t) - 1)}  # every pair of bytes inside a token
    want = [p for p in range(1, len(data)) if data[p] in b" \n" and data[p - 1:p + 1] not in inside]
    assert rwkv.cut_places(data, b" \n", m._joins).tolist() == [0, *want, len(data)]
    assert len(want) >= 6


def test_real_size_rwkv_lines_and_words_give_the_greedy_walk(big_rwkv, monkeypatch):
    m = big_rwkv.model
    rng = random.Random(23)
    pieces = list(m.values)
    for batch_from in (1, 4, 1000):
        monkeypatch.setattr(rwkv, "BATCH_FROM", batch_from)
        for data in hostile(rng, 60, [p for p in pieces if len(p) > 1][::50]):
            want = outcome(m.encode_slow, data)
            assert outcome(m.encode, data) == want, data
            assert outcome(m.encode, data) == want, data


def test_rwkv_caches_stay_bounded_and_long_lines_are_cut_at_spaces(big_rwkv):
    m = rwkv.RWKVModel(big_rwkv.vocab.texts, unk=-1, cache_size=50)
    rng = random.Random(24)
    data = " ".join(rng.choice(WORDS) for _ in range(3000)).encode()  # one line of 15 KB
    places = m._lines(data)
    assert max(b - a for a, b in pairwise(places)) <= m._cache.longest
    assert m.encode(data) == m.encode_slow(data) == m.encode(data)
    assert len(m._cache) <= 50 and len(m._words) <= 50
    assert isinstance(m._words, PieceCache)


def test_rwkv_stuck_walk_raises_where_the_plain_walk_does(monkeypatch):
    texts = ["<s>"] + [S._rwkv_escape(bytes([b])) for b in range(256) if b != ord("q")] + ["qa", "\\n\\n"]
    m = rwkv.RWKVModel(texts, unk=-1)
    monkeypatch.setattr(rwkv, "BATCH_FROM", 1)
    for data in [b"line one\nline two\nqb here\n", b"a\n" * 50 + b"q", b"q", b"qa\nqa\nqz"]:
        want = outcome(m.encode_slow, data)
        assert outcome(m.encode, data) == want
        assert isinstance(want, tuple) == (b"qb" in data or data.endswith(b"q") or b"qz" in data)
