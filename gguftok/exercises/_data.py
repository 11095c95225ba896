"""Inputs shared by the exercises: the lesson's vocabularies (loaded once) and seeded random text."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

from ..data import vocab_dir

SYNTHETIC = Path(__file__).resolve().parent.parent.parent / "data" / "synthetic"


@cache
def tokenizer(name: str):
    """A reference vocabulary by short name (``qwen2``), or ``None`` when it has not been fetched; a name
    ending in ``.gguf`` is a file of ``data/synthetic``."""
    from ..tokenizer import Tokenizer

    path = SYNTHETIC / name if name.endswith(".gguf") else vocab_dir() / f"ggml-vocab-{name}.gguf"
    return Tokenizer.from_gguf(path) if path.exists() else None


def vocab_file(name: str) -> Path | None:
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    return path if path.exists() else None


def rng(seed: int) -> random.Random:
    """Every generated case comes from a fixed seed, so a check sees the same cases each time."""
    return random.Random(seed)


def random_text(r: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(r.randint(low, high)))
