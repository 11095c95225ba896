"""Prepared tables (gguftok.tables): the tokens that merge apart, what a prepared tokenizer does with them, and the
folder that keeps them, where anything but our own well-formed record is a miss."""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys

import pytest
from conftest import REPO

from gguftok import Tokenizer, read_metadata
from gguftok.conformance.golden import ENCODE_FLAGS, GOLDEN_DIR, agree, ours, read_fixture
from gguftok.models.bpe import junctions, merge_word
from gguftok.synthetic import byte_level_vocab
from gguftok.tables import Table, TableStore
from gguftok.writer import write_tokenizer

# gpt-2: one token merges apart; qwen2: 293, shared with qwen35; gemma-4: 6,582, with its newline runs and cut lines
PREPARED = ("gpt-2", "qwen2", "gemma-4")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return TableStore(tmp_path_factory.mktemp("tables"))


@pytest.fixture(scope="module")
def prepared(store, vocab_path):
    """name -> (a prepared tokenizer, loaded again from the kept table; an unprepared one)."""
    out = {}
    for name in PREPARED:
        first = Tokenizer.from_gguf(vocab_path(name), tables=store)
        assert not first.prepared
        kept = first.prepare()
        assert kept is not None and kept.parent == store.root
        again = Tokenizer.from_gguf(vocab_path(name), tables=store)
        assert again.prepared and again.model.apart == first.model.apart
        assert again.model._joins == (junctions(again.model.ranks) if name == "gemma-4" else None)
        # Gemma 4 takes a run of newlines that is a token whole (its pre-tokenizer, which the digest does not cover)
        kind = "bpe-apart-newline-runs" if name == "gemma-4" else "bpe-apart"
        assert kept.name == TableStore.name(kind, again.vocab.md.merges_digest)
        out[name] = (again, Tokenizer.from_gguf(vocab_path(name), tables=False))
    return out


def test_gpt2s_tokens_that_merge_apart_are_what_the_queue_merges_apart(prepared):
    """Every token of GPT-2, merged by the priority queue (merge_word, not the list merge_pairs that the table is
    made with): the one whose text does not come back whole is the table's one id."""
    tok, _ = prepared["gpt-2"]
    ranks = tok.model.ranks
    apart = sorted(tid for text, tid in tok.vocab.token_to_id.items()
                   if len(text) > 1 and merge_word(text, ranks) != [text])
    assert apart == sorted(tok.model.apart) and len(apart) == 1


def test_qwen2s_table_agrees_with_the_queue(prepared):
    tok, _ = prepared["qwen2"]
    ranks, apart = tok.model.ranks, tok.model.apart
    texts = tok.vocab.texts
    assert all(merge_word(texts[i], ranks) != [texts[i]] for i in apart)
    sample = random.Random(31).sample([t for t in tok.vocab.token_to_id if len(t) > 1], 3000)
    for text in sample:
        assert (merge_word(text, ranks) == [text]) == (tok.vocab.token_to_id[text] not in apart), text


@pytest.mark.parametrize("name", PREPARED)
def test_a_prepared_tokenizer_gives_llama_cpps_ids(name, prepared):
    """llama.cpp's recorded answers (data/golden/), and every token that merges apart given to the model alone as
    a word: the same ids as unprepared. Without the table's ids (every token taken whole), those words differ."""
    tok, plain = prepared[name]
    fx = read_fixture(GOLDEN_DIR / f"{name}.jsonl.xz")
    bad = [(case.text, add, parse) for case in fx.encode
           for (add, parse), want in zip(ENCODE_FLAGS, case.answers, strict=True)
           if not agree(want, ours(tok.encode, case.text, add_special=add, parse_special=parse))]
    assert not bad, bad[:5]
    words = [w for w in map(tok.model.unspell, (tok.vocab.texts[i] for i in sorted(tok.model.apart))) if w]
    assert words
    expected = [ours(plain.model.encode_text_words, [w]) for w in words]
    assert [ours(tok.model.encode_text_words, [w]) for w in words] == expected
    wrong = Tokenizer.from_gguf(tok.source_path, tables=False)
    wrong.model.use_prepared([])
    assert [ours(wrong.model.encode_text_words, [w]) for w in words] != expected


def test_a_table_serves_every_file_with_the_same_tokens_and_merges(store, prepared, vocab_path):
    """Qwen3.5's vocabulary file holds Qwen2's tokens and merges (its other keys differ): one table for both."""
    qwen35 = Tokenizer.from_gguf(vocab_path("qwen35"), tables=store)
    assert qwen35.prepared and qwen35.model.apart == prepared["qwen2"][0].model.apart


def _vocab_file(path, merges_changed=False, name="a"):
    v = byte_level_vocab()
    merges = v["merges"][::-1] if merges_changed else v["merges"]
    return write_tokenizer(path, v["tokens"], token_types=v["token_types"], merges=merges, pre=v["pre"],
                           special_ids=v["special_ids"], extra={"general.name": name})


