"""llama.cpp's general regex path (``unicode_regex_split``), reproduced with the ``regex`` module.

A pattern with no hand-written splitter runs through C++ ``std::regex``, in one of two ways:

- **collapsed**, when it uses ``\\p{L}``, ``\\p{N}``, ... : the text becomes one character per code point (ASCII
  stays, whitespace becomes ``\\v``, a letter becomes the marker ``\\xd2``, a number ``\\xd1``, ...) and each
  ``\\p{X}`` in the pattern becomes ``[marker + the ASCII members]``. So ``\\p{Lu}`` means *any* letter, and
  ``\\s`` matches every Unicode space.
- **wregex** otherwise: the pattern runs on the code points, with non-ASCII whitespace turned into ``\\v``
  because ``std::wregex``'s ``\\s`` is ASCII-only.

Either way, every current piece is searched on its own (a lookahead cannot see past it, ``$`` matches at its
end) and the text between matches is kept as a piece of its own.

>>> collapse_pattern("\\\\p{L}+|[^\\\\s\\\\p{N}]")
'[\\xd2A-Za-z]+|[^\\\\s\\xd10-9]'
>>> cps = [ord(c) for c in "Ünï 123"]
>>> split_regex(cps, [len(cps)], " ?\\\\p{L}+|\\\\p{N}")
[3, 1, 1, 1, 1]
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

import numpy as np
import regex

from .unicode import (
    ACCENT_MARK,
    CATEGORY,
    LETTER,
    NUMBER,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE_SET,
)

# \p{X} -> (marker, ASCII members), as in unicode.cpp's k_ucat_cpt and k_ucat_map
_MARKERS = {NUMBER: "\xd1", LETTER: "\xd2", PUNCTUATION: "\xd3", ACCENT_MARK: "\xd4", SYMBOL: "\xd5"}
_CATEGORY_OF = {"N": NUMBER, "L": LETTER, "P": PUNCTUATION, "M": ACCENT_MARK, "S": SYMBOL,
                "Lu": LETTER, "Ll": LETTER, "Lt": LETTER, "Lm": LETTER, "Lo": LETTER}
_ASCII_MEMBERS = {
    NUMBER: "0-9",
    LETTER: "A-Za-z",
    PUNCTUATION: "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}",
    ACCENT_MARK: "",
    SYMBOL: "\\$\\+<->^`\\|\\~",
}
_UCATS = tuple(f"\\p{{{name}}}" for name in _CATEGORY_OF)


def uses_categories(pattern: str) -> bool:
    """Whether llama.cpp runs ``pattern`` on the collapsed text."""
    return any(u in pattern for u in _UCATS)


@lru_cache(maxsize=256)
def collapse_pattern(pattern: str) -> str:
    """Rewrite each ``\\p{X}`` as its marker plus ASCII members, literally as unicode.cpp does."""
    if any(ord(c) >= 128 for c in pattern):
        raise ValueError(f"regex {pattern!r} mixes Unicode categories and non-ASCII characters; llama.cpp refuses it")
    out: list[str] = []
    inside = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "[" and (i == 0 or pattern[i - 1] != "\\"):
            out.append("[")
            inside = True
        elif inside and c == "]" and pattern[i - 1] != "\\":
            out.append("]")
            inside = False
        else:
            close = pattern.find("}", i + 3) if pattern.startswith("\\p{", i) and i + 3 < len(pattern) else -1
            name = pattern[i + 3:close] if 0 <= close <= i + 10 else None
            if name in _CATEGORY_OF:
                cat = _CATEGORY_OF[name]
                body = _MARKERS[cat] + _ASCII_MEMBERS[cat]
                out.append(body if inside else f"[{body}]")
                i = close
            else:
                out.append(c)
        i += 1
    return "".join(out)


def _collapse_table() -> np.ndarray:
    """Code point -> its collapsed character (as a byte), for every code point."""
    table = np.frombuffer(CATEGORY, dtype=np.uint8).copy()
    out = np.full(0x110000, 0xD0, dtype=np.uint8)  # control, unassigned, ... -> 0xD0
    for flag, marker in _MARKERS.items():
        out[table == flag] = ord(marker)
    for cp in WHITESPACE_SET:
        out[cp] = 0x0B
    out[:128] = np.arange(128, dtype=np.uint8)
    return out


COLLAPSE_TABLE = _collapse_table()


def collapsed_text(cps: list[int]) -> str:
    """One character per code point: ASCII as is, whitespace ``\\v``, others their category marker."""
    return COLLAPSE_TABLE[np.asarray(cps, dtype=np.int64)].tobytes().decode("latin-1")


def collapse(text: str) -> str:
    """:func:`collapsed_text` of a ``str`` (surrogates allowed), without making a list of code points."""
    if text.isascii():  # every ASCII code point is its own collapsed character
        return text
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return COLLAPSE_TABLE[cps].tobytes().decode("latin-1")


def wide_text(cps: list[int]) -> str:
    """The code points as a string, non-ASCII whitespace turned into ``\\v`` (std::wregex sees no other)."""
    return "".join("\x0b" if c > 0x7F and c in WHITESPACE_SET else chr(c) for c in cps)


@lru_cache(maxsize=256)
def compile_std_regex(pattern: str) -> regex.Pattern:
    """A ``regex`` pattern that matches as llama.cpp's ``std::regex`` (ECMAScript, classic locale) does.

    ASCII classes (``\\s`` is the six C ``isspace`` characters), version 0 semantics, and ``$`` only at the
    very end of the searched piece (Python's ``$`` would also match before a final newline).
    """
    out, inside, escaped = [], False, False
    for c in pattern:
        if escaped:
            out.append(c)
            escaped = False
        elif c == "\\":
            out.append(c)
            escaped = True
        elif c == "[":
            inside = True
            out.append(c)
        elif c == "]":
            inside = False
            out.append(c)
        elif c == "$" and not inside:
            out.append("\\Z")
        else:
            out.append(c)
    return regex.compile("".join(out), regex.ASCII | regex.VERSION0)


def stl_split(text: str, pattern: regex.Pattern, lengths: list[int]) -> list[int]:
    """Split each piece of ``text`` by the matches of ``pattern``, keeping the gaps (``unicode_regex_split_stl``)."""
    out: list[int] = []
    start = 0
    for n in lengths:
        piece = text[start:start + n]  # searched on its own: lookaheads and $ stop at its end
        at = 0
        for m in pattern.finditer(piece):
            if m.start() > at:
                out.append(m.start() - at)
            out.append(m.end() - m.start())  # zero-length matches give empty pieces, as in llama.cpp
            at = m.end()
        if at < n:
            out.append(n - at)
        start += n
    return out


def stl_split_fast(text: str, pattern: regex.Pattern, lengths: list[int]) -> list[int]:
    """:func:`stl_split`, with less Python per piece and per match (a test holds it to :func:`stl_split`).

    When the pattern cannot look around or anchor (but for ``$``) and cannot match the empty string, all
    pieces are cut in one search of the pieces joined by a separator (:func:`_joined_split`). Otherwise, or
    when the text holds every candidate separator, a piece is cut with ``split`` on the pattern wrapped in one
    group (gaps and matches alternate, a zero-length match giving an empty piece) when the pattern has no
    groups of its own, else with ``finditer``.
    """
    if _joinable(pattern) and (sep := separator(text)) is not None:
        if len(text) >= _JOINED_MIN:
            return _joined_split(text, pattern, lengths, sep)
        # a short text: the same search, with strings for arrays, while no match holds a separator
        pieces, start = [], 0
        for n in lengths:
            pieces.append(text[start:start + n])
            start += n
        parts = _joined_splitter(pattern.pattern, pattern.flags, sep).split(sep.join(pieces))
        if sep not in "".join(parts[1::2]):
            return [len(p) for p in sep.join(parts).split(sep) if p]  # a match's edges are cuts too
    splitter = _group_split(pattern) if pattern.groups == 0 else None
    out: list[int] = []
    start = 0
    for n in lengths:
        piece = text[start:start + n]
        if splitter is not None:
            for i, part in enumerate(splitter.split(piece)):  # gap, match, gap, match, ..., gap
                if part or i % 2:  # an empty gap is no piece; an empty match is one
                    out.append(len(part))
        else:
            at = 0
            for m in pattern.finditer(piece):
                if m.start() > at:
                    out.append(m.start() - at)
                out.append(m.end() - m.start())
                at = m.end()
            if at < n:
                out.append(n - at)
        start += n
    return out


@lru_cache(maxsize=256)
def _joinable(pattern: regex.Pattern) -> bool:
    """Whether :func:`_joined_split` may cut with ``pattern``: no groups, no look-arounds or anchors but ``$``
    (``\\Z`` once compiled), and no match of the empty string."""
    return pattern.groups == 0 and _context_free(pattern.pattern.replace("\\Z", "")) and not pattern.match("")


# Below this many code points the pieces are cut one by one: the joined search's fixed cost (some NumPy
# calls, about 50 µs) is then larger than what it saves (about 1 µs a piece and 0.3 µs a match).
_JOINED_MIN = 1024
# NUL, then the 32 noncharacters U+FDD0..U+FDEF: a text that holds all of them is cut the slow way
_SEPARATORS = "\0" + "".join(map(chr, range(0xFDD0, 0xFDF0)))


def separator(text: str) -> str | None:
    """A code point that ``text`` does not contain, to join its pieces with; ``None`` if it has them all."""
    return next((c for c in _SEPARATORS if c not in text), None)


def _joined_split(text: str, pattern: regex.Pattern, lengths: list[int], sep: str) -> list[int]:
    """:func:`stl_split` of a pattern that cannot look around, anchor or match the empty string, in one
    search: the pieces are joined by ``sep`` (which ``text`` does not contain) and the joined text is cut.

    A match of the joined text that holds no ``sep`` is inside one piece, and it is the match that searching
    the piece alone finds at that place: without look-arounds and anchors, a way of matching that stays inside
    the piece is one in the joined text too, and the reverse; so the first that succeeds is the same, and a
    place where the joined text has no match has none in the piece either. (``$``, the end of the piece,
    becomes ``(?=sep|\\Z)``: true at the same places.) A piece that a match holding
    ``sep`` reaches into is searched again on its own (:func:`stl_split`), as the search inside it may have
    started elsewhere. The cuts are then every piece's edges and the edges of the other matches.
    """
    n_pieces = len(lengths)
    sizes = np.asarray(lengths, dtype=np.int64)
    ends = np.cumsum(sizes)  # in the text
    starts = ends - sizes
    shift = np.arange(n_pieces, dtype=np.int64)  # separators before each piece in the joined text
    joined_starts, joined_ends = starts + shift, ends + shift  # piece k's characters in the joined text
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    joined = np.insert(cps, ends[:-1], ord(sep)).tobytes().decode("utf-32-le", "surrogatepass")
    splitter = _joined_splitter(pattern.pattern, pattern.flags, sep)
    parts = np.fromiter(map(len, splitter.split(joined)), dtype=np.int64)  # gap, match, gap, ..., gap
    bounds = np.cumsum(parts)
    m_start, m_end = bounds[:-1:2], bounds[1::2]  # matches in the joined text, never empty
    sep_at = joined_ends[:-1]  # where the separators are in the joined text
    holds_sep = np.searchsorted(sep_at, m_end) > np.searchsorted(sep_at, m_start)
    # pieces the matches holding a separator reach into: first piece ending after the start, last starting
    # before the end
    first = np.searchsorted(joined_ends, m_start[holds_sep], side="right")
    last = np.searchsorted(joined_starts, m_end[holds_sep], side="left") - 1
    redo = np.zeros(n_pieces + 1, dtype=np.int64)
    np.add.at(redo, first, 1)
    np.add.at(redo, last + 1, -1)
    redo = np.cumsum(redo[:-1]) > 0
    # the other matches, back in the text's coordinates, unless they lie in a piece searched again
    keep = ~holds_sep
    m_start, m_end = m_start[keep], m_end[keep]
    piece = np.searchsorted(joined_starts, m_start, side="right") - 1
    inside = ~redo[piece]
    shifted = shift[piece[inside]]
    cuts = [ends, m_start[inside] - shifted, m_end[inside] - shifted]
    for k in np.flatnonzero(redo).tolist():
        at = int(starts[k])
        cuts.append(at + np.cumsum(stl_split(text[at:at + lengths[k]], pattern, [lengths[k]]), dtype=np.int64))
    is_edge = np.zeros(len(text) + 1, dtype=np.bool_)
    for c in cuts:
        is_edge[c] = True
    return np.diff(np.flatnonzero(is_edge[1:]) + 1, prepend=0).tolist()  # a piece of length 0 leaves no piece


@lru_cache(maxsize=256)
def _joined_splitter(source: str, flags: int, sep: str) -> re.Pattern | regex.Pattern:
    """The pattern of :func:`_joined_split`, in one group, with ``$`` (``\\Z`` here) true before ``sep`` too.

    Compiled with Python's own ``re`` if it takes the pattern without a warning: on llama.cpp's patterns it
    matches as ``regex`` does (ASCII classes, no set operations), and it is 2 to 5 times faster on their large
    character classes (measured on the deepseek-llm letter class: 16 ms against 75 ms on 465 KB).
    """
    source = "(" + source.replace("\\Z", f"(?={re.escape(sep)}|\\Z)") + ")"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return re.compile(source, re.ASCII)
    except (re.error, FutureWarning, DeprecationWarning):
        return regex.compile(source, flags)


@lru_cache(maxsize=256)
def _group_split(pattern: regex.Pattern) -> regex.Pattern:
    return regex.compile(f"({pattern.pattern})", pattern.flags)


@lru_cache(maxsize=256)
def _context_free(source: str) -> bool:
    """Whether a pattern's match at a place depends only on the text from that place on."""
    if any(s in source for s in ("(?=", "(?!", "(?<", "\\b", "\\B", "\\A", "\\Z", "\\G")):
        return False
    plain = regex.sub(r"\\.", "", source)  # escaped characters say nothing here
    return "$" not in plain and "^" not in plain.replace("[^", "")


def split_regex(cps: list[int], lengths: list[int], pattern: str, collapsed: str | None = None,
                fast: bool = False, wide: str | None = None) -> list[int]:
    """Apply one non-custom pattern to the pieces of ``cps`` (``collapsed`` and ``wide``: the text's collapsed
    and wide forms, if made; ``fast``: with :func:`stl_split_fast`, which cuts alike)."""
    split = stl_split_fast if fast else stl_split
    if uses_categories(pattern):
        text = collapsed if collapsed is not None else collapsed_text(cps)
        return split(text, compile_std_regex(collapse_pattern(pattern)), lengths)
    return split(wide if wide is not None else wide_text(cps), compile_std_regex(pattern), lengths)


# str.translate table of wide_text: each non-ASCII whitespace code point to \v
_WIDE = {c: "\x0b" for c in WHITESPACE_SET if c > 0x7F}
_NON_ASCII_SPACE = re.compile("[" + "".join(map(chr, sorted(_WIDE))) + "]")


def wide(text: str) -> str:
    """:func:`wide_text` of a ``str``, in one ``translate`` (skipped, as it changes nothing, when a search in C
    finds no non-ASCII whitespace: ``translate`` costs about 50 ns a code point)."""
    return text.translate(_WIDE) if _NON_ASCII_SPACE.search(text) else text
