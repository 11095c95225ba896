"""Wrong variants of lesson 11's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from itertools import pairwise

from solutions_loader import solved


def _lowest_score_first(text, scores):
    syms = list(text)
    while True:
        found = [(scores[a + b], k) for k, (a, b) in enumerate(pairwise(syms)) if a + b in scores]
        if not found:
            return syms
        k = min(found)[1]
        syms[k:k + 2] = [syms[k] + syms[k + 1]]


WRONG = {
    "11.spm_merge": _lowest_score_first,
    "11.spm_encode": lambda text, texts, scores: [  # lower-case hex in the byte tokens
        t.lower() if t.startswith("<0x") else t for t in solved("11.spm_encode")(text, texts, scores)],
}
