"""What ``encode_chat`` trusts: the special tokens that the template's own markup wrote, and nothing else.

This module is the guarantee of :mod:`gguftok.chat`, in one place. The rule:

    A *guarded* token (a control or unknown token, or a user-defined token the template writes:
    :func:`gguftok.chat.guarded_tokens`) is read from the rendered text only where its whole text lies inside
    one *trusted run*: a stretch of one literal of the template (text between its tags, a string constant
    in an expression, ``bos_token`` or ``eos_token``) covered by the guarded texts that literal holds.
    Everything else is text, in which no guarded token is read: what the caller passed (at any depth, of any
    type), and whatever a filter, method, conversion or concatenation made of it.

How trust travels from a literal to the rendered text, and why nothing else can carry it:

1. While ``encode_chat`` renders, the sandbox hands the template each literal that holds guarded text as a
   :class:`Marked` string: a ``str`` equal to the literal's text (so the template's logic, comparisons,
   ``in``, ``split``, ``|length``, sees exactly what transformers' does) that also knows its runs. Caller data
   is copied into plain ``str``, ``int``, ``float``..., never a Marked string.
2. The few operations that write text out or join texts (output, ``+``, ``~``, ``*``, ``join``, ``format``,
   ``%``, and the string methods and filters that build text from a string: ``trim``, ``replace``...) run on
   the *materialized* texts (:meth:`Marker.materialize`), where each run is ``OPEN + key + text + CLOSE``, the
   key 16 noncharacters drawn at random for this render and this run text (64 bits); their result is read
   back (:meth:`Marker.lift`) keeping a run only where its key's text is still whole between its marks. Every
   other operation (``|upper``, ``|tojson``, slicing, ``str()`` of a list...) returns a plain ``str``: trust is
   lost, never gained; two literals joined are two runs, never a token neither holds.
3. The rendered text carries the marks; :func:`read_marks` keeps a run only if its key was issued, in this
   render, for exactly the text between the marks, removes every mark, and returns the byte spans it kept.
   Caller strings may not hold the marks' characters (U+FDD0..U+FDEF, Unicode noncharacters:
   :func:`check_reserved`); a template that computes them from caller numbers or escapes would have to guess a
   key; a mark's character anywhere else is refused.
4. :func:`protected_spans` turns every occurrence of a guarded text that does not lie inside one kept run into
   a range the special-token partition may not read a token across (:func:`gguftok.special.partition`).

When the caller's data holds no guarded text, there is nothing to protect, and the ids are those of
``encode(rendered, parse_special=True)``: llama.cpp's server's.

>>> m = Marker({"<|im_end|>\\n": ((0, 10),)})
>>> end = m.literal("<|im_end|>\\n")
>>> end == "<|im_end|>\\n", len(end)
(True, 11)
>>> marked = "hi" + m.materialize(end)
>>> text, spans = read_marks(marked, m.registry)
>>> text, spans
('hi<|im_end|>\\n', [(2, 12)])
>>> protected_spans(b"<|im_end|>" + text.encode(), [(a + 10, b + 10) for a, b in spans], [b"<|im_end|>"])
[(0, 10)]
"""

from __future__ import annotations

import bisect
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence

from ..errors import ChatTemplateError

OPEN, CLOSE = "\ufdd0", "\ufdd1"
_KEY_BASE, KEY_LEN = 0xFDE0, 16  # a key: 16 of the noncharacters U+FDE0..U+FDEF, 4 random bits each
RESERVED = re.compile("[\ufdd0-\ufdef]")  # the noncharacters the marks are made of
_MARK = re.compile(f"{OPEN}([\ufde0-\ufdef]{{{KEY_LEN}}})([^\ufdd0-\ufdef]*){CLOSE}")
MARK_OVERHEAD = 2 + KEY_LEN  # characters a mark adds to the text
Run = tuple[int, int, str]  # a trusted run of a Marked string: start, end (characters), key


class Marked(str):
    """A string with trusted runs: its value is its text; ``_runs`` says which stretches the template's markup
    wrote (the sandbox never lets a template read an attribute that starts with an underscore)."""

    _runs: tuple[Run, ...]

    def __new__(cls, text: str, runs: tuple[Run, ...] = ()) -> Marked:  # (str.format's sandbox makes one of text)
        self = super().__new__(cls, text)
        self._runs = runs
        return self


