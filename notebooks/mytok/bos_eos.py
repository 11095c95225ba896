"""Stage 07: the tokens at the edges of a sequence. Does a prompt begin with BOS or end with EOS, which id is
which special token, and which ids end generation.

None of this is written out in a GGUF file. llama.cpp derives it while loading, from a default for each
tokenizer model, the pre-tokenizer's preset, a few ``tokenizer.ggml.*`` keys, and the token texts.

>>> md = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2",
...       "tokenizer.ggml.tokens": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hi"],
...       "tokenizer.ggml.eos_token_id": 0}
>>> add_bos(md), add_eos(md), special_id(md, "eos"), special_id(md, "eot"), eog_ids(md)
(False, False, 0, 2, [0, 2])
"""

from __future__ import annotations

from .special import EOG_TEXTS, FIM_KEYS, FIM_TEXTS  # noqa: F401  (given: the lists of notebook 06)

# Given: the default special ids of each tokenizer model, before any key is read (None: no such token).
DEFAULT_IDS = {
    "llama": {"bos": 1, "eos": 2, "unk": 0},                                    # SentencePiece
    "bert": {"bos": 101, "unk": 100, "sep": 102, "pad": 0, "mask": 103},        # WordPiece
    "gpt2": {"bos": 11, "eos": 11}, "hybriddna": {"bos": 11, "eos": 11},        # byte-level BPE
    "whitespace": {"bos": 11, "eos": 11},
    "gemma4": {},                                                               # BPE, ids from the file only
    "t5": {"eos": 1, "unk": 2, "pad": 0},                                       # Unigram
    "plamo2": {"bos": 1, "eos": 2, "unk": 0, "pad": 3},
    "rwkv": {}, "test": {},
}
BPE_MODELS = ("gpt2", "hybriddna", "whitespace", "gemma4")  # the models whose tokenizer.ggml.pre counts

# Given: the key that names each special id, tokenizer.ggml.<suffix>_token_id (sic: "seperator").
ID_KEYS = {"bos": "bos", "eos": "eos", "eot": "eot", "eom": "eom", "unk": "unknown", "sep": "seperator",
           "pad": "padding", "mask": "mask"}

# Given: tokenizer.ggml.pre values with a preset that matters here.
BOS_PRESETS = frozenset({"chameleon", "falcon-h1", "falcon3", "jina-v5-nano", "lfm2", "llama-bpe", "llama-v3",
                         "llama3", "midm-2.0", "pixtral", "tekken"})  # switch add_bos on
NO_BOS_ID_PRESETS = frozenset({"chatglm-bpe", "glm4", "glm5"})  # clear the BOS id (a key can still set it)
GEMMA4_PRESETS = frozenset({"gemma4", "granite-embed-multi-311m"})  # force add_bos on after the keys

# Given: the texts by which llama.cpp finds the end-of-turn and end-of-message ids, in its order.
EOT_TEXTS = ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
             "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>")
EOM_TEXTS = ("<|eom_id|>",)


def add_bos(md: dict) -> bool:
    """Whether llama.cpp puts BOS in front of a prompt encoded with ``add_special=True``.

    Four rules, a later one overriding an earlier one: the model's default, the pre-tokenizer's preset
    (BPE models only), the key tokenizer.ggml.add_bos_token, and Gemma 4's forced BOS.

    >>> add_bos({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"})
    True
    """
    raise NotImplementedError


def add_eos(md: dict) -> bool:
    """Whether llama.cpp puts EOS after a prompt encoded with ``add_special=True``.

    >>> add_eos({"tokenizer.ggml.model": "t5"}), add_eos({"tokenizer.ggml.model": "llama"})
    (True, False)
    """
    raise NotImplementedError


def special_id(md: dict, name: str) -> int | None:
    """The id of special token ``name`` ("bos", "eos", "eot", "eom", "unk", "sep", "pad", "mask"), or None
    when the vocabulary has none.

    The model's default (disabled if it is past the end of the vocabulary), replaced by the key
    tokenizer.ggml.<ID_KEYS[name]>_token_id when that names an id inside it; an EOT or EOM id the file does
    not name is found by its text.

    >>> special_id({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>"]}, "eos")
    2
    """
    raise NotImplementedError


def eog_ids(md: dict) -> list[int]:
    """The ids that end generation, sorted.

    The fill-in-the-middle pad, repo and separator ids, every token whose text is in EOG_TEXTS, and the EOS,
    EOT and EOM ids; then llama.cpp's two exceptions (``<|end|>``, ``</s>``).

    >>> eog_ids({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "<|end|>"]})
    [2, 3]
    """
    raise NotImplementedError