def test_the_digest_names_the_tokens_and_merges_only(tmp_path):
    a = read_metadata(_vocab_file(tmp_path / "a.gguf"))
    renamed = read_metadata(_vocab_file(tmp_path / "b.gguf", name="another name"))
    other = read_metadata(_vocab_file(tmp_path / "c.gguf", merges_changed=True))
    assert len(a.merges_digest) == 64 and a.merges_digest == renamed.merges_digest != other.merges_digest
    assert a.with_changes({"general.name": "x"}).merges_digest == a.merges_digest
    assert a.with_changes({"tokenizer.ggml.merges": ["H e"]}).merges_digest is None
    assert pickle.loads(pickle.dumps(a)).merges_digest == a.merges_digest  # encode_batch's workers get it
    no_merges = write_tokenizer(tmp_path / "d.gguf", ["a", "b"], model="llama", pre=None, scores=[0.0, 0.0])
    assert read_metadata(no_merges).merges_digest is None


def test_a_table_is_used_only_for_its_own_merges(tmp_path):
    store = TableStore(tmp_path / "tables")
    a, other = _vocab_file(tmp_path / "a.gguf"), _vocab_file(tmp_path / "c.gguf", merges_changed=True)
    assert Tokenizer.from_gguf(a, tables=store).prepare() is not None
    assert Tokenizer.from_gguf(a, tables=store).prepared
    assert not Tokenizer.from_gguf(other, tables=store).prepared
    assert not Tokenizer.from_gguf(a, tables=False).prepared
    # metadata without a digest: prepared in memory, kept nowhere
    plain = Tokenizer(dict(read_metadata(a)), tables=store)
    assert plain.prepare() is None and plain.prepared


def test_nothing_to_prepare_without_merges_to_skip(vocab_path, tmp_path):
    store = TableStore(tmp_path)
    for name in ("llama-bpe", "bert-bge", "nomic-bert-moe"):  # ignore_merges; WordPiece; Unigram
        tok = Tokenizer.from_gguf(vocab_path(name), tables=store)
        assert tok.prepare() is None and not tok.prepared
    assert not any(tmp_path.iterdir())


# ----------------------------------------------------------------------------------------- SentencePiece
SPM_PREPARED = ("llama-spm", "phi-3", "baichuan")


@pytest.mark.parametrize("name", SPM_PREPARED)
def test_a_prepared_sentencepiece_tokenizer_gives_llama_cpps_ids(name, store, vocab_path):
    """SentencePiece keeps its junctions (spm.merge_junctions), named by the digest of the tokens alone: a fresh
    tokenizer reads them back and cuts a long piece from its first text on, with llama.cpp's recorded answers.
    A table without one pair that a token holds cuts that token's text apart: other ids."""
    from gguftok.models import spm

    first = Tokenizer.from_gguf(vocab_path(name), tables=store)
    assert not first.prepared and first.model._joins is None
    kept = first.prepare()
    assert kept.name == TableStore.name("spm-junctions", first.vocab.md.tokens_digest)
    tok = Tokenizer.from_gguf(vocab_path(name), tables=store)
    assert tok.prepared and tok.model._joins == spm.merge_junctions(tok.model._text_to_id)
    fx = read_fixture(GOLDEN_DIR / f"{name}.jsonl.xz")
    bad = [(case.text, add, parse) for case in fx.encode
           for (add, parse), want in zip(ENCODE_FLAGS, case.answers, strict=True)
           if not agree(want, ours(tok.encode, case.text, add_special=add, parse_special=parse))]
    assert not bad, bad[:5]
    # the pair of a token of three characters or more, taken out of the table
    plain = Tokenizer.from_gguf(vocab_path(name), tables=False).model
    text = next(t for t in sorted(tok.model._text_to_id, key=len, reverse=True)
                if len(t) >= 3 and t.isalpha() and plain.encode(t.encode()) == [tok.model._text_to_id[t]])
    joins = first.model.prepared_joins()
    joins[text[0]] = joins[text[0]].replace(text[1], "")
    wrong = Tokenizer.from_gguf(vocab_path(name), tables=False).model
    wrong.use_prepared(joins)
    word = (text * 9).encode()  # one piece longer than CUT_LONGER_THAN: cut at the junctions
    assert len(text) * 9 > spm.CUT_LONGER_THAN
    fresh = Tokenizer.from_gguf(vocab_path(name), tables=store).model
    assert wrong.encode(word) != plain.encode(word) == fresh.encode(word), text
    # the fresh prepared tokenizer cut it at its junctions at once; the unprepared one merged it whole, counting
    assert fresh._uncut == 0 and plain._uncut == len(text) * 9 and plain._joins is None


