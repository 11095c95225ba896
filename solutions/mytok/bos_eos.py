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

from .special import EOG_TEXTS, FIM_KEYS, FIM_TEXTS

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


def _pre(md: dict) -> str | None:
    """The pre-tokenizer llama.cpp uses: only BPE models have one, and Gemma 4's model forces its own."""
    model = md["tokenizer.ggml.model"]
    if model == "gemma4":
        return "gemma4"
    return md.get("tokenizer.ggml.pre") if model in BPE_MODELS else None


def add_bos(md: dict) -> bool:
    """Whether llama.cpp puts BOS in front of a prompt encoded with ``add_special=True``.

    >>> add_bos({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"})
    True
    """
    value = md["tokenizer.ggml.model"] in ("llama", "bert")  # 1. SentencePiece and WordPiece add BOS
    if _pre(md) in BOS_PRESETS:                             # 2. the Llama 3 presets and a few others
        value = True
    if "tokenizer.ggml.add_bos_token" in md:                # 3. the key wins
        value = bool(md["tokenizer.ggml.add_bos_token"])
    if _pre(md) in GEMMA4_PRESETS:                          # 4. Gemma 4 adds BOS whatever the key says
        value = True
    return value


def add_eos(md: dict) -> bool:
    """Whether llama.cpp puts EOS after a prompt encoded with ``add_special=True``.

    >>> add_eos({"tokenizer.ggml.model": "t5"}), add_eos({"tokenizer.ggml.model": "llama"})
    (True, False)
    """
    value = md["tokenizer.ggml.model"] == "t5"  # Unigram adds EOS
    if "tokenizer.ggml.add_eos_token" in md:
        value = bool(md["tokenizer.ggml.add_eos_token"])
    return value


def _found_by_text(md: dict, texts) -> int | None:
    """The first token of ``texts`` (in that order) that the vocabulary has."""
    tokens, wanted = md["tokenizer.ggml.tokens"], set(texts)
    if wanted.isdisjoint(tokens):  # none of them: the usual answer, found without numbering every token
        return None
    found = {text: i for i, text in enumerate(tokens) if text in wanted}
    return next((found[t] for t in texts if t in found), None)


def _from_keys(md: dict, default: int | None, suffixes) -> int | None:
    """A default id, out of the vocabulary disabled, then replaced by each key present that is in range."""
    n = len(md["tokenizer.ggml.tokens"])
    tid = default if default is not None and default < n else None
    for suffix in suffixes:
        value = md.get(f"tokenizer.ggml.{suffix}_token_id")
        if value is not None and value < n:
            tid = value
    return tid


def special_id(md: dict, name: str) -> int | None:
    """The id of special token ``name`` ("bos", "eos", "eot", "eom", "unk", "sep", "pad", "mask"; also the
    fill-in-the-middle roles "fim_pre" ... "fim_sep"), or None when the vocabulary has none.

    >>> special_id({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>"]}, "eos")
    2
    """
    if name in FIM_KEYS:
        default, suffixes, texts = None, FIM_KEYS[name], FIM_TEXTS[name]
    else:
        default = DEFAULT_IDS[md["tokenizer.ggml.model"]].get(name)
        if name == "bos" and _pre(md) in NO_BOS_ID_PRESETS:
            default = None
        suffixes = [ID_KEYS[name]]
        texts = {"eot": EOT_TEXTS, "eom": EOM_TEXTS}.get(name, ())
    tid = _from_keys(md, default, suffixes)
    if tid is None and texts:  # not named by the file: found by its text
        tid = _found_by_text(md, texts)
    return tid


def eog_ids(md: dict) -> list[int]:
    """The ids that end generation, sorted.

    >>> eog_ids({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "<|end|>"]})
    [2, 3]
    """
    texts = md["tokenizer.ggml.tokens"]
    eog = {special_id(md, role) for role in ("fim_pad", "fim_rep", "fim_sep")}
    eog_texts = set(EOG_TEXTS)
    eog |= {i for i, text in enumerate(texts) if text in eog_texts}
    eog |= {special_id(md, name) for name in ("eos", "eot", "eom")}
    eog.discard(None)
    # Two exceptions, decided by the texts of the ids in the set.
    by_text = {texts[i]: i for i in eog}
    has = by_text.__contains__
    if has("<|end|>") and (has("<|call|>") or has("<|calls|>")) and (has("<|return|>") or has("<|flush|>")):
        eog.discard(by_text["<|end|>"])  # gpt-oss and Solar Open end a turn with <|return|> or <|flush|>
    if has("</s>") and (has("<|tool_response>") or has("<|plamo:eos|>")):
        eog.discard(by_text["</s>"])  # Gemma 4's and PLaMo's </s> is an ordinary token
    return sorted(eog)
