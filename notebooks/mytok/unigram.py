"""Stage 11: Unigram, the family of T5, XLM-R and nomic-bert-moe (notebook 11).

Unigram does not merge. Every token has a score (a log-probability), and of all the ways to cut the text into
tokens it takes the one whose scores add up to the most, with the Viterbi algorithm: walking the text from the
left, it keeps for each position the best score of a split that ends there, and which token ends it. A character
that starts no token of one character can still be stepped over as the unknown token, at ``unk_score``; the
unknown tokens next to each other in the result are one unknown token.

Before that, the text is normalised (``_normalize``, given): the file's character map
(``tokenizer.ggml.precompiled_charsmap``) rewrites what it knows (full-width letters to ASCII, ``①`` to ``1``),
and the spaces become ``▁``, one in front of every word.

``token_ids`` maps the text of each token Viterbi may use to its id, and ``scores[i]`` is the score of token
``i``. Keep three lists of ``len(text) + 1`` entries: the best score of a split of ``text[:end]`` (``0.0`` for
the empty start, ``-inf`` elsewhere), where its last token starts, and which token it is. ``_normalize`` is given,
written out below: you need not change it.
"""

from __future__ import annotations

import struct


def _normalize(text: str, charsmap: bytes, add_space_prefix: bool = True,
               remove_extra_whitespaces: bool = True) -> str:
    """Given: llama.cpp's Unigram normaliser, for a vocabulary without user-defined tokens.

    ``charsmap`` is ``tokenizer.ggml.precompiled_charsmap``: a little-endian u32 size, that many bytes of a
    double-array trie (XCDA) of 32-bit units, then NUL-terminated replacement strings. At each place the
    longest key of the trie that the text's bytes start with is replaced; elsewhere a character is copied.
    Then each run of spaces becomes one ``▁`` before the next word (``remove_extra_whitespaces``), and spaces at
    either end go.

    >>> _normalize("hello  world ", b"")
    '▁hello▁world'
    """
    data = text.encode("utf-8", "surrogatepass")
    size = struct.unpack_from("<I", charsmap)[0] if charsmap else 0
    units = struct.unpack_from(f"<{size // 4}I", charsmap, 4) if charsmap else ()
    strings = charsmap[4 + size:]
    out = bytearray()
    i = 0
    while i < len(data):
        length, offset = 0, 0
        if units:
            node = _base(units[0])
            for k in range(i, len(data)):  # walk the trie from the root with the bytes from i
                c = data[k]
                if c == 0:
                    break
                node ^= c
                if units[node] & 0x800000FF != c:
                    break
                leaf = (units[node] >> 8) & 1
                node ^= _base(units[node])
                if leaf:
                    length, offset = k + 1 - i, units[node] & 0x7FFFFFFF
        if length:
            out += strings[offset:strings.index(b"\0", offset)]
            i += length
        else:  # one character, copied
            n = _utf8_length(data[i])
            out += data[i:i + n]
            i += n
    spaced = bytearray()
    in_word = prepended = False
    for ch in out:
        if ch != 0x20:
            if not in_word:
                in_word = True
                if (add_space_prefix and not prepended) or remove_extra_whitespaces:
                    spaced += "▁".encode()
                    prepended = True
            spaced.append(ch)
        else:
            in_word = False
            if not remove_extra_whitespaces:
                spaced += "▁".encode()
    return spaced.decode("utf-8", "replace")


def _base(unit: int) -> int:
    return (unit >> 10) << ((unit & 0x200) >> 6)


def _utf8_length(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def unigram_encode(text: str, token_ids: dict[str, int], scores: list[float], unk_id: int,
                   unk_score: float, max_len: int) -> list[int]:
    """The ids of the best-scoring split of ``text`` (already normalised), by Viterbi; a character that starts
    no one-character token may be the unknown token at ``unk_score``, and unknowns next to each other are one.
    ``max_len``: the length of the longest token, in characters (no token ends further from where it starts).

    >>> token_ids = {"<unk>": 0, "▁": 1, "▁a": 2, "b": 3, "▁ab": 4, "c": 5}
    >>> scores = [0.0, -1.0, -2.0, -2.5, -5.0, -1.0]
    >>> unigram_encode("▁abc", token_ids, scores, 0, -20.0, 3)     # ▁a b c: -5.5 beats ▁ab c: -6.0
    [2, 3, 5]
    >>> unigram_encode("▁axyb", token_ids, scores, 0, -20.0, 3)    # x and y: one unknown
    [2, 0, 3]
    """
    raise NotImplementedError
