"""WordPiece (``tokenizer.ggml.model = "bert"``) as llama.cpp runs it: normalise, split, longest match.

The text is cut into words at whitespace and around punctuation and CJK ideographs, lowercased and
stripped of accents (llama.cpp's tables: its "NFD" keeps only the first code point of a decomposition).
Each word, with a ``▁`` in front, is matched greedily from the left by the longest token; a word that
cannot be matched to the end becomes one unknown token.

>>> preprocess("Héllo, World!", lowercase=True, strip_accents=True)
['hello', ',', 'world', '!']
"""

from __future__ import annotations

import operator
import re
from bisect import bisect_right
from functools import cache, partial
from itertools import chain, compress, count, filterfalse, repeat

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

VECTOR_WIDTH = 64  # tokens up to this many bytes: the words are matched together in NumPy (_greedy_many)
# ... when there are at least this many (2,048 words: 13 ms one at a time, 7 ms together; building the tables
# on first use: 6 ms), and while at least VECTOR_LEFT are left
VECTOR_WORDS, VECTOR_LEFT = 2048, 64

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
    nfd_table: dict[int, int] = {}
    if strip_accents:
        for first, last, nfd in _NFD:
            for cp in range(first, min(last + 1, scope)):
                if cp != nfd:
                    nfd_table[cp] = nfd
    # the tables cover the code points the passes can meet: below the scope, and what (1) makes of them (an ASCII
    # text's patterns are built from 128 entries, not 1,114,112: 1 ms instead of 55, on a first prompt)
    size = max(scope, max(nfd_table.values(), default=0) + 1)
    cps = np.arange(size)
    cat = np.frombuffer(CATEGORY, dtype=np.uint8)[:size]
    ws = np.zeros(size, dtype=bool)
    ws[[cp for cp in sorted(WHITESPACE_SET) if cp < size]] = True
    changed = np.zeros(size, dtype=bool)
    changed[list(nfd_table)] = True
    deleted = ((cat & CONTROL) != 0) | (cps == 0) | (cps == 0xFFFD)
    if strip_accents:
        deleted |= (cat & ACCENT_MARK) != 0
    deleted &= ~ws
    alone = ((cat & PUNCTUATION) != 0) | ((cps < 0x7F) & ((cat & SYMBOL) != 0))
    for a, b in _CJK:
        alone[a:b + 1] = True
    alone &= ~ws
    rest = ~(alone | ws)
    # passes (2) and (3) read the code points after (1): those below the scope and what (1) makes of them, which
    # can be above it (U+FA6C, U+FACF-U+FAD1 and U+FAD5-U+FAD7 decompose to CJK ideographs above U+FFFF in
    # llama.cpp's unicode_ranges_nfd: each a word alone)
    seen = np.zeros(size, dtype=bool)
    seen[:scope] = True
    seen[list(set(nfd_table.values()))] = True
    for mask in (deleted, alone, rest):
        mask &= seen
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


