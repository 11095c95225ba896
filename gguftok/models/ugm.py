"""Unigram (``tokenizer.ggml.model = "t5"``: T5, XLM-R, nomic-bert-moe) as llama.cpp runs it.

Two steps. **Normalise**: SentencePiece's precompiled character map (an XOR-compressed double array, XCDA,
stored in ``tokenizer.ggml.precompiled_charsmap``) rewrites the longest matching prefix at each position
(full-width letters to ASCII, circled digits to digits, ...); spaces become ``▁``, with one in front of
each word. **Segment**: Viterbi over the normalised bytes picks the tokenization with the highest total
score; an unknown code point costs ``min score - 10``, and runs of unknown tokens merge into one.

>>> xcda = CharsMap(b"")   # an empty map changes nothing
>>> xcda.replace(b"abc", 0)
(b'a', 1)
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from ..errors import EncodeError, VocabError
from ..vocab import NORMAL, UNUSED, USER_DEFINED
from .prefix import PrefixIndex
from .spm import UTF8_LEN


class CharsMap:
    """``precompiled_charsmap``: a u32 XCDA size, the XCDA, then NUL-terminated replacement strings."""

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
            raise EncodeError("Index out of array bounds in XCDA array! (llama.cpp aborts)")
        return self.nodes[i]

    def _base(self, i: int) -> int:
        u = self._node(i)
        return ((u >> 10) << ((u & 0x200) >> 6)) & 0xFFFFFFFF

    def replace(self, data: bytes, at: int) -> tuple[bytes, int]:
        """The normalised form of the longest prefix of ``data[at:]`` the map knows, and how many bytes it
        consumed; else the code point at ``at`` unchanged (or U+FFFD for one bad byte)."""
        length = offset = 0
        if self.nodes:
            node = self._base(0)
            for k in range(at, len(data)):
                c = data[k]
                if c == 0:
                    break
                node ^= c
                u = self._node(node)
                if u & 0x800000FF != c:
                    break
                leaf = (u >> 8) & 1
                node ^= self._base(node)
                if leaf:
                    length = k - at + 1
                    offset = self._node(node) & 0x7FFFFFFF
        if length:
            if offset >= len(self.replacements):
                raise EncodeError("Index out of array bounds in precompiled charsmap! (llama.cpp aborts)")
            end = self.replacements.find(b"\0", offset)
            if end < 0:
                raise EncodeError("Unterminated string in precompiled charsmap! (llama.cpp aborts)")
            return self.replacements[offset:end], length
        n = _valid_utf8_length(data, at)
        return (data[at:at + n], n) if n else ("\ufffd".encode(), 1)


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
        self.user_defined: set[bytes] = set()  # every prefix of a user-defined token's text
        normal_scores = []
        for i, (t, a) in enumerate(zip(texts, gguf_attrs, strict=True)):
            raw = t.encode("utf-8", "surrogateescape")
            if a & NORMAL:
                normal_scores.append(scores[i])
            if a & (NORMAL | USER_DEFINED | UNUSED):
                self.values[raw] = i  # a later duplicate wins, as in the trie
            if a & USER_DEFINED:
                self.user_defined.update(raw[:k] for k in range(1, len(raw) + 1))
        self.prefixes = PrefixIndex(self.values)
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
        while i < n:
            # 1. the deepest path into the user-defined tokens' trie passes through unnormalised
            k = 0
            while i + k < n and data[i:i + k + 1] in self.user_defined:
                k += 1
            if k:
                piece, used = data[i:i + k], k
            else:
                piece, used = self.charsmap.replace(data, i)
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
        values, has_prefix, scores, attrs = self.values, self.prefixes.has_prefix, self.scores, self.attrs
        pos = 0
        while pos < n:
            cl = min(UTF8_LEN[norm[pos] >> 4], n - pos)
            single = False
            base = best_score[pos]
            end = pos + 1
            while end <= n and has_prefix(norm[pos:end]):
                tid = values.get(norm[pos:end])
                if tid is not None:
                    if end - pos == cl:
                        single = True
                    score = base + (0.0 if attrs[tid] & USER_DEFINED else scores[tid])
                    if score > best_score[end]:
                        best_id[end], best_from[end], best_score[end] = tid, pos, score
                end += 1
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

