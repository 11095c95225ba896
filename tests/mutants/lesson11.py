"""Wrong variants of lesson 11's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from itertools import pairwise


def _rightmost_on_ties(text, token_ids, scores):
    """Rescans every pair and takes ``max`` of (score, position): the highest score, but the rightmost on ties."""
    syms = list(text)
    while True:
        found = [(scores[token_ids[a + b]], k) for k, (a, b) in enumerate(pairwise(syms)) if a + b in token_ids]
        if not found:
            return syms
        k = max(found)[1]
        syms[k:k + 2] = [syms[k] + syms[k + 1]]


def _unk_for_unknown_characters(text, token_ids, scores, unk_id):
    """Merges right, but a character with no token becomes one unk instead of its bytes."""
    from solutions_loader import solved

    merged = solved("11.spm_merge")(text, token_ids, scores)
    return [token_ids.get(s, unk_id) for s in merged]


WRONG = {
    "11.spm_merge": _rightmost_on_ties,
    "11.spm_encode": _unk_for_unknown_characters,
}
