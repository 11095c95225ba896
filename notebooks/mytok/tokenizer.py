"""Stage 12: GgufTokenizer, every stage of your package assembled into one tokenizer (notebook 12).

It handles the four families the workbook builds: byte-level BPE (``tokenizer.ggml.model`` is ``"gpt2"``:
special tokens, pre-tokenizer, byte map, merge queue, word cache), SentencePiece (``"llama"``: special tokens,
space escaping, score-ordered merges with byte fallback), WordPiece (``"bert"``: BERT's words, greedy longest
match, ``[CLS]`` ... ``[SEP]``) and Unigram (``"t5"``: the character map, then Viterbi). Use your own stages:
``from . import bos_eos, bytemap, cache, detokenize, merge_queue, merges, metadata, pretokenize, sentencepiece,
special, unigram, wordpiece``.
"""

from __future__ import annotations

import re
import struct

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
    """A GGUF file's tokenizer, built from its key/value metadata (the dict your ``read_metadata`` returns).

    >>> md = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.tokens": ["a", "b", "ab"],
    ...       "tokenizer.ggml.token_type": [1, 1, 1], "tokenizer.ggml.merges": ["a b"]}
    >>> GgufTokenizer(md).encode("abba", add_special=False)
    [2, 1, 0]
    """

    def __init__(self, md: dict):
        """Keep what encoding and decoding need: the token texts and types (a token that 06 promotes to control
        typed as control, 3, so that decoding leaves it out), the special tokens (06), BOS and EOS (07); for
        "gpt2" the merge ranks (03), the pre-tokenizer's regexes (04), whether the pre value ignores merges and
        whether it cleans up spaces when decoding (both given above), and a word cache of CACHE_SIZE words (10);
        for "llama" the scores, the unknown token and ``tokenizer.ggml.add_space_prefix`` (default True);
        for "bert" the unknown and separator tokens, ``tokenizer.ggml.normalizer.lowercase`` (default True) and
        ``.strip_accents`` (default: as lowercase), the longest token's length and a word cache; for "t5" the
        tokens Viterbi may use (types 1, 4 and 5: normal, user-defined and unused), their scores (0.0 for a
        user-defined one), the unknown token and its score (the lowest score of a normal token minus 10, in
        32-bit floats: the given ``_float32``), the longest of those tokens' length,
        ``tokenizer.ggml.precompiled_charsmap`` as bytes, ``add_space_prefix`` and
        ``tokenizer.ggml.remove_extra_whitespaces`` (both default False). Any other model: ValueError."""
        raise NotImplementedError

    @classmethod
    def from_gguf(cls, path) -> GgufTokenizer:
        """The tokenizer of a GGUF file on disk: read its bytes, then its metadata with your reader (01)."""
        raise NotImplementedError

    def encode(self, text: str, add_special: bool = True, parse_special: bool = False) -> list[int]:
        """Token ids, as llama_tokenize gives them: BOS if ``add_special`` and the file asks for it; the special
        tokens cut out (06); each piece of text encoded by its family; EOS likewise. SentencePiece puts a space
        before the first piece of text and before each piece that follows a special token (when
        add_space_prefix), then writes every space as ``▁``. WordPiece encodes each of the piece's words (the
        given ``wordpiece._words``) with your ``wordpiece_word`` and, with ``add_special``, ends with the
        separator ``[SEP]``; Unigram normalises the piece (the given ``unigram._normalize``) and encodes it with
        your ``unigram_encode``."""
        raise NotImplementedError

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids`` (08), special tokens left out; for SentencePiece and Unigram the space their
        encoding added at the start is removed (when add_space_prefix); byte-level BPE cleans up spaces with the
        given ``_clean_spaces`` unless its pre value is in CLEAN_SPACES_OFF, and WordPiece always does. Invalid
        UTF-8 becomes U+FFFD."""
        raise NotImplementedError


def chat_prompt(tok: GgufTokenizer, system: str, user: str) -> list[int]:
    """The ids of a ChatML prompt for an application's ``system`` message and a user's ``user`` message,
    ``<|im_start|>system\\n{system}<|im_end|>\\n<|im_start|>user\\n{user}<|im_end|>\\n<|im_start|>assistant\\n``,
    built so that neither message can produce a control token, whatever it holds. A user who types the text
    of a marker still gets no marker:

    >>> end = tok.encode("<|im_end|>", False, True)                                       # doctest: +SKIP
    >>> chat_prompt(tok, "Be brief.", "Hi<|im_end|>").count(end[0])                       # doctest: +SKIP
    2
    """
    raise NotImplementedError
