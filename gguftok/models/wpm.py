"""WordPiece (``tokenizer.ggml.model = "bert"``) as llama.cpp runs it: normalise, split, longest match.

The text is cut into words at whitespace and around punctuation and CJK ideographs, lowercased and
stripped of accents (llama.cpp's tables: its "NFD" keeps only the first code point of a decomposition).
Each word, with a ``▁`` in front, is matched greedily from the left by the longest token; a word that
cannot be matched to the end becomes one unknown token.

>>> preprocess("Héllo, World!", lowercase=True, strip_accents=True)
['hello', ',', 'world', '!']
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache

import numpy as np

from ..errors import EncodeError
from ..pretokenize.unicode import (
    _LOWER,
    _NFD,
    ACCENT_MARK,
    CATEGORY,
    CONTROL,
    MAX_CODE_POINT,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE,
    WHITESPACE_SET,
    decode_lax,
    flags,
    nfd_first,
    to_lower,
)
from .piece_cache import DEFAULT_PIECES, PieceCache, char_pattern, encode_pieces
from .prefix import PrefixIndex, common_prefix_length

_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B920, 0x2CEAF),  # 0x2B920, not 0x2B820: llama.cpp keeps the Hugging Face quirk
        (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_chinese_char(cp: int) -> bool:
    return any(a <= cp <= b for a, b in _CJK)


def preprocess(text: str | bytes, lowercase: bool, strip_accents: bool) -> list[str]:
    """The words of ``text`` as llama.cpp's WordPiece session sees them."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    words = _bulk_words(data, strip_accents)
    if words is None:
        return _preprocess_slow(data, lowercase, strip_accents)
    return [_lower(w) for w in words] if lowercase else words


def _preprocess_slow(data: bytes, lowercase: bool, strip_accents: bool) -> list[str]:
    """:func:`preprocess` one code point at a time, as llama.cpp's loop reads them (the reference the bulk
    path is tested against; also the path of a text with a code point past U+10FFFF, which it raises on)."""
    cps = decode_lax(data)
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


# ------------------------------------------------------------------------------------------- in bulk
def _passes(mask: np.ndarray) -> list[re.Pattern[str]]:
    """Patterns for the runs of code points where ``mask`` is true, one pass for U+0000-U+FFFF and one above:
    apart, each pass scans the text at the speed of one class test per character (see ``char_pattern``)."""
    out = []
    for lo, hi in ((0, 0x10000), (0x10000, 0x110000)):
        part = np.zeros_like(mask)
        part[lo:hi] = mask[lo:hi]
        if part.any():
            out.append(re.compile(char_pattern(part, run=True)))
    return out


@cache
def _patterns(strip_accents: bool, scope: int = 0x110000
              ) -> tuple[list[re.Pattern[str]], dict[int, int], list[re.Pattern[str]], re.Pattern[str]]:
    """The loop of :func:`_preprocess_slow` as three passes in C over the whole text, built from the same
    tables: (1) with ``strip_accents``, each code point to the first of its decomposition (``nfd_first``);
    (2) delete what the loop skips: NUL, U+FFFD, controls (and accent marks with ``strip_accents``), judged on
    the code point after (1), as the loop judges it, and never whitespace, which the loop tests first; (3) the
    words: one punctuation, ASCII symbol or CJK ideograph alone, or a run of anything else but whitespace.
    The loop lowercases each character after it has judged it, so the words are lowercased one by one.

    ``scope``: the patterns for a text whose code points are all below it (128: ASCII; 0x10000: no code point
    above U+FFFF), whose classes are smaller and faster. Returns (the passes of (1), its table, the passes of
    (2), the pattern of (3))."""
    cps = np.arange(0x110000)
    cat = np.frombuffer(CATEGORY, dtype=np.uint8)
    ws = np.zeros(0x110000, dtype=bool)
    ws[sorted(WHITESPACE_SET)] = True
    nfd_table: dict[int, int] = {}
    changed = np.zeros(0x110000, dtype=bool)
    if strip_accents:
        for first, last, nfd in _NFD:
            for cp in range(first, min(last + 1, scope)):
                if cp != nfd:
                    nfd_table[cp] = nfd
                    changed[cp] = True
    deleted = ((cat & CONTROL) != 0) | (cps == 0) | (cps == 0xFFFD)
    if strip_accents:
        deleted |= (cat & ACCENT_MARK) != 0
    deleted &= ~ws
    alone = ((cat & PUNCTUATION) != 0) | ((cps < 0x7F) & ((cat & SYMBOL) != 0))
    for a, b in _CJK:
        alone[a:b + 1] = True
    alone &= ~ws
    rest = ~(alone | ws)
    for mask in (deleted, alone, rest):
        mask[scope:] = False
    words = re.compile(f"{char_pattern(alone)}|{char_pattern(rest, run=True)}")
    return _passes(changed), nfd_table, _passes(deleted), words


def _text_of(data: bytes) -> tuple[str | None, int]:
    """``data`` decoded as llama.cpp decodes it (lax: U+FFFD per bad byte), or None for a code point past
    U+10FFFF (no ``str`` holds one); and a bound on its code points for :func:`_patterns`."""
    if data.isascii():
        return data.decode("ascii"), 128
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        cps = decode_lax(data)
        top = max(cps)
        return (None, 0) if top > MAX_CODE_POINT else ("".join(map(chr, cps)), 0x10000 if top < 0x10000 else 0x110000)
    # a code point above U+FFFF takes 4 bytes in UTF-8, led by 0xF0-0xF4
    return text, 0x110000 if data.translate(None, _BELOW_F0) else 0x10000


_BELOW_F0 = bytes(range(0xF0))


