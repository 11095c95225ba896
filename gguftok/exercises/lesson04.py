"""Lesson 04 · pre-tokenizers: GPT-2's and Llama 3's regexes with the ``regex`` module."""

from __future__ import annotations

from functools import partial

from ..viz.pretokenize_view import LESSON_LINE, pieces
from ._core import Case, Exercise
from ._data import random_text, rng

_CODE = "for (int i = 0; i < n; i++) {\n    sum += a[i];\n}"
_ALPHABET = "abcXYZ0129 '' \n\n\t.,;!?()=+-_éüß世界😀ñ\r\u00a0\u3000٣\u0301Ⅻ\x0b"
_EXAMPLES = [LESSON_LINE, _CODE, "Hello world, it's 2026!", "I'M here  \n\n  x", "", "   ", "Ünïcödé: 世界 😀 привет"]


def _generated(seed: int) -> list[Case]:
    r = rng(seed)
    return [Case((random_text(r, _ALPHABET, 0, 30),)) for _ in range(250)]


def _exercise(pre: str, name: str, title: str, seed: int, what: str, doc: str) -> Exercise:
    return Exercise(
        id=f"04.{name}",
        title=title,
        statement=what,
        template=doc,
        reference=partial(pieces, pre),
        reference_name=f"gguftok's pre-tokenizer for pre = {pre!r}",
        examples=lambda: [Case((t,)) for t in _EXAMPLES],
        generated=lambda: _generated(seed),
    )


gpt2_split = _exercise("gpt-2", "gpt2_split", "GPT-2's pre-tokenizer", 401, (
    "Write `gpt2_split(text)` that cuts `text` into the pieces GPT-2's pre-tokenizer makes, as plain text\n"
    "(not in the `Ġ` alphabet). Use the third-party `regex` module (`import regex`), which knows `\\p{L}`\n"
    "(any letter) and `\\p{N}` (any number), and `regex.findall` with GPT-2's pattern, written out in\n"
    "notebook 04's rows: the contractions `'s|'t|'re|'ve|'m|'ll|'d`, then ` ?\\p{L}+`, ` ?\\p{N}+`,\n"
    "` ?[^\\s\\p{L}\\p{N}]+`, `\\s+(?!\\S)` and `\\s+`, as alternatives in that order.\n\n"
    "The check uses the lesson's line (12 pieces), the C loop, and 250 random texts with letters, digits,\n"
    "contractions, Chinese, emoji, combining marks and unusual spaces, against gguftok's pre-tokenizer for\n"
    "`tokenizer.ggml.pre = \"gpt-2\"` (llama.cpp's hand-written loop, not a regex engine)."),
    '''def gpt2_split(text: str) -> list[str]:
    """The pieces GPT-2's pre-tokenizer cuts ``text`` into.

    >>> gpt2_split("We'LL pay 12345")
    ['We', "'", 'LL', ' pay', ' 12345']
    """
    raise NotImplementedError''')

llama3_split = _exercise("llama-bpe", "llama3_split", "Llama 3's pre-tokenizer", 402, (
    "Now Llama 3 (`tokenizer.ggml.pre = \"llama-bpe\"`). Its pattern differs from GPT-2's in five places:\n"
    "the contractions match in any case (`(?i:'s|'t|'re|'ve|'m|'ll|'d)`), a letter run may take one\n"
    "non-letter, non-digit, non-newline character in front (`[^\\r\\n\\p{L}\\p{N}]?\\p{L}+`), numbers go in\n"
    "runs of at most three digits (`\\p{N}{1,3}`), punctuation takes the newlines after it\n"
    "(` ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*`), and runs of whitespace ending in newlines stand alone\n"
    "(`\\s*[\\r\\n]+`) before the two whitespace rules of GPT-2. Write `llama3_split(text)`.\n\n"
    "The check uses the lesson's line (14 pieces), the C loop and 250 random texts, against gguftok's\n"
    "pre-tokenizer for `llama-bpe`."),
    '''def llama3_split(text: str) -> list[str]:
    """The pieces Llama 3's pre-tokenizer cuts ``text`` into.

    >>> llama3_split("We'LL pay 12345")
    ['We', "'LL", ' pay', ' ', '123', '45']
    """
    raise NotImplementedError''')

EXERCISES = [gpt2_split, llama3_split]
