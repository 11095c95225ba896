"""The benchmark texts: made on this machine without a network, the same bytes on every run.

- **English prose**: the Python Language Reference's topics as plain text, which CPython ships for ``help()``
  (``pydoc_data.topics``: about 465 KB; the exact text follows the Python version, printed by the benches).
- **C++ source**: llama.cpp's own ``src/*.cpp`` and ``src/*.h`` from the pinned llama-cpp-python sdist in the
  vocabulary cache (``make vocab`` put it there), in name order, about 2 MB; cut to ``size``.
- **multilingual**: the fuzzer's seeded generator (:meth:`gguftok.conformance.generate.Generators.long_text`):
  many scripts, emoji, digits, code and whitespace, mixed.
- **chat prompts**: short ChatML prompts (a system line, a user question), about 30 tokens each.
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
