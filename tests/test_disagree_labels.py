"""explain() against real disagreements labelled by hand before it existed (tests/disagree/cases.json: llama.cpp
against transformers' own conversion of the same GGUF file; how they were found and labelled is in
tests/disagree/README.md). It must name a labelled stage on at least 95% of the cases, overall and in every
(vocabulary, stage) group."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("transformers")

from gguftok.disagree import STAGES, explain, explain_decode, transformers_tokenizer  # noqa: E402

CASES = json.loads((Path(__file__).parent / "disagree" / "cases.json").read_text(encoding="utf-8"))


def test_the_labels_are_stages():
    assert len(CASES) >= 300
    for c in CASES:
        assert c["label"] and set(c["label"]) <= set(STAGES), c
        assert c["label"] == sorted(c["label"], key=STAGES.index), c
        assert c["cause"]


def test_explain_names_a_labelled_stage(toks):
    """The other engine is each vocabulary's transformers conversion: for encoding without special tokens its
    ``tokenizers`` pipeline (what its tokenizer.json holds), with them and for decoding transformers' tokenizer
    (its ``add_special_tokens`` and decode are what users call)."""
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    engines: dict[str, tuple] = {}
    misses = []
    for c in CASES:
        name = c["vocab"]
        if name not in engines:
            hf = transformers_tokenizer(toks(name))
            engines[name] = (hf, hf.backend_tokenizer)
        hf, pipeline = engines[name]
        tok = toks(name)
        if c["kind"] == "encode":
            d = explain(tok, c["text"], hf if c["add_special"] else pipeline, add_special=c["add_special"],
                        parse_special=c["parse_special"])
        else:
            d = explain_decode(tok, c["ids"], hf, remove_special=c["remove_special"],
                               unparse_special=c["unparse_special"])
        assert d.stage is not None, c  # every case is a real disagreement
        assert d.stage == d.stages[0] and d.explanation
        ok = d.stage in c["label"]
        groups[(name, c["label"][0])].append(ok)
        if not ok:
            misses.append((name, c.get("text", c.get("ids")), c["label"], d.stages))
    total = [ok for oks in groups.values() for ok in oks]
    assert sum(total) >= 0.95 * len(total), misses
    weak = {g: f"{sum(oks)}/{len(oks)}" for g, oks in groups.items() if sum(oks) < 0.95 * len(oks)}
    assert not weak, (weak, misses)
    assert {s for _, s in groups} >= {"special-match", "special-context", "normalizer", "pre-tokenizer", "model",
                                      "bos-eos", "decoding"}
