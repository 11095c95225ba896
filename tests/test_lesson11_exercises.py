"""Lesson 11's exercises: the expected ids are llama.cpp's (its own test files, gguftok's SPMModel), the unk rule
applies only where llama.cpp has no answer, and the reports of the wrong variants say where they part."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO, _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.conformance.cases import read_cases
from gguftok.data import vocab_dir
from gguftok.errors import EncodeError
from gguftok.exercises import EXERCISES, check
from gguftok.exercises.capstone import golden_cases
from gguftok.exercises.lesson11 import (
    real_vocab,
    reference_encode,
    reference_merge,
    reference_unigram,
    reference_wordpiece,
    toy_ids,
    toy_unigram,
    toy_without_bytes,
    toy_wordpiece,
    unigram_vocab,
    wordpiece_vocab,
)
from gguftok.exercises.workspace import load_solution
from gguftok.models.spm import SPMModel
from gguftok.viz.families_view import spm_escape, toy_spm_encode, toy_spm_vocab

WRONG = wrong_variants()
_spec = importlib.util.spec_from_file_location("mutants_lesson11", REPO / "tests" / "mutants" / "lesson11.py")
_mutants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mutants)
MORE = _mutants.MORE


def load(name):
    from gguftok import Tokenizer

    return Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")


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


# ------------------------------------------------------------------------------------- WordPiece and Unigram
def _inp(name):
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    return read_cases(path.with_name(path.name + ".inp").read_bytes(),
                      path.with_name(path.name + ".out").read_text(encoding="utf-8"))


def test_wordpiece_word_with_the_given_words_is_llama_cpps_bert_bge():
    """The solution's words (the given pre-tokenizer) and its match give llama.cpp's ids on its own test file."""
    words_of = load_solution("wordpiece")._words
    token_ids, unk, max_len = wordpiece_vocab()
    mine = solved("11.wordpiece_word")
    cases = _inp("bert-bge")
    assert len(cases) > 40
    for text, expected in cases:
        words = words_of(text.decode("utf-8"))
        assert [i for w in words for i in mine(w, token_ids, unk, max_len)] == expected, text
        assert [i for w in words for i in reference_wordpiece(w, token_ids, unk, max_len)] == expected, text


def test_the_toy_wordpiece_and_unigram_vocabularies():
    wp_ids, wp_unk, wp_max = toy_wordpiece()
    texts = {i: t for t, i in wp_ids.items()}
    assert [texts[i] for i in reference_wordpiece("tokenizers", wp_ids, wp_unk, wp_max)] == ["▁token", "izer", "s"]
    assert [texts[i] for i in reference_wordpiece("unable", wp_ids, wp_unk, wp_max)] == ["▁un", "able"]
    assert reference_wordpiece("tokenx", wp_ids, wp_unk, wp_max) == [wp_unk]
    ug_ids, ug_scores, ug_unk, ug_unk_score, ug_max = toy_unigram()
    assert ug_unk_score == -18.0 and ug_max == 4 and "<unk>" not in ug_ids
    names = {i: t for t, i in ug_ids.items()} | {ug_unk: "<unk>"}
    ref = [names[i] for i in reference_unigram("▁hug", ug_ids, ug_scores, ug_unk, ug_unk_score, ug_max)]
    assert ref == ["▁", "hug"]  # -7.0 beats the longest first token, ▁hug at -8.0
    assert [names[i] for i in reference_unigram("▁hxxg", *toy_unigram()[:2], ug_unk, ug_unk_score, ug_max)] == \
        ["▁h", "<unk>", "g"]


def test_unigram_encode_with_the_given_normaliser_is_llama_cpps_nomic_bert_moe():
    """On llama.cpp's recorded answers for nomic-bert-moe (no test file of its own): the solution's normaliser
    and Viterbi, and the exercise's reference, give llama.cpp's ids."""
    tok = load("nomic-bert-moe")
    normalize = load_solution("unigram")._normalize
    charsmap = bytes(tok.vocab.charsmap())
    vocab = unigram_vocab()
    mine = solved("11.unigram_encode")
    cases = golden_cases("nomic-bert-moe")
    assert len(cases) >= 100
    for raw, expected in cases:
        normal = normalize(raw.decode("utf-8"), charsmap)
        assert mine(normal, *vocab) == expected, raw
        assert reference_unigram(normal, *vocab) == expected, raw


@pytest.mark.parametrize("exercise_id", ["11.wordpiece_word", "11.unigram_encode"])
def test_the_reference_solutions_pass(exercise_id):
    result = check(exercise_id, solved(exercise_id))
    assert result.status == "passed", result.text
    assert result.total > 400


@pytest.mark.parametrize("exercise_id, wrong", [(i, fn) for i in MORE for fn in [WRONG[i], *MORE[i]]],
                         ids=lambda x: getattr(x, "__name__", x))
def test_every_wrong_wordpiece_and_unigram_is_caught(exercise_id, wrong):
    result = check(exercise_id, wrong)
    assert result.status in ("failed", "error"), f"{wrong.__name__} passes {exercise_id}"


def test_a_wrong_wordpiece_is_caught_on_the_notebooks_own_words():
    assert check("11.wordpiece_word", WRONG["11.wordpiece_word"]).case < 5  # the shortest: ▁u, not ▁un
    unk_as_you_go = MORE["11.wordpiece_word"][2]
    assert check("11.wordpiece_word", unk_as_you_go).call == "wordpiece_word('tokenx', WP_IDS, WP_UNK, WP_MAX)"
    assert check("11.unigram_encode", WRONG["11.unigram_encode"]).case == 0  # ▁hug first, not ▁ hug
