"""Lesson 05 · the merge queue: which pair merges next, then a whole word with a heap."""

from __future__ import annotations

from itertools import pairwise

from ..models.bpe import merge_ranks
from ..models.bpe import merge_word as _merge_word
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer

TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])


def _random_ranks(r, alphabet: str, n: int) -> dict[str, int]:
    """A merge table whose sides are letters or earlier merges' results, as training makes them."""
    symbols = list(alphabet)
    lines = []
    for _ in range(n):
        left, right = r.choice(symbols), r.choice(symbols)
        lines.append(f"{left} {right}")
        symbols.append(left + right)
    return merge_ranks(lines)


def _qwen2_words() -> list[str]:
    tok = tokenizer("qwen2")
    if tok is None:
        return []
    text = ("The tokenizer of a GGUF model lives in its metadata; tokenization, Arthropoda and Insecta, "
            "naïve café 世界 😀 indentation    return value;")
    return [w for w in tok.words(text) if isinstance(w, str)]


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
        "One step of BPE: among all pairs of neighbouring symbols that have a rank, the one with the **lowest\n"
        "rank** merges next, and on equal ranks the **leftmost**. Write `lowest_pair(symbols, ranks)` that returns\n"
        "the position `k` of that pair (it joins `symbols[k]` and `symbols[k + 1]`), or `None` when no pair\n"
        "has a rank. `ranks` is a table like `merge_ranks` makes: `\"left right\"` -> rank.\n\n"
        "Equal ranks happen when the same pair occurs twice (`a a a`). The check uses the toy table `TOY` of\n"
        "this notebook and 200 random symbol lists with random tables; the expected answers come from a\n"
        "plain scan over all pairs written in `gguftok.exercises.lesson05`."),
    template='''def lowest_pair(symbols: list[str], ranks: dict[str, int]) -> int | None:
    """Position of the neighbouring pair with the lowest rank (leftmost on ties), or None.

    >>> lowest_pair(["l", "o", "w", "e", "r"], {"e r": 0, "l o": 1})
    3
    """
    raise NotImplementedError''',
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


merge_word = Exercise(
    id="05.merge_word",
    title="merge a word with a priority queue",
    statement=(
        "Write `merge_word(word, ranks)`: start from one symbol per character and merge until no neighbouring\n"
        "pair has a rank, always the lowest rank first and the leftmost on ties, and return the symbols left.\n"
        "Calling your `lowest_pair` in a loop gives the right answer but rescans the word after every merge; do\n"
        "it the way this notebook shows instead, with `heapq`:\n\n"
        "- push `(rank, position, left, right)` for every neighbouring pair with a rank;\n"
        "- keep the symbols in a list where a merged-away symbol becomes `\"\"`, with the index of each\n"
        "  symbol's live neighbours (or search for the next non-empty entry);\n"
        "- pop; skip the entry if the two symbols now at its positions are not its `left` and `right` (stale);\n"
        "  otherwise merge them and push the new pairs the merged symbol makes with its neighbours.\n\n"
        "The check uses the lesson's three words, 200 random words with random tables, Qwen2's ranks on the words\n"
        "of a real sentence, and `'a' * 300`, against `gguftok.models.bpe.merge_word`."),
    template='''def merge_word(word: str, ranks: dict[str, int]) -> list[str]:
    """The symbols of ``word`` after every merge, lowest rank first (ties: leftmost).

    >>> merge_word("lower", {"e r": 0, "l o": 1, "lo w": 2, "low er": 3})
    ['lower']
    """
    raise NotImplementedError''',
    reference=_merge_word,
    reference_name="gguftok.models.bpe.merge_word",
    examples=_merge_examples,
    generated=_merge_generated,
)

EXERCISES = [lowest_pair, merge_word]
