"""Byte pair encoding as llama.cpp runs it: merge ranks, a priority queue, and a byte fallback.

A word starts as one symbol per character. Every adjacent pair that appears in the merge list goes into a
queue keyed by its rank (its position in ``tokenizer.ggml.merges``; lower merges first, the leftmost pair
first on ties). Popping a pair merges its two symbols, unless the entry is stale (one side was merged away
or has changed since it was queued); the new symbol's pairs with its neighbours are queued in turn. When the
queue is empty, each symbol is looked up as a token; a symbol that is not a token falls back to one token
per byte, and bytes with no token are dropped, silently, as llama.cpp does.

>>> ranks = merge_ranks(["a b", "Ġ ab", "ab c"])
>>> merge_word("Ġabc", ranks)
['Ġab', 'c']
>>> merge_word("abc", ranks)
['abc']
"""

from __future__ import annotations

import heapq
import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise, repeat

import numpy as np

from ..bytemap import CHAR_TO_BYTE, spell_text
from ..errors import EncodeError
from .distinct import distinct


def split_merge(line: str) -> tuple[str, str] | None:
    """The two sides of a merge line, split where llama.cpp splits it: at the first space at index 1 or
    later (``word.find(' ', 1)``); ``None`` when there is no such space.

    >>> split_merge("Ġ t"), split_merge("  x"), split_merge("a b c"), split_merge("ab")
    (('Ġ', 't'), (' ', 'x'), ('a', 'b c'), None)
    """
    pos = line.find(" ", 1)
    return None if pos < 0 else (line[:pos], line[pos + 1:])


def merge_ranks(merges: Sequence[str]) -> dict[str, int]:
    """``"left right"`` -> rank, as llama.cpp parses ``tokenizer.ggml.merges``.

    The split is at the first space at index 1 or later; the first occurrence of a pair wins. The key is the
    merge string itself (``left + " " + right``): symbols never contain spaces when looked up, so a key with
    a space inside ``right`` is unreachable, as it is in llama.cpp. A merge without such a space registers
    the empty pair, which no lookup can reach either.
    """
    # Fast path, built in C: when every merge has its space and none repeats, the dict of merge -> position
    # is exactly what the loop below builds.
    if min(map(str.find, merges, repeat(" "), repeat(1)), default=0) > 0:
        ranks = dict(zip(merges, range(len(merges)), strict=True))
        if len(ranks) == len(merges):
            return ranks
    ranks = {}
    for rank, m in enumerate(merges):
        ranks.setdefault(m if split_merge(m) else " ", rank)
    return ranks


def rank_table(merges: Sequence[str]) -> dict[str, int]:
    """The table :class:`BPEModel` looks pairs up in: :func:`merge_ranks` on every key a lookup can form, built
    without looking at each merge for its space.

    A lookup is ``left + " " + right`` for two symbols, and a symbol never holds a space, so every key it forms
    has one space, not first. A merge line without a space after its first character is kept here under its
    own text, which no lookup forms, where :func:`merge_ranks` files it under the empty pair (llama.cpp's
    ``("", "")``), which no lookup forms either. Checking every line cost about a fifth of loading Llama 3
    (25 ms for its 280,147 merges). When a line repeats, :func:`merge_ranks` builds the table (first rank wins).

    >>> rank_table(["a b", "ab", "c d"]), merge_ranks(["a b", "ab", "c d"])
    ({'a b': 0, 'ab': 1, 'c d': 2}, {'a b': 0, ' ': 1, 'c d': 2})
    """
    ranks = dict(zip(merges, range(len(merges)), strict=True))
    return ranks if len(ranks) == len(merges) else merge_ranks(merges)


@dataclass
class MergeStep:
    """One pop of the queue, for teaching: the pair popped, what happened, and the state after it."""

    rank: int
    pair: str  # the two symbols as they were queued, concatenated
    merged: bool
    reason: str  # "merged", or why the entry was skipped
    symbols: list[str]
    queue: list[tuple[int, str]] = field(default_factory=list)  # (rank, pair text) still waiting, in pop order


