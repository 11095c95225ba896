"""Issue 19, items 6 and 7: no file or text makes encoding quadratic, and no PLaMo-2 file raises StopIteration.

Costs are counted, never timed: a *step* is a Python line executed (``sys.settrace``), so an algorithm that
searches once per byte of a long token shows as steps growing with the token; memory is measured with
``tracemalloc``. The counter stops a run as soon as it passes its budget, so the old quadratic code fails
fast instead of running for minutes. Timings over three sizes are in ``bench/bench_hostile.py``.
"""

from __future__ import annotations

import random
import struct
import sys
import tracemalloc

import pytest

from gguftok import Tokenizer
from gguftok import synthetic as S
from gguftok.metadata import ValueType
from gguftok.models import wpm
from gguftok.models.plamo2 import PLaMo2Model
from gguftok.models.prefix import PrefixIndex
from gguftok.special import SpecialIndex
from gguftok.synthetic import CONTROL, NORMAL, UNKNOWN, USER_DEFINED
from gguftok.writer import write_tokenizer


class OverBudget(Exception):
    pass


def steps(fn, budget: int) -> int:
    """How many Python lines ``fn()`` executes; raises :class:`OverBudget` past ``budget``."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > budget:
                raise OverBudget(f"more than {budget:,} steps")
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(old)
    return count


def peak_bytes(fn) -> int:
    """The peak of memory allocated by Python while ``fn()`` runs."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- the hostile files, written with gguftok.writer from gguftok.synthetic's vocabularies ------------------------

def rwkv_file(path, long_token: str):
    v = S.rwkv_vocab()
    v["tokens"].append(long_token)
    v["token_types"].append(NORMAL)
    return write_tokenizer(path, **v)


def plamo2_file(path, piece: str | bytes):
    v = S.plamo2_vocab()
    v["tokens"].append(piece)
    v["token_types"].append(NORMAL)
    v["scores"].append(-1.0)
    return write_tokenizer(path, **v)


def ugm_file(path, long_token: str, token_type: int, charsmap: bytes = b""):
    """A small Unigram vocabulary with one long token of ``token_type`` (and a precompiled charsmap)."""
    tokens = ["<pad>", "</s>", "<unk>", *"abcdefgh", "\u2581", "\u2581a", long_token]
    types = [CONTROL, CONTROL, UNKNOWN] + [NORMAL] * 10 + [token_type]
    scores = [0.0] * 3 + [-float(i + 1) for i in range(10)] + [-1.0]
    extra = {"tokenizer.ggml.precompiled_charsmap": (ValueType.UINT8, list(charsmap))} if charsmap else {}
    return write_tokenizer(path, tokens, model="t5", pre=None, token_types=types, scores=scores,
                           special_ids={"unknown": 2, "eos": 1, "padding": 0}, extra=extra)


def cyclic_charsmap() -> bytes:
    """A 400-byte precompiled charsmap whose XCDA walks on ``a`` back to the root, as long as the text goes
    (``b`` is a leaf, normalised to ``x``)."""
    nodes = [0] * 0x64
    nodes[0x61] = (0x61 << 10) | 0x61  # state 0 --a--> slot 0x61 --> state 0x61 ^ 0x61 = 0: the root again
    nodes[0x62] = (0x62 << 10) | 0x62 | 0x100  # --b--> a leaf, back to the root (whose node holds offset 0)
    xcda = struct.pack(f"<{len(nodes)}I", *nodes)
    return struct.pack("<I", len(xcda)) + xcda + b"x\0"


def specials_file(path, count: int, seed: int = 1):
    """The byte-level vocabulary with ``count`` more CONTROL tokens, each of its own 4-byte prefix."""
    rng = random.Random(seed)
    v = S.byte_level_vocab()
    seen = set(v["tokens"])
    while len(seen) < len(v["tokens"]) + count:
        t = "<" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8)) + ">"
        seen.add(t)
    extra = sorted(seen - set(v["tokens"]))
    v["tokens"] += extra
    v["token_types"] += [CONTROL] * len(extra)
    return write_tokenizer(path, **v)


# -- the prefix index every trie walk now uses ---------------------------------------------------------------

def test_prefix_index_answers_what_a_trie_walk_does():
    from gguftok.models.prefix import common_prefix_length

    rng = random.Random(19)
    for _ in range(1500):
        alphabet = b"ab\x00\xff"[:rng.randint(1, 4)]
        keys = [bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(rng.randint(0, 25))]
        if rng.random() < 0.3:
            keys += [alphabet[:1] * k for k in range(1, rng.randint(2, 40))]  # a deep chain of prefixes
        idx = PrefixIndex(keys)
        idx.FIRST_WINDOW = rng.choice([1, 2, 4, 64])
        distinct = set(keys) - {b""}
        for _ in range(15):
            data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
            pos = rng.randint(0, len(data))
            rest = data[pos:]
            walk = max((common_prefix_length(k, rest) for k in distinct), default=0)
            assert idx.depth(data, pos) == walk
            on_path = sorted((k for k in distinct if rest.startswith(k)), key=len, reverse=True)
            assert [idx.keys[j] for j in idx.chain(idx.longest(data, pos))] == on_path


