"""Lesson 07's exercises: the given tables of the template against gguftok's, the solution against what
llama.cpp itself recorded for the 19 vocabularies, and the reports of wrong variants written out by hand."""

from __future__ import annotations

import json
import lzma

import pytest
from conftest import REPO, VOCAB_NAMES, _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.exercises import EXERCISES, check, workspace
from gguftok.exercises.lesson06 import vocab_key_values
from gguftok.pretokenize import PRE_STRINGS, pre_tokenizer_config
from gguftok.viz.bos_view import bos_presets
from gguftok.vocab import _ROLE_TEXTS, DEFAULT_IDS, MODEL_TYPES, NULL, SPECIAL_NAMES

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def test_the_given_tables_are_llama_cpps():
    mine = workspace._import("mytok_template", REPO / "notebooks" / "mytok", "bos_eos")
    assert set(bos_presets()) == mine.BOS_PRESETS
    assert {p for p in PRE_STRINGS if "special_bos_id" in pre_tokenizer_config(p).sets} == mine.NO_BOS_ID_PRESETS
    assert {p for p in PRE_STRINGS if pre_tokenizer_config(p).type == "GEMMA4"} == mine.GEMMA4_PRESETS
    assert set(mine.BPE_MODELS) == {m for m, t in MODEL_TYPES.items() if t == "bpe"}
    assert list(mine.EOT_TEXTS) == _ROLE_TEXTS["eot"] and list(mine.EOM_TEXTS) == _ROLE_TEXTS["eom"]
    names = ("bos", "eos", "unk", "sep", "pad", "mask")
    for model, ids in mine.DEFAULT_IDS.items():
        # gemma4: llama.cpp's load() sets all six to none for this model (llama-vocab.cpp, the gemma4 branch)
        expected = dict.fromkeys(names, NULL) if model == "gemma4" else dict(zip(names, DEFAULT_IDS[MODEL_TYPES[model]],
                                                                                strict=True))
        assert {n: ids.get(n, NULL) for n in names} == expected, model
    assert set(mine.ID_KEYS) | {"fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep"} == set(SPECIAL_NAMES)


def _llama_cpp_facts(name: str) -> dict:
    with lzma.open(REPO / "data" / "golden" / f"{name}.jsonl.xz", "rt") as fh:
        fh.readline()
        return json.loads(fh.readline())


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_the_solution_gives_what_llama_cpp_loaded(name):
    md, facts = vocab_key_values(name), _llama_cpp_facts(name)
    bos_eos = workspace.load_solution("bos_eos")
    assert bos_eos.add_bos(md) is facts["add_bos"] and bos_eos.add_eos(md) is facts["add_eos"]
    for n in ("bos", "eos", "eot", "sep", "pad", "mask"):
        tid = bos_eos.special_id(md, n)
        assert (NULL if tid is None else tid) == facts[n], n
    assert bos_eos.eog_ids(md) == facts["eog"]


def test_the_reports_name_the_rule_that_was_forgotten():
    r = check("07.add_bos", WRONG["07.add_bos"])
    assert r.case == 6 and "model='gemma4', add_bos_token=False" in r.call and (r.expected, r.got) == ("True", "False")
    r = check("07.special_id", WRONG["07.special_id"])
    assert r.call.startswith("special_id(md, 'bos') with model='gpt2';") and (r.expected, r.got) == ("None", "11")
    r = check("07.eog_ids", WRONG["07.eog_ids"])
    assert "model='bert'" in r.call and r.expected == "[0]" and r.got == "[]"


def test_the_first_text_of_the_list_is_llama_cpps_end_of_turn_on_the_files_with_several():
    several = [n for n in VOCAB_NAMES
               if sum(t in _ROLE_TEXTS["eot"] for t in vocab_key_values(n)["tokenizer.ggml.tokens"]) > 1]
    assert set(several) >= {"llama-bpe", "phi-3", "qwen2"}
    for name in several:
        assert solved("07.special_id")(vocab_key_values(name), "eot") == _llama_cpp_facts(name)["eot"]


def test_no_case_asks_what_the_contract_leaves_open():
    """No end-of-turn looked up among several candidate texts."""
    for ex_id in ("07.add_bos", "07.special_id", "07.eog_ids"):
        for case in EXERCISES[ex_id].cases():
            md = case.args[0]
            n = len(md["tokenizer.ggml.tokens"])
            if case.args[1:] == ("eot",) and md.get("tokenizer.ggml.eot_token_id", n) >= n:
                found = sum(t in _ROLE_TEXTS["eot"] for t in md["tokenizer.ggml.tokens"])
                assert found <= 1 or "ggml-vocab-" in case.label, case.label


def _state(v) -> dict:
    return {k: x for k, x in vars(v).items() if k not in ("md", "_tokens_of", "_hashes")}


def test_a_variant_sharing_the_files_token_tables_is_the_vocab_built_alone():
    """The checks build each variant of a file's key/values (a flag or an id changed) on the file's token tables:
    every attribute is what a Vocab built from nothing has, and the changed attributes are the variant's own."""
    from gguftok.exercises.lesson07 import _real
    from gguftok.vocab import Vocab

    for what, md, _ in _real():
        base = Vocab(vocab_key_values(what.split("ggml-vocab-")[1].split(".gguf")[0]))
        alone, shared = Vocab(md), Vocab(md, tokens_of=base)
        assert _state(shared) == _state(alone), what
        assert shared.texts is base.texts and shared.attrs is not base.attrs
    md = vocab_key_values("qwen2")
    other = dict(md, **{"tokenizer.ggml.tokens": list(md["tokenizer.ggml.tokens"])})  # equal lists, not the same
    base = Vocab(md)
    assert Vocab(other, tokens_of=base).texts is not base.texts
    spm = vocab_key_values("llama-spm")
    as_bert = dict(spm, **{"tokenizer.ggml.model": "bert"})  # the same lists under another model: built anew
    base = Vocab(spm)
    built = Vocab(as_bert, tokens_of=base)
    assert built.texts is not base.texts and _state(built) == _state(Vocab(as_bert))
