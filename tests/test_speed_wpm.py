"""The bulk paths of WordPiece and PLaMo-2 (issue 21) give the ids of the slow reference paths on hostile text:
the batch of new chunks or words joined by a separator, the words matched together (one dict lookup, then the
greedy walk one word at a time or all words at once in NumPy), the bounded bulk insertion into the caches.
Equivalence and structure only; nothing here is timed (``bench/bench_peers.py --all`` measures).

The references: for WordPiece, :func:`wpm._preprocess_slow` (llama.cpp's loop) and :meth:`WPMModel.match`
(the prefix-index walk) on each word; for PLaMo-2, :meth:`PLaMo2Model.encode_whole`, the dynamic program over
the whole text without cuts or caches.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gguftok import Tokenizer
from gguftok.models import plamo2, wpm
from gguftok.models.piece_cache import PieceCache

SPACE = "\u2581"
SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic"
MARKS = ["\ufffe", "\uffff", *map(chr, range(0xFDD0, 0xFDF0))]
# whitespace of every kind: ASCII (chunk cuts), and Unicode (word cuts inside a chunk)
WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x85", "\xa0", "\u1680", "\u2000", "\u2007", "\u200a",
              "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\x1c", "\x1f"]
HARD = ["a", "A", "É", "é", "e\u0301", "ß", "İ", "Σ", "ς", "中", "日本", "\u304b\u3099", "ｶﾞ", "①", "Ａ", "😀",
        "\U0001f44d\U0001f3fd", "\U00010400", "\x00", "\x01", "\x7f", "\ufeff", "\ufffd", "\u200b", "\U000e0067",
        ",", ".", "(", "_", "-", "'", "##", SPACE, "the", "able", "un", "ing", "12", "3456789", "x", "[UNK]",
        "straße", "москва", "मुंबई", "서울", "\u0345", "\U0002b820", "\U0002b920", *MARKS[:3]]
BAD_BYTES = [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x96", b"\xf0\x8f\xbf\xbe", b"\xef\xbf\xbe",
             b"\xef\xbf\xbf", b"\xe0\x80", b"\x80", b"\xf8\x88\x80\x80\x80"]
PAST = b"\xf4\x90\x80\x80"  # U+110000 as llama.cpp decodes it: the loop raises


def outcome(fn, *args):
    try:
        return fn(*args)
    except ValueError as e:  # EncodeError: the same error both ways
        return type(e).__name__, str(e)


def hostile(rng: random.Random, n_chunks: int, bad: bool = True, marks: list[str] = (), past: bool = False) -> bytes:
    """Many chunks (more than the 64 below which nothing is batched) of hard pieces, long words, invalid UTF-8
    and every kind of whitespace, some chunks repeated; with ``past``, a code point past U+10FFFF in one."""
    pool = HARD + list(marks)
    chunks = []
    for _ in range(n_chunks):
        r = rng.random()
        if r < 0.15 and chunks:
            chunks.append(rng.choice(chunks))
            continue
        if r < 0.2:
            c = "".join(rng.choice("abcxyz0123456789") for _ in range(rng.choice([30, 80, 300, 600])))
            chunks.append(c.encode())
            continue
        c = "".join(rng.choice(pool) for _ in range(rng.randint(1, 8)))
        b = c.encode("utf-8", "surrogatepass")
        if bad and rng.random() < 0.2:
            at = rng.randrange(len(b) + 1)
            b = b[:at] + rng.choice(BAD_BYTES) + b[at:]
        chunks.append(b)
    if past:
        chunks[rng.randrange(len(chunks))] += PAST
    out = b""
    for c in chunks:
        out += c + rng.choice(WHITESPACE).encode()
    return out


# ------------------------------------------------------------------------------------------- WordPiece
def wpm_reference(m: wpm.WPMModel, data: bytes) -> list[int]:
    return [i for w in wpm._preprocess_slow(data, m.lowercase, m.strip_accents) for i in m.match(w)]


def bert_model(toks, **kwargs) -> wpm.WPMModel:
    v = toks("bert-bge").vocab
    return wpm.WPMModel(v.texts, v.special["unk"], v.lowercase, v.strip_accents, **kwargs)


@pytest.mark.parametrize("cache_size", [32_768, 40, 0])
def test_wordpiece_batches_are_the_loop(toks, cache_size):
    """Fresh model, then again warm: ids as the loop and the prefix walk give them, whatever the cache holds
    (40: the batch overflows it, in parts; 0: no cache at all)."""
    rng = random.Random(21 + cache_size)
    m = bert_model(toks, cache_size=cache_size)
    for trial in range(40):
        data = hostile(rng, rng.choice([70, 200, 600]), bad=trial % 3 != 0, past=trial % 10 == 9)
        want = outcome(wpm_reference, m, data)
        assert outcome(m.encode, data) == want, (trial, data[:200])
        assert outcome(m.encode, data) == want
        assert len(m._cache) <= max(cache_size, 0) + 1 and len(m._chunks) <= cache_size  # bounded
        if cache_size and trial % 8 == 0:
            m = bert_model(toks, cache_size=cache_size)


def test_wordpiece_separator_in_the_text(toks):
    """A text holding the first separators (U+FFFE, U+FFFF, ...), every one of them, or an overlong form that
    decodes to one: the next separator is taken, or the chunks are read one at a time."""
    rng = random.Random(22)
    for k in (1, 2, 5, len(MARKS)):
        for _ in range(6):
            m = bert_model(toks)
            data = hostile(rng, 150, marks=MARKS[:k])
            if k == len(MARKS):
                data += " ".join(MARKS).encode()  # all of them: no separator is left
            assert outcome(m.encode, data) == outcome(wpm_reference, m, data)
    m = bert_model(toks)
    data = b" ".join([b"w%d" % i for i in range(100)] + [b"\xf0\x8f\xbf\xbe", b"x\xf0\x8f\xbf\xbfy"])  # overlong
    assert m.encode(data) == wpm_reference(m, data)


def test_wordpiece_past_u10ffff_raises_as_the_loop(toks):
    m = bert_model(toks)
    data = b" ".join([b"w%d" % i for i in range(100)] + [b"ok\xf4\x90\x80\x80"])
    with pytest.raises(ValueError) as fast:
        m.encode(data)
    with pytest.raises(ValueError) as slow:
        wpm_reference(m, data)
    assert str(fast.value) == str(slow.value)


def test_wordpiece_greedy_walks_are_the_prefix_walk(toks):
    """``_greedy`` (one word) and ``_greedy_many`` (all words together in NumPy, from 2,048 words) against
    :meth:`match` on words of every kind: long, unknown at the start, the middle or the end."""
    m = bert_model(toks)
    rng = random.Random(23)
    pool = ["a", "b", "ing", "##", "é", "中", "x", "un", "able", "1", "23", "456", "\u0345", "😀", "ß", "q", "zz",
            "\ufffe", "\U00010400", "\ud800", SPACE, "[UNK]", "the", "er"]
    words = ["".join(rng.choice(pool) for _ in range(rng.choice([1, 2, 3, 8, 20, 60]))) for _ in range(5000)]
    words += ["z" * 200, "1" * 250, "a" * 3 + "\ufffd" * 3]
    want = [m.match(w) for w in words]
    encoded = [(SPACE + w).encode("utf-8", "surrogatepass") for w in words]
    assert len(encoded) >= wpm.VECTOR_WORDS and m._tables() is not None
    assert [m._greedy(w) or [m.unk] for w in encoded] == want
    assert [ids or [m.unk] for ids in m._greedy_many(encoded)] == want
    assert m._match_all(words) == [m.match(wpm._lower(w)) for w in words]


def test_wordpiece_greedy_many_without_tables():
    """A token with a NUL byte, or longer than ``VECTOR_WIDTH`` bytes: the words go one at a time, same ids."""
    rng = random.Random(24)
    for extra in (["a\x00b"], ["ab" * 40]):
        texts = ["[UNK]", SPACE + "a", SPACE + "ab", "a", "b", "ab", "ba", SPACE, *extra]
        m = wpm.WPMModel(texts, unk=0, lowercase=True, strip_accents=True)
        assert m._tables() is None
        words = ["".join(rng.choice(["a", "b", "ab", "c", "\x00"]) for _ in range(rng.randint(1, 90)))
                 for _ in range(3000)]
        assert m._match_all(words) == [m.match(w) for w in words]
    m = wpm.WPMModel(["[UNK]", SPACE + "a", "a", "b", "ab", SPACE + "ab"], unk=0, lowercase=True, strip_accents=True)
    assert m._tables() is not None
    words = ["".join(rng.choice(["a", "b", "c"]) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    assert m._match_all(words) == [m.match(w) for w in words]


def test_keep_all_is_bounded():
    cache = PieceCache(len, limit=10)
    for k in range(30):
        keys = [f"{k}-{i}" for i in range(k % 14)]
        before = list(cache)
        cache.keep_all(dict.fromkeys(keys, 1))
        assert len(cache) <= 10
        assert all(key in cache for key in keys[:10])  # the new ones are kept (up to the limit)
        kept = [key for key in before if key in cache]
        assert kept == before[len(before) - len(kept):]  # the oldest went first, only as many as must
        assert len(cache) == min(10, len(before) + len(keys))
    none = PieceCache(len, limit=0)
    none.keep_all({"a": 1})
    assert not none


# ------------------------------------------------------------------------------------------- PLaMo-2
def plamo2_texts(rng: random.Random, pieces: list[str], n: int) -> list[bytes]:
    """Texts of many words (cut before each space), of pieces, hard characters and separators."""
    pool = pieces + HARD + [" ", " ", "  ", "\n", "\t", "\u3000"]
    out = []
    for _ in range(n):
        words = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 6))) for _ in range(rng.choice([70, 300]))]
        words += rng.choices(words, k=len(words) // 4)
        rng.shuffle(words)
        data = " ".join(words).encode("utf-8", "surrogatepass")
        if rng.random() < 0.2:
            data = "\ufeff".encode() + data
        out.append(data)
    return out


@pytest.mark.parametrize("cache_size", [32_768, 30, 0])
def test_plamo2_words_by_split_are_the_whole_program(cache_size):
    """The words cut before each space by ``str.split`` (spaces at the start, the end, in runs; a byte-order
    mark first), kept by what follows the space, through caches of every size: the uncut program's ids."""
    rng = random.Random(31 + cache_size)
    v = Tokenizer.from_gguf(SYNTHETIC / "plamo2.gguf").vocab
    m = plamo2.PLaMo2Model(v.texts, v.types, v.scores, cache_size=cache_size)
    assert m._words is not None
    for data in [*plamo2_texts(rng, list(m.pieces), 30), b"", b" ", b"  ", b"a ", b" a", b"\xef\xbb\xbf a  b "]:
        want = m.encode_whole(data)
        assert m.encode(data) == want, data[:100]
        assert m.encode(data) == want
        assert len(m._words) <= cache_size and len(m._cache) <= cache_size


def test_plamo2_split_words_are_the_pattern_words():
    """``str.split(" ")`` gives the words of ``_WORDS`` (each from its space on): the first part, then a space
    and each further part."""
    rng = random.Random(32)
    for _ in range(2000):
        text = "".join(rng.choice([" ", "  ", "a", "bc", "\n", "\u3000", "日"]) for _ in range(rng.randrange(12)))
        parts = text.split(" ")
        assert plamo2._WORDS.findall(text) == [p for p in parts[:1] if p] + [" " + p for p in parts[1:]]