# Words that stand alone between spaces, unchanged by every pass and by lowercasing (noncharacters): one that
# is in no chunk separates the chunks of one bulk pass (see ``WPMModel._fill``).
_MARKS = ("\ufffe", "\uffff", *map(chr, range(0xFDD0, 0xFDF0)))
assert all(_preprocess_slow(f"a {m} .".encode(), True, True) == ["a", m, "."] for m in _MARKS)
_CUT_ID = -1
_CUT = [_CUT_ID]


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

    **A text's new chunks in one batch** (:meth:`_fill`; on the bench texts, cold, CPU time against the loop
    per chunk it replaces: English prose 39 -> 28 ms, C++ 93 -> 66 ms, multilingual 286 -> 182 ms):

    - A chunk of ASCII letters and digits (``bytes.isalnum``) is one word: no byte of it is whitespace, deleted,
      cut at or changed by the accent pass, so its words are itself, with no pass at all.
    - The other new chunks are joined by `` M `` where M is a noncharacter of :data:`_MARKS` that no chunk holds
      (the import checks that the loop keeps each as one word alone between spaces); by the chunk rule above, the
      words of the joined text are each chunk's words, with one M between two chunks. Their distinct new words
      are matched together (:meth:`_match_all`), every word's ids are concatenated in C with M's as -1 (no
      token's id), and each chunk's ids are the slice between two -1s. If M does not come out exactly once per
      gap (an overlong form decodes to M, or the cache dropped M while it was read), nothing is kept and the
      chunks are read one at a time; a code point past U+10FFFF does the same, so that the loop raises on it.
    - The new entries go into the caches with one ``dict.update`` (``PieceCache.keep_all``, bounded as
      ``PieceCache.keep``), and a text with more new chunks than the cache holds is read in parts.
    """

    def __init__(self, texts: list[str], unk: int, lowercase: bool, strip_accents: bool,
                 cache_size: int = DEFAULT_PIECES) -> None:
        self.bytes_to_id = {t.encode("utf-8", "surrogateescape"): i for i, t in enumerate(texts)}
        self.prefixes = PrefixIndex(self.bytes_to_id)
        self._key_ids = [self.bytes_to_id[k] for k in self.prefixes.keys]
        self.unk, self.lowercase, self.strip_accents = unk, lowercase, strip_accents
        self._cache = PieceCache(self._word_ids, cache_size)
        self._chunks = PieceCache(self._chunk_ids, cache_size)
        self._np = None  # see _tables

    def encode(self, data: bytes) -> list[int]:
        chunks = data.split()
        cache = self._chunks
        if len(chunks) <= 64 or not cache.limit:
            return encode_pieces(cache, chunks)
        # the new chunks in the order of the text: their ids lists are made in that order, and reading them
        # back in it is faster (multilingual text warm: 36 ms in set order, 24 ms in text order)
        new = list(filterfalse(cache.__contains__, dict.fromkeys(chunks)))
        if len(new) <= cache.limit:  # all kept (older entries go first), then read
            self._fill(new)
            return encode_pieces(cache, chunks)
        # in parts of at most half the cache's size, so that a part's new chunks all stay in it until it is read
        step = max(64, cache.limit // 2)
        out: list[int] = []
        for at in range(0, len(chunks), step):
            part = chunks[at:at + step]
            self._fill(list(filterfalse(cache.__contains__, dict.fromkeys(part))))
            out += encode_pieces(cache, part)
        return out

    def _fill(self, new: list[bytes]) -> None:
        """Preprocess many new chunks in one pass and keep their ids: joined by a word that none holds (a
        noncharacter of :data:`_MARKS`: one word alone between spaces), their words come out in order, each
        chunk's between two of it. The new distinct words are matched together (:meth:`_match_all`)."""
        longest = self._chunks.longest
        chunks = [c for c in new if len(c) <= longest]
        if len(chunks) < 8:
            return
        # an ASCII letters-and-digits chunk is one word (none of its bytes is cut at or deleted): no pass
        alone = list(map(bytes.isalnum, chunks))
        if any(alone):
            one = list(compress(chunks, alone))
            words = list(map(bytes.decode, one))
            self._keep_words(words)
            self._chunks.keep_all(dict(zip(one, map(self._cache.__getitem__, words), strict=True)))
            chunks = list(compress(chunks, map(operator.not_, alone)))
            if len(chunks) < 8:
                return
        ascii_ = list(map(bytes.isascii, chunks))
        if any(ascii_) and self._fill_ascii(list(compress(chunks, ascii_))):
            chunks = list(compress(chunks, map(operator.not_, ascii_)))
            if len(chunks) < 8:
                return
        flat = b"\n".join(chunks)  # no chunk holds a newline: a mark found in it is inside a chunk
        mark = next((m for m in _MARKS if m.encode() not in flat), None)
        if mark is None:
            return
        words = _bulk_words(flat.replace(b"\n", f" {mark} ".encode()), self.strip_accents)
        if words is None:
            return  # one of them raises (one at a time, in the text's order)
        word_cache = self._cache
        self._keep_words(words, mark)
        # every word's ids, concatenated in C, with the mark's as -1 (an id no token has), and each chunk's
        # slice of them, between the -1s
        word_cache[mark] = _CUT
        try:
            flat = list(chain.from_iterable(map(word_cache.__getitem__, words)))  # too long or dropped: computed
        finally:
            word_cache.pop(mark, None)
        cuts = list(compress(count(), map(_CUT_ID.__eq__, flat)))
        if len(cuts) != len(chunks) - 1:
            return  # a chunk decodes to the mark (an overlong form), or the cache dropped it: one at a time
        lo = [0, *(c + 1 for c in cuts)]
        cuts.append(len(flat))
        self._chunks.keep_all(dict(zip(chunks, list(map(flat.__getitem__, map(slice, lo, cuts))), strict=True)))

    def _fill_ascii(self, chunks: list[bytes]) -> bool:
        """:meth:`_fill` of ASCII chunks: the passes of an ASCII text (``_patterns(..., 128)``: no accent pass,
        small classes) on each chunk, called from C (``map``), so no separator and no cut; False (nothing done)
        if an accent pass would be needed."""
        nfd_passes, _, deleted, words_pattern = _patterns(self.strip_accents, 128)
        if nfd_passes:
            return False
        texts = list(map(bytes.decode, chunks))
        for p in deleted:
            if p.search("\n".join(texts)):
                texts = list(map(p.sub, repeat(""), texts))
        per_chunk = list(map(words_pattern.findall, texts))
        self._keep_words(list(chain.from_iterable(per_chunk)))
        ids = map(list, map(chain.from_iterable, map(partial(map, self._cache.__getitem__), per_chunk)))
        self._chunks.keep_all(dict(zip(chunks, ids, strict=True)))
        return True

    def _keep_words(self, words: list[str], mark: str | None = None) -> None:
        """Match the new distinct ``words`` (but ``mark``) and keep their ids in the word cache."""
        cache = self._cache
        longest = cache.longest
        new = set(words).difference(cache)
        new.discard(mark)
        new = [w for w in new if len(w) <= longest]
        if new:
            cache.keep_all(dict(zip(new, self._match_all(new), strict=True)))

    def _match_all(self, words: list[str]) -> list[list[int]]:
        """:meth:`match` of each word (not yet lowercased), in bulk: lowercased and encoded as one string, the
        words that are one token found with one dict lookup each in C, the others by :meth:`_greedy_many`."""
        joined = "\n".join(words)  # no word holds whitespace
        if self.lowercase:
            joined = joined.lower() if joined.isascii() else joined.translate(_LOWER)
        whole = ("\u2581" + joined.replace("\n", "\n\u2581")).encode("utf-8", "surrogatepass").split(b"\n")
        out = [[t] if t is not None else None for t in map(self.bytes_to_id.get, whole)]
        rest = [k for k, ids in enumerate(out) if ids is None]
        unk = [self.unk]
        for k, ids in zip(rest, self._greedy_many([whole[k] for k in rest]), strict=True):
            out[k] = ids or unk
        return out

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

    def _greedy(self, w: bytes, i: int = 0) -> list[int]:
        """The greedy longest match of ``w`` (``▁`` and the word) from byte ``i``, or [] when a place has no
        token: what :meth:`match` finds, with the parent of the token before the text in the sorted list tried
        before the jump pointers (every token the text starts with is a prefix of that token), and, when the
        rest of the word is short enough to be a token, one dict lookup for it first.

        >>> m = WPMModel(["[UNK]", "\u2581un", "\u2581u", "able", "a", "ble"], 0, True, True)
        >>> m._greedy("\u2581unable".encode()), m._greedy("\u2581unxble".encode())
        ([1, 3], [])
        """
        idx = self.prefixes
        keys, lens, parent, key_ids, width, get = idx.keys, idx.lens, idx.parent, self._key_ids, idx.max_len, \
            self.bytes_to_id.get
        n = len(w)
        ids: list[int] = []
        while i < n:
            if n - i <= width:
                t = get(w[i:])
                if t is not None:
                    ids.append(t)
                    return ids
            s = w[i:i + width]
            j = bisect_right(keys, s) - 1
            if j < 0:
                return []
            if not s.startswith(keys[j]):
                j = parent[j]
                if j >= 0 and not s.startswith(keys[j]):
                    j = idx.ancestor(j, common_prefix_length(keys[j], s))
                if j < 0:
                    return []
            ids.append(key_ids[j])
            i += lens[j]
        return ids

    def _tables(self):
        """The sorted tokens as NumPy rows for :meth:`_greedy_many` (built on first use), or None when they
        cannot be: a token with a NUL byte (a row is padded with NULs), or tokens longer than
        ``VECTOR_WIDTH`` bytes (a row per word and step would be too wide)."""
        if self._np is None:
            idx = self.prefixes
            width = idx.max_len
            if not idx.keys or width > VECTOR_WIDTH or any(b"\x00" in k for k in idx.keys):
                self._np = False
            else:
                rows = np.array(idx.keys, dtype=f"S{width}")
                self._np = (rows, rows.view(np.uint8).reshape(len(idx.keys), width),
                            np.frombuffer(idx.lens, dtype=np.int64), np.frombuffer(idx.parent, dtype=np.int64),
                            np.array(self._key_ids))
        return self._np or None

    def _greedy_many(self, ws: list[bytes]) -> list[list[int]]:
        """:meth:`_greedy` of each of ``ws``, all words one step at a time together in NumPy.

        One step, for every word not yet done: its next ``width`` bytes (NULs past its end: no word holds a
        NUL, the loop deletes it, and no token does, see :meth:`_tables`) sorted into the rows of the tokens
        (``searchsorted``, which orders NUL-padded rows as ``bytes`` orders the texts); the row before it is
        the largest token not above the text, every token the text starts with is a prefix of it, and the
        longest of those is its deepest ancestor no longer than their common prefix (the first byte where they
        differ). A word with none there fails (``[]``). The last few words left are finished one at a time.

        >>> m = WPMModel(["[UNK]", "\u2581un", "\u2581u", "able", "a", "ble"], 0, True, True)
        >>> ws = ["\u2581unable".encode(), "\u2581unxble".encode(), "\u2581ua".encode()] * 1000
        >>> m._greedy_many(ws)[:3], m._greedy_many(ws) == [m._greedy(w) for w in ws]
        ([[1, 3], [], [2, 4]], True)
        """
        n = len(ws)
        tables = None if n < VECTOR_WORDS else self._tables()
        if tables is None:
            return [self._greedy(w) for w in ws]
        rows, row_bytes, lens, parent, key_ids = tables
        width = row_bytes.shape[1]
        size = np.fromiter(map(len, ws), dtype=np.int64, count=n)
        ends = np.cumsum(size)
        pos = ends - size
        text = np.frombuffer(b"".join(ws) + bytes(width), dtype=np.uint8)
        cols = np.arange(width)
        active = np.arange(n)
        failed = np.zeros(n, dtype=bool)
        words, tokens = [], []
        while len(active) >= VECTOR_LEFT:
            at = pos[active][:, None] + cols
            window = text[at]
            window[at >= ends[active][:, None]] = 0
            j = np.searchsorted(rows, window.view(f"S{width}").ravel(), side="right") - 1
            differ = row_bytes[j] != window  # j = -1 (below every token) is sorted out below
            common = np.where(differ.any(axis=1), differ.argmax(axis=1), width)
            j[j < 0] = -1
            longer = lens[j] > common  # lens[-1], the root's, is 0
            while longer.any():
                j[longer] = parent[j[longer]]
                longer = lens[j] > common
            found = j >= 0
            failed[active[~found]] = True
            active, j = active[found], j[found]
            words.append(active)
            tokens.append(key_ids[j])
            pos[active] += lens[j]
            active = active[pos[active] < ends[active]]
        words_at, tokens_at = np.concatenate(words), np.concatenate(tokens)
        flat = tokens_at[np.argsort(words_at, kind="stable")].tolist()
        bounds = np.concatenate(([0], np.cumsum(np.bincount(words_at, minlength=n)))).tolist()
        out = list(map(flat.__getitem__, map(slice, bounds[:-1], bounds[1:])))
        starts = (ends - size).tolist()
        for k in active.tolist():  # the few left: on from where they are
            more = self._greedy(ws[k], int(pos[k]) - starts[k])
            out[k] = out[k] + more if more else []
        for k in np.flatnonzero(failed).tolist():
            out[k] = []
        return out
