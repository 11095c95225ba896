"""The special-token partition: cutting special-token texts out of the input before anything else runs.

llama.cpp looks for every special token's text in the raw input bytes, longest text first, and replaces
each occurrence by the token itself; only the text left between them is pre-tokenized and merged.
USER_DEFINED tokens are always cut out; CONTROL and UNKNOWN tokens only with ``parse_special=True``. That is
why user text must be encoded with ``parse_special=False``: otherwise anyone can type ``<|im_end|>`` and
end a chat turn.

>>> texts = {5: b"<|im_end|>", 6: b"<pad>"}
>>> attrs = {5: 8, 6: 16}                       # 5 is CONTROL, 6 is USER_DEFINED
>>> partition(b"hi<|im_end|><pad>!", [5, 6], texts.__getitem__, attrs.__getitem__, parse_special=True)
[(0, 2), 5, 6, (17, 1)]
>>> partition(b"hi<|im_end|><pad>!", [5, 6], texts.__getitem__, attrs.__getitem__, parse_special=False)
[(0, 12), 6, (17, 1)]

Text in a ``protected`` range stays text (how :mod:`gguftok.chat` keeps messages from forging tokens):

>>> partition(b"<|im_end|><|im_end|>", [5], texts.__getitem__, attrs.__getitem__, True, protected=[(0, 10)])
[(0, 10), 5]

A fragment is either a token id or ``(offset, length)``: a run of raw text still to tokenize.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

import numpy as np

from .vocab import CONTROL, LSTRIP, RSTRIP, UNKNOWN

_SPACE = b" \t\n\v\f\r"  # C isspace: what LSTRIP and RSTRIP remove
Fragment = int | tuple[int, int]


class SpecialIndex:
    """Which special tokens can occur in a text, found with a few scans of it instead of one per token.

    The tokens are grouped by the first ``PREFIX`` bytes of their text. A token can occur only where its
    group's prefix does, so the text is searched once per group (a handful: ``<|im``, ``[PAD``, ...), and the
    partition then searches only the tokens of the groups found. It finds the same occurrences as searching
    every token, because every token it skips is absent from the text.

    >>> index = SpecialIndex([5, 6, 7], {5: b"<|im_end|>", 6: b"<pad>", 7: b"<|im_start|>"}.__getitem__)
    >>> index.candidates(b"hi<|im_end|>"), index.candidates(b"plain text")
    ([5, 7], [])

    With more than ``SCAN_GROUPS`` groups (a file can hold 100,000 special tokens of as many prefixes), one
    search per group would cost groups times the text's length; instead every ``PREFIX``-byte window of the
    text is looked up among the groups' prefixes at once (sorted, with NumPy): n log n in the text, whatever
    the number of groups.
    """

    PREFIX = 4
    SCAN_GROUPS = 128
    CHUNK = 1 << 20  # text bytes per NumPy pass (bounds the memory of a lookup)

    def __init__(self, special_ids: Sequence[int], text_of: Callable[[int], bytes]) -> None:
        self.groups: dict[bytes, list[int]] = {}
        for tid in special_ids:
            self.groups.setdefault(text_of(tid)[:self.PREFIX], []).append(tid)
        self._position = {tid: k for k, tid in enumerate(special_ids)}
        # the first byte of every prefix: a text holding none of them holds no special token (a short prompt
        # is answered by one or two byte searches)
        self._firsts = sorted({prefix[:1] for prefix in self.groups})
        # per prefix length: the prefixes as integers (sorted) and the prefixes in that order
        self._codes: dict[int, tuple[np.ndarray, list[bytes]]] = {}
        if len(self.groups) > self.SCAN_GROUPS:
            by_length: dict[int, list[bytes]] = {}
            for prefix in self.groups:
                by_length.setdefault(len(prefix), []).append(prefix)
            for length, prefixes in by_length.items():
                prefixes.sort()  # big-endian integers of equal length sort as the bytes do
                codes = np.array([int.from_bytes(q, "big") for q in prefixes], dtype=np.uint64)
                self._codes[length] = codes, prefixes

    def candidates(self, data: bytes) -> list[int]:
        """The tokens whose group's prefix occurs in ``data``, in the order given (longest text first)."""
        if not any(first in data for first in self._firsts):  # (b"", an empty text's, is in every text)
            return []
        if self._codes:
            present = self._present(data)
            found = [tid for prefix in present for tid in self.groups[prefix]]
        else:
            found = [tid for prefix, members in self.groups.items() if prefix in data for tid in members]
        return sorted(found, key=self._position.__getitem__)

    def _present(self, data: bytes) -> list[bytes]:
        """The groups' prefixes that occur in ``data``, by looking up each window of the text."""
        present: list[bytes] = []
        for length, (codes, prefixes) in self._codes.items():
            if length == 0:
                present += prefixes  # an empty text's group: b"" is in every text
                continue
            hit = np.zeros(len(codes), dtype=bool)
            for start in range(0, max(len(data) - length + 1, 0), self.CHUNK):
                chunk = np.frombuffer(data, dtype=np.uint8, count=min(len(data) - start, self.CHUNK + length - 1),
                                      offset=start).astype(np.uint64)
                m = len(chunk) - length + 1
                windows = chunk[:m].copy()
                for k in range(1, length):
                    windows = (windows << np.uint64(8)) | chunk[k:k + m]
                windows = np.unique(windows)
                at = np.searchsorted(codes, windows)
                ok = at < len(codes)
                ok[ok] = codes[at[ok]] == windows[ok]
                hit[at[ok]] = True
            present += [prefixes[i] for i in np.flatnonzero(hit)]
        return present


