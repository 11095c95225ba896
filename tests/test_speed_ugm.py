"""The Unigram batch path (``BatchViterbi``, the NumPy normalising of many words at once) gives the ids of the
whole-text reference path (``UGMModel.encode_whole``: llama.cpp's loop, one Viterbi over the text), on the real
vocabulary and on synthetic ones with adversarial scores (ties, double sums that depend on their order) and a
hash that collides. Structure and equivalence only; nothing here is timed (``bench/bench_peers.py --all``)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_speed_paths import outcome, texts, vocab_pieces

from gguftok import Tokenizer
from gguftok.models import ugm
from gguftok.synthetic import CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED
from gguftok.writer import write_tokenizer

SPACE = "\u2581"


def same_as_whole(m, data: bytes) -> None:
    whole = outcome(m.encode_whole, data)
    assert outcome(m.encode, data) == whole, data
    assert outcome(m.encode, data) == whole, data  # again, from the cache


def unigram(tmp_path, tokens, scores, types=None, name="u.gguf") -> Tokenizer:
    tokens = ["<pad>", "</s>", "<unk>", *tokens]
    types = [CONTROL, CONTROL, UNKNOWN] + (types or [NORMAL] * (len(tokens) - 3))
    path = write_tokenizer(tmp_path / name, tokens, model="t5", pre=None, token_types=types,
                           scores=[0.0, 0.0, 0.0, *scores], special_ids={"unknown": 2, "eos": 1, "padding": 0},
                           flags={"remove_extra_whitespaces": True})  # the fast path's condition
    return Tokenizer.from_gguf(path)


# ------------------------------------------------------------------------------------ the real vocabulary
def test_batch_is_the_whole_viterbi_on_hostile_texts(toks, vocab_path):
    tok = toks("nomic-bert-moe")
    m = tok.model
    assert m._fast and m._batch is not None
    facts = m._facts
    # characters of every class of the character map: simple, keys that begin longer keys (and what continues
    # them), prefixes of keys, and what follows those
    both = [chr(c) for c in np.flatnonzero(facts.key_prefix)[:30]]
    then = [chr(c) for c in np.flatnonzero(facts.then)[::997][:30]]
    prefix = [chr(c) for c in np.flatnonzero(facts.prefix)[:30]]
    follow = [chr(c) for c in np.flatnonzero(facts.follow)[::499][:30]]
    extra = [*list(facts.simple)[:40], *both, *then, *prefix, *follow, "\u0627", "\u0674", "\x00", "  ", "\n\n"]
    rng = random.Random(21)
    batch = texts(rng, vocab_pieces(tok), 600, extra=extra)
    for data in batch:
        same_as_whole(m, data)
    # many at once, in one fresh model: one batch holding all of them
    fresh = Tokenizer.from_gguf(vocab_path("nomic-bert-moe")).model
    joined = b" ".join(batch)
    assert fresh.encode(joined) == fresh.encode_whole(joined)


def test_batch_pieces_are_the_scalar_viterbi(toks):
    """Each piece's ids and total from ``BatchViterbi.run`` are ``_viterbi_text``'s (the per-piece loop), the
    doubles compared exactly."""
    m = toks("nomic-bert-moe").model
    rng = random.Random(3)
    pieces = [t for t in m._text_ids if "\ufffd" not in t and not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    words = ["".join(rng.choice(pieces).lstrip(SPACE) for _ in range(rng.randrange(1, 5))) for _ in range(3000)]
    words = [w for w in words if w and " " not in w and "\0" not in w]
    c = ugm.BatchViterbi.code_points("\0".join(words))
    sep = np.flatnonzero(c == 0)
    ids, ends, totals, _, too_long = m._batch.run(c, sep, len(words), m._largest)
    assert not len(too_long)
    flat, starts = ids.tolist(), [0, *ends.tolist()]
    for i, w in enumerate(words):
        want: list[int] = []
        total = 0.0
        for part in ugm.junction_parts(SPACE + w, m._joins):
            part_ids, part_total = m._viterbi_text(part)
            ugm._extend(want, part_ids, m.unk)
            total += abs(part_total)
        assert flat[starts[i]:starts[i + 1]] == want, w
        assert totals[i] == total, w


def test_new_words_in_a_small_cache_keep_the_entries_found(vocab_path):
    """A cache that fills while new words are stored evicts words found in it before: their entries stay."""
    m = Tokenizer.from_gguf(vocab_path("nomic-bert-moe"), cache_size=50).model
    rng = random.Random(1)
    words = [bytes(rng.choice(b"abcdefgh\xc3\xa9") for _ in range(rng.randrange(1, 7))) for _ in range(300)]
    for _ in range(200):
        data = b" ".join(rng.choice(words) for _ in range(rng.randrange(1, 120)))
        same_as_whole(m, data)
        assert len(m._words) <= 50


def test_words_longer_than_a_batch_go_alone(vocab_path, monkeypatch):
    """A word past ``BATCH_BYTES`` is left out of the batch (whose arrays grow with it) and takes the old way."""
    monkeypatch.setattr(ugm, "BATCH_BYTES", 40)
    m = Tokenizer.from_gguf(vocab_path("nomic-bert-moe")).model
    batched = []
    real = ugm.UGMModel._batch_entries
    monkeypatch.setattr(ugm.UGMModel, "_batch_entries", lambda self, ws, out: (batched.extend(ws), real(self, ws, out)))
    rng = random.Random(3)
    alphabet = "abcdéfg漢字ひらがなالعربية\u3000xyz0123  "
    for _ in range(150):
        data = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 300))).encode()
        same_as_whole(m, data)
    assert batched and max(map(len, batched)) <= 40


def test_replacements_and_key_prefixes_are_the_walker(toks):
    """What the batch replaces without the walker is what the walker makes: a simple character anywhere, and a
    key that begins longer keys when the next character is not led by a byte the walk could read after it."""
    m = toks("nomic-bert-moe").model
    facts = m._facts
    quiet_next = next(chr(c) for c in range(0x21, 0x80) if not facts.then[c] and not facts.changes[c]
                      and not facts.walks[c] and not facts.prefix[c] and not facts.key_prefix[c])
    for c, repl in facts.replaced.items():
        data = (c + quiet_next).encode()
        piece, used = m.charsmap.replace(data, 0)
        assert (piece.decode(), used) == (repl, len(c.encode())), c
        out, moved = facts.replace(ugm.BatchViterbi.code_points(c + quiet_next))
        assert "".join(map(chr, out)) == repl + quiet_next and moved.tolist() == [0, len(repl)]


def test_hash_table_finds_exactly_its_keys():
    rng = np.random.default_rng(5)
    keys = np.unique(rng.integers(0, 2**63, 5000, dtype=np.int64)).astype(np.uint64)
    keys = np.concatenate((keys, np.array([0, 2**64 - 1], dtype=np.uint64)))
    table = ugm._HashTable(keys, np.arange(len(keys)))
    assert table.find(keys).tolist() == list(range(len(keys)))
    absent = np.setdiff1d(rng.integers(0, 2**63, 5000, dtype=np.int64).astype(np.uint64), keys)
    assert (table.find(absent) == -1).all()
    # keys that share a home slot probe on
    inverse = pow(int(ugm._GOLDEN), -1, 1 << 64)
    same_home = np.array([inverse * ((7 << 58) + j) % (1 << 64) for j in range(39)], dtype=np.uint64)
    t = ugm._HashTable(same_home, np.arange(39))
    assert t.probes == 39 and t.find(same_home).tolist() == list(range(39))
    assert (t.find(same_home + np.uint64(1)) == -1).sum() >= 38  # their neighbours are (almost surely) absent


# ------------------------------------------------------------------------------------ synthetic vocabularies
def adversarial_tokens(rng: random.Random, wide: bool) -> tuple[list[str], list[float]]:
    """Short tokens over a small alphabet with float32 scores that tie (many equal values); with ``wide``, also
    scores so far apart (1e-7 and 3000) that a double sum of a few dozen of them rounds, and its order matters:
    there the rounding guard must send long texts to the whole path."""
    alphabet = "abcdé中"
    tokens = {SPACE, *alphabet}
    while len(tokens) < 120:
        t = "".join(rng.choice(alphabet) for _ in range(rng.randrange(2, 7)))
        tokens.add(SPACE + t if rng.random() < 0.3 else t)
    pool = [-0.1, -0.2, -0.3, -0.7, -1.0, -1.5, -2.0, -3.3, *([-1e-7, -3.1e-8, -3000.0, -2999.9] if wide else [])]
    scores = [float(np.float32(rng.choice(pool) if rng.random() < 0.7 else -rng.uniform(0.05, 8))) for _ in tokens]
    return sorted(tokens), scores


@pytest.mark.parametrize("seed", range(4))
def test_adversarial_scores_give_the_whole_viterbi(tmp_path, seed):
    rng = random.Random(seed)
    tokens, scores = adversarial_tokens(rng, wide=seed >= 2)
    m = unigram(tmp_path, tokens, scores).model
    assert m._fast and m._batch is not None
    if seed >= 2:  # sums of a few dozen scores can round: the guard is live for long texts
        assert m._limit < 1e6
        big, tiny = 40 * np.float64(np.float32(-3000.0)), np.float64(np.float32(-3.1e-8))
        assert (big + tiny) - big != tiny  # a double sum of them does round
    letters = "abcdé中xy \n"
    for _ in range(300):
        data = "".join(rng.choice(letters) for _ in range(rng.randrange(0, 90))).encode()
        same_as_whole(m, data)
    long_word = "".join(rng.choice("abcdé中") for _ in range(3000)).encode()  # longer than the cache keeps
    same_as_whole(m, long_word)
    same_as_whole(m, long_word + b" " + long_word[:100])


def test_equal_scores_tie_as_llama_cpp(tmp_path):
    """Two segmentations of one score: the first offered to the end position wins (strict >)."""
    tokens = [SPACE, "a", "b", "c", "ab", "bc", SPACE + "a", "abc" + "d", "cd"]
    scores = [-1.0, -1.0, -1.0, -1.0, -2.0, -2.0, -2.0, -4.0, -2.0]
    m = unigram(tmp_path, tokens, scores).model
    for data in (b"abc", b"bca abc", b"abcd", b"cabcab abcd cd", b"aaaa bbbb"):
        same_as_whole(m, data)


def test_user_defined_and_unused_tokens(tmp_path):
    tokens = [SPACE, "a", "b", "ab", "<x>", "bb", SPACE + "b"]
    scores = [-1.0, -2.0, -2.0, -1.5, -9.0, -0.5, -1.0]
    types = [NORMAL, NORMAL, NORMAL, NORMAL, USER_DEFINED, UNUSED, NORMAL]
    m = unigram(tmp_path, tokens, scores, types).model
    for data in (b"a<x>b", b"<x><x> ab", b"bbb <x", b"x>ab <x>", b"<<x>>"):
        same_as_whole(m, data)


def test_a_colliding_hash_is_checked(tmp_path, monkeypatch):
    """With a hash that sends many windows to one token's value, the character check keeps the matches exact;
    a hash under which two tokens collide turns the batch off."""

    def weak(cps, starts, lengths):  # the first and last character and the length: tokens rarely collide
        return ((cps[starts] * 1_000_003 + cps[starts + lengths - 1]) * 64 + lengths).astype(np.uint64)

    monkeypatch.setattr(ugm, "_poly_hash", weak)
    tokens = [SPACE, "a", "b", "x", "abab", "bxxa", "aaax", "abbba", "ab", SPACE + "ab"]
    scores = [-1.0, -2.0, -2.0, -2.0, -1.0, -1.0, -1.0, -1.0, -2.5, -2.0]
    m = unigram(tmp_path, tokens, scores).model
    assert m._batch is not None
    for data in (b"abxb axab abab", b"aaab abbb abbba abxba axbba", b"bxxa baba bxba aaax abax axxx"):
        same_as_whole(m, data)
    collide = unigram(tmp_path, [*tokens, "axxb"], [*scores, -0.5], name="c.gguf").model  # "abab" and "axxb"
    assert collide._batch is None
    same_as_whole(collide, b"abxb abab axxb")


def test_words_with_a_very_long_part_go_alone(tmp_path, monkeypatch):
    """A part longer than LONGEST_PART stops the batch's steps; its word is encoded alone (the scalar walk, for a
    long part too), with the ids of the whole text."""
    monkeypatch.setattr(ugm, "LONGEST_PART", 6)
    tokens = [SPACE, "a", "b", "aa", "ab", "ba", SPACE + "a", "aaa"]
    scores = [-1.0, -2.0, -2.0, -2.5, -3.0, -3.0, -1.5, -3.5]
    m = unigram(tmp_path, tokens, scores).model
    alone = []
    real = m._word_entry
    monkeypatch.setattr(m, "_word_entry", lambda w: alone.append(w) or real(w))
    for data in (b"ab aaaaaaaaab ba", b"a" * 100, b"bbbbbbbbbb aab", (b"ab" * 40 + b" ") * 3):
        same_as_whole(m, data)
    assert b"aaaaaaaaab" in alone and b"ab" not in alone and b"ba" not in alone
