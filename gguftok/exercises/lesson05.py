"""Lesson 05 · the merge queue, written in the student's ``mytok/merge_queue.py``: which pair merges next, a
whole word with a heap and stale-entry skips (its cost measured, not only its answers), and the word's ids."""

from __future__ import annotations

from functools import cache
from itertools import pairwise

from ..models.bpe import BPEModel, merge_ranks
from ..models.bpe import merge_word as _merge_word
from ..viz.queue_view import random_word
from ._core import Case, Exercise, Property, agree
from ._data import random_text, rng, tokenizer

TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
# the toy vocabulary of word_ids' examples: every letter and most of what TOY's merges make, but not "ne"
TOY_IDS = {s: i for i, s in enumerate(["e", "l", "n", "o", "r", "s", "t", "w", "er", "lo", "low", "lower", "es",
                                       "est", "lowest", "wer"])}
# a byte-level toy: " café" is "ĠcafÃ©"; its merges make "Ã©", which is not a token
CAFE = merge_ranks(["c a", "ca f", "Ġ caf", "Ã ©"])
CAFE_IDS = {s: i for i, s in enumerate(["Ġ", "a", "c", "f", "Ã", "©", "ca", "caf", "Ġcaf"])}
SENTENCE = ("The tokenizer of a GGUF model lives in its metadata; tokenization, Insecta and Arthropoda, "
            "Schwarzschild on Kilimanjaro, naïve café 世界 😀 indentation    return value; Привет, мир! "
            "Ελληνικά 1234567 don't")


def _random_ranks(r, alphabet: str, n: int) -> dict[str, int]:
    """A merge table whose sides are letters or earlier merges' results, as training makes them."""
    symbols = list(alphabet)
    lines = []
    for _ in range(n):
        left, right = r.choice(symbols), r.choice(symbols)
        lines.append(f"{left} {right}")
        symbols.append(left + right)
    return merge_ranks(lines)


def _words(name: str) -> list[str]:
    """The spelled words of ``SENTENCE`` in vocabulary ``name`` (none when it has not been fetched)."""
    tok = tokenizer(name)
    if tok is None:
        return []
    return list(dict.fromkeys(w for w in tok.words(SENTENCE) if isinstance(w, str)))


def _qwen2_words() -> list[str]:
    return _words("qwen2")


# ------------------------------------------------------------------------------------------ lowest_pair
def _ref_lowest(symbols: list[str], ranks: dict[str, int]) -> int | None:
    """Independent of gguftok's queue: scan every pair, keep the smallest (rank, position)."""
    found = [(ranks[f"{a} {b}"], k) for k, (a, b) in enumerate(pairwise(symbols)) if f"{a} {b}" in ranks]
    return min(found)[1] if found else None


def _lowest_examples() -> list[Case]:
    ranks = f"ranks=TOY (notebook 05's nine merges: {list(TOY)})"
    return [Case((list(w), TOY), f"lowest_pair({list(w)!r}, {ranks})") for w in ("lower", "lowest", "newer")] + [
        Case((s, TOY), f"lowest_pair({s!r}, TOY)") for s in (["lo", "w", "er"], ["low", "er"], ["lower"], [],
                                                             ["w", "er", "n", "e"])]


def _lowest_generated() -> list[Case]:
    r = rng(501)
    cases = []
    for _ in range(200):
        ranks = _random_ranks(r, "abc", r.randint(1, 10))
        symbols = [random_text(r, "abc", 1, 2) for _ in range(r.randint(0, 8))]
        cases.append(Case((symbols, ranks)))
    return cases


lowest_pair = Exercise(
    id="05.lowest_pair",
    title="which pair merges next",
    statement=(
        "One step of BPE: among the pairs of neighbouring symbols that have a rank, the one with the **lowest\n"
        "rank** merges next, and on equal ranks (the same pair twice, `a a a`) the **leftmost**. Write\n"
        "`lowest_pair(symbols, ranks)`: the position `k` of that pair (it joins `symbols[k]` and\n"
        "`symbols[k + 1]`), or `None` when no pair has a rank. `ranks` maps `\"left right\"` to its rank, as\n"
        "`merge_ranks` makes it. The check uses `TOY` and random symbol lists with random tables, against a\n"
        "plain scan over all pairs (`gguftok.exercises.lesson05`)."),
    template="",
    module="merge_queue",
    reference=_ref_lowest,
    reference_name="a scan over every pair (gguftok.exercises.lesson05)",
    examples=_lowest_examples,
    generated=_lowest_generated,
)