def test_the_tokens_digest_names_the_tokens_only(tmp_path):
    a = read_metadata(write_tokenizer(tmp_path / "a.gguf", ["a", "b", "ab"], model="llama", pre=None,
                                      scores=[0.0, 0.0, -1.0]))
    b = read_metadata(write_tokenizer(tmp_path / "b.gguf", ["a", "b", "ab"], model="llama", pre=None,
                                      scores=[0.0, 0.0, -2.0], extra={"general.name": "b"}))
    c = read_metadata(write_tokenizer(tmp_path / "c.gguf", ["a", "b", "ba"], model="llama", pre=None,
                                      scores=[0.0, 0.0, -1.0]))
    assert len(a.tokens_digest) == 64 and a.tokens_digest == b.tokens_digest != c.tokens_digest
    assert a.merges_digest is None and a.with_changes({"general.name": "x"}).tokens_digest == a.tokens_digest
    assert a.with_changes({"tokenizer.ggml.tokens": ["a"]}).tokens_digest is None
    with_merges = read_metadata(_vocab_file(tmp_path / "d.gguf"))
    assert with_merges.tokens_digest not in (None, with_merges.merges_digest)


DIGEST = "ab" * 32


def _record(**changes):
    rec = {"format": "gguftok-table", "kind": "bpe-apart", "version": 1, "digest": DIGEST, "n_vocab": 10,
           "ids": [1, 5], "joins": {"a": "bc", "\ud800": "\u2581"}}
    rec.update(changes)
    return json.dumps(rec).encode()


@pytest.mark.parametrize("data", [
    b"", b"{", b"[1, 2]", b"[" * 100_000 + b"]" * 100_000, _record(format="other"), _record(kind="x"),
    _record(version=2), _record(digest="cd" * 32), _record(n_vocab=11), _record(ids=[5, 1]), _record(ids=[1, 1]),
    _record(ids=[-1]), _record(ids=[10]), _record(ids=[True]), _record(ids=[1.0]), _record(ids="1,5"),
    _record(joins=[]), _record(joins={"ab": "c"}), _record(joins={"": "c"}), _record(joins={"a": ["b"]}),
    b" " * 200_000 + _record(),
], ids=lambda d: d[:40].decode(errors="replace"))
def test_anything_but_our_record_is_a_miss(tmp_path, data):
    store = TableStore(tmp_path)
    (tmp_path / TableStore.name("bpe-apart", DIGEST)).write_bytes(data)
    assert store.get("bpe-apart", DIGEST, 10) is None
    (tmp_path / TableStore.name("bpe-apart", DIGEST)).write_bytes(_record())
    assert store.get("bpe-apart", DIGEST, 10) == Table([1, 5], {"a": "bc", "\ud800": "\u2581"})


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symbolic links: POSIX only")
def test_no_link_is_followed(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_bytes(_record())
    root = tmp_path / "tables"
    root.mkdir()
    (root / TableStore.name("bpe-apart", DIGEST)).symlink_to(target)
    store = TableStore(root)
    assert store.get("bpe-apart", DIGEST, 10) is None
    store.put("bpe-apart", DIGEST, 10, [2])  # replaces the link, does not write through it
    assert store.get("bpe-apart", DIGEST, 10) == Table([2]) and json.loads(target.read_bytes())["ids"] == [1, 5]
    linked = tmp_path / "linked"
    linked.symlink_to(root)
    assert TableStore(linked / "x").get("bpe-apart", DIGEST, 10) is None  # missing folder: a miss
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / TableStore.name("bpe-apart", DIGEST)).write_bytes(_record())
    (root / "sub").symlink_to(tmp_path / "real")
    assert TableStore(root / "sub").get("bpe-apart", DIGEST, 10) is None


def test_put_refuses_what_get_would_refuse(tmp_path):
    store = TableStore(tmp_path)
    for ids in ([2, 1], [1, 1], [-1], [10]):
        with pytest.raises(ValueError, match="strictly increasing"):
            store.put("bpe-apart", DIGEST, 10, ids)
    for kind, digest in (("other", DIGEST), ("bpe-apart", "../" + DIGEST[3:]), ("bpe-apart", DIGEST.upper())):
        with pytest.raises(ValueError, match="no table"):
            store.get(kind, digest, 10)
    assert not any(tmp_path.iterdir())


def test_the_cli_prepares_once(tmp_path):
    model = _vocab_file(tmp_path / "a.gguf")
    env = {**os.environ, "GGUFTOK_TABLES": str(tmp_path / "tables")}

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "gguftok", "prepare", *args], capture_output=True, text=True,
                              env=env, cwd=REPO, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    first = run(str(model))
    assert "tokens do not merge back into themselves; kept in " + str(tmp_path / "tables") in first
    assert run(str(model)).strip() == f"{model}: already prepared"
    assert "kept in" in run(str(model), "--force")
    assert Tokenizer.from_gguf(model, tables=TableStore(tmp_path / "tables")).prepared
    spm_model = write_tokenizer(tmp_path / "s.gguf", ["<unk>", "a", "b", "ab", "abb"], model="llama", pre=None,
                                scores=[0.0, 0.0, 0.0, -1.0, -2.0])
    assert run(str(spm_model)).startswith(f"{spm_model}: 2 pairs of characters that a merge can join; kept in ")
    assert Tokenizer.from_gguf(spm_model, tables=TableStore(tmp_path / "tables")).prepared
