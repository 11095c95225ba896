"""WordPiece (``tokenizer.ggml.model = "bert"``) as llama.cpp runs it: normalise, split, longest match.

The text is cut into words at whitespace and around punctuation and CJK ideographs, lowercased and
stripped of accents (llama.cpp's tables: its "NFD" keeps only the first code point of a decomposition).
Each word, with a ``▁`` in front, is matched greedily from the left by the longest token; a word that
cannot be matched to the end becomes one unknown token.

>>> preprocess("Héllo, World!", lowercase=True, strip_accents=True)
['hello', ',', 'world', '!']
"""

from __future__ import annotations

from ..errors import EncodeError
from ..pretokenize.unicode import (
    ACCENT_MARK,
    CONTROL,
    MAX_CODE_POINT,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE,
    decode_lax,
    flags,
    nfd_first,
    to_lower,
)
from .prefix import PrefixIndex

_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B920, 0x2CEAF),  # 0x2B920, not 0x2B820: llama.cpp keeps the Hugging Face quirk
        (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_chinese_char(cp: int) -> bool:
    return any(a <= cp <= b for a, b in _CJK)


def preprocess(text: str | bytes, lowercase: bool, strip_accents: bool) -> list[str]:
    """The words of ``text`` as llama.cpp's WordPiece session sees them."""
    cps = decode_lax(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    if strip_accents:
        cps = [nfd_first(c) for c in cps]
    words: list[str] = []
    word: list[str] = []  # the characters of the word being read (a list: appending to a str is quadratic)
    for c in cps:
        f = flags(c)
        if f & WHITESPACE:
            if word:
                words.append("".join(word))
                word = []
            continue
        if c == 0 or c == 0xFFFD or f & CONTROL:
            continue
        if strip_accents and f & ACCENT_MARK:
            continue
        if c > MAX_CODE_POINT:
            raise EncodeError(f"code point U+{c:X} is past U+10FFFF (llama.cpp aborts)")
        s = chr(to_lower(c) if lowercase else c)
        if f & PUNCTUATION or (c < 0x7F and f & SYMBOL) or is_chinese_char(c):
            if word:
                words.append("".join(word))
                word = []
            words.append(s)
        else:
            word.append(s)
    if word:
        words.append("".join(word))
    return words


class WPMModel:
    """Raw-text fragment -> ids for one WordPiece vocabulary.

    llama.cpp tries every length up to the longest token at each position of a word; the longest token that
    the rest of the word starts with is the same as one lookup in a sorted list of the tokens
    (:class:`~gguftok.models.prefix.PrefixIndex`), which costs no more however long the tokens are.
    """

    def __init__(self, texts: list[str], unk: int, lowercase: bool, strip_accents: bool) -> None:
        self.bytes_to_id = {t.encode("utf-8", "surrogateescape"): i for i, t in enumerate(texts)}
        self.prefixes = PrefixIndex(self.bytes_to_id)
        self.unk, self.lowercase, self.strip_accents = unk, lowercase, strip_accents

    def encode(self, data: bytes) -> list[int]:
        out: list[int] = []
        b2i, longest, keys = self.bytes_to_id, self.prefixes.longest, self.prefixes.keys
        for word in preprocess(data, self.lowercase, self.strip_accents):
            w = "\u2581".encode() + word.encode("utf-8", "surrogatepass")
            n = len(w)
            ids: list[int] = []
            i = 0
            while i < n:  # greedy longest match over byte offsets, any token type
                j = longest(w, i)
                if j < 0:
                    ids = []  # no token starts here: the whole word is unknown
                    break
                key = keys[j]
                ids.append(b2i[key])
                i += len(key)
            out += ids or [self.unk]
        return out
