"""Lesson 03 · merge ranks: split one merge line, build the rank table."""

from __future__ import annotations

from ..models.bpe import merge_ranks as _merge_ranks
from ..models.bpe import split_merge as _split_merge
from ._core import Case, Exercise
from ._data import random_text, rng, tokenizer

_LESSON_LINES = ["Ġ t", "  x", "a b c", "ab", "Ġ t", "i n", "cd"]


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
        "The check uses the lesson's lines, 200 random lines of `a`, `b`, `Ġ` and spaces, and 100 real merges\n"
        "of Qwen2 and Llama 3, against `gguftok.models.bpe.split_merge`."),
    template='''def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split at the first space from index 1 on; None without one.

    >>> split_merge("Ġ t")
    ('Ġ', 't')
    """
    raise NotImplementedError''',
    reference=_split_merge,
    reference_name="gguftok.models.bpe.split_merge",
    examples=lambda: [Case((line,)) for line in _LESSON_LINES],
    generated=_split_generated,
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
        "split each line with your `split_merge`, and when a pair appears twice, **the first one wins**. Lines\n"
        "without a space from index 1 on can be skipped.\n\n"
        "The check builds your table and looks up, for each case, every pair that the lines name plus a few\n"
        "that none does (`table.get(pair)`, so a missing pair is `None`). It compares the answers with\n"
        "`gguftok.models.bpe.merge_ranks` on the toy list of notebook 05, the lesson's made-up lines, random\n"
        "lists with repeated pairs, and the full lists of Qwen2 and Llama 3."),
    template='''def merge_ranks(merges: list[str]) -> dict[str, int]:
    """``"left right"`` -> rank (position in ``merges``); the first occurrence of a pair wins.

    >>> merge_ranks(["a b", "ab c", "a b"])
    {'a b': 0, 'ab c': 1}
    """
    raise NotImplementedError''',
    reference=_ref_ranks,
    reference_name="gguftok.models.bpe.merge_ranks",
    examples=_ranks_examples,
    generated=_ranks_generated,
    call=_call_ranks,
)

EXERCISES = [split_merge, merge_ranks]
