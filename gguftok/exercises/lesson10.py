"""Lesson 10 · the word cache: replay an LRU, then wrap an encoder with one."""

from __future__ import annotations

from ..models.bpe import merge_word
from ..viz.cache_view import LESSON_LINE, simulate_lru
from ._core import Case, Exercise
from ._data import rng, tokenizer
from .lesson05 import TOY

_SIZES = (None, 0, 1, 2, 3, 4, 8)


def _words_cases(seed: int, make) -> list[Case]:
    r = rng(seed)
    cases = []
    for _ in range(150):
        words = [r.choice("abcdefgh"[: r.randint(2, 8)]) for _ in range(r.randint(0, 25))]
        cases.append(make(words, r.choice(_SIZES)))
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        words = [w for w in qwen2.words("the cat sat on the mat, and the cat slept. " * 3 + LESSON_LINE * 4)
                 if isinstance(w, str)]
        for size in (2, 4, 16):
            cases.append(make(words, size))
    return cases


# ------------------------------------------------------------------------------------------- lru_replay
def _ref_replay(words: list[str], size: int | None) -> tuple[int, int, list[str]]:
    run = simulate_lru(words, size)
    return run.hits, run.misses, list(run.cache)


lru_replay = Exercise(
    id="10.lru_replay",
    title="replay a least-recently-used cache",
    statement=(
        "Write `lru_replay(words, size)` that replays word lookups through an LRU cache of at most `size` words\n"
        "and returns `(hits, misses, cached)`, `cached` being the words left in the cache, least recently used\n"
        "first. A hit moves the word to the recent end; a miss adds it there and, when the cache then holds more\n"
        "than `size` words, drops the least recently used one. `size=0` caches nothing; `size=None` never\n"
        "drops anything. (`collections.OrderedDict` has `move_to_end` and `popitem(last=False)`.)\n\n"
        "The check uses the notebook's sentence with a cache of 4, 150 random word sequences with sizes None, 0\n"
        "to 8, and Qwen2's words for two sentences, against `gguftok.viz.cache_view.simulate_lru`, which replays\n"
        "`BPEModel.word_ids`'s own policy."),
    template='''def lru_replay(words: list[str], size: int | None) -> tuple[int, int, list[str]]:
    """``(hits, misses, cached words oldest first)`` after looking ``words`` up in an LRU cache of ``size``.

    >>> lru_replay(["a", "b", "a", "c", "b"], 2)
    (1, 4, ['c', 'b'])
    """
    raise NotImplementedError''',
    reference=_ref_replay,
    reference_name="gguftok.viz.cache_view.simulate_lru",
    examples=lambda: [Case((["Ċ", "the", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat", ",", "Ġand", "Ġthe", "Ġcat", "Ġslept"],
                            4)), Case((["a", "b", "a", "c", "b"], 2)), Case((["a", "a"], 0)), Case((["a", "b"], None))],
    generated=lambda: _words_cases(1001, lambda words, size: Case((words, size))),
)


# ----------------------------------------------------------------------------------------------- cached
def _toy_encode(word: str) -> list[int]:
    """The encoder the check wraps: notebook 05's toy merges, each symbol's characters summed as an id."""
    return [sum(map(ord, s)) for s in merge_word(word, TOY)]


def _ref_cached(words: list[str], size: int | None) -> list[tuple[list[int], str]]:
    out = []
    for k, w in enumerate(words):
        before = simulate_lru(words[:k], size)
        out.append((_toy_encode(w), "hit" if simulate_lru(words[: k + 1], size).hits > before.hits else "miss"))
    return out


def _call_cached(fn, words: list[str], size: int | None) -> list[tuple[list[int], str]]:
    calls = []

    def encode(word: str) -> list[int]:
        calls.append(word)
        return _toy_encode(word)

    wrapped = fn(encode, size)
    out = []
    for w in words:
        n = len(calls)
        ids = wrapped(w)
        out.append((list(ids) if isinstance(ids, list | tuple) else ids, "miss" if len(calls) > n else "hit"))
    return out


def _cached_case(words: list[str], size: int | None) -> Case:
    return Case((words, size), f"cached(encode, {size}) called on {words!r}")


cached = Exercise(
    id="10.cached",
    title="a word cache around an encoder",
    statement=(
        "Now the cache itself. Write `cached(encode, size)` that returns a new function: called with a word, it\n"
        "returns `encode(word)`, but it calls `encode` only on a miss and remembers at most `size` words, least\n"
        "recently used out first (`size=0`: remember nothing, `size=None`: no limit), like `BPEModel.word_ids`.\n\n"
        "The check wraps a small encoder that counts its calls and, for each word, records the ids returned\n"
        "and whether `encode` was called (a miss) or not (a hit). It uses the same word sequences as the\n"
        "exercise above; the expected hits and misses come from `gguftok.viz.cache_view.simulate_lru`."),
    template='''from collections.abc import Callable  # noqa: E402


def cached(encode: Callable[[str], list[int]], size: int | None) -> Callable[[str], list[int]]:
    """``encode`` with an LRU cache of at most ``size`` words (None: unbounded, 0: none).

    >>> fast = cached(lambda w: [len(w)], 2)
    >>> fast("hello"), fast("hello")
    ([5], [5])
    """
    raise NotImplementedError''',
    reference=_ref_cached,
    reference_name="gguftok.viz.cache_view.simulate_lru",
    examples=lambda: [_cached_case(["low", "lower", "low", "newer", "lower"], 2), _cached_case(["a", "a"], 0),
                      _cached_case(["a", "b", "a"], None)],
    generated=lambda: _words_cases(1002, _cached_case),
    call=_call_cached,
)

EXERCISES = [lru_replay, cached]
