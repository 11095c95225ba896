"""llama.cpp's recorded answers (data/golden/, made with the oracle) against gguftok, without llama.cpp.

A fixture whose feature is not built yet is tolerated only through NOT_BUILT below: each entry is printed
as the reason of a strict expected failure, so an entry that starts passing fails the run until it is
removed. The issues that build the features empty this list.
"""

from __future__ import annotations

import fnmatch

import pytest
from conftest import MANIFEST, REPO

from gguftok import read_metadata
from gguftok.conformance.golden import (
    DECODE_FLAGS,
    ENCODE_FLAGS,
    Crash,
    DecodeCase,
    EncodeCase,
    Fixture,
    agree,
    fixture_paths,
    ours,
    pieces_digest,
    read_fixture,
    unpack_text,
    write_fixture,
)

FIXTURES = fixture_paths()

# fixture name pattern -> why it cannot pass yet (the issue that will make it pass)
NOT_BUILT: dict[str, str] = {}


def not_built(name: str) -> str | None:
    return next((why for pattern, why in NOT_BUILT.items() if fnmatch.fnmatch(name, pattern)), None)


def test_fixtures_cover_every_vocabulary_pre_string_and_synthetic_kind():
    names = {p.name.removesuffix(".jsonl.xz") for p in FIXTURES}
    vocabs = {n.removeprefix("ggml-vocab-").removesuffix(".gguf") for n in MANIFEST if n.endswith(".gguf")}
    assert vocabs <= names
    assert len([n for n in names if n.startswith("pre-")]) == 91
    assert {"synthetic-rwkv", "synthetic-plamo2", "synthetic-whitespace", "synthetic-dna", "synthetic-hash"} <= names
    assert sum(p.stat().st_size for p in FIXTURES) < 4_000_000, "keep the repository lean"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name.removesuffix(".jsonl.xz"))
def test_fixture_matches_its_source_file_and_our_reader(path, vocab_path):
    fx = read_fixture(path)
    h = fx.header
    assert h["llama_cpp_python"] == "0.3.36" and isinstance(h["seed"], int)
    source = REPO / "data" / "synthetic" / h["file"] if h["name"].startswith("synthetic-") else vocab_path(
        h["file"].removeprefix("ggml-vocab-").removesuffix(".gguf"))
    if not h["name"].startswith("synthetic-"):
        assert MANIFEST[h["file"]]["sha256"] == h["sha256"], "fixture made from another file than the pinned one"
    if "load_error" in h:
        return
    md = read_metadata(source)
    # llama.cpp's n_vocab is the length of tokenizer.ggml.tokens, which our reader must agree on
    assert fx.facts["n_vocab"] == len(md["tokenizer.ggml.tokens"]) == len(fx.attrs)
    assert len(fx.encode) >= 100 and len(fx.decode) >= 30


def test_fixture_format_round_trip(tmp_path):
    fx = Fixture({"format": 1, "name": "x"}, {"attrs_rle": [[4, 3]]},
                 [EncodeCase("a\u2028b\x00", [[1], [2, 1], [1], [2, 1]]),
                  EncodeCase(b"\xff", [Crash("SIGABRT", "")] * 4)],
                 [DecodeCase([5, 6], [b"\xe2\x82", b"ok", b"\xe2\x82", b"<s>ok"])])
    write_fixture(fx, tmp_path / "x.jsonl.xz")
    back = read_fixture(tmp_path / "x.jsonl.xz")
    assert back.encode[0].text == "a\u2028b\x00" and back.encode[0].answers == [[1], [2, 1], [1], [2, 1]]
    assert back.encode[1].text == b"\xff" and all(a.reason == "SIGABRT" for a in back.encode[1].answers)
    assert back.decode[0].answers == [b"\xe2\x82", b"ok", b"\xe2\x82", b"<s>ok"] and back.attrs == [4, 4, 4]


def _params():
    for p in FIXTURES:
        name = p.name.removesuffix(".jsonl.xz")
        why = not_built(name)
        marks = [pytest.mark.xfail(reason=why, strict=True)] if why else []
        yield pytest.param(p, id=name, marks=marks)


def load_tokenizer(fx: Fixture, vocab_path):
    from gguftok import Tokenizer  # issue 4

    h = fx.header
    if h["name"].startswith("synthetic-"):
        return Tokenizer.from_gguf(REPO / "data" / "synthetic" / h["file"])
    md = read_metadata(vocab_path(h["file"].removeprefix("ggml-vocab-").removesuffix(".gguf")))
    if h["pre"] is not None:
        md = md.with_changes({"tokenizer.ggml.pre": h["pre"]})
    return Tokenizer(md)


def compare(fx: Fixture, tok) -> list[str]:
    """Every disagreement between gguftok and the fixture, described."""
    bad: list[str] = []
    facts = {k: v for k, v in fx.facts.items() if k not in ("attrs_rle", "pieces_sha256", "pieces_sample")}
    our_facts = tok.facts()
    bad += [f"fact {k}: llama.cpp {v!r}, gguftok {our_facts.get(k)!r}"
            for k, v in facts.items() if our_facts.get(k) != v]
    attrs = fx.attrs
    bad += [f"attribute of token {i}: llama.cpp {a}, gguftok {tok.attrs[i]}"
            for i, a in enumerate(attrs) if tok.attrs[i] != a][:20]
    for special, digest in zip((False, True), fx.facts["pieces_sha256"], strict=True):
        pieces = tok.pieces.every(special)  # every id's token_to_piece, in one pass
        bad += [f"token_to_piece({i}, special={special}) is {tok.token_to_piece(i, special=special)!r}, its "
                f"entry in pieces.every() {pieces[i]!r}" for i in fx.facts["pieces_sample"]["ids"]
                if tok.token_to_piece(i, special=special) != pieces[i]]
        if len(pieces) != len(attrs) or pieces_digest(pieces) != digest:
            sample = fx.facts["pieces_sample"]
            want = [unpack_text(x) for x in sample["special" if special else "plain"]]
            diffs = [(i, w, pieces[i]) for i, w in zip(sample["ids"], want, strict=True)
                     if pieces[i] != (w if isinstance(w, bytes) else w.encode())]
            bad.append(f"token_to_piece(special={special}) differs somewhere; in the sample: {diffs[:5]}")
    for case in fx.encode:
        for (add, parse), want in zip(ENCODE_FLAGS, case.answers, strict=True):
            got = ours(tok.encode, case.text, add_special=add, parse_special=parse)
            if not agree(want, got):
                bad.append(f"encode({case.text!r:.80}, add_special={add}, parse_special={parse}): "
                           f"llama.cpp {want}, gguftok {got}")
    for case in fx.decode:
        for (remove, unparse), want in zip(DECODE_FLAGS, case.answers, strict=True):
            got = ours(tok.decode_bytes, case.ids, remove_special=remove, unparse_special=unparse)
            if not agree(want, got):
                bad.append(f"decode({case.ids}, remove_special={remove}, unparse_special={unparse}): "
                           f"llama.cpp {want!r}, gguftok {got!r}")
    return bad


@pytest.mark.parametrize("path", list(_params()))
def test_gguftok_gives_llama_cpps_answers(path, vocab_path):
    fx = read_fixture(path)
    if "load_error" in fx.header:  # llama.cpp refused the file: so must we, clearly
        with pytest.raises(ValueError):
            load_tokenizer(fx, vocab_path)
        return
    bad = compare(fx, load_tokenizer(fx, vocab_path))
    assert not bad, f"{len(bad)} disagreements with llama.cpp, first ones:\n" + "\n".join(bad[:15])
