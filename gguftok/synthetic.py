"""The small synthetic vocabularies the lessons build, as arguments for :func:`gguftok.writer.write_tokenizer`.

``scripts/make_synthetic.py`` writes them to ``data/synthetic/``; a test checks the committed files are
exactly what this module describes.

>>> v = byte_level_vocab()
>>> len(v["tokens"]), len(v["merges"]), v["merges"][:3]
(286, 26, ['H e', 'He l', 'Hel l'])
"""

from __future__ import annotations

import itertools
from typing import Any

from .bytemap import BYTE_TO_CHAR

# GGUF token types (gguf.TokenType): the numbers stored in tokenizer.ggml.token_type.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def _spell(words: list[str], tokens: list[str], types: list[int]) -> list[str]:
    """Append the merges (and their tokens) that build each word left to right, one per new prefix."""
    merges: list[str] = []
    known = set(tokens)
    for text in words:
        prefix = text[0]
        for ch in text[1:]:
            if prefix + ch not in known:
                merges.append(f"{prefix} {ch}")
                tokens.append(prefix + ch)
                types.append(NORMAL)
                known.add(prefix + ch)
            prefix += ch
    return merges


def tiny_vocab() -> dict[str, Any]:
    """Nine tokens, three merges: small enough to read every byte of the file.

    >>> tiny_vocab()["tokens"]
    ['<|endoftext|>', 'a', 'b', 'c', 'Ġ', 'ab', 'Ġab', 'abc', '[PAD0]']
    """
    return {
        "tokens": ["<|endoftext|>", "a", "b", "c", "Ġ", "ab", "Ġab", "abc", "[PAD0]"],
        "token_types": [CONTROL, NORMAL, NORMAL, NORMAL, NORMAL, NORMAL, NORMAL, NORMAL, USER_DEFINED],
        "merges": ["a b", "Ġ ab", "ab c"],
        "model": "gpt2",
        "pre": "qwen2",
        "special_ids": {"eos": 0},
    }


def byte_level_vocab(words: tuple[str, ...] = ("Hello", " world", " cat", " the", "user", "assistant"),
                     ) -> dict[str, Any]:
    """A complete byte-level BPE vocabulary: 256 byte tokens, the merges that spell ``words``, 4 specials.

    Byte ``b`` is token ``b``; each word is built left to right, one merge per new prefix.
    """
    tokens = list(BYTE_TO_CHAR)
    types = [NORMAL] * 256
    merges = _spell(["".join(BYTE_TO_CHAR[b] for b in w.encode()) for w in words], tokens, types)
    specials = [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL),
                ("[PAD0]", USER_DEFINED)]
    for text, kind in specials:
        tokens.append(text)
        types.append(kind)
    eos = tokens.index("<|endoftext|>")
    return {"tokens": tokens, "token_types": types, "merges": merges, "model": "gpt2", "pre": "qwen2",
            "special_ids": {"eos": eos, "bos": eos}}


SAMPLE_WORDS = ("Hello", " world", " the", "ing", " token", "izer", " is", " a", "\n\n", "  ", "é", "日本")


def _rwkv_escape(data: bytes) -> str:
    """RWKV vocabularies store tokens escaped: ``\\t \\n \\r``, ``\\xhh`` (lower-case hex), ``\\\\``."""
    out = []
    for b in data:
        if b in (0x09, 0x0A, 0x0D):
            out.append({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}[b])
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def rwkv_vocab() -> dict[str, Any]:
    """An RWKV ("world") vocabulary: every single byte, then whole words; greedy longest match picks."""
    pieces = [bytes([b]) for b in range(256)] + [w.encode() for w in SAMPLE_WORDS]
    return {"tokens": ["<s>"] + [_rwkv_escape(p) for p in pieces], "token_types": [CONTROL] + [NORMAL] * len(pieces),
            "model": "rwkv", "pre": None}


def plamo2_vocab() -> dict[str, Any]:
    """A PLaMo-2 vocabulary: 4 specials, the 256 ``<0xXX>`` byte tokens, scored pieces for a DP to choose from."""
    specials = ["<|plamo:unk|>", "<|plamo:bos|>", "<|plamo:eos|>", "<|plamo:pad|>"]
    pieces = ["H", "e", "l", "o", "He", "ll", "llo", "Hello", " ", " w", "or", "ld", " world", "wor", "日", "本",
              "日本", "é", "▁", "a", "b", "ab"]
    tokens = specials + [f"<0x{b:02X}>" for b in range(256)] + pieces
    types = [CONTROL] * 4 + [BYTE] * 256 + [NORMAL] * len(pieces)
    scores = [0.0] * 260 + [-float(len(p)) * 0.75 - i * 0.01 for i, p in enumerate(pieces)]
    return {"tokens": tokens, "token_types": types, "scores": scores, "model": "plamo2", "pre": None}


def whitespace_vocab() -> dict[str, Any]:
    """A ``whitespace`` BPE vocabulary: words are the ``\\S+`` runs, lowercased, with ``<0xXX>`` byte fallback."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + list("0123456789.,!?'")
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + letters
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256 + [NORMAL] * len(letters)
    merges = _spell(["hello", "world", "the", "token", "tokenizer"], tokens, types)
    return {"tokens": tokens, "token_types": types, "merges": merges, "model": "whitespace", "pre": "whitespace",
            "special_ids": {"bos": 1, "eos": 2, "unknown": 0}, "flags": {"normalizer.lowercase": True}}


def dna_vocab() -> dict[str, Any]:
    """A ``hybriddna`` vocabulary: byte-level BPE for text, 6-mers between ``<dna>`` and ``</dna>``.

    The k-mer tokens carry a U+E000 marker, as llama.cpp expects; only k-mers of A, C and G are present, so
    any T sends a k-mer to ``<oov>``.
    """
    base = byte_level_vocab(("Hello", " world", "gene", " seq"))
    tokens, types = base["tokens"][:-4], base["token_types"][:-4]  # without the chat specials
    # The tags are NORMAL tokens: a USER_DEFINED or CONTROL tag would be split off before the DNA session saw it.
    for text, kind in (("<|endoftext|>", CONTROL), ("<dna>", NORMAL), ("</dna>", NORMAL), ("<oov>", NORMAL)):
        tokens.append(text)
        types.append(kind)
    for kmer in itertools.product("ACG", repeat=6):
        tokens.append("".join(kmer) + "\ue000")
        types.append(NORMAL)
    eos = tokens.index("<|endoftext|>")
    return {"tokens": tokens, "token_types": types, "merges": base["merges"], "model": "hybriddna", "pre": "default",
            "special_ids": {"eos": eos, "bos": eos}}


def hash_vocab() -> dict[str, Any]:
    """llama.cpp's ``test`` model: 1,000 tokens whose ids come from a hash of 5-byte chunks."""
    return {"tokens": ["<unk>"] + [f"t{i}" for i in range(1, 1000)], "token_types": [UNKNOWN] + [NORMAL] * 999,
            "model": "test", "pre": None}


# file name in data/synthetic/ -> the vocabulary it holds
SYNTHETIC = {
    "tiny-9.gguf": tiny_vocab,
    "byte-level-286.gguf": byte_level_vocab,
    "rwkv.gguf": rwkv_vocab,
    "plamo2.gguf": plamo2_vocab,
    "whitespace.gguf": whitespace_vocab,
    "dna.gguf": dna_vocab,
    "hash.gguf": hash_vocab,
}
