"""Wrong variants of lesson 04's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from itertools import pairwise

import regex
from solutions_loader import solved


def split_whole_text(text: str, regexes: list[str]) -> list[str]:
    """Cuts at every regex's matches in the WHOLE text, not in each piece: a lookahead sees past a piece."""
    cuts = {0, len(text)}
    for pattern in regexes:
        for m in regex.finditer(pattern, text):
            cuts.update(m.span())
    edges = sorted(cuts)
    return [text[a:b] for a, b in pairwise(edges)]


def regexes_for_qwen2_in_threes(pre: str) -> list[str]:
    """Gives Qwen2 Llama 3's list: numbers in runs of up to three digits, not one digit at a time."""
    regexes_for = solved("04.regexes_for")
    return regexes_for("llama-bpe") if pre == "qwen2" else regexes_for(pre)


WRONG = {
    "04.split": split_whole_text,
    "04.regexes_for": regexes_for_qwen2_in_threes,
}
