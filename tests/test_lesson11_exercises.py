"""Lesson 11's exercises: the expected ids are llama.cpp's (its own test files, gguftok's SPMModel), the unk rule
applies only where llama.cpp has no answer, and the reports of the wrong variants say where they part."""

from __future__ import annotations

import pytest
from conftest import _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.conformance.cases import read_cases
from gguftok.data import vocab_dir
from gguftok.errors import EncodeError
from gguftok.exercises import EXERCISES, check
from gguftok.exercises.lesson11 import (
    real_vocab,
    reference_encode,
    reference_merge,
    toy_ids,
    toy_without_bytes,
)
from gguftok.models.spm import SPMModel
from gguftok.viz.families_view import spm_escape, toy_spm_encode, toy_spm_vocab

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


@pytest.mark.parametrize("name", ["llama-spm", "phi-3"])
def test_the_reference_gives_llama_cpps_own_ids(name):
    token_ids, scores, unk = real_vocab(name)
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    cases = read_cases(path.with_name(path.name + ".inp").read_bytes(),
                       path.with_name(path.name + ".out").read_text(encoding="utf-8"))
    assert len(cases) > 40
    for text, expected in cases:
        if text == b"":
            continue  # an empty text has no fragment: llama.cpp gives no ids, not the lone prefix ▁
        assert reference_encode(spm_escape(text.decode("utf-8")), token_ids, scores, unk) == expected, text
        assert solved("11.spm_encode")(spm_escape(text.decode("utf-8")), token_ids, scores, unk) == expected


def test_the_reference_is_spmmodel_wherever_spmmodel_has_an_answer():
    ex = EXERCISES["11.spm_encode"]
    compared = raised = 0
    models: dict[int, SPMModel] = {}
    for k, case in enumerate(ex.cases()):
        text, token_ids, scores, unk = case.args
        if id(token_ids) not in models or case.copy:
            texts = [""] * len(scores)
            for t, i in token_ids.items():
                texts[i] = t
            models[id(token_ids)] = SPMModel(texts, scores)
        try:
            ids = models[id(token_ids)].encode(text.encode("utf-8"))
        except EncodeError:  # a byte with no token: llama.cpp stops here; the exercise gives unk
            raised += 1
            assert unk in ex.expected(k)
            continue
        assert ex.expected(k) == ids, case.label
        compared += 1
    assert compared > 250 and raised > 20


def test_the_toy_vocabularies():
    token_ids, scores, unk = toy_ids()
    texts, _ = toy_spm_vocab()
    assert unk == 274 and token_ids["<unk>"] == unk and len(scores) == 275
    assert [texts[i] for i in reference_encode(spm_escape("Hello wörld"), token_ids, scores, unk)] == \
        toy_spm_encode("Hello wörld", texts, scores) == ["▁Hello", "▁w", "<0xC3>", "<0xB6>", "r", "ld"]
    assert reference_merge("▁Hello▁wörld", token_ids, scores) == ["▁Hello", "▁w", "ö", "r", "ld"]
    bare, bare_scores = toy_without_bytes()
    assert bare["<unk>"] == 0 and "<0x7F>" in bare and "<0x80>" not in bare
    assert reference_encode("▁wö", bare, bare_scores, 0) == [bare["▁w"], 0, 0]


def test_rightmost_on_ties_is_caught_on_a_tie():
    result = check("11.spm_merge", WRONG["11.spm_merge"])
    assert result.status == "failed" and result.case is not None and result.case >= 104, result.text
    scores = EXERCISES["11.spm_merge"].case(result.case + 1).args[2]
    assert len(set(scores)) < len(scores)  # the case that shows it has equal scores
    assert result.rerun.startswith("spm_merge(") or result.rerun.startswith("rerun(")


def test_unk_for_a_whole_character_is_caught_on_the_first_byte_fallback():
    result = check("11.spm_encode", WRONG["11.spm_encode"])
    assert result.case == 1 and result.call == "spm_encode('▁Hello▁wörld', TOY_IDS, TOY_SCORES, 274)"
    # ö has no token: its first byte, 0xC3, is the byte token 18 + 0xC3 = 213
    assert result.detail.startswith("first difference at index 2: expected 213, got 274 (lengths 6 and 5)")
    assert result.rerun == "rerun('11.spm_encode', 2)"