def test_a_deep_chain_of_prefixes_costs_log_steps_to_climb():
    """Keys b, ba, baa, ... b+a*2000: from the deepest key to a short one is a few jumps, not 2000 parents."""
    idx = PrefixIndex([b"b" + b"a" * k for k in range(2001)])
    deepest = len(idx.keys) - 1
    assert idx.keys[deepest] == b"b" + b"a" * 2000
    assert idx.keys[idx.ancestor(deepest, 3)] == b"baa"
    assert steps(lambda: idx.ancestor(deepest, 3), budget=200) < 200
    assert idx.keys[idx.longest(b"baac", 0)] == b"baa"


# -- RWKV and PLaMo-2: a long token the text almost matches (the reproducer) -----------------------------

def test_rwkv_long_token_is_not_searched_once_per_byte(tmp_path):
    tok = Tokenizer.from_gguf(rwkv_file(tmp_path / "rwkv.gguf", "a" * 4000 + "b"))
    a = tok.token_id("a")
    text = "a" * 4000
    assert steps(lambda: tok.encode(text, add_special=False), budget=400_000) < 400_000  # was about 4000^2 * 4
    assert tok.encode(text, add_special=False) == [a] * 4000
    assert tok.encode(text + "b", add_special=False) == [len(tok.vocab.texts) - 1]  # the long token, whole


def test_plamo2_long_piece_is_not_searched_once_per_length(tmp_path):
    tok = Tokenizer.from_gguf(plamo2_file(tmp_path / "plamo2.gguf", "a" * 4000 + "b"))
    a = tok.token_id("a")
    text = "a" * 4000
    assert steps(lambda: tok.encode(text, add_special=False), budget=600_000) < 600_000  # was about 4000^2 * 3
    assert tok.encode(text, add_special=False) == [a] * 4000


def test_unigram_long_token_is_not_searched_once_per_byte(tmp_path):
    """The Viterbi walk of a Unigram vocabulary had the same search per byte as RWKV's."""
    tok = Tokenizer.from_gguf(ugm_file(tmp_path / "ugm.gguf", "a" * 3000 + "b", NORMAL))
    text = "a" * 3000
    assert steps(lambda: tok.encode(text, add_special=False), budget=600_000) < 600_000
    assert tok.encode(text, add_special=False) == [tok.token_id("a")] * 3000


# -- Unigram: a long user-defined token ----------------------------------------------------------------------

def test_unigram_long_user_defined_token_stores_no_prefixes(tmp_path):
    """The issue's 59 KB file: every prefix of the token was stored (1.76 GB); now memory grows with the file."""
    path = ugm_file(tmp_path / "ugm.gguf", "a" * 59_000, USER_DEFINED)
    box = []
    peak = peak_bytes(lambda: box.append(Tokenizer.from_gguf(path)))
    assert peak < 8 << 20, f"{peak:,} bytes"
    tok = box[0]
    user = len(tok.vocab.texts) - 1
    assert tok.encode("a" * 59_000 + "aa", add_special=False)[:1] == [user]


def test_unigram_charsmap_with_a_cycle_is_not_walked_to_the_end_from_every_position(tmp_path):
    """A 400-byte charsmap made every position walk to the end of the text: 8,000 a's took 7.9 s."""
    tok = Tokenizer.from_gguf(ugm_file(tmp_path / "cycle.gguf", "\u2581b", NORMAL, cyclic_charsmap()))
    n = 4000
    assert steps(lambda: tok.model.normalize(b"a" * n), budget=600 * n) < 600 * n  # was about 8 n^2 / 2
    assert tok.model.normalize(b"a" * n) == b"a" * n  # no leaf on the way: unchanged
    assert tok.model.normalize(b"aab ab") == b"x\xe2\x96\x81x"  # a...ab is a key of the map: it becomes x


# -- WordPiece ------------------------------------------------------------------------------------------------

class _CountingStr(str):
    copied = 0

    def __radd__(self, other):  # ``word += ch`` copies ``word``: count what is copied
        _CountingStr.copied += len(other)
        return _CountingStr(str.__add__(other, self))

    def __add__(self, other):
        _CountingStr.copied += len(self)
        return _CountingStr(str.__add__(self, other))


