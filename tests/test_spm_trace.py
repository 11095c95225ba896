"""gguftok.models.spm.spm_trace, the SentencePiece step-through: its ids are Tokenizer.encode's, on many words of
real text and on characters the vocabulary lacks (the byte fallback)."""

from __future__ import annotations

import pytest
from conftest import REPO

from gguftok.models.spm import spm_trace

WORDS = sorted(set((REPO / "data" / "corpus" / "harbour.txt").read_text(encoding="utf-8").split()))
ODD = ["Hello wörld 😀", "日本語の文", "naïve café", "  two  spaces", "tab\there", "👋🏽🦙", "x" * 40,
       "ÅÄÖ ÿ ß", "12345 3.14159", "<s>", "\u200b", "Ελληνικά", "ﬁ"]


def _ids(tok, text):
    data = ((" " if tok.vocab.add_space_prefix else "") + text).replace(" ", "\u2581").encode()
    steps, syms, ids = spm_trace(data, tok.model)
    assert b"".join(syms) == data
    for s in steps:  # each step merges its best candidate, the highest score and leftmost of those
        scores = [c[2] for c in s.candidates]
        assert s.candidates[s.best][2] == max(scores) and scores.index(max(scores)) == s.best
    return [i for group in ids for i in group]


@pytest.mark.parametrize("name", ["llama-spm", "phi-3", "baichuan"])
def test_the_trace_gives_encodes_ids(toks, name):
    tok = toks(name)
    assert tok.vocab.type == "spm"
    for text in WORDS + ODD:
        assert _ids(tok, text) == tok.encode(text, add_special=False), text


def test_a_character_outside_the_vocabulary_falls_back_to_bytes(toks):
    tok = toks("llama-spm")
    data = "\u2581😀".encode()
    _, syms, ids = spm_trace(data, tok.model)
    missing = [s for s in syms if s not in tok.model.bytes_to_id]
    assert missing
    for sym, group in zip(syms, ids, strict=True):
        if sym in missing:
            assert [tok.vocab.texts[i] for i in group] == [f"<0x{b:02X}>" for b in sym]
