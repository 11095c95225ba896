"""Stage 05, the merge queue: encode one word. Merge its symbols, lowest rank first, with a heap that skips
stale entries, then turn the symbols left into token ids.

A word arrives in the byte-level alphabet (``"Ġtokenization"``, see ``bytemap.py``); ``ranks`` is the table
``merges.merge_ranks`` makes, ``"left right"`` -> rank; ``token_ids`` maps each token's text to its id.
"""

from __future__ import annotations

import heapq


def lowest_pair(symbols: list[str], ranks: dict[str, int]) -> int | None:
    """Position of the neighbouring pair with the lowest rank (leftmost on ties), or None.

    >>> lowest_pair(["l", "o", "w", "e", "r"], {"e r": 0, "l o": 1})
    3
    """
    best = None  # (rank, position) of the best pair so far
    for k in range(len(symbols) - 1):
        rank = ranks.get(symbols[k] + " " + symbols[k + 1])
        if rank is not None and (best is None or rank < best[0]):  # "<": on a tie the first one stays
            best = (rank, k)
    return None if best is None else best[1]


def merge_word(word: str, ranks: dict[str, int], *, trace: list | None = None) -> list[str]:
    """The symbols of ``word`` after every merge, lowest rank first (ties: leftmost).

    Give a list as ``trace`` to have one tuple ``(rank, position, left, right, merged)`` appended per pop of
    the queue (``merged`` is False for a stale entry that was skipped); notebook 05 plays it.

    >>> merge_word("lower", {"e r": 0, "l o": 1, "lo w": 2, "low er": 3})
    ['lower']
    """
    # Slot i holds the symbol that starts at character i of the word; a symbol merged into its left
    # neighbour leaves "" behind. nxt and prv link the live slots, so a merge only touches its neighbours.
    symbols = list(word)
    n = len(symbols)
    nxt = [i + 1 if i + 1 < n else -1 for i in range(n)]
    prv = [i - 1 for i in range(n)]
    heap: list[tuple[int, int, str, str]] = []

    def push(i: int, j: int) -> None:
        """Queue the pair of live slots i and j (j follows i), if it has a rank."""
        if i < 0 or j < 0:
            return
        rank = ranks.get(symbols[i] + " " + symbols[j])
        if rank is not None:
            heapq.heappush(heap, (rank, i, symbols[i], symbols[j]))

    for i in range(n - 1):
        push(i, i + 1)

    while heap:
        rank, i, left, right = heapq.heappop(heap)  # lowest rank; on a tie the lowest position
        j = nxt[i]
        # Stale: slot i has been merged away or has grown, or its neighbour is no longer `right`.
        merged = symbols[i] == left and j >= 0 and symbols[j] == right
        if trace is not None:
            trace.append((rank, i, left, right, merged))
        if not merged:
            continue
        symbols[i], symbols[j] = left + right, ""  # the right symbol joins the left one
        nxt[i] = nxt[j]
        if nxt[i] >= 0:
            prv[nxt[i]] = i
        push(prv[i], i)  # the new symbol makes two new pairs, one with each neighbour
        push(i, nxt[i])
    return [s for s in symbols if s]


def word_ids(word: str, ranks: dict[str, int], token_ids: dict[str, int], ignore_merges: bool) -> list[int]:
    """The token ids of one word (already in the byte-level alphabet), as llama.cpp's BPE gives them.

    >>> word_ids("lower", {"e r": 0, "l o": 1, "lo w": 2}, {"low": 7, "er": 4, "lower": 9}, False)
    [7, 4]
    >>> word_ids("lower", {"e r": 0, "l o": 1, "lo w": 2}, {"low": 7, "er": 4, "lower": 9}, True)
    [9]
    """
    if ignore_merges and word in token_ids:  # the whole word is a token: no merging at all
        return [token_ids[word]]
    ids = []
    for symbol in merge_word(word, ranks):
        if symbol in token_ids:
            ids.append(token_ids[symbol])
            continue
        # Not a token: one token per byte of the symbol's UTF-8 text, each looked up as the one-byte string
        # (for a byte of 0x80 or more, a lone surrogate, as a GGUF token text that is not UTF-8 is read);
        # a byte without such a token is dropped.
        for b in symbol.encode("utf-8"):
            byte_text = bytes([b]).decode("utf-8", "surrogateescape")
            if byte_text in token_ids:
                ids.append(token_ids[byte_text])
    return ids