def test_wordpiece_words_are_not_built_by_appending_to_a_string(monkeypatch):
    """``"a" * N`` on bert-bge: each character appended to the word copied it (0.7 s at 128K, 26.6 s at 1M)."""
    _CountingStr.copied = 0
    monkeypatch.setattr(wpm, "chr", lambda c: _CountingStr(chr(c)), raising=False)
    n = 20_000
    assert wpm.preprocess(b"a" * n, lowercase=True, strip_accents=True) == ["a" * n]
    assert _CountingStr.copied <= 4 * n, f"{_CountingStr.copied:,} characters copied"


def test_wordpiece_long_word_costs_steps_in_proportion(vocab_path):
    tok = Tokenizer.from_gguf(vocab_path("bert-bge"))
    small = steps(lambda: tok.encode("a" * 4_000), budget=10**7)
    large = steps(lambda: tok.encode("a" * 16_000), budget=10**7)
    assert large < 5 * small


def test_wordpiece_long_token_is_not_searched_once_per_length():
    """llama.cpp tries every length up to the longest token at each position; one lookup does the same."""
    model = wpm.WPMModel(["[UNK]", "\u2581a", "a", "a" * 3000 + "b"], unk=0, lowercase=True, strip_accents=True)
    assert steps(lambda: model.encode(b"a" * 3000), budget=500_000) < 500_000
    assert model.encode(b"a" * 3000) == [1] + [2] * 2999


# -- many special tokens ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def many_specials(tmp_path_factory):
    return Tokenizer.from_gguf(specials_file(tmp_path_factory.mktemp("specials") / "v.gguf", 100_000))


def test_many_control_tokens_cost_nothing_per_token_without_parse_special(many_specials):
    """100,000 CONTROL tokens and a 146 KB text (10.6 s): each token's prefix was searched for in the text."""
    tok = many_specials
    rng = random.Random(3)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz <>|0123456789") for _ in range(146_000)).encode()
    plain = text.replace(b"<", b" ")
    assert steps(lambda: tok.fragments(plain, parse_special=False), budget=2_000) < 2_000
    # where token prefixes do occur, each candidate costs a few steps, never a search of the text
    found = len(tok._special_index.candidates(text))
    assert steps(lambda: tok.fragments(text, parse_special=False), budget=10 * found) < 10 * found
    a_token = tok.vocab.texts[-1]
    assert tok.encode(f"x{a_token}y", add_special=False, parse_special=True)[1] == len(tok.vocab.texts) - 1
    assert len(tok.encode(f"x{a_token}y", add_special=False)) > 3  # without parse_special it is text


def test_special_index_finds_the_same_candidates_both_ways():
    rng = random.Random(5)
    for _ in range(200):
        texts = {tid: bytes(rng.choice(b"ab<|\x00\xff") for _ in range(rng.randint(0, 7)))
                 for tid in range(rng.randint(1, 300))}
        ids = sorted(texts, key=lambda t: -len(texts[t]))
        by_search = SpecialIndex(ids, texts.__getitem__)
        by_search._codes = {}  # as with few groups: one search per group
        by_windows = SpecialIndex(ids, texts.__getitem__)
        by_windows.CHUNK = rng.choice([1, 2, 5, 1 << 20])
        if len(by_windows.groups) <= by_windows.SCAN_GROUPS:
            continue
        for _ in range(10):
            data = bytes(rng.choice(b"ab<|\x00\xff") for _ in range(rng.randint(0, 40)))
            assert by_windows.candidates(data) == by_search.candidates(data)


# -- item 7: a PLaMo-2 piece covering every code point ----------------------------------------------------------

def test_plamo2_piece_with_every_code_point_loads(tmp_path):
    """A 4.3 MB file: no character was left to stand in for code points past U+10FFFF (StopIteration)."""
    every = b"".join(chr(c).encode("utf-8", "surrogatepass") for c in range(1, 0x110000))
    tok = Tokenizer.from_gguf(plamo2_file(tmp_path / "every.gguf", every))
    assert tok.encode("Hello", add_special=False) == [tok.token_id("Hello")]
    # a code point past U+10FFFF (lax UTF-8) is in no piece: its bytes become byte tokens
    bad = b"\xf5\x80\x80\x80"
    byte = {b: tok.token_id(f"<0x{b:02X}>") for b in range(256)}
    assert tok.encode(b"a" + bad, add_special=False) == [tok.token_id("a")] + [byte[b] for b in bad]


def test_plamo2_model_past_u10ffff_matches_no_piece():
    texts = ["<unk>"] + [f"<0x{b:02X}>" for b in range(256)] + ["a", "ab", "b"]
    model = PLaMo2Model(texts, [3] + [6] * 256 + [1, 1, 1], [0.0] * 257 + [-1.0, -1.5, -1.0])
    assert model.encode(b"a\xf5\x80\x80\x80b") == [257, 1 + 0xF5, 1 + 0x80, 1 + 0x80, 1 + 0x80, 259]