# The longest word merge_word traces: about 2,000 steps, each keeping the symbols and the sorted queue.
TRACE_LIMIT = 1024


def merge_word(word: str, ranks: dict[str, int], trace: list[MergeStep] | None = None) -> list[str]:
    """The symbols of ``word`` after every possible merge, lowest rank first (ties: leftmost).

    Pass a list as ``trace`` to receive one :class:`MergeStep` per pop of the queue (the teaching view;
    the same code path, so it cannot disagree with the ids).

    >>> steps = []
    >>> merge_word("Ġabc", merge_ranks(["a b", "Ġ ab", "ab c"]), steps)
    ['Ġab', 'c']
    >>> [(s.rank, s.pair, s.reason) for s in steps]
    [(0, 'ab', 'merged'), (1, 'Ġab', 'merged'), (2, 'abc', 'stale: its left side was merged into its neighbour')]
    """
    syms = list(word)
    n = len(syms)
    if n < 2:
        return syms
    if " " in word:
        raise EncodeError("a space inside a word reaches the merge lookup, which llama.cpp asserts against "
                          f"(it aborts): {word!r}")
    if trace is not None and n > TRACE_LIMIT:
        raise EncodeError(f"a trace keeps the symbols and the queue after every step, which grows with the "
                          f"square of the word's length: this word has {n} characters, more than {TRACE_LIMIT}; "
                          "encode it without a trace")
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        r = ranks.get(syms[i] + " " + syms[i + 1])
        if r is not None:
            heap.append((r, i, i + 1, syms[i] + syms[i + 1]))
    heapq.heapify(heap)
    while heap:
        rank, left, right, text = heapq.heappop(heap)
        ls, rs = syms[left], syms[right]
        if not ls or not rs or ls + rs != text:  # stale: a side was merged away or has grown since
            if trace is not None:
                trace.append(MergeStep(rank, text, False, _why_stale(ls, rs), [s for s in syms if s],
                                       [(e[0], e[3]) for e in sorted(heap)]))
            continue
        syms[left] = text
        syms[right] = ""
        after = nxt[right]
        nxt[left] = after
        if after >= 0:
            prv[after] = left
        before = prv[left]
        if before >= 0:
            r = ranks.get(syms[before] + " " + text)
            if r is not None:
                heapq.heappush(heap, (r, before, left, syms[before] + text))
        if after >= 0:
            r = ranks.get(text + " " + syms[after])
            if r is not None:
                heapq.heappush(heap, (r, left, after, text + syms[after]))
        if trace is not None:
            trace.append(MergeStep(rank, text, True, "merged", [s for s in syms if s],
                                   [(e[0], e[3]) for e in sorted(heap)]))
    return [s for s in syms if s]


# The word cache's default size. A word costs about 300 bytes in it (measured with tracemalloc on Qwen2), so
# about 10 MB (40 MB once grown to GROWN_CACHE_SIZE). 10,000 (the lesson's size, and Hugging Face tokenizers')
# was too few for a page of many scripts: the benchmark's 1 MB multilingual text has 19,198 distinct words
# (Qwen2), and a second pass over it still missed 18,424 times (simulate_lru; the first pass 19,538).
DEFAULT_CACHE_SIZE = 32_768
# The default cache grows, by doubling, up to this many words when it thrashes: when words it evicted come back
# (a quarter of its size of them, counted on the keys of its last evictions). An LRU cache read in order by more
# keys than it holds never hits: Gemma 4's 1 MB of multilingual text has 35,604 distinct parts, and a second pass
# over it found none. An explicit cache_size other than the default is a fixed bound.
GROWN_CACHE_SIZE = 4 * DEFAULT_CACHE_SIZE