# ------------------------------------------------------------------------------------------- merge_word
def _merge_examples() -> list[Case]:
    return [Case((w, TOY), f"merge_word({w!r}, TOY)") for w in ("lower", "lowest", "newer", "", "x", "eeeer")]


def _merge_generated() -> list[Case]:
    r = rng(502)
    cases = []
    for _ in range(200):
        ranks = _random_ranks(r, "abc", r.randint(1, 14))
        cases.append(Case((random_text(r, "abc", 0, 16), ranks)))
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        ranks = qwen2.model.ranks
        cases += [Case((w, ranks), f"merge_word({w!r}, <Qwen2's {len(ranks):,} ranks>)", copy=False)
                  for w in _qwen2_words()]
        cases.append(Case(("a" * 300, ranks), "merge_word('a' * 300, <Qwen2's ranks>)", copy=False))
    return cases


# The cost: how many times merge_word looks a pair up in ``ranks`` or compares two ranks. The property passes a
# table whose lookups and ranks count themselves, on words of SHORT and 4 * SHORT characters.
SHORT, GROWTH = 500, 6


class _OverBudget(BaseException):  # not an Exception: a student's ``except Exception`` cannot swallow it
    pass


class _Work:
    count = 0
    budget = 1 << 62

    @classmethod
    def add(cls, n: int = 1) -> None:
        cls.count += n
        if cls.count > cls.budget:
            raise _OverBudget


class _Rank(int):
    """A rank that counts its comparisons (a heap compares ranks, and so does a scan for the lowest)."""

    __slots__ = ()
    __hash__ = int.__hash__

    def __lt__(self, other):
        _Work.add()
        return int.__lt__(self, other)

    def __le__(self, other):
        _Work.add()
        return int.__le__(self, other)

    def __gt__(self, other):
        _Work.add()
        return int.__gt__(self, other)

    def __ge__(self, other):
        _Work.add()
        return int.__ge__(self, other)

    def __eq__(self, other):
        _Work.add()
        return int.__eq__(self, other)

    def __ne__(self, other):
        _Work.add()
        return int.__ne__(self, other)


class _CountingRanks(dict):
    """A rank table that counts its lookups; going through all of it (a copy, say) counts one per entry."""

    def __getitem__(self, key):
        _Work.add()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        _Work.add()
        return dict.get(self, key, default)

    def __contains__(self, key):
        _Work.add()
        return dict.__contains__(self, key)

    def __iter__(self):
        _Work.add(len(self))
        return dict.__iter__(self)

    def keys(self):
        _Work.add(len(self))
        return dict.keys(self)

    def values(self):
        _Work.add(len(self))
        return dict.values(self)

    def items(self):
        _Work.add(len(self))
        return dict.items(self)

    def copy(self):
        _Work.add(len(self))
        return dict.copy(self)


def _counting(ranks: dict[str, int]) -> _CountingRanks:
    return _CountingRanks((k, _Rank(v)) for k, v in ranks.items())


@cache
def _cost_tables() -> tuple[tuple[str, _CountingRanks, str], ...]:
    """(name, counting table, alphabet of its long words; "" for runs of 'a'), built once."""
    doubling = merge_ranks(["a a"] + [f"{'a' * 2 ** k} {'a' * 2 ** k}" for k in range(1, 12)])
    tables = [("a table of 12 merges doubling runs of 'a'", _counting(doubling), ""),
              ("a random table of 300 merges over 'ab'", _counting(_random_ranks(rng(505), "ab", 300)), "ab")]
    qwen2 = tokenizer("qwen2")
    if qwen2 is not None:
        counted = _counting(qwen2.model.ranks)
        tables[:0] = [("Qwen2's ranks", counted, ""), ("Qwen2's ranks", counted, "abcdefghijklmnopqrstuvwxyz")]
    return tuple(tables)


