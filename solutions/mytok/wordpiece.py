"""Stage 11: WordPiece, the family of BERT (notebook 11).

WordPiece works one word at a time. The pre-tokenizer (``_words``, given) cuts the text at whitespace and
around every punctuation mark and CJK ideograph, lower-cases it and strips its accents. Each word is then
matched greedily from the left: ``▁`` and the word, the **longest** token it starts with, then the longest token
the rest starts with, and so on; in a GGUF file a token that starts a word begins with ``▁`` and a
continuation (BERT's ``##able``) is written without a mark. If at some place no token starts the rest, the
whole word becomes the unknown token, once.
"""

from __future__ import annotations

import unicodedata

# Given: the ranges of code points llama.cpp treats as CJK ideographs (each one is a word of its own). The
# sixth range starts at U+2B920, as in Hugging Face's BERT (the true block starts at U+2B820).
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _words(text: str, lowercase: bool = True, strip_accents: bool = True) -> list[str]:
    """Given: BERT's pre-tokenizer as llama.cpp runs it, with Python's ``unicodedata`` tables (llama.cpp has its
    own, of Unicode 15.1; they differ only on characters Python's Unicode version lacks).

    Each code point becomes the first code point of its NFD decomposition (``é`` -> ``e``), whitespace ends a
    word, controls and (with ``strip_accents``) combining marks are dropped, a punctuation mark, an ASCII
    symbol or a CJK ideograph is a word alone, and every character is lower-cased.

    >>> _words("Héllo, World!  It's 3€")
    ['hello', ',', 'world', '!', 'it', "'", 's', '3€']
    """
    words: list[str] = []
    word: list[str] = []
    for ch in text:
        if strip_accents:
            ch = unicodedata.normalize("NFD", ch)[0]
        cp, cat = ord(ch), unicodedata.category(ch)
        if ch.isspace() and not 0x1C <= cp <= 0x1F:  # U+001C..U+001F: controls to llama.cpp, not spaces
            if word:
                words.append("".join(word))
                word = []
            continue
        if cp == 0xFFFD or cat in ("Cc", "Cf", "Co", "Cs"):  # NUL is a control too
            continue
        if strip_accents and cat in ("Mn", "Mc", "Me"):
            continue
        if lowercase:
            low = ch.lower()
            ch = low if len(low) == 1 else ch
        if cat.startswith("P") or (cp < 0x7F and cat.startswith("S")) or any(a <= cp <= b for a, b in _CJK):
            if word:
                words.append("".join(word))
                word = []
            words.append(ch)
        else:
            word.append(ch)
    if word:
        words.append("".join(word))
    return words


def wordpiece_word(word: str, token_ids: dict[str, int], unk_id: int, max_len: int) -> list[int]:
    """The ids of one word: greedy longest match of ``▁`` + ``word``; ``[unk_id]`` if a place has no token.
    ``max_len``: the length of the longest token, in characters (no longer piece of the word can be a token).

    >>> token_ids = {"[UNK]": 0, "▁un": 1, "▁u": 2, "able": 3, "a": 4, "ble": 5}
    >>> wordpiece_word("unable", token_ids, 0, 4), wordpiece_word("unxble", token_ids, 0, 4)
    ([1, 3], [0])
    """
    text = "▁" + word
    ids: list[int] = []
    i = 0
    while i < len(text):
        for j in range(min(len(text), i + max_len), i, -1):  # the longest first
            token_id = token_ids.get(text[i:j])
            if token_id is not None:
                ids.append(token_id)
                i = j
                break
        else:  # no token starts here: the whole word is unknown
            return [unk_id]
    return ids