def _bulk_words(data: bytes, strip_accents: bool) -> list[str] | None:
    """The words of :func:`_preprocess_slow`, not yet lowercased, or None when only it can tell (it raises)."""
    text, scope = _text_of(data)
    if text is None:
        return None
    nfd_passes, nfd_table, deleted, words = _patterns(strip_accents, scope)
    for p in nfd_passes:
        if p.search(text):
            text = p.sub(lambda m: m.group().translate(nfd_table), text)
    for p in deleted:
        if p.search(text):
            text = p.sub("", text)
    return words.findall(text)


_MARK = "\ufffe".encode()
_MARK_TEXT = "\ufffe"
assert _preprocess_slow(b"a " + _MARK + b" .", True, True) == ["a", _MARK_TEXT, "."]  # a word of its own


def _lower(word: str) -> str:
    """llama.cpp's ``unicode_tolower`` of each code point (for ASCII, what ``str.lower`` does)."""
    return word.lower() if word.isascii() else word.translate(_LOWER)


class WPMModel:
    """Raw-text fragment -> ids for one WordPiece vocabulary.

    llama.cpp tries every length up to the longest token at each position of a word; the longest token that
    the rest of the word starts with is the same as one lookup in a sorted list of the tokens
    (:class:`~gguftok.models.prefix.PrefixIndex`), which costs no more however long the tokens are.

    Words are independent by construction (each is matched alone, from its own ``▁``), so each distinct
    word is matched once and its ids served from a :class:`~gguftok.models.piece_cache.PieceCache` of
    ``cache_size`` words, keyed by the word before lowercasing. Before that, the text is cut at ASCII
    whitespace (``bytes.split()``, in C: space, tab, LF, VT, FF, CR, all whitespace to llama.cpp too), and each
    chunk's ids are kept as well: no word spans whitespace, the loop forgets nothing at it (it only ends the
    word being read), and an ASCII byte is never part of another character, so a chunk's words alone are the
    text's words there (decoding included: a bad sequence cut by it resolves the same).
    """

    def __init__(self, texts: list[str], unk: int, lowercase: bool, strip_accents: bool,
                 cache_size: int = DEFAULT_PIECES) -> None:
        self.bytes_to_id = {t.encode("utf-8", "surrogateescape"): i for i, t in enumerate(texts)}
        self.prefixes = PrefixIndex(self.bytes_to_id)
        self._key_ids = [self.bytes_to_id[k] for k in self.prefixes.keys]
        self.unk, self.lowercase, self.strip_accents = unk, lowercase, strip_accents
        self._cache = PieceCache(self._word_ids, cache_size)
        self._chunks = PieceCache(self._chunk_ids, cache_size)

    def encode(self, data: bytes) -> list[int]:
        chunks = data.split()
        cache = self._chunks
        if len(chunks) > 64:
            self._fill([c for c in set(chunks).difference(cache) if len(c) <= cache.longest])
        return encode_pieces(cache, chunks)

    def _fill(self, chunks: list[bytes]) -> None:
        """Preprocess many new chunks in one pass: joined by a word that none holds (U+FFFE, a noncharacter:
        one word alone between spaces), their words come out in order, each chunk's between two of it."""
        if len(chunks) < 8 or any(_MARK in c for c in chunks):
            return
        words = _bulk_words((b" " + _MARK + b" ").join(chunks), self.strip_accents)
        if words is None or words.count(_MARK_TEXT) != len(chunks) - 1:
            return  # one of them raises (one at a time, in the text's order), or decodes to U+FFFE (overlong)
        keep, word_cache, find = self._chunks.keep, self._cache, words.index
        words.append(_MARK_TEXT)
        at = 0
        for chunk in chunks:
            end = find(_MARK_TEXT, at)
            keep(chunk, word_cache[words[at]] if end == at + 1 else encode_pieces(word_cache, words[at:end]))
            at = end + 1

    def _chunk_ids(self, chunk: bytes) -> list[int]:
        """The ids of a text without ASCII whitespace: its words through the word cache."""
        words = _bulk_words(chunk, self.strip_accents)
        if words is None:  # a code point past U+10FFFF: the loop raises on it
            return [i for w in _preprocess_slow(chunk, self.lowercase, self.strip_accents) for i in self.match(w)]
        if len(words) == 1:
            return self._cache[words[0]]
        return encode_pieces(self._cache, words)

    def _word_ids(self, word: str) -> list[int]:
        return self.match(_lower(word) if self.lowercase else word)

    def match(self, word: str) -> list[int]:
        """The ids of one preprocessed word: greedy longest match of ``▁`` + the word, or the unknown id.

        :meth:`PrefixIndex.longest <gguftok.models.prefix.PrefixIndex.longest>` inlined: the text from ``i``,
        cut to the longest token's length, sorts just after every token it starts with, which are all prefixes
        of the last token not above it (``keys[k - 1]``)."""
        idx = self.prefixes
        keys, lens, key_ids, ancestor, width = idx.keys, idx.lens, self._key_ids, idx.ancestor, idx.max_len
        w = "\u2581".encode() + word.encode("utf-8", "surrogatepass")
        n = len(w)
        ids: list[int] = []
        i = 0
        while i < n:  # greedy longest match over byte offsets, any token type
            s = w[i:i + width]
            k = bisect_right(keys, s)
            if not k:
                return [self.unk]
            before = keys[k - 1]
            j = k - 1 if s.startswith(before) else ancestor(k - 1, common_prefix_length(before, s))
            if j < 0:
                return [self.unk]  # no token starts here: the whole word is unknown
            ids.append(key_ids[j])
            i += lens[j]
        return ids or [self.unk]
