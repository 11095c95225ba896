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


def _shortest_first(word, token_ids, unk_id, max_len):
    """WordPiece taking the shortest token at each place instead of the longest."""
    text, ids, i = "\u2581" + word, [], 0
    while i < len(text):
        j = next((j for j in range(i + 1, min(len(text), i + max_len) + 1) if text[i:j] in token_ids), None)
        if j is None:
            return [unk_id]
        ids.append(token_ids[text[i:j]])
        i = j
    return ids


def _every_piece_starts_a_word(word, token_ids, unk_id, max_len):
    """No continuations: every piece after the first is looked up with a ``▁`` in front (BERT's ``##`` ignored)."""
    rest, ids = word, []
    while rest:
        for j in range(min(len(rest), max_len), 0, -1):
            piece = "\u2581" + rest[:j]
            if piece in token_ids:
                ids.append(token_ids[piece])
                rest = rest[j:]
                break
        else:
            return [unk_id]
    return ids or [unk_id]


def _no_word_start_mark(word, token_ids, unk_id, max_len):
    """The word matched without the ``▁`` in front: its first piece is looked up as a continuation."""
    return _greedy(word, token_ids, unk_id, max_len)


def _greedy(text, token_ids, unk_id, max_len):
    ids, i = [], 0
    while i < len(text):
        j = next((j for j in range(min(len(text), i + max_len), i, -1) if text[i:j] in token_ids), None)
        if j is None:
            return [unk_id]
        ids.append(token_ids[text[i:j]])
        i = j
    return ids or [unk_id]


def _unk_only_where_stuck(word, token_ids, unk_id, max_len):
    """Where no token starts the rest: one unknown for that character, and go on (the whole word is unknown)."""
    text, ids, i = "\u2581" + word, [], 0
    while i < len(text):
        j = next((j for j in range(min(len(text), i + max_len), i, -1) if text[i:j] in token_ids), None)
        if j is None:
            if not ids or ids[-1] != unk_id:
                ids.append(unk_id)
            i += 1
            continue
        ids.append(token_ids[text[i:j]])
        i = j
    return ids


def _viterbi(text, token_ids, scores, unk_id, unk_score, max_len, better=lambda new, old: new > old,
             merge_unknowns=True):
    n = len(text)
    best = [0.0] + [float("-inf")] * n
    start, tid = [0] * (n + 1), [unk_id] * (n + 1)
    seen = [True] + [False] * n
    for s in range(n):
        single = False
        for e in range(s + 1, min(n, s + max_len) + 1):
            if text[s:e] in token_ids:
                i = token_ids[text[s:e]]
                single = single or e == s + 1
                if not seen[e] or better(best[s] + scores[i], best[e]):
                    best[e], start[e], tid[e], seen[e] = best[s] + scores[i], s, i, True
        if not single and (not seen[s + 1] or better(best[s] + unk_score, best[s + 1])):
            best[s + 1], start[s + 1], tid[s + 1], seen[s + 1] = best[s] + unk_score, s, unk_id, True
    ids, e = [], n
    while e > 0:
        if not (merge_unknowns and tid[e] == unk_id and ids and ids[-1] == unk_id):
            ids.append(tid[e])
        e = start[e]
    return ids[::-1]


def _keeps_the_first(text, token_ids, scores, unk_id, unk_score, max_len):
    """Viterbi that keeps the first split found for each end, not the best one."""
    return _viterbi(text, token_ids, scores, unk_id, unk_score, max_len, better=lambda new, old: False)


def _later_on_ties(text, token_ids, scores, unk_id, unk_score, max_len):
    """Viterbi that takes a candidate as good as the kept one (``>=``): the later start wins a tie."""
    return _viterbi(text, token_ids, scores, unk_id, unk_score, max_len, better=lambda new, old: new >= old)


def _unknowns_not_merged(text, token_ids, scores, unk_id, unk_score, max_len):
    """Viterbi right, but each unknown character stays an unknown token of its own."""
    return _viterbi(text, token_ids, scores, unk_id, unk_score, max_len, merge_unknowns=False)


def _no_unknown_step(text, token_ids, scores, unk_id, unk_score, max_len):
    """The unknown step only where nothing at all starts (not where no one-character token does)."""
    n = len(text)
    best = [0.0] + [float("-inf")] * n
    start, tid = [0] * (n + 1), [unk_id] * (n + 1)
    for s in range(n):
        found = False
        for e in range(s + 1, min(n, s + max_len) + 1):
            if text[s:e] in token_ids:
                found = True
                score = best[s] + scores[token_ids[text[s:e]]]
                if score > best[e]:
                    best[e], start[e], tid[e] = score, s, token_ids[text[s:e]]
        if not found and best[s] + unk_score > best[s + 1]:
            best[s + 1], start[s + 1], tid[s + 1] = best[s] + unk_score, s, unk_id
    ids, e = [], n
    while e > 0:
        if not (tid[e] == unk_id and ids and ids[-1] == unk_id):
            ids.append(tid[e])
        e = start[e]
    return ids[::-1]


WRONG = {
    "11.spm_merge": _rightmost_on_ties,
    "11.spm_encode": _unk_for_unknown_characters,
    "11.wordpiece_word": _shortest_first,
    "11.unigram_encode": _keeps_the_first,
}
# More wrong variants of the same exercises: each must fail its check too.
MORE = {
    "11.wordpiece_word": [_every_piece_starts_a_word, _no_word_start_mark, _unk_only_where_stuck],
    "11.unigram_encode": [_later_on_ties, _unknowns_not_merged, _no_unknown_step],
}
