"""Lesson 10 · the word cache: an LRU cache class whose every operation is a dictionary step, then the encode
loop that puts it in front of an encoder.

Both are checked against :class:`ModelLRU`, an independent least-recently-used cache written here with an
``OrderedDict`` (the same policy as ``BPEModel.word_ids``'s cache, which ``gguftok.viz.cache_view.simulate_lru``
replays). ``LRUCache``'s check also counts the work: keys that count their own ``==`` and ``hash()`` calls show
a list searched from the start at hundreds of comparisons per lookup, a dictionary at a handful.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..viz.cache_view import LESSON_LINE
from ._core import Case, Exercise, Property
from ._data import rng, tokenizer

_CAPACITIES = (0, 1, 1, 2, 2, 3, 4, 8)
RANDOM_SCRIPTS, RANDOM_WORD_LISTS = 150, 120  # generated cases of each check


class ModelLRU:
    """The reference cache: an ``OrderedDict``, least recently used first. ``get`` counts a hit (and moves the
    key to the end) or a miss; ``put`` stores at the end and drops the first entry past ``capacity``.

    >>> m = ModelLRU(2)
    >>> m.put("a", [1]); m.put("b", [2]); m.get("a"); m.put("c", [3])
    [1]
    >>> m.keys(), m.hits, m.misses
    (['a', 'c'], 1, 0)
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.entries: OrderedDict[Any, Any] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key):
        if key in self.entries:
            self.hits += 1
            self.entries.move_to_end(key)
            return self.entries[key]
        self.misses += 1
        return None

    def put(self, key, value) -> None:
        self.entries[key] = value
        self.entries.move_to_end(key)
        if len(self.entries) > self.capacity:
            self.entries.popitem(last=False)

    def keys(self) -> list:
        return list(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


# ------------------------------------------------------------------------------------------------ LRUCache
def _op_text(op: tuple) -> str:
    return f"{op[0]}({', '.join(repr(a) for a in op[1:])})"


def _drive(cls, capacity: int, ops: list[tuple]) -> list[tuple]:
    """Build ``cls(capacity)``, run the operations, and record after each one: the call, what it returned, then
    ``hits``, ``misses``, ``len`` and ``keys()``."""
    cache = cls(capacity)
    record = []
    for op in ops:
        returned = getattr(cache, op[0])(*op[1:])
        record.append((_op_text(op), returned, cache.hits, cache.misses, len(cache), list(cache.keys())))
    return record


def _ref_cache(capacity: int, ops: list[tuple]) -> list[tuple]:
    return _drive(ModelLRU, capacity, ops)


def _call_cache(cls, capacity: int, ops: list[tuple]) -> list[tuple]:
    return _drive(cls, capacity, ops)


def _cache_case(capacity: int, ops: list[tuple]) -> Case:
    script = "; ".join([f"c = LRUCache({capacity})", *(f"c.{_op_text(op)}" for op in ops)])
    if len(script) > 200:
        words = len({op[1] for op in ops})
        script = (f"c = LRUCache({capacity}), then {len(ops)} gets and puts of {words} words: "
                  f"c.{_op_text(ops[0])}; c.{_op_text(ops[1])}; ...")
    return Case((capacity, ops), script)


def _lookups(words: list[str], ids: dict[str, list[int]], capacity: int) -> list[tuple]:
    """The calls of a tokenizer's loop with a cache of ``capacity``: get each word; on a miss, put its ids."""
    ops, model = [], ModelLRU(capacity)
    for w in words:
        ops.append(("get", w))
        if model.get(w) is None:
            ops.append(("put", w, ids[w]))
            model.put(w, ids[w])
    return ops


def _cache_examples() -> list[Case]:
    return [_cache_case(2, [("put", "the", [1]), ("put", "cat", [2]), ("get", "the"), ("get", "dog"),
                            ("put", "sat", [3]), ("get", "cat"), ("get", "the")]),
            _cache_case(0, [("put", "a", [1]), ("get", "a")]),
            _cache_case(1, [("put", "a", [1]), ("put", "b", [2]), ("get", "a"), ("get", "b")]),
            _cache_case(2, [("put", "a", [1]), ("put", "b", [2]), ("put", "a", [3]), ("put", "c", [4]),
                            ("get", "a"), ("get", "b")])]


def _cache_generated() -> list[Case]:
    r = rng(1001)
    cases = []
    for _ in range(RANDOM_SCRIPTS):
        pool = [f"w{k}" for k in range(r.randint(1, 9))]
        ops: list[tuple] = []
        for _ in range(r.randint(0, 30)):
            word = r.choice(pool)
            if r.random() < 0.55:
                ops.append(("get", word))
            else:
                ops.append(("put", word, [r.randrange(100) for _ in range(r.randint(1, 3))]))
        cases.append(_cache_case(r.choice(_CAPACITIES), ops))
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:  # a tokenizer's own calls: Qwen2's words as written, and their ids
        spelled = [w for w in qwen2.words("the cat sat on the mat, and the cat slept. " * 2 + LESSON_LINE * 2)
                   if isinstance(w, str)]
        ids = {qwen2.model.unspell(w): qwen2.model.word_ids(w) for w in spelled}
        words = [qwen2.model.unspell(w) for w in spelled]
        for capacity in (1, 4, 16):
            cases.append(_cache_case(capacity, _lookups(words, ids, capacity)))
    return cases


class _CountingKey:
    """A key that counts every ``==`` and ``hash()`` done on it, in a tally shared by all keys of one run."""

    __slots__ = ("tally", "text")

    def __init__(self, text: str, tally: list[int]) -> None:
        self.text, self.tally = text, tally

    def __hash__(self) -> int:
        self.tally[0] += 1
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        self.tally[0] += 1
        return isinstance(other, _CountingKey) and self.text == other.text

    def __repr__(self) -> str:
        return repr(self.text)


COST_CAPACITY, COST_OPERATIONS, COST_LIMIT = 512, 1500, 20


def key_work(cls, capacity: int = COST_CAPACITY, operations: int = COST_OPERATIONS) -> float:
    """Key comparisons and hashes per operation: fill ``cls(capacity)``, then ``operations`` seeded gets (of
    words still in the cache or long gone) and puts of new words, every key a new object."""
    r = rng(1003)
    tally = [0]
    cache = cls(capacity)
    for k in range(capacity):
        cache.put(_CountingKey(f"w{k}", tally), [k])
    tally[0] = 0
    new = capacity
    for _ in range(operations):
        if r.random() < 0.7:
            cache.get(_CountingKey(f"w{r.randrange(new)}", tally))
        else:
            cache.put(_CountingKey(f"w{new}", tally), [new])
            new += 1
    return tally[0] / operations


def _cost(cls) -> str | None:
    try:
        per_op = key_work(cls)
    except Exception as e:
        return f"running it raised {type(e).__name__}: {e}"
    if per_op <= COST_LIMIT:
        return None
    return (f"{per_op:,.0f} key comparisons and hashes per operation on average: each call compares the key "
            f"with many entries, as a list searched from the start does (a dictionary needs about 4)")


lru_cache = Exercise(
    id="10.LRUCache",
    title="a least-recently-used cache",
    statement=(
        "Write the class `LRUCache`: `LRUCache(capacity)` starts empty with `hits` and `misses` at 0;\n"
        "`get(key)` returns the stored value and makes the entry the most recently used (a hit), or returns\n"
        "`None` (a miss); `put(key, value)` stores the value as the most recently used entry, replacing an\n"
        "older value of the same key, and then, if the cache holds more than `capacity` entries, drops the\n"
        "least recently used one; `keys()` lists the keys least recently used first; `len(cache)` counts\n"
        "the entries. Capacity 0 stores nothing.\n\n"
        f"The check replays {len(_cache_examples())} short scripts, {RANDOM_SCRIPTS} random ones and Qwen2's own "
        "lookups for two\n"
        "sentences through your class and an independent `OrderedDict` cache, comparing after every call\n"
        "what it returned, `hits`, `misses`, `len` and `keys()` (`case_args(\"10.LRUCache\", n)` gives the\n"
        f"calls of case `n`). Then it fills a cache with {COST_CAPACITY} words and makes {COST_OPERATIONS:,} "
        "gets and puts with keys\n"
        f"that count each `==` and `hash()` done on them: more than {COST_LIMIT} per call on average means "
        "the entries\n"
        "are being searched one by one."),
    template="",
    reference=_ref_cache,
    reference_name="an OrderedDict LRU (gguftok.exercises.lesson10.ModelLRU)",
    examples=_cache_examples,
    generated=_cache_generated,
    call=_call_cache,
    module="cache",
    properties=lambda: [Property(f"with {COST_CAPACITY} words cached, {COST_OPERATIONS:,} gets and puts cost "
                                 f"more than {COST_LIMIT} key comparisons and hashes each", _cost)],
)


# -------------------------------------------------------------------------------------------- encode_words
def _toy_encode(word: str) -> list[int]:
    """The encoder the check hands over: one id per character, its code point."""
    return [ord(c) for c in word]


def _ref_encode_words(words: list[str], capacity: int) -> tuple:
    cache, encoded, ids = ModelLRU(capacity), [], []
    for w in words:
        got = cache.get(w)
        if got is None:
            encoded.append(w)
            got = _toy_encode(w)
            cache.put(w, got)
        ids += got
    return ids, encoded, cache.hits, cache.misses, cache.keys()


def _call_encode_words(fn, words: list[str], capacity: int) -> tuple:
    encoded: list[str] = []

    def encode(word: str) -> list[int]:
        encoded.append(word)
        return _toy_encode(word)

    cache = ModelLRU(capacity)
    ids = fn(words, encode, cache)
    return (list(ids) if isinstance(ids, list | tuple) else ids), encoded, cache.hits, cache.misses, cache.keys()


def _words_case(words: list[str], capacity: int) -> Case:
    call = f"encode_words({words!r}, encode, LRUCache({capacity}))"
    if len(call) > 200:
        call = f"encode_words(<{len(words)} words: {' '.join(words[:6])} ...>, encode, LRUCache({capacity}))"
    return Case((words, capacity), call)


def _words_examples() -> list[Case]:
    return [_words_case(["to", "be", "or", "not", "to", "be"], 8), _words_case(["to", "be", "to"], 1),
            _words_case(["a", "a"], 0)]


def _words_generated() -> list[Case]:
    r = rng(1002)
    cases = []
    for _ in range(RANDOM_WORD_LISTS):
        pool = "abcdefgh"[: r.randint(1, 8)]
        words = [r.choice(pool) * r.randint(1, 2) for _ in range(r.randint(0, 25))]
        cases.append(_words_case(words, r.choice(_CAPACITIES)))
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        words = [qwen2.model.unspell(w) for w in qwen2.words(LESSON_LINE * 3) if isinstance(w, str)]
        for capacity in (2, 4, 16):
            cases.append(_words_case(words, capacity))
    return cases


encode_words = Exercise(
    id="10.encode_words",
    title="the cache in front of an encoder",
    statement=(
        "Write `encode_words(words, encode, cache)`: the ids of all the words, one word after the other. Look\n"
        "each word up once with `cache.get`; on a miss, call `encode(word)` for its ids and `cache.put` them,\n"
        "so that `encode` runs only when the cache does not have the word.\n\n"
        "The check hands your function an `encode` that records the words it is called with (its ids are the\n"
        "characters' code points) and a cache of its own (not your class, so this check does not depend on\n"
        "the one above), and compares `(ids, words encoded, hits, misses, keys at the end)`: a first\n"
        "difference at index 1 is about the words your function encoded. Cases: "
        f"{len(_words_examples())} small ones, {RANDOM_WORD_LISTS}\n"
        "random word lists and Qwen2's words for three copies of the line of code in this notebook."),
    template="",
    reference=_ref_encode_words,
    reference_name="the get, encode on a miss, put loop on an OrderedDict LRU",
    examples=_words_examples,
    generated=_words_generated,
    call=_call_encode_words,
    module="cache",
)

EXERCISES = [lru_cache, encode_words]