# Words up to this many characters merge in merge_pairs (a list, rescanned after each merge: quadratic, but
# in C for short words); longer ones in merge_word (a heap: n log n however long the word). Measured on the
# distinct words of real text (Qwen2 multilingual, Gemma 4 lines of C++), the list is 10-30% faster up to
# about 100 characters, and the heap from about 130 on.
SHORT_WORD = 96
_NO_MERGE = 1 << 62  # a rank past any real one: "this pair does not merge"


def merge_pairs(word: str, ranks: dict[str, int]) -> list[str]:
    """:func:`merge_word` without the queue, for short words: keep the rank of every adjacent pair in a list,
    merge the lowest (its leftmost occurrence, which :meth:`list.index` finds), and look up only the two
    pairs that the merge changed.

    It makes the same merges in the same order as the queue: the queue pops the lowest rank, leftmost on
    ties, among the pairs that are still adjacent (a stale entry is exactly one that no longer is), and
    that is the pair this list's minimum names. ``tests/test_bpe.py`` checks both on real words.

    >>> merge_pairs("Ġabc", merge_ranks(["a b", "Ġ ab", "ab c"]))
    ['Ġab', 'c']
    """
    syms = list(word)
    if len(syms) < 2:
        return syms
    if " " in word:
        raise EncodeError("a space inside a word reaches the merge lookup, which llama.cpp asserts against "
                          f"(it aborts): {word!r}")
    get = ranks.get
    pair_ranks = [get(a + " " + b, _NO_MERGE) for a, b in pairwise(syms)]
    while True:
        best = min(pair_ranks)
        if best == _NO_MERGE:
            return syms
        i = pair_ranks.index(best)
        syms[i] += syms.pop(i + 1)
        del pair_ranks[i]
        if not pair_ranks:
            return syms
        if i > 0:
            pair_ranks[i - 1] = get(syms[i - 1] + " " + syms[i], _NO_MERGE)
        if i < len(pair_ranks):
            pair_ranks[i] = get(syms[i] + " " + syms[i + 1], _NO_MERGE)


# Words longer than this are cut where no merge can join their two sides (BPEModel's cut_marker).
CUT_LONGER_THAN = 16
# ... once the model has merged this many characters of such words whole (merge_pairs, or the queue past
# SHORT_WORD: n log n). The cuts need junctions() of every merge (50 ms for Gemma 4's 514,906), which pays off on
# a tokenizer that goes on encoding (the parts repeat, and are cached), not on its first prompt: a 1 KB prompt of
# Gemma 4 lines merges whole in about 2 ms. Past a few prompts, cut words are cheaper than whole lines (a line
# rarely repeats).
CUTS_AFTER = 1 << 13


