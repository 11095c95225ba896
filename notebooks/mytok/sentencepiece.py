"""Stage 11: SentencePiece, the family of Llama 1 and 2, Mistral and Phi-3 (notebook 11).

A SentencePiece vocabulary has no merge list: every token has a score (``tokenizer.ggml.scores``), and the
text, its spaces already written as ``▁``, is merged by score. It starts as one symbol per character; any two
neighbours whose concatenation is a token may merge, and the pair whose token has the **highest score** merges
first, the **leftmost** on ties; then the merged symbol and its new neighbours may form new pairs, until no pair
is a token. A symbol left at the end that is no token is written as its UTF-8 bytes, one ``<0xNN>`` token per
byte (upper-case hex).

``token_ids`` maps each token's text to its id, and ``scores[i]`` is the score of token ``i``. ``heapq`` gives
a queue that pops the smallest entry first, so push ``(-score, position, ...)`` to get the highest score, then
the leftmost, as in notebook 05.
"""

from __future__ import annotations


def spm_merge(text: str, token_ids: dict[str, int], scores: list[float]) -> list[str]:
    """The symbols of ``text`` once no neighbouring pair is a token: highest-scoring pair first (ties: the
    leftmost).

    >>> spm_merge("▁abc", {"▁a": 0, "bc": 1, "▁abc": 2}, [-1.0, -2.0, -0.5])
    ['▁abc']
    >>> spm_merge("▁abc", {"▁a": 0, "ab": 1}, [-2.0, -1.0])      # "ab" scores higher, so it takes the b
    ['▁', 'ab', 'c']
    """
    raise NotImplementedError


def spm_encode(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int) -> list[int]:
    """The ids of ``text`` (spaces already ``▁``): your ``spm_merge``, then each symbol's id; a symbol that is no
    token becomes one ``<0xNN>`` token per UTF-8 byte, and a byte without such a token becomes ``unk_id``.

    >>> token_ids = {"<unk>": 0, "▁": 1, "▁h": 2, "i": 3, "▁hi": 4, "<0xC3>": 5, "<0xA9>": 6}
    >>> spm_encode("▁hi▁é", token_ids, [0.0, -1.0, -2.0, -3.0, -1.5, 0.0, 0.0], 0)
    [4, 1, 5, 6]
    >>> spm_encode("▁😀", token_ids, [0.0, -1.0, -2.0, -3.0, -1.5, 0.0, 0.0], 0)   # no <0xF0>, <0x9F>, ...
    [1, 0, 0, 0, 0]
    """
    raise NotImplementedError
