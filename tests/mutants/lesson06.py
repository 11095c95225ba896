"""Wrong variants of lesson 06's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations


def _types_only(md):
    """The special tokens as the file's types say, without llama.cpp's rewrites: Qwen2's </s> is missing."""
    texts = md["tokenizer.ggml.tokens"]
    types = md.get("tokenizer.ggml.token_type") or [1] * len(texts)
    found = [(texts[i], i, t in (2, 3)) for i, t in enumerate(types) if t in (2, 3, 4)]
    return sorted(found, key=lambda s: (-len(s[0].encode()), s[1]))


def _always_cut(text, specials, parse_special):
    """The partition that forgets parse_special: forged control tokens in user text are read as real ones."""
    fragments = [text] if text else []
    for needle, tid, _ in specials:
        out = []
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                continue
            for k, piece in enumerate(frag.split(needle)):
                out += ([tid] if k else []) + ([piece] if piece else [])
        fragments = out
    return fragments


WRONG = {
    "06.special_tokens": _types_only,
    "06.partition": _always_cut,
}
