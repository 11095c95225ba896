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

import struct
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import EncodeError, VocabError
from ..vocab import NORMAL, UNUSED, USER_DEFINED
from .prefix import PrefixIndex
from .spm import UTF8_LEN

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


class UGMModel:
    """Raw-text fragment -> ids for one Unigram vocabulary.

    Built, as llama.cpp builds it, from the GGUF token types (before the load-time attribute rewrites):
    the candidates are NORMAL, USER_DEFINED and UNUSED tokens; ``attrs`` (the final ones) decide at encode
    time which candidates score 0 (user-defined).
    """

    def __init__(self, texts: Sequence[str], scores: Sequence[float], gguf_attrs: Sequence[int],
                 attrs: Sequence[int], unk: int, charsmap: bytes, add_space_prefix: bool,
                 remove_extra_whitespaces: bool) -> None:
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

    def normalize(self, data: bytes) -> bytes:
        out = bytearray()
        space = "\u2581".encode()  # UGM always escapes whitespace
        prepended = in_word = False
        i, n = 0, len(data)
        walk, replace = self.user_defined.depth, self.charsmap.replacer(data)
        while i < n:
            # 1. the deepest path into the user-defined tokens' trie passes through unnormalised
            k = walk(data, i)
            if k:
                piece, used = data[i:i + k], k
            else:
                piece, used = replace(i)
            for ch in piece:
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
            i += used
        return bytes(out)

    def encode(self, data: bytes) -> list[int]:
        norm = self.normalize(data)
        n = len(norm)
        if n == 0:
            return []
        neg = -float(np.finfo(np.float64).max)
        best_id = [self.unk] * (n + 1)
        best_from = [0] * (n + 1)
        best_score = [neg] * (n + 1)
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
                score = base + self.unknown_score
                if score > best_score[pos + cl]:
                    best_id[pos + cl], best_from[pos + cl], best_score[pos + cl] = self.unk, pos, score
            pos += cl
        out: list[int] = []
        at, prev_unknown = n, False
        while True:
            tid = best_id[at]
            unknown = tid == self.unk
            if not (prev_unknown and unknown):
                out.append(tid)
            if best_from[at] == 0:
                break
            prev_unknown = unknown
            at = best_from[at]
        out.reverse()
        return out

