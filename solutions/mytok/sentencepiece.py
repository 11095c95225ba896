"""Stage 11: SentencePiece, the family of Llama 1 and 2, Mistral and Phi-3 (notebook 11).

The merge follows llama.cpp's SentencePiece session: the symbols stay in one list and a merged-away symbol
becomes empty; ``right_of`` and ``left_of`` link the symbols still alive. A heap holds every pair whose
concatenation is a token, highest score first, then leftmost. An entry whose two symbols have changed since it
was pushed is stale and skipped, as in notebook 05's merge queue.
"""

from __future__ import annotations

import heapq


def spm_merge(text: str, token_ids: dict[str, int], scores: list[float]) -> list[str]:
    """The symbols of ``text`` once no neighbouring pair is a token: highest-scoring pair first (ties: the
    leftmost).

    >>> spm_merge("▁abc", {"▁a": 0, "bc": 1, "▁abc": 2}, [-1.0, -2.0, -0.5])
    ['▁abc']
    >>> spm_merge("▁abc", {"▁a": 0, "ab": 1}, [-2.0, -1.0])      # "ab" scores higher, so it takes the b
    ['▁', 'ab', 'c']
    """
    symbols = list(text)  # one symbol per character
    right_of = [k + 1 for k in range(len(symbols))]  # len(symbols): no right neighbour
    left_of = [k - 1 for k in range(len(symbols))]  # -1: no left neighbour
    queue: list[tuple[float, int, int, str]] = []

    def push_pair(left: int, right: int) -> None:
        if left < 0 or right >= len(symbols):
            return
        merged = symbols[left] + symbols[right]
        if merged in token_ids:  # only a pair that makes a token can merge
            heapq.heappush(queue, (-scores[token_ids[merged]], left, right, merged))

    for k in range(1, len(symbols)):
        push_pair(k - 1, k)
    while queue:
        _, left, right, merged = heapq.heappop(queue)
        if not symbols[left] or not symbols[right] or symbols[left] + symbols[right] != merged:
            continue  # stale: one of the two symbols has merged with another since this entry was pushed
        symbols[left], symbols[right] = merged, ""
        right_of[left] = right_of[right]
        if right_of[left] < len(symbols):
            left_of[right_of[left]] = left
        push_pair(left_of[left], left)
        push_pair(left, right_of[left])
    return [s for s in symbols if s]


def spm_encode(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int) -> list[int]:
    """The ids of ``text`` (spaces already ``▁``): your ``spm_merge``, then each symbol's id; a symbol that is no
    token becomes one ``<0xNN>`` token per UTF-8 byte, and a byte without such a token becomes ``unk_id``.

    >>> token_ids = {"<unk>": 0, "▁": 1, "▁h": 2, "i": 3, "▁hi": 4, "<0xC3>": 5, "<0xA9>": 6}
    >>> spm_encode("▁hi▁é", token_ids, [0.0, -1.0, -2.0, -3.0, -1.5, 0.0, 0.0], 0)
    [4, 1, 5, 6]
    >>> spm_encode("▁😀", token_ids, [0.0, -1.0, -2.0, -3.0, -1.5, 0.0, 0.0], 0)   # no <0xF0>, <0x9F>, ...
    [1, 0, 0, 0, 0]
    """
    ids: list[int] = []
    for symbol in spm_merge(text, token_ids, scores):
        if symbol in token_ids:
            ids.append(token_ids[symbol])
        else:  # a character with no token of its own: byte fallback
            ids += [token_ids.get(f"<0x{b:02X}>", unk_id) for b in symbol.encode("utf-8")]
    return ids
