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

import math
import re
import struct
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import itemgetter

import numpy as np

from ..errors import EncodeError, VocabError
from ..vocab import NORMAL, UNUSED, USER_DEFINED
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
    """

    def __init__(self, charsmap: CharsMap, user_first: frozenset[int]) -> None:
        self.ok = True
        self.simple: dict[str, str] = {}
        nodes_list = charsmap.nodes
        if not nodes_list:
            self.pattern = re.compile(char_pattern(self._user_mask(user_first)))
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

    @staticmethod
    def _user_mask(user_first: frozenset[int]) -> np.ndarray:
        """The code points whose UTF-8 starts with a byte that begins a user-defined token (the walk into those
        tokens comes first at every position)."""
        cps = np.arange(0x110000)
        length = np.where(cps < 0x80, 1, np.where(cps < 0x800, 2, np.where(cps < 0x10000, 3, 4)))
        lead = np.where(length == 1, cps, np.where(length == 2, 0xC0 | (cps >> 6),
                                                     np.where(length == 3, 0xE0 | (cps >> 12), 0xF0 | (cps >> 18))))
        return np.isin(lead, sorted(user_first))


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
    """

    def __init__(self, texts: Sequence[str], scores: Sequence[float], gguf_attrs: Sequence[int],
                 attrs: Sequence[int], unk: int, charsmap: bytes, add_space_prefix: bool,
                 remove_extra_whitespaces: bool, cache_size: int = DEFAULT_PIECES) -> None:
        self.values: dict[bytes, int] = {}
        user_defined: list[bytes] = []
        normal_scores = []
        for i, (t, a) in enumerate(zip(texts, gguf_attrs, strict=True)):
            raw = t.encode("utf-8", "surrogateescape")
            if a & NORMAL:
                normal_scores.append(scores[i])
            if a & (NORMAL | USER_DEFINED | UNUSED):
                self.values[raw] = i  # a later duplicate wins, as in the trie
            if a & USER_DEFINED:
                user_defined.append(raw)
        self.prefixes = PrefixIndex(self.values)
        self.user_defined = PrefixIndex(user_defined)  # llama.cpp's user_defined_token_matcher
        self._ids = [self.values[k] for k in self.prefixes.keys]  # the token id of each key of the index
        min_score = np.float32(min(normal_scores)) if normal_scores else np.float32(np.finfo(np.float32).max)
        self.unknown_score = float(min_score - np.float32(10.0))  # computed in float, as in llama.cpp
        self.scores, self.attrs, self.unk = scores, attrs, unk
        self.charsmap = CharsMap(charsmap)
        self.prepend, self.merge = add_space_prefix, remove_extra_whitespaces
        self._fast = self.merge and self._space_free(user_defined)
        if self._fast:
            # every score a path can add (a user-defined token's 0 too), for the exactness bound
            sums = exact_sums([*(float(scores[i]) for i in self.values.values()), self.unknown_score])
            texts_of = [k.decode("utf-8", "surrogateescape") for k in self.values]
            self._fast = sums is not None and "\u2581" not in "\0".join(t[1:] for t in texts_of)
        if self._fast:
            self._limit, self._largest = sums
            self._joins = char_junctions(texts_of)
            # token text -> (id, score) (a token of invalid UTF-8 holds surrogate escapes, which no valid text
            # does); the first three characters of a token -> the longest token so (by length, the longest last);
            # the first two characters of every token
            self._scored_text = dict(zip(texts_of, self._scored(), strict=True))
            by_length = sorted(texts_of, key=len)
            self._reach_text = dict(zip(map(_FIRST3, by_length), map(len, by_length), strict=True))
            self._pairs = frozenset(map(_FIRST2, texts_of))
            self._user_first = frozenset(k[0] for k in user_defined if k)
            self._facts = CharFacts(self.charsmap, self._user_first)
            self._words = PieceCache(self._word_entry, cache_size)
            self._pieces = PieceCache(self._piece_entry, cache_size)

    def _scored(self) -> list[tuple[int, float]]:
        """(id, score) of each candidate, in the order of ``values``: a user-defined token scores 0 (the attribute
        is final at load; only the strip bits change after)."""
        attrs, scores = self.attrs, self.scores
        return [(tid, 0.0 if attrs[tid] & USER_DEFINED else float(scores[tid])) for tid in self.values.values()]

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
        entries = list(map(self._words.__getitem__, data.split(b" ")))
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
        ids, total, extreme = self._viterbi(part.encode("utf-8") if isinstance(part, str) else part, extreme=True)
        return tuple(ids), total, extreme + self._largest

    def _viterbi_text(self, text: str) -> tuple[list[int], float]:
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


# A normalised run longer than this many characters is cut where no token spans (see UGMModel).
CUT_LONGER_THAN = 24
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_FIRST2, _FIRST3 = itemgetter(slice(0, 2)), itemgetter(slice(0, 3))
_NEG = -float(np.finfo(np.float64).max)  # llama.cpp's -DBL_MAX
# A part up to this many characters is segmented by one lookup per length at each position (cheaper for short
# parts than a search in the sorted list); a longer one searches.
_SHORT_TOKENS = 64
