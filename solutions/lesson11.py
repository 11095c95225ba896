"""Lesson 11: SentencePiece's merge by score (the plain rescanning loop), and the toy encoder."""

from __future__ import annotations


def spm_merge(text: str, scores: dict[str, float]) -> list[str]:
    """Characters of ``text`` merged pair by pair, highest-scoring token first (ties: leftmost).

    >>> spm_merge("▁Hello", {"▁H": -9.0, "▁He": -7.0, "lo": -5.0, "▁Hel": -6.8, "▁Hello": -3.0})
    ['▁Hello']
    """
    syms = list(text)
    while True:
        best = None
        for k in range(len(syms) - 1):
            score = scores.get(syms[k] + syms[k + 1])
            if score is not None and (best is None or score > best[0]):
                best = (score, k)
        if best is None:
            return syms
        k = best[1]
        syms[k:k + 2] = [syms[k] + syms[k + 1]]


def spm_encode(text: str, texts: list[str], scores: list[float]) -> list[str]:
    """SentencePiece on a toy vocabulary: ``▁`` for spaces and in front, merge by score, byte fallback."""
    known = {t: s for t, s in zip(texts, scores, strict=True) if not (t.startswith("<0x") and len(t) == 6)}
    out = []
    for sym in spm_merge("▁" + text.replace(" ", "▁"), known):
        if sym in known:
            out.append(sym)
        else:
            out += [f"<0x{b:02X}>" for b in sym.encode()]
    return out