class Marker:
    """The marks of one render: which runs of which literal are trusted, and the keys issued for them.

    ``runs`` maps a literal's text to the character spans of its trusted runs (:func:`literal_runs`).
    """

    def __init__(self, runs: Mapping[str, Sequence[tuple[int, int]]]) -> None:
        self.runs = runs
        self.registry: dict[str, str] = {}  # key -> the run text it was issued for
        self._keys: dict[str, str] = {}  # run text -> key
        self._literals: dict[str, str] = {}

    def literal(self, text: str) -> str:
        """The literal ``text`` as the template gets it: Marked if it holds a trusted run, else plain."""
        lit = self._literals.get(text)
        if lit is None:
            spans = self.runs.get(text, ())
            lit = Marked(text, tuple((a, b, self._key(text[a:b])) for a, b in spans)) if spans else str(text)
            self._literals[text] = lit
        return lit

    def materialize(self, value: str) -> str:
        """``value`` as plain text with its trusted runs marked (a plain string is returned as it is)."""
        if type(value) is not Marked:
            return value
        text = str.__str__(value)
        out, pos = [], 0
        for a, b, key in value._runs:
            out += [text[pos:a], OPEN, key, text[a:b], CLOSE]
            pos = b
        out.append(text[pos:])
        return "".join(out)

    def lift(self, marked: str) -> str:
        """The text an operation made from materialized texts, read back: Marked with the runs whose key is
        this render's for exactly the text between its marks, or plain when there are none."""
        if OPEN not in marked and RESERVED.search(marked) is None:
            return marked
        text, spans = _read(marked, self.registry, bytes_offsets=False)
        return Marked(text, tuple(spans)) if spans else text

    def _key(self, run: str) -> str:
        key = self._keys.get(run)
        if key is None:
            while key is None or key in self.registry:
                bits = secrets.randbits(4 * KEY_LEN)
                key = "".join(chr(_KEY_BASE + (bits >> (4 * i) & 15)) for i in range(KEY_LEN))
            self._keys[run] = key
            self.registry[key] = run
        return key


def check_reserved(s: str, what: str, template: str | None = None) -> None:
    """Refuse the marks' characters in what the caller passes (or in the template or BOS/EOS texts)."""
    m = RESERVED.search(s)
    if m is not None:
        raise ChatTemplateError(f"{what} contains U+{ord(m.group()):04X}: U+FDD0 to U+FDEF are noncharacters "
                                "that encode_chat reserves to mark the template's own special tokens",
                                template=template)


def read_marks(marked: str, registry: Mapping[str, str]) -> tuple[str, list[tuple[int, int]]]:
    """The text without marks, and the UTF-8 byte spans of the runs whose key ``registry`` issued for their
    text. A run with another text (a template replaced or changed case inside it) stays, unmarked, as text;
    a mark's character left anywhere else (a template cut a run apart, or computed the character) is refused.

    >>> read_marks("a\\ufdd0" + "\\ufde0" * 16 + "<x>\\ufdd1b", {"\\ufde0" * 16: "<x>"})
    ('a<x>b', [(1, 4)])
    >>> read_marks("a\\ufdd0" + "\\ufde0" * 16 + "<y>\\ufdd1b", {"\\ufde0" * 16: "<x>"})
    ('a<y>b', [])
    """
    text, spans = _read(marked, registry, bytes_offsets=True)
    return text, [(a, b) for a, b, _ in spans]


def _read(marked: str, registry: Mapping[str, str], bytes_offsets: bool) -> tuple[str, list[Run]]:
    out: list[str] = []
    spans: list[Run] = []
    pos = length = 0

    def text(piece: str) -> None:
        nonlocal length
        stray = RESERVED.search(piece)
        if stray is not None:
            raise ChatTemplateError(
                f"the rendered text holds U+{ord(stray.group()):04X} outside a mark: the template cut one of its "
                "special tokens apart, or computed a noncharacter; encode_chat cannot tell what its markup wrote")
        out.append(piece)
        length += len(piece.encode("utf-8", "surrogatepass")) if bytes_offsets else len(piece)

    for m in _MARK.finditer(marked):
        text(marked[pos:m.start()])
        start = length
        text(m.group(2))
        if registry.get(m.group(1)) == m.group(2):
            spans.append((start, length, m.group(1)))
        pos = m.end()
    text(marked[pos:])
    return "".join(out), spans


