"""Wrong variants of lesson 07's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from solutions_loader import solved

from gguftok.vocab import _EOG_TEXTS


def _no_gemma4_rule(md):
    """add_bos with the first three rules only: Gemma 4 with add_bos_token = false adds no BOS."""
    value = md["tokenizer.ggml.model"] in ("llama", "bert")
    if md["tokenizer.ggml.model"] in ("gpt2", "hybriddna", "whitespace") and md.get("tokenizer.ggml.pre") in (
            "chameleon", "falcon-h1", "falcon3", "jina-v5-nano", "lfm2", "llama-bpe", "llama-v3", "llama3",
            "midm-2.0", "pixtral", "tekken"):
        value = True
    return bool(md.get("tokenizer.ggml.add_bos_token", value))


def _default_kept(md, name):
    """special_id that keeps a default id past the end of the vocabulary (BPE's 11 in a six-token file)."""
    right = solved("07.special_id")(md, name)
    default = {"llama": {"bos": 1, "eos": 2, "unk": 0}, "bert": {"bos": 101, "unk": 100, "sep": 102, "pad": 0,
               "mask": 103}, "gpt2": {"bos": 11, "eos": 11}, "t5": {"eos": 1, "unk": 2, "pad": 0},
               "plamo2": {"bos": 1, "eos": 2, "unk": 0, "pad": 3}}.get(md["tokenizer.ggml.model"], {}).get(name)
    return default if right is None and default is not None else right


def _no_fim(md):
    """eog_ids without the fill-in-the-middle ids: BERT's [PAD] and StarCoder's <fim_pad> are missing."""
    texts = md["tokenizer.ggml.tokens"]
    eog = {solved("07.special_id")(md, n) for n in ("eos", "eot", "eom")} - {None}
    eog |= {i for i, t in enumerate(texts) if t in _EOG_TEXTS}
    full = solved("07.eog_ids")(md)
    return sorted(i for i in eog if i in full)  # the exceptions kept, only the FIM ids lost


WRONG = {
    "07.add_bos": _no_gemma4_rule,
    "07.add_eos": lambda md: bool(md.get("tokenizer.ggml.add_eos_token", False)),  # forgets Unigram's default
    "07.special_id": _default_kept,
    "07.eog_ids": _no_fim,
}
