"""Wrong variants of lesson 12's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations


def _forgets_bos(tok, text, parse_special):
    ids = []
    for frag in tok.fragments(text.encode(), parse_special):
        if isinstance(frag, int):
            ids.append(frag)
        else:
            for word in tok.pre.split(text.encode()[frag[0]:frag[0] + frag[1]].decode()):
                ids += tok.model.word_ids(word) if word else []
    return ids


WRONG = {
    "12.encode": _forgets_bos,
    "12.chat_prompt": lambda tok, system, user: tok.encode(
        f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n",
        add_special=False, parse_special=True),
}
