"""The benchmark texts: made on this machine without a network, the same bytes on every run.

- **English prose**: the Python Language Reference's topics as plain text, which CPython ships for ``help()``
  (``pydoc_data.topics``: about 465 KB; the exact text follows the Python version, printed by the benches).
- **C++ source**: llama.cpp's own ``src/*.cpp`` and ``src/*.h`` from the pinned llama-cpp-python sdist in the
  vocabulary cache (``make vocab`` put it there), in name order, about 2 MB; cut to ``size``.
- **multilingual**: the fuzzer's seeded generator (:meth:`gguftok.conformance.generate.Generators.long_text`):
  many scripts, emoji, digits, code and whitespace, mixed.
- **chat prompts**: short ChatML prompts (a system line, a user question), about 30 tokens each.
- **sized texts** (:func:`sized`): each of the three cut to 1 KB, 10 KB, 100 KB (the start of it), and whole;
  **prompt streams** (:func:`prompts`): each cut into consecutive distinct 1 KB prompts, as an application sends
  them one after another.
"""

from __future__ import annotations

import random
import tarfile
from functools import cache

from gguftok.conformance.generate import Generators
from gguftok.data import sdist_path

KINDS = ("english", "code", "multilingual")


@cache
def english() -> str:
    from pydoc_data.topics import topics

    return "\n\n".join(topics[name] for name in sorted(topics))


@cache
def code(size: int = 1_000_000) -> str:
    out, n = [], 0
    with tarfile.open(sdist_path()) as tar:
        members = sorted((m for m in tar.getmembers() if "/vendor/llama.cpp/src/" in m.name
                          and m.name.endswith((".cpp", ".h")) and m.isfile()), key=lambda m: m.name)
        for m in members:
            out.append(tar.extractfile(m).read().decode("utf-8", "replace"))
            n += len(out[-1])
            if n >= size:
                break
    return "".join(out)[:size]


@cache
def multilingual(size: int = 1_000_000, seed: int = 7) -> str:
    return Generators([], []).long_text(random.Random(seed), size)


def text(kind: str) -> str:
    return {"english": english, "code": code, "multilingual": multilingual}[kind]()


def _cut(data: bytes, n: int) -> tuple[str, int]:
    """The longest start of ``data`` (UTF-8, surrogates passed) of at most ``n`` bytes that ends on a character
    boundary, and its length in bytes."""
    n = min(n, len(data))
    while 0 < n < len(data) and data[n] & 0xC0 == 0x80:  # a continuation byte: back to the character's start
        n -= 1
    return data[:n].decode("utf-8", "surrogatepass"), n


@cache
def sized(kind: str, size: int) -> str:
    """The start of ``text(kind)``, at most ``size`` bytes, cut between two characters."""
    return _cut(text(kind).encode("utf-8", "surrogatepass"), size)[0]


@cache
def prompts(kind: str, size: int = 1_000, count: int = 100) -> tuple[str, ...]:
    """``count`` distinct prompts of about ``size`` bytes each: ``text(kind)`` from its start, cut into
    consecutive pieces between two characters (none lost, none repeated)."""
    data, out, at = text(kind).encode("utf-8", "surrogatepass"), [], 0
    while len(out) < count and at < len(data):
        piece, n = _cut(data[at:], size)
        out.append(piece)
        at += n
    return tuple(out)


USER_QUESTIONS = [
    "What is the capital of France, and why is it famous?",
    "Write a haiku about tokenizers.",
    "How do I reverse a list in Python without copying it?",
    "Explain byte pair encoding in two sentences.",
    "¿Cuál es la diferencia entre una lista y una tupla?",
    "Summarise the plot of Hamlet in one line.",
    "日本語で自己紹介してください。",
    "Convert 72 degrees Fahrenheit to Celsius.",
]


def chat_prompts() -> list[str]:
    """ChatML prompts as an application sends them (``parse_special=True``), about 30 tokens each."""
    return [f"<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n{q}<|im_end|>\n"
            "<|im_start|>assistant\n" for q in USER_QUESTIONS]
