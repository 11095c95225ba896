"""Lesson 03: split a merge line, build the rank table (first occurrence wins)."""

from __future__ import annotations


def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split at the first space from index 1 on; None without one.

    >>> split_merge("Ġ t"), split_merge("  x"), split_merge("ab")
    (('Ġ', 't'), (' ', 'x'), None)
    """
    for i in range(1, len(line)):
        if line[i] == " ":
            return line[:i], line[i + 1:]
    return None


def merge_ranks(merges: list[str]) -> dict[str, int]:
    """``"left right"`` -> rank (position in ``merges``); the first occurrence of a pair wins."""
    table: dict[str, int] = {}
    for rank, line in enumerate(merges):
        pair = split_merge(line)
        if pair is not None:
            key = pair[0] + " " + pair[1]
            if key not in table:
                table[key] = rank
    return table
