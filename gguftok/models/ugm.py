"""Unigram (``tokenizer.ggml.model = "t5"``: T5, XLM-R, nomic-bert-moe) as llama.cpp runs it.

Two steps. **Normalise**: SentencePiece's precompiled character map (an XOR-compressed double array, XCDA,
stored in ``tokenizer.ggml.precompiled_charsmap``) rewrites the longest matching prefix at each position
(full-width letters to ASCII, circled digits to digits, ...); spaces become ``▁``, with one in front of
each word. **Segment**: Viterbi over the normalised bytes picks the tokenization with the highest total
score; an unknown code point costs ``min score - 10``, and runs of unknown tokens merge into one.

Both steps walk llama.cpp's tries as lookups in sorted lists (:class:`~gguftok.models.prefix.PrefixIndex`):
the user-defined tokens' list says how deep the walk goes, the tokens' list which tokens start at a
position; neither stores a token's prefixes nor searches once per byte.

>>> xcda = CharsMap(b"")   # an empty map changes nothing
>>> xcda.replace(b"abc", 0)
(b'a', 1)
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import struct
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from itertools import chain, compress
from operator import itemgetter, not_

import numpy as np

from ..errors import EncodeError, VocabError
from ..vocab import NORMAL, UNUSED, USER_DEFINED
from .distinct import distinct
from .piece_cache import DEFAULT_PIECES, PieceCache, Uncached, char_pattern
from .prefix import PrefixIndex
from .spm import UTF8_LEN, char_junctions, junction_parts

_NOTHING = object()
_OUT_OF_BOUNDS = "Index out of array bounds in XCDA array! (llama.cpp aborts)"


class CharsMap:
    """``precompiled_charsmap``: a u32 XCDA size, the XCDA, then NUL-terminated replacement strings.

    The XCDA is walked byte by byte from the root at every position, as llama.cpp does. Its nodes are an
    array indexed by XOR, so a file can make a walk come back to a node it passed (a cycle) and go on as
    long as the text does: one position would cost the rest of the text, and the text its square. Walks
    from different positions that meet, at the same byte in the same node, go on the same way. So a walk
    longer than ``STRIDE`` bytes notes, every ``STRIDE`` bytes, the node it is in; where that node was met
    before at another depth (a walk from elsewhere can be there too: SentencePiece's maps, trees and DAGs of
    short keys, never get that far), it records how the walk ended, and a later walk that gets there stops
    and takes that ending. A walk then costs at most about ``2 * STRIDE`` steps more than the bytes it
    reads for the first time, and the records one for every ``STRIDE`` bytes of text.

    Walks that never meet are not shortened: a map that is one long chain of nodes (a tree as deep as the
    map is large) still costs every position its depth in steps, as llama.cpp's walk does in C.
    """

    STRIDE = 16

    def __init__(self, blob: bytes) -> None:
        self.nodes: list[int] = []
        self.replacements = b""
        if blob:
            if len(blob) < 4:
                raise VocabError("precompiled_charsmap too small for xcda_blob_size header!",
                                 key="tokenizer.ggml.precompiled_charsmap")
            (size,) = struct.unpack_from("<I", blob)
            if size + 4 >= len(blob):
                raise VocabError("Index out of array bounds in precompiled charsmap!",
                                 key="tokenizer.ggml.precompiled_charsmap")
            self.nodes = np.frombuffer(blob[4:4 + size // 4 * 4], dtype="<u4").tolist()
            self.replacements = blob[4 + size:]

    def _node(self, i: int) -> int:
        if i >= len(self.nodes):
            raise EncodeError(_OUT_OF_BOUNDS)
        return self.nodes[i]

    def _base(self, i: int) -> int:
        u = self._node(i)
        return ((u >> 10) << ((u & 0x200) >> 6)) & 0xFFFFFFFF

    def replace(self, data: bytes, at: int) -> tuple[bytes, int]:
        """The normalised form of the longest prefix of ``data[at:]`` the map knows, and how many bytes it
        consumed; else the code point at ``at`` unchanged (or U+FFFD for one bad byte)."""
        return self.replacer(data)(at)

    def replacer(self, data: bytes) -> Callable[[int], tuple[bytes, int]]:
        """:meth:`replace` for positions of ``data`` taken in increasing order, sharing what the walks found."""
        nodes = self.nodes
        size, n, stride = len(nodes), len(data), self.STRIDE
        root = self._base(0) if nodes else 0
        depth_seen: dict[int, int] = {}  # node -> the depth a walk was first in it at, at a checkpoint
        meeting: set[int] = set()  # nodes met at two depths: walks from different positions can meet there
        ends: dict[int, object] = {}  # position << 32 | node -> how a walk in that node there ends

        def walk(at: int) -> tuple[int, int]:
            """(length, offset) of the last leaf of the walk from ``at`` (0, 0 if none); raises as llama.cpp
            aborts."""
            node, k = root, at
            last: tuple[int, int] | None = None  # (end, offset) of the last leaf
            pending: list[int] = []  # the checkpoints whose ending this walk decides
            rest: object = _NOTHING
            error = False
            while k < n:
                if k % stride == 0 and k - at >= stride:  # a checkpoint
                    key = k << 32 | node
                    if node in meeting:
                        rest = ends.get(key, _NOTHING)
                        if rest is not _NOTHING:
                            break
                        pending.append(key)
                    elif depth_seen.setdefault(node, k - at) != k - at:
                        meeting.add(node)
                        pending.append(key)
                c = data[k]
                if c == 0:
                    break
                x = node ^ c
                if x >= size:
                    error = True
                    break
                u = nodes[x]
                if u & 0x800000FF != c:
                    break
                node = x ^ (((u >> 10) << ((u & 0x200) >> 6)) & 0xFFFFFFFF)
                if (u >> 8) & 1:
                    if node >= size:
                        error = True
                        break
                    last = (k + 1, nodes[node] & 0x7FFFFFFF)
                k += 1
            if rest is True:
                error = True
            elif rest is not _NOTHING and rest is not None:
                last = rest  # type: ignore[assignment]
            for key in pending:  # a walk at that checkpoint ends as this one does from there
                ends[key] = True if error else last if last is not None and last[0] > key >> 32 else None
            if error:
                raise EncodeError(_OUT_OF_BOUNDS)
            return (last[0] - at, last[1]) if last is not None else (0, 0)

        def replace(at: int) -> tuple[bytes, int]:
            length, offset = walk(at) if nodes else (0, 0)
            if length:
                if offset >= len(self.replacements):
                    raise EncodeError("Index out of array bounds in precompiled charsmap! (llama.cpp aborts)")
                end = self.replacements.find(b"\0", offset)
                if end < 0:
                    raise EncodeError("Unterminated string in precompiled charsmap! (llama.cpp aborts)")
                return self.replacements[offset:end], length
            m = _valid_utf8_length(data, at)
            return (data[at:at + m], m) if m else ("\ufffd".encode(), 1)

        return replace


def _valid_utf8_length(data: bytes, i: int) -> int:
    """The length of the lax UTF-8 sequence at ``i`` (llama.cpp's ``unicode_cpt_from_utf8``), 0 if invalid."""
    c = data[i]
    if c < 0x80:
        return 1
    if c < 0xC0 or c >= 0xF8:
        return 0
    need = 1 if c < 0xE0 else 2 if c < 0xF0 else 3
    if i + need >= len(data):
        return 0
    return need + 1 if all(data[i + k] & 0xC0 == 0x80 for k in range(1, need + 1)) else 0


# ------------------------------------------------------------------------------------ normalizing fast
class CharFacts:
    """What the character map does to each code point of valid UTF-8, found at load by walking every code point
    through the XCDA at once (NumPy), so that most of a text is normalised by C-level scans.

    A position of the text is *quiet* when the map's walk from it ends inside its first character without a
    match: the character is copied (a code point whose lead byte the root has no child for is quiet at once).
    It is *simple* when the walk matches exactly the first character and cannot go further: the replacement is
    fixed. Everything else is *active* and goes to the walker (:meth:`CharsMap.replacer`): a character that is
    a key and also begins longer keys, a character that begins longer keys and is followed by a character whose
    first byte the walk could read next (``follow``: all such bytes of all such characters, a superset), and
    any character whose walk meets something unusual (an index out of bounds, a key ending inside a character).
    A position that is not active consumes exactly its character, and what it becomes depends on it alone:
    so the text between two active positions is copied with the simple replacements made, and at an active
    position the walker decides, exactly as the loop of :meth:`UGMModel.normalize_slow` does.

    ``pattern`` finds the simple and active positions of a ``str``; ``simple`` maps a simple character to its
    replacement. ``ok`` is False when a replacement is not valid UTF-8 (the bytes path is then used throughout).

    For the NumPy normalising of :meth:`UGMModel._new_entries`, per code point (one more slot, the sentinel,
    is none of them): ``walks`` (active), ``prefix`` and ``follow`` (a prefix character is active before a
    ``follow`` one), and ``key_prefix`` and ``then``: a character that is a key and begins longer keys, but no
    user-defined token, is active only before a character led by a byte one of those longer keys reads next
    (``then``, a superset); before any other, the walk matches it and stops, so it is replaced by its key's
    value like a simple character (``replaced`` holds both kinds, as arrays in :meth:`replace`).
    """

    def __init__(self, charsmap: CharsMap, user_first: frozenset[int]) -> None:
        self.ok = True
        self.simple: dict[str, str] = {}
        nodes_list = charsmap.nodes
        if not nodes_list:
            self.walks = np.append(self._user_mask(user_first), False)
            self.pattern = re.compile(char_pattern(self.walks[:-1]))
            self.table: dict[int, str] = {}
            self.prefix = self.follow = self.key_prefix = self.then = np.zeros(0x110001, dtype=bool)
            self.replaced: dict[str, str] = {}
            self._replacements()
            return
        nodes = np.asarray(nodes_list, dtype=np.int64)
        size = len(nodes)

        def base(u):
            return ((u >> 10) << ((u & 0x200) >> 6)) & 0xFFFFFFFF

        root = int(base(nodes[0]))
        cps = np.arange(0x110000, dtype=np.int64)
        length = np.where(cps < 0x80, 1, np.where(cps < 0x800, 2, np.where(cps < 0x10000, 3, 4)))
        lead = np.where(length == 1, cps, np.where(length == 2, 0xC0 | (cps >> 6),
                                                     np.where(length == 3, 0xE0 | (cps >> 12), 0xF0 | (cps >> 18))))
        # only the code points whose lead byte the root has (or would leave the array for) are walked
        first = np.arange(256)
        x = root ^ first
        starts = (x >= size) | ((nodes[np.minimum(x, size - 1)] & 0x800000FF) == first)
        starts[0] = False  # the walk stops at a NUL byte: NUL is copied
        cand = cps[starts[lead] & ~((cps >= 0xD800) & (cps < 0xE000))]
        clen = length[cand]
        node = np.full(len(cand), root, dtype=np.int64)
        alive = np.ones(len(cand), dtype=bool)
        odd = np.zeros(len(cand), dtype=bool)  # an index out of bounds on the way, or a key inside a character
        leaf_at = np.zeros(len(cand), dtype=np.int64)
        leaf_val = np.zeros(len(cand), dtype=np.int64)
        for k in range(4):
            shift = 6 * (clen - 1 - k)
            byte = np.where(k == 0, lead[cand], 0x80 | ((cand >> np.maximum(shift, 0)) & 0x3F))
            has = alive & (clen > k)
            x = node ^ byte
            oob = has & (x >= size)
            odd |= oob
            has &= ~oob
            u = nodes[np.where(has, x, 0)]
            ok = has & ((u & 0x800000FF) == byte)
            alive &= ~has | ok
            alive &= ~oob
            node = np.where(ok, x ^ base(u), node)
            leaf = ok & (((u >> 8) & 1) == 1)
            odd |= leaf & (node >= size)
            leaf &= node < size
            leaf_at[leaf] = k + 1
            leaf_val[leaf] = nodes[node[leaf]] & 0x7FFFFFFF
        odd |= (leaf_at > 0) & (leaf_at < clen)
        # does the walk go on after the character? (a child byte, or one that would leave the array)
        ends = np.unique(node[alive])
        byte = np.arange(1, 256)
        x = ends[:, None] ^ byte[None, :]
        child = (x >= size) | ((nodes[np.minimum(x, size - 1)] & 0x800000FF) == byte[None, :])
        more = np.zeros(len(cand), dtype=bool)
        more[alive] = child.any(axis=1)[np.searchsorted(ends, node[alive])]
        key = alive & (leaf_at == clen)
        simple = key & ~more & ~odd
        active = np.zeros(0x110000, dtype=bool)
        active[cand[odd | (key & more)]] = True
        prefix = np.zeros(0x110000, dtype=bool)
        prefix[cand[alive & (leaf_at == 0) & more & ~odd]] = True
        # the bytes the walk could read after a prefix character: a following character led by one of them
        follow_bytes = byte[child[np.searchsorted(ends, np.unique(node[alive & (leaf_at == 0) & more & ~odd]))]
                            .any(axis=0)] if prefix.any() else np.zeros(0, dtype=np.int64)
        follow = np.zeros(0x110000, dtype=bool)
        follow[np.isin(lead, follow_bytes) & ~((cps >= 0xD800) & (cps < 0xE000))] = True
        replacements = charsmap.replacements
        for cp, offset in zip(cand[simple].tolist(), leaf_val[simple].tolist(), strict=True):
            end = replacements.find(b"\0", offset)
            if offset >= len(replacements) or end < 0:
                active[cp] = True  # the walker raises as llama.cpp aborts
                continue
            try:
                self.simple[chr(cp)] = replacements[offset:end].decode("utf-8")
            except UnicodeDecodeError:
                self.ok = False
        active |= self._user_mask(user_first)  # the user-defined tokens' walk comes first, even before these
        self.simple = {c: r for c, r in self.simple.items() if not active[ord(c)]}
        is_simple = np.zeros(0x110000, dtype=bool)
        is_simple[[ord(c) for c in self.simple]] = True
        parts = [char_pattern(is_simple | active)]
        if prefix.any():
            parts.append(f"{char_pattern(prefix)}(?={char_pattern(follow)})")
        self.pattern = re.compile("|".join(parts))
        # the same classes per code point (and the sentinel of BatchViterbi, which is none of them), for NumPy
        self.table = {ord(c): r for c, r in self.simple.items()}
        self.prefix, self.follow = np.append(prefix, False), np.append(follow, False)
        # for BatchViterbi: a character that is a key and begins longer ones is, unless the next character is
        # led by a byte the walk could read after it (``then``), a simple character too (the walk ends at it)
        both = key & more & ~odd & ~self._user_mask(user_first)[cand]
        self.replaced = dict(self.simple)
        for cp, offset in zip(cand[both].tolist(), leaf_val[both].tolist(), strict=True):
            end = replacements.find(b"\0", offset)
            if offset < len(replacements) and end >= 0:
                with contextlib.suppress(UnicodeDecodeError):  # not valid: the walker decides, as before
                    self.replaced[chr(cp)] = replacements[offset:end].decode("utf-8")
        self.walks = np.append(active, False)
        self.key_prefix = np.zeros(0x110001, dtype=bool)
        self.then = np.zeros(0x110001, dtype=bool)
        cut = [ord(c) for c in self.replaced if c not in self.simple]
        if cut:
            self.walks[cut] = False
            self.key_prefix[cut] = True
            then_bytes = byte[child[np.searchsorted(ends, np.unique(node[both]))].any(axis=0)]
            self.then[:-1] = np.isin(lead, then_bytes) & ~((cps >= 0xD800) & (cps < 0xE000))
        self._replacements()

    def _replacements(self) -> None:
        """The replacements of ``replaced`` as arrays: the code points of each in ``repl_cps`` from ``repl_at[cp]``,
        their number ``repl_len[cp]`` (0: the character goes); ``changes[cp]``: it has one."""
        self.repl_len = np.ones(0x110001, dtype=np.int64)
        self.repl_at = np.zeros(0x110001, dtype=np.int64)
        cps = list(map(ord, self.replaced))
        values = list(self.replaced.values())
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        self.repl_len[cps] = lengths
        self.repl_at[cps] = np.cumsum(lengths) - lengths
        self.repl_cps = BatchViterbi.code_points("".join(values))
        self.changes = np.zeros(0x110001, dtype=bool)
        self.changes[cps] = True

    def replace(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The code points ``c`` with every character of ``replaced`` replaced, and where each of ``c`` went (None: none
        was replaced, ``c`` is returned as it is).

        >>> facts = CharFacts(CharsMap(b""), frozenset()); facts.replaced = {"x": "yz", "w": ""}
        >>> facts._replacements()
        >>> out, moved = facts.replace(BatchViterbi.code_points("axbwc"))
        >>> "".join(map(chr, out)), moved.tolist()
        ('ayzbc', [0, 1, 3, 4, 4])
        """
        at = np.flatnonzero(self.changes[c])
        if not len(at):
            return c, None
        lengths = np.ones(len(c), dtype=np.int64)
        lengths[at] = size = self.repl_len[c[at]]
        out = np.repeat(c, lengths)
        moved = np.cumsum(lengths) - lengths
        step = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
        out[np.repeat(moved[at], size) + step] = self.repl_cps[np.repeat(self.repl_at[c[at]], size) + step]
        return out, moved

    @staticmethod
    def _user_mask(user_first: frozenset[int]) -> np.ndarray:
        """The code points whose UTF-8 starts with a byte that begins a user-defined token (the walk into those
        tokens comes first at every position)."""
        mask = np.zeros(0x110000, dtype=bool)
        for b in user_first:  # the code points a lead byte begins are one range, within its length's range
            if b < 0x80:
                mask[b] = True
            elif 0xC0 <= b < 0xF8:
                bits, low, high = (6, 0x80, 0x800) if b < 0xE0 else (12, 0x800, 0x10000) if b < 0xF0 else \
                    (18, 0x10000, 0x110000)
                first = (b & (0x1F if b < 0xE0 else 0x0F if b < 0xF0 else 0x07)) << bits
                mask[max(first, low):min(first + (1 << bits), high)] = True
        return mask


def exact_sums(scores: Iterable[float]) -> tuple[float, float] | None:
    """``(limit, largest)`` for the scores a Viterbi path adds: every sum of them is a whole multiple of the
    finest power of two among their bits (each is a float32 value), so a double holds every such sum exactly
    while its magnitude stays below ``limit`` (2**53 of those units); ``largest`` is the largest magnitude.
    None if a score is not finite.

    >>> exact_sums([-0.5, -10.25, 0.0])   # units of 2**-2: exact below 2**51
    (2251799813685248.0, 10.25)
    """
    values = np.asarray(list(scores), dtype=np.float64)
    if not np.isfinite(values).all():
        return None
    values = values[values != 0]
    if not len(values):
        return math.inf, 0.0
    mantissa, exponent = np.frexp(np.abs(values))
    whole = (mantissa * 2.0**53).astype(np.int64)  # exact: a double's 53 bits
    low = np.log2((whole & -whole).astype(np.float64)).astype(np.int64)  # trailing zero bits
    unit = int((exponent - 53 + low).min())
    return math.ldexp(1.0, 53 + unit), float(np.abs(values).max())


class UGMModel:
    """Raw-text fragment -> ids for one Unigram vocabulary.

    Built, as llama.cpp builds it, from the GGUF token types (before the load-time attribute rewrites):
    the candidates are NORMAL, USER_DEFINED and UNUSED tokens; ``attrs`` (the final ones) decide at encode
    time which candidates score 0 (user-defined).

    **The fast path** (``remove_extra_whitespaces``, as SentencePiece's Unigram models set it) encodes the text
    one space-separated word at a time, each distinct word once, from a
    :class:`~gguftok.models.piece_cache.PieceCache`. Why that is exact:

    1. *Normalising.* No key of the character map and no user-defined token holds a space (checked at load:
       no XCDA unit is labelled 0x20), so no walk crosses or starts at a space, a space is copied, and a word's
       normalised form does not depend on its neighbours (an invalid sequence cut by the space resolves the
       same: a space is never a continuation byte). With extra whitespace removed, the normalised text is
       ``▁`` + run for each run of non-space bytes: the runs of each word's normalised form, in order.
    2. *Segmenting.* Viterbi over the normalised text: take a place ``p`` before a ``▁`` that no candidate
       token has after its first symbol (none has, in a SentencePiece vocabulary: checked at load, else the
       fast path is off). No token, and no unknown step (one symbol), spans ``p``, so every path passes through
       ``p``, and the best path is the best path to ``p`` then the best path on from ``p``: the values right
       of ``p`` are ``S`` (the best score at ``p``) plus what the right part alone gives, and every comparison
       there compares two such values. In exact arithmetic it is the same comparison alone; in doubles it is
       too as long as no sum rounds, which :func:`exact_sums` bounds: each word's entry keeps the magnitude
       of its total and a bound on what its own paths add (``largest`` times its length), and the text takes
       the fast result only if the sum of the totals plus the largest bound stays below the limit (else it is
       encoded whole, as llama.cpp does). A long run is cut the same way at every place no token spans
       (:func:`gguftok.models.spm.char_junctions` over the candidate tokens).
    3. *Unknown runs.* The backtrack merges consecutive unknown ids; within a piece it has, so across pieces
       the concatenated ids are merged again where an unknown id ends one piece and starts the next.

    **New words all at once.** The words a text brings that the cache lacks are encoded together
    (:meth:`_new_entries`): joined by NUL, normalised in NumPy (the simple replacements of
    :class:`CharFacts` per code point; a word where the walker decides somewhere is normalised alone, as in
    1.), cut into pieces and parts as in 2. at every pair no token holds (short runs too: the proof does not
    need them long), and segmented by :class:`BatchViterbi`, which computes each part's Viterbi exactly as
    llama.cpp does. A word's bound is its total plus ``largest`` times one more than its longest part: no
    smaller than the bound of 2. (the sum of its parts' magnitudes bounds every prefix of it), so the guard
    stays sound. Each word's entry is the one :meth:`_word_entry` makes, but for the bound and the total,
    which sum the magnitudes of cut parts that may be cut differently: both still bound what 2. needs.
    A word of invalid UTF-8, or one whose normalising ends a walk inside a character, goes alone as before.
    """

    def __init__(self, texts: Sequence[str], scores: Sequence[float], gguf_attrs: Sequence[int],
                 attrs: Sequence[int], unk: int, charsmap: bytes, add_space_prefix: bool,
                 remove_extra_whitespaces: bool, cache_size: int = DEFAULT_PIECES) -> None:
        kinds = np.asarray(gguf_attrs, dtype=np.int64)
        candidates = np.flatnonzero(kinds & (NORMAL | USER_DEFINED | UNUSED)).tolist()
        # token text -> id (a later duplicate wins, as in the trie); the texts are bytes with surrogate escapes
        self._text_ids = dict(zip(map(texts.__getitem__, candidates), candidates, strict=True))
        user_defined = [texts[i].encode("utf-8", "surrogateescape") for i in np.flatnonzero(kinds & USER_DEFINED)]
        self.user_defined = PrefixIndex(user_defined)  # llama.cpp's user_defined_token_matcher
        normal = np.flatnonzero(kinds & NORMAL)
        all_scores = np.asarray(scores, dtype=np.float64)
        min_score = np.float32(all_scores[normal].min()) if len(normal) else np.float32(np.finfo(np.float32).max)
        self.unknown_score = float(min_score - np.float32(10.0))  # computed in float, as in llama.cpp
        self.scores, self.attrs, self.unk = scores, attrs, unk
        self.charsmap = CharsMap(charsmap)
        self.prepend, self.merge = add_space_prefix, remove_extra_whitespaces
        self._fast = self.merge and self._space_free(user_defined)
        if self._fast:
            # every score a path can add (a user-defined token's 0 too), for the exactness bound
            ids = np.fromiter(self._text_ids.values(), dtype=np.int64, count=len(self._text_ids))
            path_scores = np.where(np.asarray(attrs, dtype=np.int64)[ids] & USER_DEFINED, 0.0, all_scores[ids])
            sums = exact_sums([*all_scores[ids].tolist(), self.unknown_score])
            texts_of = list(self._text_ids)
            self._fast = sums is not None and "\u2581" not in "\0".join(t[1:] for t in texts_of)
        if self._fast:
            self._limit, self._largest = sums
            self._user_first = frozenset(k[0] for k in user_defined if k)
            self._facts = CharFacts(self.charsmap, self._user_first)
            self._batch = BatchViterbi(texts_of, ids, path_scores, unk, self.unknown_score)
            if not self._batch.ok:
                self._batch = None
            self._words = PieceCache(self._word_entry, cache_size)
            self._pieces = PieceCache(self._piece_entry, cache_size)

    @cached_property
    def values(self) -> dict[bytes, int]:
        """Candidate token bytes -> id (NORMAL, USER_DEFINED and UNUSED tokens, a later duplicate winning)."""
        return dict(zip((t.encode("utf-8", "surrogateescape") for t in self._text_ids), self._text_ids.values(),
                        strict=True))

    @cached_property
    def prefixes(self) -> PrefixIndex:
        """The candidates' trie walk for bytes (built on first use: only invalid UTF-8 and the whole-text path
        need it, and it is half of the load time)."""
        return PrefixIndex(self.values)

    @cached_property
    def _ids(self) -> list[int]:
        values = self.values
        return [values[k] for k in self.prefixes.keys]  # the token id of each key of the index

    @cached_property
    def _joins(self) -> frozenset[int]:
        return char_junctions(self._text_ids)

    @cached_property
    def _scored_text(self) -> dict[str, tuple[int, float]]:
        """Token text -> (id, score) (a token of invalid UTF-8 holds surrogate escapes, which no valid text
        does), for :meth:`_viterbi_text`, built on first use (the words :class:`BatchViterbi` does not take)."""
        return dict(zip(self._text_ids, self._scored(), strict=True))

    @cached_property
    def _reach_text(self) -> dict[str, int]:
        """The first three characters of a token -> the longest token so (by length, the longest last)."""
        by_length = sorted(self._text_ids, key=len)
        return dict(zip(map(_FIRST3, by_length), map(len, by_length), strict=True))

    @cached_property
    def _pairs(self) -> frozenset[str]:
        """The first two characters of every token."""
        return frozenset(map(_FIRST2, self._text_ids))

    def _scored(self) -> list[tuple[int, float]]:
        """(id, score) of each candidate, in the order of ``values``: a user-defined token scores 0 (the attribute
        is final at load; only the strip bits change after)."""
        attrs, scores = self.attrs, self.scores
        return [(tid, 0.0 if attrs[tid] & USER_DEFINED else float(scores[tid])) for tid in self._text_ids.values()]

    def _space_free(self, user_defined: list[bytes]) -> bool:
        """No transition of the character map reads a space, and no user-defined token holds one."""
        if any(b" " in k for k in user_defined):
            return False
        nodes = np.asarray(self.charsmap.nodes, dtype=np.int64)
        return not ((nodes & 0x800000FF) == 0x20).any()

    # ------------------------------------------------------------------------------------------ normalize
    def normalize(self, data: bytes) -> bytes:
        """The normalised text llama.cpp segments (``▁`` for spaces, the character map applied)."""
        if not self._fast:
            return self.normalize_slow(data)
        space = "\u2581".encode()
        runs = [r for w in data.split(b" ") for r in self._replaced(w).split(b" ") if r]
        return b"".join(space + r for r in runs)

    def normalize_slow(self, data: bytes) -> bytes:
        """:meth:`normalize` one position at a time, as llama.cpp's loop (the reference of the fast path)."""
        return self._spaces(self._replaced_slow(data))

    def _replaced_slow(self, data: bytes) -> bytes:
        """The user-defined tokens and the character map applied, spaces kept as they are."""
        out = bytearray()
        i, n = 0, len(data)
        walk, replace = self.user_defined.depth, self.charsmap.replacer(data)
        while i < n:
            # 1. the deepest path into the user-defined tokens' trie passes through unnormalised
            k = walk(data, i)
            if k:
                out += data[i:i + k]
                i += k
            else:
                piece, used = replace(i)
                out += piece
                i += used
        return bytes(out)

    def _spaces(self, replaced: bytes) -> bytes:
        """llama.cpp's whitespace handling of the replaced text: ``▁`` for spaces, one in front (with
        ``add_space_prefix``), runs merged (with ``remove_extra_whitespaces``)."""
        out = bytearray()
        space = "\u2581".encode()  # UGM always escapes whitespace
        prepended = in_word = False
        for ch in replaced:
            if ch != 0x20:
                if not in_word:
                    in_word = True
                    if (self.prepend and not prepended) or self.merge:
                        out += space
                        prepended = True
                out.append(ch)
            else:
                in_word = False
                if not self.merge:
                    out += space
        return bytes(out)

    def _replaced(self, word: bytes) -> bytes:
        """:meth:`_replaced_slow` of one word, by C-level scans between the positions the map acts on."""
        try:
            text = word.decode("utf-8")
        except UnicodeDecodeError:
            return self._replaced_slow(word)
        out = self._replaced_text(word, text)
        return self._replaced_slow(word) if out is None else out.encode("utf-8")

    def _replaced_text(self, word: bytes, text: str) -> str | None:
        """:meth:`_replaced` of a word of valid UTF-8 (``text``, and its bytes ``word``), as text; None where a
        walk ends inside a character (then only the bytes say what comes out)."""
        facts = self._facts
        if not facts.ok:
            return None
        find = facts.pattern.search
        m = find(text)
        if m is None:
            return text
        simple, out = facts.simple, []
        pos = bpos = 0  # in characters, and in bytes of word
        walk, replace = self.user_defined.depth, None
        while m is not None:
            j = m.start()
            if j > pos:
                chunk = text[pos:j]
                out.append(chunk)
                bpos += len(chunk.encode("utf-8"))
            c = text[j]
            r = simple.get(c)
            if r is not None:
                out.append(r)
                bpos += len(c.encode("utf-8"))
                pos = j + 1
            else:  # the walker decides here
                k = walk(word, bpos)
                if k:
                    piece, used = word[bpos:bpos + k], k
                else:
                    if replace is None:
                        replace = self.charsmap.replacer(word)
                    piece, used = replace(bpos)
                try:
                    n = len(word[bpos:bpos + used].decode("utf-8"))
                    piece_text = piece.decode("utf-8")
                except UnicodeDecodeError:  # a walk ended inside a character: bytes throughout
                    return None
                out.append(piece_text)
                bpos += used
                pos = j + n
            m = find(text, pos)
        out.append(text[pos:])
        return "".join(out)

    # ------------------------------------------------------------------------------------------- encode
    def encode(self, data: bytes) -> list[int]:
        if not self._fast:
            return self.encode_whole(data)
        words = data.split(b" ")
        entries = list(map(self._words.get, words))
        if None in entries:  # new words: all of them at once
            # without the collector: its passes over the large young lists (the flat ids, the words) while the
            # entries are made took 100 of 270 ms of a cold encode of the C++ text (measured)
            collecting = gc.isenabled()
            gc.disable()
            try:
                fresh = self._new_entries(dict.fromkeys(compress(words, map(not_, entries))))
                self._store(fresh)
                entries = list(map(fresh.get, words, entries))  # a new word's entry, else the one found
            finally:
                if collecting:
                    gc.enable()
        if sum(map(_SECOND, entries)) + max(map(_THIRD, entries)) >= self._limit:
            return self.encode_whole(data)  # a sum could round: as llama.cpp, in one piece
        out = list(chain.from_iterable(map(_FIRST, entries)))
        unk = self.unk
        if unk in out:
            a = np.asarray(out, dtype=np.int64)
            again = (a[1:] == unk) & (a[:-1] == unk)
            if again.any():
                out = a[np.concatenate(([True], ~again))].tolist()
        return out

    def encode_whole(self, data: bytes) -> list[int]:
        """The ids of ``data`` normalised and segmented in one piece, as llama.cpp does (no cuts, no cache)."""
        return self._viterbi(self.normalize_slow(data))[0]

    def _store(self, fresh: dict[bytes, tuple]) -> None:
        """Keep the entries of new words in the word cache as far as its rules let it."""
        cache = self._words
        if len(cache) + len(fresh) <= cache.limit and max(map(len, fresh)) <= cache.longest:
            cache.update(fresh)  # what keep() would do for each, in C
        else:
            for word, entry in fresh.items():
                cache.keep(word, entry)

    def _new_entries(self, words: Iterable[bytes]) -> dict[bytes, tuple]:
        """:meth:`_word_entry` of each of ``words``, by :class:`BatchViterbi`, about ``BATCH_BYTES`` at a time
        (its arrays stay bounded); a word of invalid UTF-8, or whose normalising the walker decides as bytes only, one
        at a time. A word longer than ``BATCH_BYTES`` goes alone the old way (by its parts, through the piece cache):
        in the batch its arrays would grow with it (arrays of 8 bytes per character and per candidate match), where the
        old way keeps one part's at a time, so the batch's memory stays bounded whatever the text."""
        out: dict[bytes, tuple] = {}
        words = list(words)
        if max(map(len, words), default=0) > BATCH_BYTES:
            out.update((w, self._word_entry(w)) for w in words if len(w) > BATCH_BYTES)
            words = [w for w in words if len(w) <= BATCH_BYTES]
        chunks = -(-sum(map(len, words)) // BATCH_BYTES)
        step = -(-len(words) // max(chunks, 1))
        for at in range(0, len(words), step or 1):
            self._batch_entries(words[at:at + step], out)
        return out

    def _batch_entries(self, words: list[bytes], out: dict[bytes, tuple]) -> None:
        """:meth:`_new_entries` of a few words."""
        facts = self._facts
        if self._batch is None:
            out.update(zip(words, map(self._word_entry, words), strict=True))
            return
        joined = b"\0".join(words)
        try:
            text = joined.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None or not facts.ok:  # invalid UTF-8 somewhere
            good = []
            for word in words:
                try:
                    word.decode("utf-8")
                except UnicodeDecodeError:
                    out[word] = self._word_entry(word)
                else:
                    good.append(word)
            if text is not None or len(good) == len(words):
                for word in good:
                    out[word] = self._word_entry(word)
            elif good:
                self._batch_entries(good, out)
            return
        # normalise: the simple replacements everywhere (none makes or takes a NUL), then, in the few words where
        # the walker decides somewhere, the word alone as before
        c = BatchViterbi.code_points(text)
        # the NULs that join the words (a word may hold NUL too): by byte offset, then as characters
        gaps = np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1)[:-1] - 1
        sep = (np.cumsum((np.frombuffer(joined, dtype=np.uint8) & 0xC0) != 0x80) - 1)[gaps]
        norm, moved = facts.replace(c)
        walked = facts.walks[c]
        walked[:-1] |= (facts.prefix[c[:-1]] & facts.follow[c[1:]]) | (facts.key_prefix[c[:-1]] & facts.then[c[1:]])
        slow = []
        if walked.any():
            word_of = np.zeros(len(c), dtype=np.int64)
            word_of[sep] = 1
            ends = np.concatenate(([-1], sep, [len(c)]))
            ends_norm = np.concatenate(([-1], sep if moved is None else moved[sep], [len(norm)]))
            sizes = np.diff(ends_norm) - 1  # each word's length in norm
            pieces, last = [], 0
            for i in np.unique(np.cumsum(word_of)[walked]).tolist():
                replaced = self._replaced_text(words[i], text[ends[i] + 1:ends[i + 1]])
                if replaced is None:  # a walk ended inside a character: bytes, one at a time
                    slow.append(i)
                    replaced = ""
                pieces += [norm[last:ends_norm[i] + 1], BatchViterbi.code_points(replaced)]
                sizes[i] = len(pieces[-1])
                last = ends_norm[i + 1]
            norm = np.concatenate([*pieces, norm[last:]])
            sep = np.cumsum(sizes + 1)[:-1] - 1
        elif moved is not None:
            sep = moved[sep]
        ids, ends, totals, bounds, too_long = self._batch.run(norm, sep, len(words), self._largest)
        flat = ids.tolist()
        starts = [0, *ends.tolist()]
        out.update(zip(words, zip(map(tuple, map(flat.__getitem__, map(slice, starts, starts[1:]))),
                                  totals.tolist(), bounds.tolist(), strict=True), strict=True))
        for i in [*slow, *too_long.tolist()]:  # and the words of a very long part: alone, as before
            out[words[i]] = self._word_entry(words[i])

    def _word_entry(self, word: bytes) -> tuple[tuple[int, ...], float, float]:
        """(ids, magnitude of the total score, bound on the magnitude of any value its paths compute relative
        to the word's start) of one space-free word."""
        ids: list[int] = []
        total = bound = 0.0
        pieces = self._pieces
        try:
            text = self._replaced_text(word, word.decode("utf-8"))
        except UnicodeDecodeError:
            text = None
        if text is None:  # invalid UTF-8 (or a walk inside a character): pieces of bytes
            space, runs = "\u2581".encode(), self._replaced(word).split(b" ")
        else:
            space, runs = "\u2581", text.split(" ")
        for run in runs:
            if run:
                for part_ids, part_total, part_bound in pieces[space + run]:
                    _extend(ids, part_ids, self.unk)
                    bound = max(bound, total + part_bound)
                    total += abs(part_total)
        return tuple(ids), total, bound

    def _piece_entry(self, piece: str | bytes) -> list[tuple[tuple[int, ...], float, float]]:
        """The Viterbi results of one normalised piece (``▁`` + a run, as text when it is valid UTF-8): a list of
        (ids, total score, bound) per part, a long run being cut where no token spans; the parts go through the
        cache too (a long run that was cut is kept only while the cache is under three quarters full: its parts
        are what repeats)."""
        if isinstance(piece, bytes) or len(piece) <= CUT_LONGER_THAN:
            return [self._part(piece)]
        parts = junction_parts(piece, self._joins)
        if len(parts) == 1:
            return [self._part(piece)]
        cache = self._pieces
        out = Uncached() if len(cache) * 4 >= cache.limit * 3 else []
        for part in parts:
            entry = cache.get(part)
            out += cache.keep(part, [self._part(part)]) if entry is None else entry
        return out

    def _part(self, part: str | bytes) -> tuple[tuple[int, ...], float, float]:
        """(ids, total, bound) of one part: the bound on what its paths compute is the largest score times
        its length, or, for a long part, the largest magnitude of its best scores plus the largest score."""
        if len(part) <= _SHORT_TOKENS:
            ids, total = self._viterbi_text(part) if isinstance(part, str) else self._viterbi(part)
            return tuple(ids), total, self._largest * (len(part) + 1)
        # a long str part by the dict walk too: the byte trie (PrefixIndex) is built on first use, and valid
        # UTF-8 need not pay for it
        ids, total, extreme = self._viterbi_text(part, extreme=True) if isinstance(part, str) else \
            self._viterbi(part, extreme=True)
        return tuple(ids), total, extreme + self._largest

    def _viterbi_text(self, text: str, extreme: bool = False):
        """:meth:`_viterbi` of a short piece of valid UTF-8, one character per symbol: the same sums in the same
        order, so the same doubles, and the same choices (a token of invalid UTF-8 never lies on valid text, and
        one that ends inside a character leads nowhere in :meth:`_viterbi` either)."""
        n = len(text)
        unk, unknown_score = self.unk, self.unknown_score
        best_id = [unk] * (n + 1)
        best_from = [0] * (n + 1)
        best_score = [_NEG] * (n + 1)
        best_score[0] = 0.0
        get, reach, pairs = self._scored_text.get, self._reach_text.get, self._pairs
        for pos in range(n):
            single = False
            base = best_score[pos]
            # how far a token from here can reach, by its first three characters (the longest token that starts
            # with them), else two (a token of two starts so), else one
            far = reach(text[pos:pos + 3], 0) if pos + 3 <= n else 0
            if far < 2:
                far = 2 if text[pos:pos + 2] in pairs else 1
            if far > n - pos:
                far = n - pos
            for end in range(pos + 1, pos + far + 1):
                hit = get(text[pos:end])
                if hit is not None:
                    if end == pos + 1:
                        single = True
                    score = base + hit[1]
                    if score > best_score[end]:
                        best_id[end], best_from[end], best_score[end] = hit[0], pos, score
            if not single:
                score = base + unknown_score
                if score > best_score[pos + 1]:
                    best_id[pos + 1], best_from[pos + 1], best_score[pos + 1] = unk, pos, score
        out = _backtrack(best_id, best_from, n, unk)
        if extreme:  # every position is reached (an unknown step always is)
            return out, best_score[n], max(-min(best_score), max(best_score))
        return out, best_score[n]

    def _viterbi(self, norm: bytes, extreme: bool = False):
        """The best segmentation of normalised bytes, as llama.cpp computes it, and its total score (and with
        ``extreme``, the largest magnitude of a best score at a position the walk reached)."""
        n = len(norm)
        if n == 0:
            return ([], 0.0, 0.0) if extreme else ([], 0.0)
        unk, unknown_score = self.unk, self.unknown_score
        best_id = [unk] * (n + 1)
        best_from = [0] * (n + 1)
        best_score = [_NEG] * (n + 1)
        best_score[0] = 0.0
        scores, attrs, ids = self.scores, self.attrs, self._ids
        longest, parent, lens = self.prefixes.longest, self.prefixes.parent, self.prefixes.lens
        pos = 0
        while pos < n:
            cl = min(UTF8_LEN[norm[pos] >> 4], n - pos)
            single = False
            base = best_score[pos]
            j = longest(norm, pos)
            while j >= 0:  # the tokens the trie walk passes, longest first (the order does not matter)
                end = pos + lens[j]
                tid = ids[j]
                if end - pos == cl:
                    single = True
                score = base + (0.0 if attrs[tid] & USER_DEFINED else scores[tid])
                if score > best_score[end]:
                    best_id[end], best_from[end], best_score[end] = tid, pos, score
                j = parent[j]
            if not single:
                score = base + unknown_score
                if score > best_score[pos + cl]:
                    best_id[pos + cl], best_from[pos + cl], best_score[pos + cl] = unk, pos, score
            pos += cl
        out = _backtrack(best_id, best_from, n, unk)
        if extreme:
            reached = [x for x in best_score if x != _NEG]
            return out, best_score[n], max(-min(reached), max(reached))
        return out, best_score[n]


def _backtrack(best_id: list[int], best_from: list[int], n: int, unk: int) -> list[int]:
    """The ids of the best path that ends at ``n``, first to last, with each run of unknowns as one ``unk``
    (llama.cpp's backtrack of its Viterbi table).

    >>> _backtrack([0, 7, 0, 0], [0, 0, 1, 2], 3, 0)   # 7, then two unknowns merged
    [7, 0]
    """
    out: list[int] = []
    at, prev_unknown = n, False
    while True:
        tid = best_id[at]
        unknown = tid == unk
        if not (prev_unknown and unknown):
            out.append(tid)
        if best_from[at] == 0:
            break
        prev_unknown = unknown
        at = best_from[at]
    out.reverse()
    return out


def _extend(ids: list[int], more: Sequence[int], unk: int) -> None:
    """``ids += more``, an unknown id that would follow an unknown id merged into it (the backtrack's rule)."""
    if more and ids and more[0] == unk and ids[-1] == unk:
        ids.extend(more[1:])
    else:
        ids.extend(more)


# New words are segmented together, about this many bytes of them at a time; a word with a part (a piece cut where
# no token spans) longer than LONGEST_PART characters goes alone (a step of BatchViterbi serves every part, so one
# long part would cost every step a fixed ~25 NumPy calls for itself alone).
BATCH_BYTES = 1 << 18
LONGEST_PART = 1024
# A normalised run longer than this many characters is cut where no token spans (see UGMModel).
CUT_LONGER_THAN = 24
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_FIRST2, _FIRST3 = itemgetter(slice(0, 2)), itemgetter(slice(0, 3))
_NEG = -float(np.finfo(np.float64).max)  # llama.cpp's -DBL_MAX
# A part up to this many characters is segmented by one lookup per length at each position (cheaper for short
# parts than a search in the sorted list); a longer one searches.
_SHORT_TOKENS = 64


# ------------------------------------------------------------------------------------------ batch Viterbi
_SENT = 0x110000  # above every code point: no token holds it, so no match crosses it (it ends every piece)
_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_EMPTY = np.iinfo(np.uint64).max


class _HashTable:
    """Distinct uint64 keys -> a value, looked up for a whole array of queries at once: open addressing with
    linear probing in a table four to eight times the keys, each slot a (key, value) row, so that most queries
    end at their first slot after one gather (a binary search of a large sorted array misses the cache at each
    of its steps: 60 ms for 400,000 queries in 250,000 keys, measured).

    >>> t = _HashTable(np.array([5, 7, 1 << 63], dtype=np.uint64), np.array([0, 1, 2]))
    >>> t.find(np.array([7, 6, 1 << 63, 5], dtype=np.uint64)).tolist()
    [1, -1, 2, 0]
    """

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.bits = max(4, (4 * len(keys)).bit_length())
        mask = (1 << self.bits) - 1
        self.keys = np.zeros(mask + 1, dtype=_U64)
        self.values = np.full(mask + 1, -1, dtype=np.int64)  # -1: an empty slot
        home = self._home(keys)
        todo, probe = np.arange(len(keys)), 0
        while len(todo):  # place every key at the first free slot from its home, one key per slot per round
            slot = (home[todo] + probe) & mask
            free = np.flatnonzero(self.values[slot] < 0)
            _, first = np.unique(slot[free], return_index=True)
            placed = free[first]
            self.keys[slot[placed]] = keys[todo[placed]]
            self.values[slot[placed]] = values[todo[placed]]
            todo = np.delete(todo, placed)
            probe += 1
        self.probes = probe

    def _home(self, keys: np.ndarray) -> np.ndarray:
        return ((keys * _GOLDEN) >> _U64(64 - self.bits)).astype(np.int64)

    def find(self, queries: np.ndarray) -> np.ndarray:
        """The value of each query's key, -1 where it has none."""
        mask = (1 << self.bits) - 1
        slot = self._home(queries)
        value = np.take(self.values, slot)
        out = np.where(np.take(self.keys, slot) == queries, value, -1)  # an empty slot holds -1 anyway
        todo = np.flatnonzero((out < 0) & (value >= 0))  # another key there: probe on
        slot = slot[todo]
        for _ in range(self.probes - 1):
            if not len(todo):
                break
            slot = (slot + 1) & mask
            value = np.take(self.values, slot)
            same = np.take(self.keys, slot) == queries[todo]
            out[todo[same]] = value[same]
            go_on = ~same & (value >= 0)
            todo, slot = todo[go_on], slot[go_on]
        return out


def _pack3(cps: np.ndarray) -> np.ndarray:
    """``cps[i] << 42 | cps[i + 1] << 21 | cps[i + 2]`` for each ``i`` but the last two: three characters (21 bits
    each, with the sentinel) in one exact key; ``>> 21`` keeps the first two, ``>> 42`` the first."""
    return (cps[:-2] << 42) | (cps[1:-1] << 21) | cps[2:]


def _poly_hash(cps: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A polynomial hash (mod 2**64) of each window ``cps[start:start + length]``, its length mixed in: prefix
    sums of ``cps[k] * B**k``, scaled back by ``B**-start`` (``B`` is odd, so invertible). It only finds the
    candidate token: every hit is then compared with the token exactly."""
    base = 0x100000001B3
    n = len(cps)
    power = np.full(n + 1, base, dtype=_U64)
    power[0] = 1
    np.cumprod(power, out=power)  # wraps mod 2**64, as wanted
    inverse = np.full(n + 1, pow(base, -1, 1 << 64), dtype=_U64)
    inverse[0] = 1
    np.cumprod(inverse, out=inverse)
    prefix = np.zeros(n + 1, dtype=_U64)
    np.cumsum(cps.astype(_U64) * power[:n], out=prefix[1:])
    return (prefix[starts + lengths] - prefix[starts]) * inverse[starts] + lengths.astype(_U64) * _GOLDEN


class BatchViterbi:
    """Llama.cpp's Viterbi over many pieces of valid UTF-8 at once, vectorised across the pieces position by
    position (NumPy), with the same float64 sums, compared in the same order under the same tie rule.

    The pieces lie side by side in one array of code points, each followed by a sentinel no token holds.
    *Matches* (the tokens llama.cpp's trie walk passes, exactly): one character, by a table indexed by code
    point; two and three, by exact keys (the packed code points) in hash tables, the three-character table also
    giving the longest token that starts so (none starts so: none longer than two); four and more, up to that
    length, by a polynomial hash of the window in a table of the tokens' hashes, each hit then compared with
    its token three characters (one exact key) at a time, since a hash can collide.
    *Segmenting*: llama.cpp visits a piece's positions in increasing order and offers ``best[start] + score``
    to ``best[start + length]``, replacing it only when strictly greater; the unknown step (one character, its
    score ``min score - 10``) is offered where no one-character token is. Step ``k`` here does the same for the
    ``k``-th position of every piece at once. The targets of one step are distinct (one candidate per start and
    end, and the starts are in different pieces), so each target is offered the same doubles, from the same
    starts in the same order, as in llama.cpp, and keeps the same first best.

    >>> bv = BatchViterbi(["\u2581", "a", "b", "ab", "\u2581abcd"], [4, 5, 6, 7, 8], [-2.0, -1.0, -1.0, -1.5, -1.0],
    ...                   unk=0, unknown_score=-20.0)
    >>> ids, ends, totals, bounds, too_long = bv.run(bv.code_points("ab ba abx  abcd a b"), [2, 5, 9, 10, 15], 6, 2.0)
    >>> ids.tolist(), ends.tolist(), totals.tolist()
    ([4, 7, 4, 6, 5, 4, 7, 0, 8, 4, 5, 4, 6], [2, 5, 8, 8, 9, 13], [3.5, 4.0, 23.5, 0.0, 1.0, 6.0])
    """

    def __init__(self, texts: Sequence[str], ids: Sequence[int], scores: Sequence[float], unk: int,
                 unknown_score: float) -> None:
        self.unk, self.unknown_score = unk, unknown_score
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
        starts = np.zeros(len(texts), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        # only tokens of valid UTF-8 can lie on valid text (a surrogate escape stands for an invalid byte)
        bad = np.concatenate(([0], np.cumsum((cps >= 0xD800) & (cps < 0xE000))))
        keep = np.flatnonzero((lengths > 0) & (bad[starts + lengths] == bad[starts]))
        starts, lengths = starts[keep], lengths[keep]
        # candidate k: its id and score; one more for the unknown step
        self.ids = np.append(np.asarray(ids, dtype=np.int64)[keep], unk)
        self.scores = np.append(np.asarray(scores, dtype=np.float64)[keep], unknown_score)
        self.longest = int(lengths.max()) if len(lengths) else 0
        padded = np.concatenate((cps, np.full(3, _SENT, dtype=np.int64)))
        packed = _pack3(padded)
        head = packed[starts]
        k = np.arange(len(starts))
        # one character: by code point; the longest token that starts with each code point
        self.one = np.full(_SENT + 1, len(self.ids) - 1, dtype=np.int64)
        self.one[cps[starts[lengths == 1]]] = k[lengths == 1]
        self.first = np.zeros(_SENT + 1, dtype=np.int64)
        np.maximum.at(self.first, cps[starts], lengths)
        # two: the packed pair; three: the packed triple -> (the token, or -1) and the longest that starts so
        self.two = _HashTable((head[lengths == 2] >> 21).astype(_U64), k[lengths == 2])
        three = lengths >= 3
        order = np.argsort(head[three], kind="stable")
        k3, l3 = head[three][order], lengths[three][order]
        groups = np.flatnonzero(np.concatenate(([True], k3[1:] != k3[:-1]))) if len(k3) else np.zeros(0, np.int64)
        self.reach3 = np.maximum.reduceat(l3, groups) if len(k3) else l3
        tok3 = np.full(len(groups), -1, dtype=np.int64)
        exact = _HashTable(head[lengths == 3].astype(_U64), k[lengths == 3])
        if len(groups):
            tok3 = exact.find(k3[groups].astype(_U64))
        self.tok3 = tok3
        self.three = _HashTable(k3[groups].astype(_U64), np.arange(len(groups)))
        # four and more: by hash, then three characters at a time
        long = lengths >= 4
        self.words = (self.longest + 2) // 3
        hashes = _poly_hash(cps, starts[long], lengths[long])
        self.long = _HashTable(hashes, k[long])
        # two tokens of one hash would hide one of them: then the words go one at a time (not met: 64 bits)
        self.ok = bool((self.long.find(hashes) == k[long]).all())
        # the pairs of characters side by side inside a token: a piece is cut between any other two
        delta = np.zeros(len(cps) + 1, dtype=np.int64)
        np.add.at(delta, starts, 1)
        np.add.at(delta, starts + lengths - 1, -1)
        inner = np.flatnonzero(np.cumsum(delta)[:-2] > 0)
        self.joins = _HashTable(distinct((cps[inner] << 21) | cps[inner + 1]).astype(_U64), np.zeros(len(inner)))
        self.token_words = np.zeros((len(starts), max(self.words, 1)), dtype=np.int64)
        for w in range(self.words):
            has = lengths > 3 * w
            shift = 21 * np.maximum(0, 3 * w + 3 - lengths[has])
            self.token_words[has, w] = packed[starts[has] + 3 * w] >> shift

    def run(self, c: np.ndarray, sep: np.ndarray, count: int, largest: float
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``c``: the code points of ``count`` normalised words, one after the other, with one more code point
        between each two at the places ``sep`` (it is not read). Each word is ``▁`` + run for each
        run of non-spaces (the fast path's pieces), and each piece is cut where no token spans (``joins``, as
        :func:`~gguftok.models.spm.char_junctions`). Returns the ids of every word, one flat array in order (a
        run of unknowns in a word as one id); the index after each word's last id (``ends``); each word's total
        magnitude and bound (see :meth:`UGMModel._word_entry`: the sum of its parts' magnitudes, plus
        ``largest`` times one more than its longest part's length); and the words with a part longer than
        ``LONGEST_PART``, whose figures are not computed (the caller encodes them another way)."""
        gap = c == 0x20
        gap[sep] = True
        word = np.zeros(len(c), dtype=np.int64)
        word[sep] = 1
        word = np.cumsum(word)  # the word of each character
        run_start = ~gap
        run_start[1:] &= gap[:-1]
        # each piece is ▁ + a run; between two characters side by side in one that no token holds, a cut
        before = np.empty(len(c), dtype=np.int64)
        before[:1] = 0x2581
        before[1:] = c[:-1]
        before[run_start] = 0x2581
        inner = np.flatnonzero(~gap)
        cut = np.zeros(len(c), dtype=bool)
        cut[inner] = self.joins.find(((before[inner] << 21) | c[inner]).astype(_U64)) < 0
        # the layout: a sentinel first, then each character moved on by the ▁ and the cuts up to it
        pos = np.arange(1, len(c) + 1) + np.cumsum(run_start.astype(np.int64) + cut)
        n = int(pos[-1]) + 2 if len(c) else 2
        a = np.full(n + self.longest + 3, _SENT, dtype=np.int64)
        a[pos[inner]] = c[inner]
        mark = pos[run_start] - 1 - cut[run_start]
        a[mark] = 0x2581
        word_at = np.zeros(n, dtype=np.int64)
        word_at[pos] = word
        word_at[mark] = word[run_start]
        word = word_at
        packed = _pack3(a)
        a = a[:n]
        is_sent = a == _SENT
        # the parts: maximal runs between sentinels, each with its own slots 0..length in the step-major layout
        part_start = np.flatnonzero(~is_sent[1:] & is_sent[:-1]) + 1
        part_end = np.flatnonzero(is_sent[1:] & ~is_sent[:-1]) + 1
        parts = len(part_start)
        out_ids = np.zeros(0, dtype=np.int64)
        if not parts:
            return out_ids, np.zeros(count, dtype=np.int64), np.zeros(count), np.zeros(count), out_ids
        part_len = part_end - part_start
        part_word = word[part_start]
        # a part longer than LONGEST_PART would cost a step per character for itself alone: its word is left to
        # the caller (the steps stop there; the values of its longer positions are never used)
        too_long = np.unique(part_word[part_len > LONGEST_PART])
        top = int(part_len.max())
        rank = np.empty(parts, dtype=np.int64)
        rank[np.argsort((top - part_len).astype(np.uint16 if top < 1 << 16 else np.int64), kind="stable")] = \
            np.arange(parts)
        per_offset = np.bincount(part_len, minlength=top + 1)[::-1].cumsum()[::-1]  # parts with length >= k
        base = np.zeros(top + 2, dtype=np.int64)
        np.cumsum(per_offset, out=base[1:])
        part_of = np.zeros(n, dtype=np.int64)
        part_of[part_start] = 1
        part_of = np.cumsum(part_of) - 1  # the last part starting at or before each row
        if len(too_long):  # no candidates in the long parts either: their words are done again alone
            is_sent = is_sent | (part_len > LONGEST_PART)[part_of]
        inside = np.flatnonzero(~is_sent)
        k_in = inside - part_start[part_of[inside]]
        slot_in = base[k_in] + rank[part_of[inside]]
        slot_end = base[part_len] + rank
        slots = int(base[-1])
        slot_row = np.empty(slots, dtype=np.int64)
        slot_row[slot_in], slot_row[slot_end] = inside, part_end
        row_slot = np.zeros(n, dtype=np.int64)
        row_slot[inside], row_slot[part_end] = slot_in, slot_end
        room = np.zeros(n, dtype=np.int64)
        room[inside] = part_end[part_of[inside]] - inside  # characters from each to the end of its part
        # dense candidates of one, two and three characters, per slot; -inf never wins a strict comparison
        dense = []
        t1 = self.one[a[inside]]
        dense.append((self._scatter(slots, slot_in, self.scores[t1], 0.0), self._scatter(slots, slot_in, self.ids[t1])))
        first = self.first[a[inside]]
        at = inside[(first >= 2) & (room[inside] >= 2)]
        hit = self.two.find((packed[at] >> 21).astype(_U64))
        at, hit = at[hit >= 0], hit[hit >= 0]
        dense.append((self._scatter(slots, row_slot[at], self.scores[hit], -np.inf),
                      self._scatter(slots, row_slot[at], self.ids[hit])))
        at = inside[(first >= 3) & (room[inside] >= 3)]
        group = self.three.find(packed[at].astype(_U64))
        at, group = at[group >= 0], group[group >= 0]
        hit = self.tok3[group]
        dense.append((self._scatter(slots, row_slot[at[hit >= 0]], self.scores[hit[hit >= 0]], -np.inf),
                      self._scatter(slots, row_slot[at[hit >= 0]], self.ids[hit[hit >= 0]])))
        # four characters and more: sparse, by hash, each hit checked three characters at a time
        reach = np.minimum(self.reach3[group], room[at]) - 3
        at, reach = at[reach > 0], reach[reach > 0]
        start = np.repeat(at, reach)
        length = np.arange(len(start)) - np.repeat(np.cumsum(reach) - reach, reach) + 4
        hit = self.long.find(_poly_hash(a, start, length))
        got = hit >= 0
        start, length, hit = start[got], length[got], hit[got]
        ok = np.ones(len(hit), dtype=bool)
        for w in range(self.words):
            has = np.flatnonzero(length > 3 * w)
            if not len(has):
                break
            shift = 21 * np.maximum(0, 3 * w + 3 - length[has])
            ok[has] &= (packed[start[has] + 3 * w] >> shift) == self.token_words[hit[has], w]
        start, length, hit = start[ok], length[ok], hit[ok]
        step = start - part_start[part_of[start]]
        order = np.argsort(step.astype(np.uint16 if top < 1 << 16 else np.int64), kind="stable")
        l_from = row_slot[start[order]]
        l_to = row_slot[start[order] + length[order]]
        l_score, l_id = self.scores[hit[order]], self.ids[hit[order]]
        l_bounds = np.searchsorted(step[order], np.arange(top + 1)).tolist()
        # Viterbi, step k for the k-th position of every part at once
        best = np.full(slots, _NEG)
        best[:parts] = 0.0
        best_from = np.zeros(slots, dtype=np.int64)
        best_id = np.full(slots, self.unk, dtype=np.int64)
        index = np.arange(slots)
        counts = [*per_offset.tolist(), 0, 0, 0]
        bases = [*base.tolist(), slots, slots, slots]
        for k in range(min(top, LONGEST_PART)):
            b = bases[k]
            for size, (score, ids) in enumerate(dense, 1):
                m = counts[k + size]
                if not m:
                    break
                value = best[b:b + m] + score[b:b + m]
                to = bases[k + size]
                better = value > best[to:to + m]
                np.copyto(best[to:to + m], value, where=better)
                np.copyto(best_from[to:to + m], index[b:b + m], where=better)
                np.copyto(best_id[to:to + m], ids[b:b + m], where=better)
            lo, hi = l_bounds[k], l_bounds[k + 1]
            if lo < hi:
                s, e = l_from[lo:hi], l_to[lo:hi]
                value = best[s] + l_score[lo:hi]
                better = value > best[e]
                e = e[better]
                best[e] = value[better]
                best_from[e] = s[better]
                best_id[e] = l_id[lo:hi][better]
        # backtrack every part at once: the ends of the tokens on each best path, as rows in order
        on_path = np.zeros(n, dtype=bool)
        at = slot_end
        while len(at):
            on_path[slot_row[at]] = True
            at = best_from[at]
            at = at[at >= parts]  # a slot past the first column: not a part's start
        path = np.flatnonzero(on_path)
        ids = best_id[row_slot[path]]
        owner = word[path - 1]  # the word of each id (its last character's)
        keep = np.ones(len(ids), dtype=bool)  # a run of unknown ids is one id (the backtrack's rule)
        keep[1:] = (ids[1:] != self.unk) | (ids[:-1] != self.unk) | (owner[1:] != owner[:-1])
        ids, owner = ids[keep], owner[keep]
        totals = np.bincount(part_word, weights=np.abs(best[slot_end]), minlength=count)
        longest = np.zeros(count, dtype=np.int64)
        np.maximum.at(longest, part_word, part_len)
        bounds = totals + largest * np.where(longest > 0, longest + 1, 0)
        return ids, np.cumsum(np.bincount(owner, minlength=count)), totals, bounds, too_long

    @staticmethod
    def code_points(text: str) -> np.ndarray:
        return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)

    @staticmethod
    def _scatter(size: int, at: np.ndarray, values: np.ndarray, fill=0) -> np.ndarray:
        out = np.full(size, fill, dtype=values.dtype)
        out[at] = values
        return out
