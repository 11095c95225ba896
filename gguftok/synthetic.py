"""The small synthetic vocabularies the lessons build, as arguments for :func:`gguftok.writer.write_tokenizer`.

``scripts/make_synthetic.py`` writes them to ``data/synthetic/``; a test checks the committed files are
exactly what this module describes.

>>> v = byte_level_vocab()
>>> len(v["tokens"]), len(v["merges"]), v["merges"][:3]
(286, 26, ['H e', 'He l', 'Hel l'])
"""

from __future__ import annotations

from typing import Any

from .bytemap import BYTE_TO_CHAR

# GGUF token types (gguf.TokenType): the numbers stored in tokenizer.ggml.token_type.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


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
    merges: list[str] = []
    known = set(tokens)
    for word in words:
        text = "".join(BYTE_TO_CHAR[b] for b in word.encode())
        prefix = text[0]
        for ch in text[1:]:
            if prefix + ch not in known:
                merges.append(f"{prefix} {ch}")
                tokens.append(prefix + ch)
                types.append(NORMAL)
                known.add(prefix + ch)
            prefix += ch
    specials = [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL),
                ("[PAD0]", USER_DEFINED)]
    for text, kind in specials:
        tokens.append(text)
        types.append(kind)
    eos = tokens.index("<|endoftext|>")
    return {"tokens": tokens, "token_types": types, "merges": merges, "model": "gpt2", "pre": "qwen2",
            "special_ids": {"eos": eos, "bos": eos}}


# file name in data/synthetic/ -> the vocabulary it holds
SYNTHETIC = {
    "tiny-9.gguf": tiny_vocab,
    "byte-level-286.gguf": byte_level_vocab,
}
