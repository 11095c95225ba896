"""Lesson 04: the GPT-2 and Llama 3 pre-tokenizer patterns with the ``regex`` module."""

from __future__ import annotations

import regex

GPT2 = regex.compile(r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+")
LLAMA3 = regex.compile(r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                       r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def gpt2_split(text: str) -> list[str]:
    """The pieces GPT-2's pre-tokenizer cuts ``text`` into.

    >>> gpt2_split("We'LL pay 12345")
    ['We', "'", 'LL', ' pay', ' 12345']
    """
    return GPT2.findall(text)


def llama3_split(text: str) -> list[str]:
    """The pieces Llama 3's pre-tokenizer cuts ``text`` into.

    >>> llama3_split("We'LL pay 12345")
    ['We', "'LL", ' pay', ' ', '123', '45']
    """
    return LLAMA3.findall(text)
