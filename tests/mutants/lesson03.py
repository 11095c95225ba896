"""Wrong variants of lesson 03's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations


def _find_merge(line):
    pos = line.find(" ")
    return None if pos < 0 else (line[:pos], line[pos + 1:])


def _last_wins(merges):
    return {m: r for r, m in enumerate(merges) if " " in m[1:]}


WRONG = {
    "03.split_merge": _find_merge,
    "03.merge_ranks": _last_wins,
}
