"""The distinct values of a large integer array, sorted: one sort and one comparison of neighbours.

NumPy 2.3+ answers ``np.unique`` of an integer array without ``return_index`` by hashing, which on the
pair keys of a large vocabulary is several times slower than sorting: 515,000 keys of Gemma 4's merges took
52 ms by hash and 9 ms by sort (measured, NumPy 2.4). The values are the same.

>>> distinct(np.array([5, 1, 5, 3, 1])).tolist()
[1, 3, 5]
"""

from __future__ import annotations

import numpy as np


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` of a one-dimensional array, by sorting."""
    out = np.sort(values)
    if len(out) < 2:
        return out
    keep = np.empty(len(out), dtype=bool)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    return out[keep]