def junctions(ranks: dict[str, int]) -> dict[str, str]:
    """For each character, the characters that some merge joins after it (in code point order, as a string:
    faster to make than a set, and as fast to search for the few a character has): for each merge
    ``"left right"``, the last character of ``left`` is followed by the first of ``right``.

    Two neighbouring characters of a word end up in one symbol only through a merge whose two sides meet
    between them. So where the second is not among the first's followers, no symbol ever spans the place, no
    pair across it has a rank, and the two sides merge as if each were alone: BPE of the word is BPE of the
    left side, then of the right side. (A line with a second space adds the pair around it too; a pair too
    many only means a cut fewer.)

    >>> {a: "".join(sorted(b)) for a, b in sorted(junctions(merge_ranks(["▁ a", "▁ ▁", "ab c"])).items())}
    {'b': 'c', '▁': 'a▁'}
    """
    # in NumPy: Gemma 4 has 514,906 merges
    cps = np.frombuffer("\n".join(ranks).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    at = np.flatnonzero(cps == 0x20)
    at = at[(at > 0) & (at < len(cps) - 1)]  # a space first or last in the whole list joins nothing
    pairs = distinct((cps[at - 1].astype(np.uint64) << np.uint64(32)) | cps[at + 1])  # sorted by first character
    if not len(pairs):
        return {}
    firsts = (pairs >> np.uint64(32)).astype("<u4")
    group = np.flatnonzero(np.concatenate(([True], firsts[1:] != firsts[:-1])))
    heads = firsts[group].tobytes().decode("utf-32-le", "surrogatepass")
    tails = (pairs & np.uint64(0xFFFFFFFF)).astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    bounds = [*group.tolist(), len(tails)]
    return {a: tails[i:j] for a, i, j in zip(heads, bounds, bounds[1:], strict=False)}


def junction_cuts(word: str, joins: dict[str, str]) -> list[str]:
    """``word`` cut at every place where no merge joins the two characters (see :func:`junctions`).

    >>> junction_cuts("▁ab▁▁c", junctions(merge_ranks(["▁ a", "▁ ▁", "a b"])))
    ['▁ab', '▁▁', 'c']
    """
    followers = joins.get
    parts, start, i = [], 0, 1
    for a, b in pairwise(word):
        if b not in followers(a, ""):
            parts.append(word[start:i])
            start = i
        i += 1
    parts.append(word[start:])
    return parts


def safe_cuts(joins: dict[str, str], marker: str) -> re.Pattern[str]:
    """A pattern whose zero-width matches are the places before ``marker`` that no merge joins across (see
    :func:`junctions`): a long word's first cuts, made in C. Gemma 4 (whitespace as ``▁``, a line for a word)
    joins ``▁`` only after ``▁`` and ``>``, so a line cuts into its words, which the cache keeps.

    >>> cuts = safe_cuts(junctions(merge_ranks(["▁ a", "▁ ▁", "a b"])), "▁")
    >>> cuts.split("▁ab▁▁a▁b"), cuts.split("x▁a")
    (['▁ab', '▁▁a', '▁b'], ['x', '▁a'])
    """
    unsafe = "".join(sorted(re.escape(a) for a, b in joins.items() if marker in b))
    # the look-ahead first: it fails at almost every place, and the pattern then runs 2.4 times as fast
    return re.compile(f"(?={re.escape(marker)})(?<=[^{unsafe}])" if unsafe else f"(?={re.escape(marker)})(?<=.)",
                      re.DOTALL)


def _why_stale(ls: str, rs: str) -> str:
    if not ls:
        return "stale: its left side was merged into its neighbour"
    if not rs:
        return "stale: its right side was merged into its neighbour"
    # A symbol grows only by absorbing its right neighbour; with both sides alive, the right one has grown.
    return f"stale: its right side is now {rs}"


class BPEModel:
    """Word -> token ids for one byte-level (or ``▁``-escaped) BPE vocabulary, with an LRU cache of words.

    ``token_to_id`` maps token texts to ids; ``byte_encode`` selects the fallback for symbols that are not
    tokens: the raw single byte as a token text (GPT-2 style vocabularies), or ``<0xXX>`` otherwise.
    """

    def __init__(self, token_to_id: dict[str, int], merges: Sequence[str], *, byte_encode: bool = True,
                 ignore_merges: bool = False, newline_runs_whole: bool = False, cut_marker: str | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE, cache_max: int | None = None) -> None:
        self.token_to_id = token_to_id
        self.ranks = rank_table(merges)
        self.ignore_merges = ignore_merges
        self.newline_runs_whole = newline_runs_whole  # Gemma 4: a run of "\n" that is a token stays whole
        # cut long words where no merge joins (junctions), before this character first (with ignore_merges a
        # word's own lookup comes first, so its parts cannot be looked up alone)
        self.cut_marker = None if ignore_merges else cut_marker
        self._joins: dict[str, str] | None = None  # junctions() and safe_cuts(), on the first long word (or prepared)
        self._cuts: re.Pattern[str] | None = None
        self._uncut = 0  # characters of long words merged whole so far (CUTS_AFTER)
        self._apart: frozenset[int] | None = None  # merged_apart(), once prepared (use_prepared)
        self.byte_encode = byte_encode
        self.cache_size = cache_size
        if cache_max is None:
            cache_max = GROWN_CACHE_SIZE if cache_size == DEFAULT_CACHE_SIZE else cache_size
        self.cache_max = max(cache_max, cache_size)
        self._cache: OrderedDict[str, list[int]] = OrderedDict()  # word as written in the text -> its ids
        self._evicted: OrderedDict[str, None] = OrderedDict()  # the keys of the last cache_size evictions
        self._returned = 0  # words that came back from _evicted since the cache last grew
        if byte_encode:
            # a lone byte b as a token text: chr(b) for ASCII, else the surrogate escape of the byte
            self._fallback = [token_to_id.get(bytes([b]).decode("utf-8", "surrogateescape")) for b in range(256)]
        else:
            self._fallback = [token_to_id.get(f"<0x{b:02X}>") for b in range(256)]

    def symbols(self, word: str, trace: list[MergeStep] | None = None) -> list[str]:
        """The merged symbols of one word (before the token lookup); ``trace`` as for :func:`merge_word`."""
        if self.ignore_merges and word in self.token_to_id:
            return [word]
        if self._newline_run_token(word):
            return [word]
        if trace is None and len(word) <= SHORT_WORD:
            return merge_pairs(word, self.ranks)
        return merge_word(word, self.ranks, trace)

    def merged_apart(self) -> list[int]:
        """The ids of the tokens whose own text, as a word, does not merge back into that one token, in order.

        Encoding a new word costs a merge loop, about 10 µs; but most new words of a text are tokens (106 of the
        112 distinct words of Qwen2's first 1 KB of English), and almost every token's text merges back into
        itself (all but 293 of Qwen2's 151,936). Once these few are known (:meth:`use_prepared`), a new word that
        is a token and not one of them is its id, found with a lookup. Finding them runs :meth:`symbols` on every
        token's text (Qwen2: 2.6 s), so they are prepared once and kept (:mod:`gguftok.tables`).

        >>> m = BPEModel({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}, ["b c", "a b", "ab c"])
        >>> m.merged_apart()  # in "abc", "b c" merges first: a + bc, and no merge joins those
        [5]
        """
        apart = []
        for text, tid in self.token_to_id.items():
            if len(text) > 1:
                try:
                    whole = self.symbols(text) == [text]
                except EncodeError:  # a space inside: a word that reaches the merges aborts llama.cpp
                    whole = False
                if not whole:
                    apart.append(tid)
        return sorted(apart)

    def use_prepared(self, apart: Iterable[int] | None, joins: dict[str, str] | None = None) -> None:
        """Take a word that is a token whole, without merging it, unless its id is in ``apart`` (what
        :meth:`merged_apart` returns); ``None`` merges every new word again. With ``ignore_merges`` a word that is
        a token is taken whole anyway. ``joins``: the merges' :func:`junctions`, kept with them, so that long words
        are cut from the first one on (``cut_marker``), without making them (Gemma 4: 0.1 s)."""
        self._apart = None if apart is None or self.ignore_merges else frozenset(apart)
        if joins is not None and self.cut_marker is not None and self._joins is None:
            self._joins, self._cuts = joins, safe_cuts(joins, self.cut_marker)

    def prepared_joins(self) -> dict[str, str] | None:
        """The :func:`junctions` that :meth:`use_prepared` takes (made now if not yet), or ``None`` where long
        words are never cut."""
        if self.cut_marker is None:
            return None
        return self._joins if self._joins is not None else junctions(self.ranks)

    @property
    def table_kind(self) -> str:
        """The kind of :mod:`gguftok.tables` table this model's :meth:`merged_apart` is kept as: besides the tokens
        and merges, it depends on ``newline_runs_whole`` only."""
        return "bpe-apart-newline-runs" if self.newline_runs_whole else "bpe-apart"

    @property
    def prepared(self) -> bool:
        """Whether :meth:`use_prepared` gave this model the tokens that merge apart."""
        return self._apart is not None

    @property
    def apart(self) -> frozenset[int] | None:
        """The ids :meth:`use_prepared` was given (``None``: unprepared)."""
        return self._apart

    def symbol_ids(self, symbols: list[str]) -> list[int]:
        """Token ids of merged symbols: each symbol's id, or its bytes' fallback ids (missing ones dropped)."""
        t2i = self.token_to_id
        ids = list(map(t2i.get, symbols))  # in C: every symbol is a token, almost always
        if None not in ids:
            return ids
        ids = []
        for sym in symbols:
            tid = t2i.get(sym)
            if tid is not None:
                ids.append(tid)
                continue
            for b in sym.encode("utf-8", "surrogatepass"):
                fb = self._fallback[b]
                if fb is not None:
                    ids.append(fb)
        return ids

    def spell(self, word: str) -> str:
        """A word as written in the text, spelled as the merges spell it: byte-level (GPT-2 characters, ``Ġ``
        for a space) if the vocabulary is, else as it is.

        >>> BPEModel({}, [], byte_encode=True).spell(" café")
        'ĠcafÃ©'
        """
        if not self.byte_encode:
            return word
        return spell_text(word)

    def unspell(self, word: str) -> str | None:
        """The word as written for a spelled word (``"Ġcat"`` -> ``" cat"``); ``None`` if no text spells so
        (a character outside the byte map, or bytes that are not UTF-8 with surrogates)."""
        if not self.byte_encode:
            return word
        try:
            return bytes(map(CHAR_TO_BYTE.__getitem__, word)).decode("utf-8", "surrogatepass")
        except (KeyError, UnicodeDecodeError):
            return None

    def encode_text_words(self, words: Iterable[str]) -> list[int]:
        """The ids of many words as written in the text (what :meth:`PreTokenizer.words
        <gguftok.pretokenize.PreTokenizer.words>` returns), in order; empty words give nothing.

        This is the loop encoding runs, once per word of the text, with the cache hit inlined. A word is
        spelled only on a miss: spelling every word (byte-level encoding, then a split into words) cost a
        quarter to a third of a warm encode of English prose or C++ (Qwen2, Llama 3).
        """
        cache = self._cache
        cached, touch, keep, spelled_ids = cache.get, cache.move_to_end, self._keep, self._spelled_ids
        size, byte_encode = self.cache_size, self.byte_encode
        whole = self.token_to_id.get if self.ignore_merges else None  # a word that is a token stays whole
        out: list[int] = []
        for word in words:
            ids = cached(word)
            if ids is None:  # text_word_ids, inlined
                if not word:
                    continue
                spelled = spell_text(word) if byte_encode else word
                tid = whole(spelled) if whole is not None else None
                ids = [tid] if tid is not None else spelled_ids(spelled)
                if size:
                    keep(word, ids)
            else:
                touch(word)
            out += ids
        return out

    def encode_words(self, words: Iterable[str]) -> list[int]:
        """The ids of many spelled words (what :meth:`gguftok.Tokenizer.words` returns), in order: :meth:`word_ids`
        of each (empty words give nothing)."""
        out: list[int] = []
        for word in words:
            if word:
                out += self.word_ids(word)
        return out

    def word_ids(self, word: str) -> list[int]:
        """Token ids of one spelled word (``"Ġcat"``), through the cache, which knows it as written (``" cat"``).

        >>> m = BPEModel({"Ġ": 0, "c": 1, "a": 2, "Ġc": 3, "ca": 4}, ["Ġ c", "c a"])
        >>> m.word_ids("Ġca"), list(m._cache)
        ([3, 2], [' ca'])
        """
        text = self.unspell(word)
        return self._spelled_ids(word) if text is None else self.text_word_ids(text, word)

    def text_word_ids(self, text: str, spelled: str | None = None) -> list[int]:
        """Token ids of one word as written in the text (``spelled``: its spelling, if known); cached, the
        least recently used words evicted past ``cache_size``."""
        cache = self._cache
        ids = cache.get(text)
        if ids is not None:
            cache.move_to_end(text)
            return ids
        ids = self._spelled_ids(self.spell(text) if spelled is None else spelled)
        if self.cache_size:
            self._keep(text, ids)
        return ids

    def _keep(self, word: str, ids: list[int]) -> None:
        """Put a word the cache lacks in it, evicting the least recently used past ``cache_size``; a cache below
        ``cache_max`` whose evicted words come back grows (``GROWN_CACHE_SIZE``)."""
        cache = self._cache
        cache[word] = ids
        if len(cache) <= self.cache_size:
            return
        old = cache.popitem(last=False)[0]
        if self.cache_size >= self.cache_max:
            return
        evicted = self._evicted
        if word in evicted:
            del evicted[word]
            self._returned += 1
            if 4 * self._returned >= self.cache_size:
                self.cache_size = min(2 * self.cache_size, self.cache_max)
                self._returned = 0
                evicted.clear()
                return
        evicted[old] = None
        if len(evicted) > self.cache_size:
            evicted.popitem(last=False)

    def _newline_run_token(self, word: str) -> bool:
        """Whether :meth:`symbols` takes ``word`` whole as a run of newlines (Gemma 4)."""
        return self.newline_runs_whole and bool(word) and not word.strip("\n") and word in self.token_to_id

    def _spelled_ids(self, word: str) -> list[int]:
        """Token ids of one spelled word, merged (no cache): at once if it is a token that merges back into
        itself (:meth:`use_prepared`)."""
        if self._apart is not None:
            tid = self.token_to_id.get(word)
            if tid is not None and tid not in self._apart:
                return [tid]
        if len(word) > CUT_LONGER_THAN and self.cut_marker is not None and self._cutting(len(word)):
            parts = self._cut(word)
            # each part through the cache (a line's words repeat), unless symbols() would take one whole: inside
            # the word, BPE merges it
            if len(parts) > 1 and ("\n" not in word or not any(map(self._newline_run_token, parts))):
                ids = []
                if self.byte_encode:  # a part spelled: the cache knows it as written
                    for part in parts:
                        ids += self.word_ids(part)
                    return ids
                # text_word_ids with its hit inlined (a call per part cost about 5% of a cold encode of C++, Gemma 4)
                cached, touch, new_part = self._cache.get, self._cache.move_to_end, self.text_word_ids
                for part in parts:
                    part_ids = cached(part)
                    if part_ids is None:
                        part_ids = new_part(part)
                    else:
                        touch(part)
                    ids += part_ids
                return ids
        return self.symbol_ids(self.symbols(word))

    def _cutting(self, n: int) -> bool:
        """Whether a word of ``n`` characters (longer than ``CUT_LONGER_THAN``) is cut: once the cut tables exist,
        or once ``CUTS_AFTER`` characters of such words (this one too) would have been merged whole."""
        if self._joins is not None:
            return True
        self._uncut += n
        return self._uncut > CUTS_AFTER

    def _cut(self, word: str) -> list[str]:
        """A long word in parts that BPE merges alone (:func:`junctions`): first before ``cut_marker`` where it can,
        in C; then each part still long at every place no merge joins. The long parts are not cached, only the
        word and its final parts (caching them too made Gemma 4's 1 MB of C++ overflow the cache)."""
        if self._joins is None:
            self._joins = junctions(self.ranks)
            self._cuts = safe_cuts(self._joins, self.cut_marker)
        joins = self._joins
        parts = self._cuts.split(word) if self.cut_marker in word[1:] else [word]
        return [leaf for part in parts
                for leaf in (junction_cuts(part, joins) if len(part) > CUT_LONGER_THAN else (part,))]
