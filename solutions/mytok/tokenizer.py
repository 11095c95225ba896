"""Stage 12: GgufTokenizer, every stage of the package assembled into one tokenizer.

It handles the four families the workbook builds: byte-level BPE (``tokenizer.ggml.model`` is ``"gpt2"``:
special tokens, pre-tokenizer, byte map, merge queue, word cache), SentencePiece (``"llama"``: special tokens,
space escaping, score-ordered merges with byte fallback), WordPiece (``"bert"``: BERT's words, greedy longest
match, ``[CLS]`` ... ``[SEP]``) and Unigram (``"t5"``: the character map, then Viterbi).

>>> tok = GgufTokenizer.from_gguf("../data/vocab/ggml-vocab-gpt-2.gguf")   # doctest: +SKIP
>>> tok.encode("Hello world")                                             # doctest: +SKIP
[15496, 995]
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

from . import (
    bos_eos,
    bytemap,
    cache,
    detokenize,
    merge_queue,
    merges,
    metadata,
    pretokenize,
    sentencepiece,
    special,
    unigram,
    wordpiece,
)

# Given: the tokenizer.ggml.pre values for which llama.cpp looks a whole word up before merging (notebook 05).
IGNORE_MERGES = frozenset({
    "falcon-h1", "falcon3", "glm4", "glm5", "granite-embed-multi-97m", "jina-v5-nano", "lfm2", "llama-bpe",
    "llama-v3", "llama3", "midm-2.0", "minicpm5", "pixtral", "tekken", "youtu"})
CACHE_SIZE = 32768

# Given: the tokenizer.ggml.pre values for which llama.cpp does not clean up spaces when decoding.
CLEAN_SPACES_OFF = frozenset({
    "afmoe", "bailingmoe", "bailingmoe2", "chameleon", "cohere2moe", "command-r", "deepseek-coder", "deepseek-llm",
    "deepseek-r1-qwen", "deepseek-v3", "f2llmv2", "gpt-4o", "granite-docling", "granite-embed-multi-97m", "grok-2",
    "hunyuan", "hunyuan-dense", "hy_v4", "joyai-llm", "kanana2", "kimi-k2", "kormo", "laguna", "llada-moe",
    "llama4", "minimax-m2", "poro-chat", "qwen2", "qwen35", "sarvam-moe", "seed-coder", "smollm", "solar-open",
    "spark2_5", "superbpe", "talkie", "tekken", "tiny_aya", "trillion", "ufakzeka", "viking", "youtu"})


def _clean_spaces(data: bytes) -> bytes:
    """Given: llama.cpp's clean-up of decoded byte-level BPE text, three passes, each over the previous one's
    result: no space before ``? ! . ,``; `` ' `` loses both its spaces; a space before ``'s 'm 're 've`` goes.

    >>> _clean_spaces(b"Hello , world ! I ' m here . don 't 's")
    b"Hello, world! I'm here. don 't's"
    """
    data = re.sub(rb" (?=[?!.,])", b"", data)
    data = re.sub(rb" ' ", b"'", data)
    return re.sub(rb" (?='(?:[sm]|re|ve))", b"", data)


def _float32(x: float) -> float:
    """Given: ``x`` rounded to the nearest 32-bit float.

    >>> _float32(0.1)
    0.10000000149011612
    """
    return struct.unpack("<f", struct.pack("<f", x))[0]


class GgufTokenizer:
    """A GGUF file's tokenizer, built from its key/value metadata.

    >>> md = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": ["a", "b", "ab"],
    ...       "tokenizer.ggml.token_type": [1, 1, 1], "tokenizer.ggml.merges": ["a b"]}
    >>> GgufTokenizer(md).encode("abba", add_special=False)
    [2, 1, 0]
    """

    def __init__(self, md: dict):
        self.model = md["tokenizer.ggml.model"]
        if self.model not in ("gpt2", "llama", "bert", "t5"):
            raise ValueError(f"this tokenizer knows byte-level BPE ('gpt2'), SentencePiece ('llama'), WordPiece "
                             f"('bert') and Unigram ('t5'), not {self.model!r}")
        self.texts = md["tokenizer.ggml.tokens"]
        self.types = md.get("tokenizer.ggml.token_type", [1] * len(self.texts))
        self.token_ids = {text: i for i, text in enumerate(self.texts)}
        self.specials = special.special_tokens(md)
        self.types = list(self.types)
        for _, token_id, control in self.specials:  # the load-time promotions to control (06) count when decoding
            if control and self.types[token_id] != 2:
                self.types[token_id] = 3
        self.add_bos, self.add_eos = bos_eos.add_bos(md), bos_eos.add_eos(md)
        self.bos_id, self.eos_id = bos_eos.special_id(md, "bos"), bos_eos.special_id(md, "eos")
        if self.model == "gpt2":
            self.ranks = merges.merge_ranks(md["tokenizer.ggml.merges"])
            pre = md.get("tokenizer.ggml.pre", "default")
            self.regexes = pretokenize.regexes_for(pre)
            self.ignore_merges = pre in IGNORE_MERGES
            self.clean_spaces = pre not in CLEAN_SPACES_OFF
            self.cache = cache.LRUCache(CACHE_SIZE)
        elif self.model == "llama":
            self.scores = md["tokenizer.ggml.scores"]
            self.unk_id = bos_eos.special_id(md, "unk")
            self.add_space_prefix = md.get("tokenizer.ggml.add_space_prefix", True)
            self.clean_spaces = False
        elif self.model == "bert":
            self.unk_id, self.sep_id = bos_eos.special_id(md, "unk"), bos_eos.special_id(md, "sep")
            self.lowercase = md.get("tokenizer.ggml.normalizer.lowercase", True)
            self.strip_accents = md.get("tokenizer.ggml.normalizer.strip_accents", self.lowercase)
            self.max_len = max(map(len, self.texts))
            self.add_space_prefix, self.clean_spaces = False, True
            self.cache = cache.LRUCache(CACHE_SIZE)
        else:  # t5: Unigram
            gguf_types = md.get("tokenizer.ggml.token_type", [1] * len(self.texts))
            self.unk_id = bos_eos.special_id(md, "unk")
            # the tokens Viterbi may use: normal, user-defined (score 0) and unused ones
            self.candidates = {t: i for i, t in enumerate(self.texts) if gguf_types[i] in (1, 4, 5)}
            self.scores = [0.0 if k == 4 else float(s) for k, s in zip(gguf_types, md["tokenizer.ggml.scores"],
                                                                       strict=True)]
            lowest = min(float(s) for k, s in zip(gguf_types, md["tokenizer.ggml.scores"], strict=True) if k == 1)
            self.unk_score = _float32(lowest - 10.0)  # llama.cpp computes it in 32-bit floats
            self.max_len = max(map(len, self.candidates))
            self.charsmap = bytes(b & 0xFF for b in md.get("tokenizer.ggml.precompiled_charsmap", []))
            self.add_space_prefix = md.get("tokenizer.ggml.add_space_prefix", False)
            self.remove_extra_whitespaces = md.get("tokenizer.ggml.remove_extra_whitespaces", False)
            self.clean_spaces = False

    @classmethod
    def from_gguf(cls, path) -> GgufTokenizer:
        """The tokenizer of a GGUF file on disk."""
        return cls(metadata.read_metadata(Path(path).read_bytes()))

    def encode(self, text: str, add_special: bool = True, parse_special: bool = False) -> list[int]:
        """Token ids, as llama_tokenize gives them."""
        ids = [self.bos_id] if add_special and self.add_bos else []
        prev_special = True  # SentencePiece puts a space before the first text and after a special token
        for fragment in special.partition(text, self.specials, parse_special):
            if isinstance(fragment, int):
                ids.append(fragment)
                prev_special = True
            elif self.model == "gpt2":
                ids += self._bpe(fragment)
            elif self.model == "bert":
                ids += self._wordpiece(fragment)
            elif self.model == "t5":
                normal = unigram._normalize(fragment, self.charsmap, self.add_space_prefix,
                                            self.remove_extra_whitespaces)
                ids += unigram.unigram_encode(normal, self.candidates, self.scores, self.unk_id, self.unk_score,
                                              self.max_len)
            else:
                escaped = ((" " if self.add_space_prefix and prev_special else "") + fragment).replace(" ", "▁")
                ids += sentencepiece.spm_encode(escaped, self.token_ids, self.scores, self.unk_id)
                prev_special = False
        if add_special and self.add_eos:
            ids.append(self.eos_id)
        if add_special and self.model == "bert":  # WordPiece always ends with [SEP]
            ids.append(self.sep_id)
        return ids

    def _wordpiece(self, text: str) -> list[int]:
        ids: list[int] = []
        for word in wordpiece._words(text, self.lowercase, self.strip_accents):
            word_ids = self.cache.get(word)
            if word_ids is None:
                word_ids = wordpiece.wordpiece_word(word, self.token_ids, self.unk_id, self.max_len)
                self.cache.put(word, word_ids)
            ids += word_ids
        return ids

    def _bpe(self, text: str) -> list[int]:
        ids: list[int] = []
        for word in pretokenize.split(text, self.regexes):
            word_ids = self.cache.get(word)
            if word_ids is None:
                spelled = bytemap.encode_bytes(word.encode("utf-8"))
                word_ids = merge_queue.word_ids(spelled, self.ranks, self.token_ids, self.ignore_merges)
                self.cache.put(word, word_ids)
            ids += word_ids
        return ids

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids`` (llama_detokenize without special tokens' text)."""
        remove_space = self.model in ("llama", "t5") and self.add_space_prefix
        data = detokenize.detokenize(ids, self.texts, self.types, self.model, remove_space=remove_space)
        if self.clean_spaces:
            data = _clean_spaces(data)
        return data.decode("utf-8", errors="replace")


def chat_prompt(tok: GgufTokenizer, system: str, user: str) -> list[int]:
    """A ChatML prompt: the template's markers parsed as special tokens, the two messages as plain text.

    >>> chat_prompt(tok, "Be brief.", "Hi")[:1] == tok.encode("<|im_start|>", False, True)   # doctest: +SKIP
    True
    """
    parts = [("<|im_start|>system\n", True), (system, False), ("<|im_end|>\n<|im_start|>user\n", True),
             (user, False), ("<|im_end|>\n<|im_start|>assistant\n", True)]
    ids: list[int] = []
    for text, is_markup in parts:
        ids += tok.encode(text, add_special=False, parse_special=is_markup)
    return ids
