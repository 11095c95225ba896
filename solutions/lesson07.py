"""Lesson 07: llama.cpp's add_bos rules, and the end-of-generation set."""

from __future__ import annotations

from gguftok.exercises.lesson07 import EOG_TEXTS
from gguftok.viz.bos_view import bos_presets


def add_bos(md: dict) -> bool:
    """Whether llama.cpp adds BOS for a vocabulary with these ``tokenizer.ggml.*`` keys.

    >>> add_bos({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"})
    True
    """
    model = md["tokenizer.ggml.model"]
    value = model in ("llama", "bert")
    if model == "gpt2" and md.get("tokenizer.ggml.pre") in bos_presets():
        value = True
    if "tokenizer.ggml.add_bos_token" in md:
        value = bool(md["tokenizer.ggml.add_bos_token"])
    if model == "gemma4":
        value = True
    return value


def eog_ids(tokens: list[str], eos: int) -> list[int]:
    """The end-of-generation ids, sorted: ``eos`` and every token whose text is in ``EOG_TEXTS``.

    >>> eog_ids(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"], 0)
    [0, 2]
    """
    texts = set(EOG_TEXTS)
    return sorted({eos} | {i for i, t in enumerate(tokens) if t in texts})
