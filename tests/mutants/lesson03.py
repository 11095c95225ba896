"""Wrong variants of lesson 03's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from itertools import pairwise


def _find_merge(line):
    pos = line.find(" ")
    return None if pos < 0 else (line[:pos], line[pos + 1:])


def _last_wins(merges):
    return {m: r for r, m in enumerate(merges) if " " in m[1:]}


def _first_seen_tie(words, n_merges):
    """Takes the most frequent pair, but among ties the one counted first (``max`` keeps the first maximum)."""
    table = [(list(w), c) for w, c in words.items()]
    merges = []
    for _ in range(n_merges):
        totals = {}
        for syms, c in table:
            for pair in pairwise(syms):
                totals[pair] = totals.get(pair, 0) + c
        if not totals:
            break
        left, right = max(totals, key=totals.get)
        merges.append(f"{left} {right}")
        new = []
        for syms, c in table:
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == (left, right):
                    out.append(left + right)
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            new.append((out, c))
        table = new
    return merges


def _replace_text(word, merges):
    """Joins the symbols with spaces and replaces each merge line in that text: a line then also matches
    across the inside of a longer symbol (``a b c`` -> ``ab c`` -> ``abc`` for the lines ``a b``, ``b c``)."""
    text = " ".join(word)
    for line in merges:
        text = text.replace(line, line.replace(" ", ""))
    return text.split()


WRONG = {
    "03.split_merge": _find_merge,
    "03.merge_ranks": _last_wins,
    "03.train_bpe": _first_seen_tie,
    "03.apply_merges": _replace_text,
}
