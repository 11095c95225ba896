"""Wrong variants of lesson 04's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

import regex

WRONG = {
    "04.gpt2_split": lambda text: regex.findall(
        r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+", text),
    "04.llama3_split": lambda text: regex.findall(
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+"  # digits not cut into threes
        r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        text),
}
