"""The counts and ranks notebook 01's prose names that no cell prints: each computed from the file it is about."""

from __future__ import annotations

from pathlib import Path

from gguftok import read_metadata

TINY = Path(__file__).resolve().parents[2] / "data" / "synthetic" / "tiny-9.gguf"


def _rank_of_ab() -> int:
    """The rank of the merge that builds ``ab`` in tiny-9 (the prose: "``ab`` is id 5 and rank 0")."""
    merges = list(read_metadata(TINY)["tokenizer.ggml.merges"])
    return next(rank for rank, line in enumerate(merges) if line.replace(" ", "", 1) == "ab")


COMPUTED = {
    "rank 0": _rank_of_ab,
}