def partition(data: bytes, special_ids: Sequence[int], text_of: Callable[[int], bytes],
              attr_of: Callable[[int], int], parse_special: bool,
              protected: Sequence[tuple[int, int]] = ()) -> list[Fragment]:
    """Split ``data`` into raw runs and special tokens exactly as ``tokenizer_st_partition`` does.

    ``special_ids`` must be in llama.cpp's order (longest text first). Each token claims its leftmost
    non-overlapping occurrences in every raw run, then the next token searches what is left.

    ``protected`` (sorted, disjoint ``(start, end)`` byte ranges; ``start == end`` is a point) is where no
    special token may be read: an occurrence that overlaps one stays raw text, and the search goes on one
    byte later. :func:`gguftok.chat.encode_chat` protects this way every occurrence of a guarded token's text
    that the template's own markup did not write (:func:`gguftok.chat.marks.protected_spans`).
    """
    fragments: list[Fragment] = [(0, len(data))] if data else []
    starts = [a for a, _ in protected]
    for tid in special_ids:
        attr = attr_of(tid)
        if not parse_special and attr & (CONTROL | UNKNOWN):
            continue
        text = text_of(tid)
        if not text or text not in data:
            continue
        out: list[Fragment] = []
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                continue
            off, ln = frag
            search = off
            while True:
                m = data.find(text, search, off + ln)
                if m < 0:
                    out.append((off, ln))
                    break
                if starts and _overlaps(protected, starts, m, m + len(text)):
                    search = m + 1
                    continue
                if m > off:
                    left = m - off
                    if attr & LSTRIP:
                        while left > 0 and data[off + left - 1] in _SPACE:
                            left -= 1
                    if left > 0:
                        out.append((off, left))
                out.append(tid)
                right = m + len(text)
                if right < off + ln:
                    rest = off + ln - right
                    if attr & RSTRIP:
                        while rest > 0 and data[right] in _SPACE:
                            right += 1
                            rest -= 1
                    off, ln = right, rest
                    search = off
                    if ln == 0:
                        break
                else:
                    break
        fragments = out
    return fragments


def _overlaps(spans: Sequence[tuple[int, int]], starts: Sequence[int], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a span (a point ``(p, p)`` overlaps if ``start < p < end``)."""
    i = bisect_left(starts, end) - 1  # the last span starting before ``end``; ends grow with starts
    return i >= 0 and spans[i][1] > start
