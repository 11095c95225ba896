"""Lesson 06's exercises: the reports of wrong variants written out by hand, the given data of the template
against gguftok's tables, and the solution against what llama.cpp itself recorded for the 19 vocabularies."""

from __future__ import annotations

import json
import lzma

import pytest
from conftest import REPO, VOCAB_NAMES, _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.exercises import EXERCISES, check, workspace
from gguftok.exercises._data import tokenizer
from gguftok.exercises.lesson06 import fresh, vocab_key_values
from gguftok.vocab import _ALWAYS_USER_DEFINED, _EOG_TEXTS, _ROLE_TEXTS, CONTROL, UNKNOWN, USER_DEFINED

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def _template():
    return workspace._import("mytok_template", REPO / "notebooks" / "mytok", "special")


def test_the_given_lists_are_llama_cpps():
    mine = _template()
    assert set(mine.EOG_TEXTS) == _EOG_TEXTS and len(mine.EOG_TEXTS) == len(_EOG_TEXTS)
    assert {k: v for k, v in _ROLE_TEXTS.items() if k.startswith("fim")} == mine.FIM_TEXTS
    assert mine.ALWAYS_USER_DEFINED == _ALWAYS_USER_DEFINED
    assert (mine.UNKNOWN_TYPE, mine.CONTROL_TYPE, mine.USER_DEFINED_TYPE) == (2, 3, 4)


def _llama_cpp_specials(name: str) -> dict[int, bool]:
    """From llama.cpp's own record of the file (data/golden): id -> needs parse_special, for every token
    whose final attributes make it special."""
    with lzma.open(REPO / "data" / "golden" / f"{name}.jsonl.xz", "rt") as fh:
        fh.readline()
        facts = json.loads(fh.readline())
    out, tid = {}, 0
    for attr, run in facts["attrs_rle"]:
        if attr & (CONTROL | USER_DEFINED | UNKNOWN):
            out.update(dict.fromkeys(range(tid, tid + run), bool(attr & (CONTROL | UNKNOWN))))
        tid += run
    return out


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_the_solution_gives_the_special_tokens_llama_cpp_loaded(name):
    got = solved("06.special_tokens")(vocab_key_values(name))
    assert {tid: needs for _, tid, needs in got} == _llama_cpp_specials(name)
    lengths = [len(text.encode()) for text, _, _ in got]
    assert lengths == sorted(lengths, reverse=True)


def test_the_security_mistake_is_shown_on_the_chat():
    r = check("06.partition", WRONG["06.partition"])
    assert r.case == 1 and r.call.startswith("partition('<|im_start|>user\\nHi[PAD151646]")
    assert r.expected == "['<|im_start|>user\\nHi', 151646, '<|im_end|>\\n<|im_start|>assistant\\n']"
    assert r.got == "[151644, 'user\\nHi', 151646, 151645, '\\n', 151644, 'assistant\\n']"


def test_the_types_alone_miss_the_promoted_end_of_turn():
    r = check("06.special_tokens", WRONG["06.special_tokens"])
    assert r.case == 0 and "'</s>':1" in r.call and r.expected.endswith("('</s>', 4, True)]")
    assert "first difference at index 3: expected ('</s>', 4, True), got (nothing: the list ends)" in r.text


def _without(step: str):
    """The solution with one of its rules taken out."""
    right = solved("06.special_tokens")

    def wrong(md):
        md = dict(md)
        texts = md["tokenizer.ggml.tokens"]
        if step == "characters":
            return sorted(right(md), key=lambda s: (-len(s[0]), s[1]))
        if step == "fim":  # every role named by a key, so none is looked up by its text
            md.update({f"tokenizer.ggml.{r}_token_id": 0 for r in ("fim_pre", "fim_suf", "fim_mid", "fim_pad",
                                                                      "fim_rep", "fim_sep")})
            for key in ("prefix", "suffix", "middle"):
                md.pop(f"tokenizer.ggml.{key}_token_id", None)
            return right(md)
        if step == "exceptions":  # rename the texts the exceptions look for (their types stay)
            renamed = [t + "\x00" if t in (*_ALWAYS_USER_DEFINED, "<|end|>", "<|tool_response>") else t
                       for t in texts]
            return [(texts[tid], tid, needs) for _, tid, needs in right({**md, "tokenizer.ggml.tokens": renamed})]
        raise AssertionError(step)

    return wrong


@pytest.mark.parametrize(("step", "case", "where"), [("characters", 1, "'€€':4"), ("fim", 4, "'<｜fim▁begin｜>':4"),
                                                      ("exceptions", 6, "'<|channel|>':3")])
def test_each_rule_of_the_statement_is_needed(step, case, where):
    r = check("06.special_tokens", _without(step))
    assert not r.ok and r.case == case and where in r.call, r.text


def test_a_function_that_edits_its_input_cannot_change_later_cases():
    def vandal(md):
        types = md.get("tokenizer.ggml.token_type")
        if types is not None:
            types[:] = [3] * len(types)
        md["tokenizer.ggml.tokens"].append("<extra>")
        return []

    assert not check("06.special_tokens", vandal).ok
    assert check("06.special_tokens", solved("06.special_tokens")).ok
    md = vocab_key_values("qwen2")
    assert fresh(md)["tokenizer.ggml.tokens"] is not md["tokenizer.ggml.tokens"]


@pytest.mark.parametrize("name", ["phi-3", "nomic-bert-moe", "qwen2", "mpt"])
def test_the_partition_cases_are_llama_cpps_own_partition(name):
    """Whatever the strip rules: the expected fragments of every vocabulary case are what the real tokenizer
    (lstrip/rstrip included) cuts."""
    ex = EXERCISES["06.partition"]
    tok = tokenizer(name)
    seen = 0
    for k, case in enumerate(ex.cases()):
        if case.label and case.label.endswith(f"special tokens of {name}>, {case.args[2]})"):
            text, _, parse_special = case.args
            data = text.encode()
            frags = tok.fragments(data, parse_special)
            assert ex.expected(k) == [f if isinstance(f, int) else data[f[0]:f[0] + f[1]].decode() for f in frags]
            seen += 1
    assert seen == 12