def _long_word(alphabet: str, n: int) -> tuple[str, str]:
    """The word and how a report names it."""
    if not alphabet:
        return "a" * n, f"'a' * {n}"
    if len(alphabet) == 26:
        return random_word(n), f"{n} random letters"
    r = rng(506 + n)
    return "".join(r.choice(alphabet) for _ in range(n)), f"{n} random letters {' and '.join(alphabet)}"


def _work(fn, word: str, ranks: _CountingRanks, budget: int) -> tuple[int | None, object]:
    """(lookups and comparisons, answer), or (None, None) past ``budget``."""
    _Work.count, _Work.budget = 0, budget
    try:
        answer = fn(word, ranks)
    except _OverBudget:
        return None, None
    finally:
        _Work.budget = 1 << 62
    return _Work.count, answer


def _grows_close_to_linearly(fn) -> str | None:
    for table, ranks, alphabet in _cost_tables():
        counts = []
        for n in (SHORT, 4 * SHORT):
            word, name = _long_word(alphabet, n)
            call = f"merge_word({name}, <{table}>)"
            try:
                count, answer = _work(fn, word, ranks, GROWTH * counts[0] if counts else 1 << 62)
            except Exception as e:  # the student's own error, on a word the cases do not have
                return f"{call} raised {type(e).__name__}: {e}"
            if count is None:
                short_name = _long_word(alphabet, SHORT)[1]
                return (f"{call} took more than {GROWTH * counts[0]:,} lookups and comparisons of ranks, over "
                        f"{GROWTH} times the {counts[0]:,} of {short_name}: the work grows faster than the word")
            if not agree(_merge_word(word, ranks), answer):
                return f"{call} gives other symbols than gguftok.models.bpe.merge_word"
            counts.append(max(count, 1))
    return None


def _merge_properties() -> list[Property]:
    return [Property(f"a word 4 times as long may take at most {GROWTH} times the work (lookups of pairs in "
                     "ranks and comparisons of ranks)", _grows_close_to_linearly)]


merge_word = Exercise(
    id="05.merge_word",
    title="merge a word with a priority queue",
    statement=(
        "Write `merge_word(word, ranks)`: start from one symbol per character, merge the lowest rank first (the\n"
        "leftmost on ties) until no neighbouring pair has a rank, and return the symbols left. Calling your\n"
        "`lowest_pair` in a loop gives the right answer but scans the whole word again after every merge; use\n"
        "`heapq` as this notebook shows:\n\n"
        "- push `(rank, position, left, right)` for every neighbouring pair with a rank;\n"
        "- keep the symbols in a list where a merged-away symbol becomes `\"\"`, with the index of each\n"
        "  symbol's live neighbours (or search for the next non-empty entry);\n"
        "- pop; skip the entry if the two symbols now at its positions are not its `left` and `right` (stale);\n"
        "  otherwise merge them and push the new pairs the merged symbol makes with its neighbours.\n\n"
        "The answers are checked against `gguftok.models.bpe.merge_word` on this notebook's words, random words\n"
        f"and tables, and Qwen2's ranks on real words. Then the cost: on words of {SHORT:,} and {4 * SHORT:,}\n"
        "characters the check counts your lookups of pairs in `ranks` and comparisons of ranks; the longer\n"
        f"word may take at most **{GROWTH} times** the work of the shorter. A queue takes 4 to 5 times as much\n"
        "(`n log n`), rescanning 16 times (`n²`). The check never passes the optional `trace`."),
    template="",
    module="merge_queue",
    reference=_merge_word,
    reference_name="gguftok.models.bpe.merge_word",
    examples=_merge_examples,
    generated=_merge_generated,
    properties=_merge_properties,
)


