"""Wrong variants of lesson 12's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from solutions_loader import solved


def _forgets_bos() -> type:
    """The reference class, but BOS and EOS are never added."""
    base = solved("12.GgufTokenizer")

    class ForgetsBos(base):
        def encode(self, text, add_special=True, parse_special=False):
            return super().encode(text, False, parse_special)

    return ForgetsBos


WRONG = {
    "12.GgufTokenizer": _forgets_bos(),
    "12.chat_prompt": lambda tok, system, user: tok.encode(  # the whole string parsed: user text can forge
        f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n",
        add_special=False, parse_special=True),
}