def occurrences(data: str | bytes, texts: Iterable[str | bytes]) -> list[tuple[int, int]]:
    """Where ``texts`` occur in ``data`` (overlapping occurrences too): for each start, the longest, sorted.

    >>> occurrences("a<x><x>>", ["<x>", "x>", "<x><x>"])
    [(1, 7), (2, 4), (4, 7), (5, 7)]
    """
    longest: dict[int, int] = {}
    for t in set(texts):
        if not t:
            continue
        at = data.find(t)
        while at >= 0:
            if longest.get(at, 0) < len(t):
                longest[at] = len(t)
            at = data.find(t, at + 1)
    return [(a, a + n) for a, n in sorted(longest.items())]


def literal_runs(literals: Iterable[str], texts: Iterable[str]) -> dict[str, tuple[tuple[int, int], ...]]:
    """For each literal that holds one of the guarded ``texts``: the character spans its occurrences cover
    (overlapping and touching occurrences make one run).

    >>> literal_runs(["<a><b>\\n", "plain"], ["<a>", "<b>"])
    {'<a><b>\\n': ((0, 6),)}
    """
    texts = [t for t in set(texts) if t]
    out: dict[str, tuple[tuple[int, int], ...]] = {}
    for lit in set(literals):
        runs: list[list[int]] = []
        for a, b in occurrences(lit, texts):
            if runs and a <= runs[-1][1]:
                runs[-1][1] = max(runs[-1][1], b)
            else:
                runs.append([a, b])
        if runs:
            out[lit] = tuple((a, b) for a, b in runs)
    return out


def protected_spans(data: bytes, trusted: Sequence[tuple[int, int]], texts: Iterable[bytes]) -> list[tuple[int, int]]:
    """The ranges of ``data`` where the partition may read no special token: for each occurrence of a guarded
    text (``texts``) that is not inside one trusted run, the bytes of it outside every run and the points
    where a run begins inside it. A token inside one run overlaps none of them; an occurrence outside, or
    across two runs, overlaps at least one.

    >>> protected_spans(b"<x><x>", [(0, 3)], [b"<x>"])   # the second <x> is not the template's
    [(3, 6)]
    >>> protected_spans(b"<x>", [(0, 1), (1, 3)], [b"<x>"])   # across two runs: a point where they meet
    [(1, 1)]
    """
    ends = [b for _, b in trusted]  # the runs are disjoint and sorted: their ends are sorted too
    pieces: list[tuple[int, int]] = []
    for c, d in occurrences(data, texts):
        j = bisect.bisect_right(ends, c)  # the first run ending after c
        if j < len(trusted) and trusted[j][0] <= c and trusted[j][1] >= d:
            continue  # inside one trusted run: the template's
        pos = c
        while j < len(trusted) and trusted[j][0] < d:
            a, b = trusted[j]
            if a > pos:
                pieces.append((pos, a))  # text outside the runs
            if a > c:
                pieces.append((a, a))  # a run begins inside the occurrence
            pos = max(pos, b)
            j += 1
        if pos < d:
            pieces.append((pos, d))
    return _merge(pieces)


def _merge(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint spans covering ``pieces`` (a point inside or at the edge of a range is dropped)."""
    ranges = sorted(p for p in pieces if p[0] < p[1])
    merged: list[list[int]] = []
    for a, b in ranges:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out = [(a, b) for a, b in merged]
    starts = [a for a, _ in out]
    for p, _ in sorted({p for p in pieces if p[0] == p[1]}):
        i = bisect.bisect_right(starts, p) - 1
        if i >= 0 and out[i][1] >= p:
            continue
        if i + 1 < len(out) and out[i + 1][0] == p:
            continue
        out.insert(i + 1, (p, p))
        starts.insert(i + 1, p)
    return out
