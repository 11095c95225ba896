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


_COLLAPSE = _collapse_table()


def collapsed_text(cps: list[int]) -> str:
    """One character per code point: ASCII as is, whitespace ``\\v``, others their category marker."""
    return _COLLAPSE[np.asarray(cps, dtype=np.int64)].tobytes().decode("latin-1")


def collapse(text: str) -> str:
    """:func:`collapsed_text` of a ``str`` (surrogates allowed), without making a list of code points."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return _COLLAPSE[cps].tobytes().decode("latin-1")


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

    - A piece is cut with ``split`` on the pattern wrapped in one group (gaps and matches alternate, a
      zero-length match giving an empty piece), when the pattern has no groups of its own.
    - When the pattern cannot look around or anchor (no ``(?=``, ``(?!``, ``(?<``, ``\\b``, ``^``, ``$``), a
      match at a place depends only on the text from there on. So if a piece searched alone has a match at
      some place, the search of the whole text either finds a match there or is inside one that covers it:
      a piece that no match of the whole text touches has none of its own, and is kept as it is; and so is
      a piece that is exactly one match of the whole text (see below).
    """
    splitter = _group_split(pattern) if pattern.groups == 0 else None
    whole = None  # pieces known to stay whole
    if splitter is not None and _context_free(pattern.pattern) and len(lengths) > 1:
        sizes = np.fromiter(map(len, splitter.split(text)), dtype=np.int64)  # gap, match, gap, ...
        bounds = np.concatenate(([0], np.cumsum(sizes)))
        match_starts, match_ends = bounds[1:-1:2], bounds[2::2]
        covered = np.zeros(len(text) + 2, dtype=np.int64)  # +1 where a match starts, -1 after it ends
        np.add.at(covered, match_starts, 1)
        np.add.at(covered, match_ends + 1, -1)
        touched = np.cumsum(covered)[:len(text) + 1] > 0  # inside a match, or at its end
        seen = np.concatenate(([0], np.cumsum(touched)))
        ends = np.cumsum(np.asarray(lengths, dtype=np.int64))
        starts = ends - np.asarray(lengths, dtype=np.int64)
        whole = (seen[ends] - seen[starts]) == 0
        if not pattern.match(""):
            # A piece that is exactly one match of the whole text is that one match alone: the path the engine
            # took stays inside the piece, and any path it prefers inside the piece it would have preferred
            # in the whole text. (A pattern that can match nothing would add an empty match at the end.)
            span = len(text) + 1
            whole |= np.isin(starts * span + ends, match_starts * span + match_ends)
    out: list[int] = []
    start = 0
    for k, n in enumerate(lengths):
        if whole is not None and n and whole[k]:
            out.append(n)
            start += n
            continue
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


def wide(text: str) -> str:
    """:func:`wide_text` of a ``str``, in one ``translate``."""
    return text.translate(_WIDE)
