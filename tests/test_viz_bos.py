"""Notebook 07's views: BOS/EOS/EOG facts checked against independently known ids, sanitizer-safe HTML,
escaped token texts, and the load-time rules the lesson teaches."""

from __future__ import annotations

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok import Tokenizer
from gguftok.viz.bos_view import (
    bos_eos_facts,
    bos_presets,
    bos_reason,
    eog_figure,
    eog_table,
    eot_candidates,
    facts_table,
    prompt_view,
    starts_with_double_bos,
    synthetic_eog,
    synthetic_rule_cases,
    vocab_bos_view,
)
from gguftok.vocab import CONTROL


@pytest.fixture(scope="module")
def load(vocab_path):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = Tokenizer.from_gguf(vocab_path(name))
        return cache[name]

    return get



# ------------------------------------------------------------------------- facts, independent values
def test_llama3_adds_bos_from_its_preset(load):
    tok = load("llama-bpe")
    f = bos_eos_facts(tok)
    assert (f["add_bos"], f["bos"], f["bos_text"]) == (True, 128000, "<|begin_of_text|>")
    assert f["bos_why"] == "pre 'llama-bpe' sets it"
    assert (f["eos"], f["eot"]) == (128001, 128009)
    assert [i for i, _, _ in f["eog"]] == [128001, 128009]
    assert tok.encode("Hello world") == [128000, 9906, 1917]
    assert tok.encode("Hello world", add_special=False) == [9906, 1917]


def test_gpt2_and_qwen2_add_no_bos(load):
    gpt2, qwen2 = load("gpt-2"), load("qwen2")
    assert bos_reason(gpt2.vocab) == (False, "bpe default")
    assert gpt2.facts()["bos"] == 50256 and not gpt2.add_bos
    assert qwen2.encode("Hello world") == [9707, 1879]


def test_qwen2_eot_and_eog(load):
    qwen2 = load("qwen2")
    assert qwen2.eot_id == 151645
    cands = eot_candidates(qwen2)
    assert [tid for _, tid, _ in cands] == [151645, 151643]  # <|im_end|> visited first
    assert sorted(qwen2.eog_ids) == [128247, 151643, 151645]
    assert qwen2.vocab.types[128247] == 1 and qwen2.attrs[128247] & CONTROL  # '</s>': normal in the file
    assert "normal -> control" in eog_table(qwen2).text


def test_key_and_type_rules(load):
    assert bos_eos_facts(load("nomic-bert-moe"))["add_eos"] is True
    assert bos_reason(load("llama-spm").vocab) == (True, "key add_bos_token = true")
    assert bos_reason(load("baichuan").vocab) == (True, "spm default")
    bert = load("bert-bge")
    assert bert.encode("Hello world") == [101, 7592, 2088, 102]


def test_synthetic_rules():
    got = {c[0]: (c[1], c[3]) for c in synthetic_rule_cases()}
    assert got["byte-level BPE, pre qwen2, no key"] == (False, False)
    assert got["byte-level BPE, pre llama-bpe"] == (True, False)
    assert got["SentencePiece (model llama)"] == (True, False)
    assert got["Unigram (model t5)"] == (False, True)
    assert got["pre qwen2 + add_bos_token true"] == (True, False)
    assert got["pre llama-bpe + add_bos_token false"] == (False, False)
    assert got["model gemma4 + add_bos_token false"] == (True, False)
    assert {"llama-bpe", "llama3", "llama-v3", "falcon3"} <= set(bos_presets())
    assert synthetic_eog(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "</s>", "hello"], eos=0) == [0, 2, 3]


def test_all_facts_agree_with_vocab(each_vocab):
    tok = Tokenizer.from_gguf(each_vocab)
    f = bos_eos_facts(tok)  # asserts its own rule explanation matches the loaded flags
    assert f["add_bos"] == tok.add_bos and f["add_eos"] == tok.add_eos
    assert [i for i, _, _ in f["eog"]] == sorted(tok.eog_ids)
    assert "?" not in [why for _, _, why in f["eog"]]


# -------------------------------------------------------------------------------- prompts and views
def test_double_bos(load):
    tok = load("llama-bpe")
    text = "<|begin_of_text|>Hi"
    ids = tok.encode(text, add_special=True, parse_special=True)
    assert ids[:2] == [128000, 128000] and starts_with_double_bos(tok, ids)
    assert not starts_with_double_bos(tok, tok.encode(text, add_special=False, parse_special=True))
    view = prompt_view(tok, text, cases=[(True, True), (False, True)])
    assert view.text.count("two BOS ids") == 1
    assert_sanitizer_safe(view.html)


def test_html_is_escaped_and_safe(load):
    qwen2 = load("qwen2")
    facts = {"qwen2": bos_eos_facts(qwen2), "<b>x</b>": bos_eos_facts(load("llama-bpe"))}
    table = facts_table(facts)
    assert "<|im_end|>" not in table.html and "&lt;|im_end|&gt;" in table.html
    assert "<b>x</b>" not in table.html and "&lt;b&gt;x&lt;/b&gt;" in table.html
    for view in (table, eog_table(qwen2), vocab_bos_view(qwen2, "<script>\n</s>", "qwen2"),
                 prompt_view(qwen2, "<|im_end|> a\tb")):
        assert_sanitizer_safe(view.html)
        assert "<script>" not in view.html and "</s>" not in view.html
    assert "2233:→b" in prompt_view(qwen2, "a\tb").text  # whitespace drawn visibly


def test_figure(load):
    import matplotlib

    matplotlib.use("Agg")
    fig = eog_figure({n: bos_eos_facts(load(n)) for n in ("qwen2", "deepseek-coder")})
    assert len(fig.axes) == 1
    import matplotlib.pyplot as plt

    plt.close(fig)
