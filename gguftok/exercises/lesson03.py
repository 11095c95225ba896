"""Lesson 03 · merge ranks: split one merge line, build the rank table, train a small BPE, and replay its merges.

The references of ``03.split_merge`` and ``03.merge_ranks`` are gguftok's own functions. gguftok has no trainer
and no naive encoder, so ``03.train_bpe`` and ``03.apply_merges`` are checked against the two written here,
:func:`reference_train_bpe` and :func:`reference_apply_merges`. The trainer here keeps its pair counts up to
date after each merge instead of counting afresh (the way real trainers do it), so it shares no loop with the
plain version a student writes; notebook 03 uses both references until the student's functions exist.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import pairwise

from ..bytemap import bytes_to_text
from ..models.bpe import merge_ranks as _merge_ranks
from ..models.bpe import split_merge as _split_merge
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer
from .workspace import REPO

_LESSON_LINES = ["Ġ t", "  x", "a b c", "ab", "Ġ t", "i n", "cd"]
CORPUS = REPO / "data" / "corpus" / "harbour.txt"


def _split_generated() -> list[Case]:
    r = rng(301)
    cases = [Case((random_text(r, "ab Ġ", 0, 6),)) for _ in range(200)]
    for name in ("qwen2", "llama-bpe"):
        tok = tokenizer(name)
        if tok is not None:
            merges = tok.vocab.merges
            cases += [Case((merges[i],)) for i in sorted(r.sample(range(len(merges)), 50))]
    return cases


split_merge = Exercise(
    id="03.split_merge",
    title="split one merge line as llama.cpp does",
    statement=(
        "Write `split_merge(line)` that returns the two sides of one entry of `tokenizer.ggml.merges` as a\n"
        "pair `(left, right)`, split exactly where llama.cpp splits it: at the **first space at index 1 or\n"
        "later**. Return `None` when there is no such space.\n\n"
        "So `\"  x\"` is `(\" \", \"x\")`, `\"a b c\"` is `(\"a\", \"b c\")`, and `\"ab\"` and `\" x\"` are `None`.\n"
        "The cases: this notebook's made-up lines, 200 random lines of `a`, `b`, `Ġ` and spaces, and 100 real\n"
        "merges of Qwen2 and Llama 3, against `gguftok.models.bpe.split_merge`."),
    template="",
    reference=_split_merge,
    reference_name="gguftok.models.bpe.split_merge",
    examples=lambda: [Case((line,)) for line in _LESSON_LINES],
    generated=_split_generated,
    module="merges",
)


# ------------------------------------------------------------------------------------------- merge_ranks
def _queries(merges: list[str], extra: list[str]) -> list[str]:
    """Every pair the lines name (as ``left + " " + right``) and a few that no line names, each once."""
    out = []
    for m in merges:
        pair = _split_merge(m)
        if pair:
            out.append(pair[0] + " " + pair[1])
    return list(dict.fromkeys(out + extra))


def _ref_ranks(merges: list[str], queries: list[str]) -> list[tuple[str, int | None]]:
    ranks = _merge_ranks(merges)
    return [(q, ranks.get(q)) for q in queries]


def _call_ranks(fn, merges: list[str], queries: list[str]) -> list[tuple[str, int | None]]:
    table = fn(merges)
    return [(q, table.get(q)) for q in queries]


_TOY = ["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"]


def _case(merges: list[str], queries: list[str]) -> Case:
    return Case((merges, queries), f"merge_ranks({merges!r}), looked up for {queries!r}")


def _ranks_examples() -> list[Case]:
    return [_case(_TOY, _queries(_TOY, ["l ow", "w e"])), _case(_LESSON_LINES, _queries(_LESSON_LINES, ["a b", "c d"]))]


def _ranks_generated() -> list[Case]:
    r = rng(302)
    cases = []
    for _ in range(80):
        merges = [random_text(r, "abĠ ", 1, 5) for _ in range(r.randint(0, 12))]
        extra = [random_text(r, "ab", 1, 2) + " " + random_text(r, "ab", 1, 2) for _ in range(3)]
        cases.append(_case(merges, _queries(merges, extra)))
    for name in ("qwen2", "llama-bpe"):
        tok = tokenizer(name)
        if tok is not None:
            merges = list(tok.vocab.merges)
            queries = ["i n", "o n", "Ġ t", "t h", "ĠĠ Ġ", "ĠĠ ĠĠ", "Ġ ĠĠĠ", "Ġt he", "x yz"]
            queries += [merges[i] for i in sorted(r.sample(range(len(merges)), 200))]
            cases.append(Case((merges, queries), f"merge_ranks(<the {len(merges):,} merges of {name}>), looked up "
                                                 f"for {len(queries)} pairs: {queries[:7]} ...", copy=False))
    return cases


merge_ranks = Exercise(
    id="03.merge_ranks",
    title="the rank table",
    statement=(
        "Write `merge_ranks(merges)` that turns the list `tokenizer.ggml.merges` into a dictionary from a pair,\n"
        "written `left + \" \" + right`, to its rank (its position in the list), the way llama.cpp reads it:\n"
        "split each line with your `split_merge` (a line without a space from index 1 on can be skipped), and\n"
        "when a pair appears twice, **the first one wins**.\n\n"
        "The check looks up in your table every pair the lines name and a few that none does (`table.get(pair)`:\n"
        "a missing pair is `None`), on the toy list of notebook 05, this notebook's made-up lines, random lists\n"
        "with repeated pairs, and the full lists of Qwen2 and Llama 3, against `gguftok.models.bpe.merge_ranks`."),
    template="",
    reference=_ref_ranks,
    reference_name="gguftok.models.bpe.merge_ranks",
    examples=_ranks_examples,
    generated=_ranks_generated,
    call=_call_ranks,
    module="merges",
)


# ------------------------------------------------------------------------------------------- train_bpe
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def word_table(text: str) -> dict[str, int]:
    """The training table of ``text``: each word of GPT-2's pre-tokenizer, spelled in the byte-level alphabet,
    with how often it occurs (in order of first occurrence).

    >>> word_table("the cat and the hat")
    {'the': 1, 'Ġcat': 1, 'Ġand': 1, 'Ġthe': 1, 'Ġhat': 1}
    """
    import regex

    return dict(Counter(bytes_to_text(w.encode("utf-8")) for w in regex.findall(GPT2_PATTERN, text)))


@cache
def corpus_words() -> dict[str, int] | None:
    """The word table of ``data/corpus/harbour.txt``, or ``None`` when this gguftok is not a checkout."""
    return word_table(CORPUS.read_text(encoding="utf-8")) if CORPUS.is_file() else None


def _merge_symbols(symbols: list[str], left: str, right: str) -> list[str]:
    """``symbols`` with each ``left`` directly followed by ``right`` joined, found from the left; a symbol just
    built is never the left side of the same merge again (``a a a`` -> ``aa a``)."""
    out: list[str] = []
    joined = False  # whether out[-1] was just built by this merge
    for s in symbols:
        if out and not joined and out[-1] == left and s == right:
            out[-1] = left + right
            joined = True
        else:
            out.append(s)
            joined = False
    return out


def reference_train_bpe(words: dict[str, int], n_merges: int) -> list[str]:
    """Byte-pair encoding training, the rule of exercise ``03.train_bpe``, with the pair counts kept up to date:
    after a merge, only the words that held the pair are counted again.

    >>> reference_train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 4)
    ['e s', 'es t', 'l o', 'lo w']
    """
    seqs = [list(w) for w in words]
    freq = list(words.values())
    pairs: Counter[tuple[str, str]] = Counter()
    holders: dict[tuple[str, str], set[int]] = {}  # pair -> words that held it when last counted
    for i, s in enumerate(seqs):
        for p in pairwise(s):
            pairs[p] += freq[i]
            holders.setdefault(p, set()).add(i)
    merges: list[str] = []
    while len(merges) < n_merges:
        live = [(-n, p) for p, n in pairs.items() if n > 0]
        if not live:
            break
        left, right = min(live)[1]
        merges.append(f"{left} {right}")
        for i in sorted(holders.pop((left, right), ())):
            old = seqs[i]
            new = _merge_symbols(old, left, right)
            if new == old:
                continue
            for p in pairwise(old):
                pairs[p] -= freq[i]
            for p in pairwise(new):
                pairs[p] += freq[i]
                holders.setdefault(p, set()).add(i)
            seqs[i] = new
    return merges


_SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def _train_case(words: dict[str, int], n: int, label: str | None = None) -> Case:
    return Case((words, n), label)


def _train_examples() -> list[Case]:
    return [
        _train_case(_SENNRICH, 10),
        _train_case({"ba": 2, "ab": 2}, 3),
        _train_case({"aaaa": 1, "aaa": 2}, 3),
        _train_case({"Ġthe": 3, "Ġthen": 1, "the": 2, "Ġcat": 1}, 6),
        _train_case({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 0),
        _train_case({}, 5),
    ]


def _random_words(r, alphabet: str, count: int, longest: int) -> dict[str, int]:
    words: dict[str, int] = {}
    for _ in range(count):
        words[random_text(r, alphabet, 1, longest)] = r.randint(1, 9)
    return words


def _train_generated() -> list[Case]:
    r = rng(303)
    cases = [_train_case(_random_words(r, "abc", r.randint(1, 6), 6), r.randint(1, 12)) for _ in range(50)]
    cases += [_train_case(_random_words(r, "abcdĠ", r.randint(3, 12), 8), r.randint(5, 25)) for _ in range(30)]
    cases += [_train_case(_random_words(r, "ab", r.randint(1, 3), 10), 40) for _ in range(10)]  # runs out early
    words = corpus_words()
    if words is not None:
        for n in (300, 2000):
            label = (f"train_bpe(<the {len(words)} distinct words of data/corpus/harbour.txt, byte-level>, {n})")
            cases.append(Case((words, n), label))
    return cases


train_bpe = Exercise(
    id="03.train_bpe",
    title="train a byte-pair encoding",
    statement=(
        "Write `train_bpe(words, n_merges)`, the training loop that produces a merge list. `words` maps each\n"
        "word of a training text to how often it occurs (every count is 1 or more; a word has no space in it,\n"
        "since a byte-level word writes its space as `Ġ`). At the start, each character of a word is one\n"
        "symbol. Then, `n_merges` times:\n\n"
        "1. **Count the pairs.** For every word, each two neighbouring symbols `(left, right)` add the word's\n"
        "   count to that pair's total, once per place they occur (`\"aaa\"` seen 2 times gives `(a, a)` 4).\n"
        "2. **Choose one.** Take the pair with the highest total; among equal totals, the smallest\n"
        "   `(left, right)` tuple (what `min` of the tied tuples returns).\n"
        "3. **Record it** as the next rank: append the line `left + \" \" + right`.\n"
        "4. **Merge it** in every word: going from left to right, each `left` directly followed by `right`\n"
        "   becomes the one symbol `left + right`, and the symbol just built does not join again in the same\n"
        "   step (`a a a` becomes `aa a`).\n\n"
        "Stop early when no word has two symbols left. Return the list of merge lines, rank 0 first.\n\n"
        "The check compares your list with `gguftok.exercises.lesson03.reference_train_bpe` on small tables,\n"
        "seeded random tables and the word table of `data/corpus/harbour.txt`, and shows the first rank where\n"
        "the two lists part."),
    template="",
    reference=reference_train_bpe,
    reference_name="gguftok.exercises.lesson03.reference_train_bpe",
    examples=_train_examples,
    generated=_train_generated,
    module="merges",
)


# ----------------------------------------------------------------------------------------- apply_merges
def reference_apply_merges(word: str, merges: list[str]) -> list[str]:
    """The symbols of ``word`` after every merge line, in list order, is applied to all of it (the rule of
    exercise ``03.apply_merges``), written with a position that walks along the list of symbols.

    >>> reference_apply_merges("abc", ["a b", "b c"]), reference_apply_merges("aaa", ["a a"])
    (['ab', 'c'], ['aa', 'a'])
    """
    symbols = list(word)
    for line in merges:
        pair = _split_merge(line)
        if pair is None:
            continue
        left, right = pair
        k = 0
        while k + 1 < len(symbols):
            if symbols[k] == left and symbols[k + 1] == right:
                symbols[k:k + 2] = [left + right]
            k += 1
    return symbols


def _apply_examples() -> list[Case]:
    lowest = ["e s", "es t", "l o", "lo w", "low est"]
    return [
        Case(("lowest", lowest)),
        Case(("abc", ["a b", "b c"])),
        Case(("abc", ["b c", "a b"])),
        Case(("aaaa", ["a a"])),
        Case(("aaa", ["a a", "aa a"])),
        Case(("widest", lowest)),
        Case(("cab", [])),
        Case(("", ["a b"])),
    ]


def _apply_generated() -> list[Case]:
    r = rng(304)
    cases = []
    for _ in range(40):  # merges a training run could produce, on words it saw and did not see
        table = _random_words(r, "abc", r.randint(1, 6), 7)
        merges = reference_train_bpe(table, r.randint(1, 10))
        word = r.choice([*table, random_text(r, "abc", 0, 9)])
        cases.append(Case((word, merges)))
    for _ in range(40):  # any lines at all, in any order
        merges = [random_text(r, "ab", 1, 2) + " " + random_text(r, "ab", 1, 2) for _ in range(r.randint(0, 6))]
        cases.append(Case((random_text(r, "ab", 0, 10), merges)))
    words = corpus_words()
    if words is not None:
        merges = reference_train_bpe(words, 300)
        probe = ["Ġharbour", "Ġlighthouse", "Ġbread", "Ġthe", "Ġeverything", "Ġunremembered", "ĠMöwen",
                 "Ġsunburnt", "Ġtokenizer"]
        for w in probe:
            cases.append(Case((w, merges), f"apply_merges({w!r}, <the 300 merges trained on data/corpus/harbour.txt>)"))
    return cases


apply_merges = Exercise(
    id="03.apply_merges",
    title="replay a merge list on one word",
    statement=(
        "Write `apply_merges(word, merges)`, the plainest encoder of one word: start from one symbol per\n"
        "character of `word`, then apply each merge line in the order of the list (rank 0 first) to the whole\n"
        "word before the next, exactly as step 4 of `train_bpe` does. Split each line with your `split_merge`.\n"
        "Return the list of symbols.\n\n"
        "So `apply_merges(\"abc\", [\"a b\", \"b c\"])` is `[\"ab\", \"c\"]` (once `a b` has joined, no `b` is\n"
        "left for `c`), and with the two lines the other way round it is `[\"a\", \"bc\"]`.\n\n"
        "The check compares your symbols with `gguftok.exercises.lesson03.reference_apply_merges` on the\n"
        "examples above, merges trained on random tables, random lines in any order, and words through 300\n"
        "merges trained on `data/corpus/harbour.txt`."),
    template="",
    reference=reference_apply_merges,
    reference_name="gguftok.exercises.lesson03.reference_apply_merges",
    examples=_apply_examples,
    generated=_apply_generated,
    module="merges",
)

EXERCISES = [split_merge, merge_ranks, train_bpe, apply_merges]
