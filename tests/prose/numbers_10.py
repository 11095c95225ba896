"""Numbers of notebook 10's prose that no cell prints: the sizes of the exercise checks, counted from the checks,
and Qwen2's tokens that do not merge back into themselves, counted by merging each."""

from __future__ import annotations

from typing import ClassVar

from gguftok.exercises import lesson10


class _CallCounter:
    """A cache that answers nothing and counts its calls: ``key_work`` run on it shows how many it makes."""

    calls: ClassVar[list[str]] = []

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity

    def get(self, key):
        _CallCounter.calls.append("get")

    def put(self, key, value):
        _CallCounter.calls.append("put")


def _key_work_calls() -> tuple[int, int]:
    """(the puts that fill the cache, the gets and puts measured after them) of the cost check."""
    _CallCounter.calls = []
    lesson10.key_work(_CallCounter)
    calls = _CallCounter.calls
    fill = next(k for k, c in enumerate(calls) if c == "get")  # the measured part starts with gets and puts mixed
    return fill, len(calls) - fill


def _random_scripts() -> int:
    """The generated scripts of 10.LRUCache made of random words ``w0``..``w8`` (not Qwen2's lookups)."""
    return sum(all(str(op[1]).startswith("w") for op in case.args[1]) for case in lesson10._cache_generated())


def _random_word_lists() -> int:
    """The generated word lists of 10.encode_words made of the letters a to h (not Qwen2's words)."""
    return sum(all(set(w) <= set("abcdefgh") for w in case.args[0]) for case in lesson10._words_generated())


def _qwen2(what: str) -> int:
    """Qwen2's vocabulary size, or how many of its tokens do not merge back into themselves (merged_apart)."""
    from gguftok import Tokenizer
    from gguftok.data import vocab_dir

    tok = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf", tables=False)
    return tok.n_vocab if what == "size" else len(tok.model.merged_apart())


COMPUTED = {
    "150": _random_scripts,
    "512": lambda: _key_work_calls()[0],
    "1,500": lambda: _key_work_calls()[1],
    "120": _random_word_lists,
    "293": lambda: _qwen2("apart"),
    "151,936": lambda: _qwen2("size"),
}