# -------------------------------------------------------------------------------------------- word_ids
def _ref_word_ids(word: str, ranks: dict[str, int], token_ids: dict[str, int], ignore_merges: bool) -> list[int]:
    """gguftok's BPE model of byte-level vocabularies: its whole-word rule, its merges, its symbol lookup."""
    model = BPEModel(token_ids, [], ignore_merges=ignore_merges, cache_size=0)
    model.ranks = ranks
    return model.symbol_ids(model.symbols(word))


def _ids_examples() -> list[Case]:
    newer = {**TOY_IDS, "newer": 16}
    cases = [(w, TOY, TOY_IDS, False) for w in ("lower", "lowest", "newer")]
    cases += [("newer", TOY, newer, True), ("newer", TOY, newer, False), ("lowx", TOY, TOY_IDS, False),
              ("ĠcafÃ©", CAFE, CAFE_IDS, False), ("", TOY, TOY_IDS, True)]
    names = {id(TOY): "TOY", id(TOY_IDS): "TOY_IDS", id(newer): "{**TOY_IDS, 'newer': 16}", id(CAFE): "CAFE",
             id(CAFE_IDS): "CAFE_IDS"}
    return [Case(c, f"word_ids({c[0]!r}, {names[id(c[1])]}, {names[id(c[2])]}, {c[3]})") for c in cases]


def _ids_generated() -> list[Case]:
    r = rng(503)
    cases = []
    alphabet = "abĠÃ©"  # two ASCII letters (a one-byte token each), three characters of two bytes
    for _ in range(200):
        merges = _random_ranks(r, alphabet, r.randint(1, 12))
        symbols = list(dict.fromkeys([*alphabet, *(m.replace(" ", "") for m in merges)]))
        texts = [s for s in symbols if r.random() < 0.75] + [random_text(r, alphabet, 2, 5) for _ in range(3)]
        texts = list(dict.fromkeys(texts))
        ids = r.sample(range(1000), len(texts))
        token_ids = dict(zip(texts, ids, strict=True))
        word = r.choice(texts) if r.random() < 0.25 else random_text(r, alphabet, 0, 12)
        cases.append(Case((word, merges, token_ids, r.random() < 0.5)))
    for name, title, ignore in (("llama-bpe", "Llama 3", True), ("qwen2", "Qwen2", False)):
        tok = tokenizer(name)
        if tok is None:
            continue
        ranks, token_ids = tok.model.ranks, tok.model.token_to_id
        cases += [Case((w, ranks, token_ids, ignore), f"word_ids({w!r}, <{title}'s ranks>, <{title}'s token ids>, "
                       f"{ignore})", copy=False) for w in _words(name)]
    return cases


word_ids = Exercise(
    id="05.word_ids",
    title="the token ids of one word",
    statement=(
        "Write `word_ids(word, ranks, token_ids, ignore_merges)`: what llama.cpp's BPE does with one word of the\n"
        "pre-tokenizer, already in the byte-level alphabet (`\"ĠInsecta\"`):\n\n"
        "1. if `ignore_merges` is true and the whole word is a token, its id is the answer, with no merging;\n"
        "2. otherwise merge the word with your `merge_word`;\n"
        "3. each symbol left that is a token gives its id. A symbol that is **not** a token gives one id per\n"
        "   byte of its UTF-8 text, each byte `b` looked up as the one-byte string `bytes([b])` (as text,\n"
        "   `chr(b)` for ASCII; a byte of 0x80 or more alone is not UTF-8, and no byte-level token is that\n"
        "   string), and a byte with no such token is **dropped**, without an error.\n\n"
        "The check uses `TOY`/`TOY_IDS` and `CAFE`/`CAFE_IDS` from this notebook, random tables whose\n"
        "vocabularies miss about a quarter of the symbols, and real words with Llama 3 (`ignore_merges` true)\n"
        "and Qwen2 (false), against gguftok's BPE model."),
    template="",
    module="merge_queue",
    reference=_ref_word_ids,
    reference_name="gguftok.models.bpe.BPEModel (symbols, then symbol_ids)",
    examples=_ids_examples,
    generated=_ids_generated,
)

EXERCISES = [lowest_pair, merge_word, word_ids]
