"""Lesson 09: the first difference between two id lists, and ids pasted as text."""

from __future__ import annotations

import re


def first_difference(got: list[int], expected: list[int]) -> int | None:
    """The first index where ``got`` and ``expected`` differ; None if they are equal.

    >>> first_difference([9906, 1917], [128000, 9906, 1917]), first_difference([1, 2], [1, 2])
    (0, None)
    """
    for k in range(min(len(got), len(expected))):
        if got[k] != expected[k]:
            return k
    return None if len(got) == len(expected) else min(len(got), len(expected))


def parse_ids(text: str) -> list[int]:
    """Ids from ``"[1, 2, 3]"``, ``"1 2 3"`` or ``"1,2,3"``; ValueError for anything else.

    >>> parse_ids("[9707, 1879,0]")
    [9707, 1879, 0]
    """
    body = text.strip()
    if body.startswith("["):
        body = body[1:]
    if body.endswith("]"):
        body = body[:-1]
    ids = []
    for part in re.split(r"[\s,]+", body):
        if not part:
            continue
        if not re.fullmatch(r"-?[0-9]+", part):
            raise ValueError(f"not an id: {part!r}")
        ids.append(int(part))
    return ids
