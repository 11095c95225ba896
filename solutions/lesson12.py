"""Lesson 12: encode from the tokenizer's parts, and a ChatML prompt that user text cannot forge."""

from __future__ import annotations


def encode(tok, text: str, parse_special: bool) -> list[int]:
    """``tok.encode(text, add_special=True, parse_special=...)``, from fragments, words and word ids."""
    data = text.encode()
    ids = [tok.bos_id] if tok.add_bos else []
    for frag in tok.fragments(data, parse_special):
        if isinstance(frag, int):
            ids.append(frag)
            continue
        offset, length = frag
        for word in tok.pre.split(data[offset:offset + length].decode()):
            if word:
                ids += tok.model.word_ids(word)
    return ids


def chat_prompt(tok, system: str, user: str) -> list[int]:
    """The ChatML prompt's ids: template markers parsed as special tokens, the two messages as plain text."""
    parts = [("<|im_start|>system\n", True), (system, False), ("<|im_end|>\n<|im_start|>user\n", True),
             (user, False), ("<|im_end|>\n<|im_start|>assistant\n", True)]
    ids: list[int] = []
    for text, special in parts:
        ids += tok.encode(text, add_special=False, parse_special=special)
    return ids
