"""Lesson 09 · conformance: name the first difference, read pasted ids."""

from __future__ import annotations

from ..viz.conformance_view import first_difference as _first_difference
from ..viz.conformance_view import parse_ids as _parse_ids
from ._core import Case, Exercise
from ._data import random_text, rng


def _diff_generated() -> list[Case]:
    r = rng(901)
    cases = []
    for _ in range(250):
        ref = [r.randrange(6) for _ in range(r.randint(0, 8))]
        got = list(ref)
        action = r.choice(["same", "change", "drop", "add", "shift"])
        if action == "change" and got:
            got[r.randrange(len(got))] = r.randrange(6)
        elif action == "drop" and got:
            del got[r.randrange(len(got))]
        elif action == "add":
            got.insert(r.randint(0, len(got)), r.randrange(6))
        elif action == "shift":
            got = got[1:] if r.random() < 0.5 else [128000, *got]
        cases.append(Case((got, ref)))
    return cases


first_difference = Exercise(
    id="09.first_difference",
    title="the first difference between two id lists",
    statement=(
        "Write `first_difference(got, expected)`: the first index at which the two id lists differ, or `None`\n"
        "when they are equal. When one list is the other with more ids at the end, the first difference is at\n"
        "the end of the shorter one (a missing token is a difference).\n\n"
        "The check uses the notebook's two cases (the NFD-normalised text, the forgotten BOS) and 250 random\n"
        "pairs with one id changed, dropped, added or shifted, against `gguftok.viz.conformance_view`."),
    template='''def first_difference(got: list[int], expected: list[int]) -> int | None:
    """The first index where ``got`` and ``expected`` differ; None if they are equal.

    >>> first_difference([9906, 1917], [128000, 9906, 1917]), first_difference([1, 2], [1, 2])
    (0, None)
    """
    raise NotImplementedError''',
    reference=_first_difference,
    reference_name="gguftok.viz.conformance_view.first_difference",
    examples=lambda: [Case(([9906, 1917, 11, 433, 596, 220, 2366, 21, 0],
                            [128000, 9906, 1917, 11, 433, 596, 220, 2366, 21, 0])),
                      Case(([1, 2, 3], [1, 2, 3])), Case(([1, 2], [1, 2, 5])), Case(([1, 2, 5], [1, 2])),
                      Case(([], []))],
    generated=_diff_generated,
)


def _parse_generated() -> list[Case]:
    r = rng(902)
    cases = []
    for _ in range(200):
        ids = [str(r.randrange(200_000)) for _ in range(r.randint(0, 6))]
        sep = r.choice([", ", ",", " ", "  ", ",\n", "\t"])
        text = sep.join(ids)
        if r.random() < 0.5:
            text = f"[{text}]"
        if r.random() < 0.3:
            text = random_text(r, " \n", 0, 2) + text + random_text(r, " \n", 0, 2)
        if r.random() < 0.1:
            text = text.replace(ids[0], r.choice(["x", "1.5", "0x1F", "--3"]), 1) if ids else "[a]"
        cases.append(Case((text,)))
    return cases


parse_ids = Exercise(
    id="09.parse_ids",
    title="ids pasted as text",
    statement=(
        "Ids arrive as text: `llama-tokenize --ids` prints `[9707, 1879, 0]`, and people paste `9707 1879 0` or\n"
        "`9707,1879,0`. Write `parse_ids(text)` that accepts all three: strip surrounding whitespace, then one\n"
        "optional `[` at the start and one optional `]` at the end, and split the rest on any run of commas and\n"
        "whitespace. Empty parts are ignored, so an empty text is `[]`. A part that is not an integer (digits\n"
        "with an optional leading `-`) raises `ValueError`.\n\n"
        "The check uses a few fixed texts and 200 random ones, some with a bad part, against\n"
        "`gguftok.viz.conformance_view.parse_ids`."),
    template='''def parse_ids(text: str) -> list[int]:
    """Ids from ``"[1, 2, 3]"``, ``"1 2 3"`` or ``"1,2,3"``; ValueError for anything else.

    >>> parse_ids("[9707, 1879,0]")
    [9707, 1879, 0]
    """
    raise NotImplementedError''',
    reference=_parse_ids,
    reference_name="gguftok.viz.conformance_view.parse_ids",
    examples=lambda: [Case((t,)) for t in ("[9906, 1917, 11, 433, 596, 220, 2366, 21, 0]", "9707 1879 0", "9707,1879,0",
                                           "", "[]", "[1, two]", " [ 5 ] ", "-1")],
    generated=_parse_generated,
)

EXERCISES = [first_difference, parse_ids]
