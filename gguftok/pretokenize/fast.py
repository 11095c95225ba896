"""Compiled patterns that cut exactly as llama.cpp's hand-written splitters do, for speed.

:mod:`gguftok.pretokenize.splitters` ports llama.cpp's loops line by line. They are the reference (the
teaching views show them), but in Python a loop costs a few hundred nanoseconds per code point. The patterns
here make the same cuts in one ``findall`` of Python's C regex engine, several times faster.

They run on the **collapsed text** (:func:`~gguftok.pretokenize.regex_split.collapsed_text`, the trick
llama.cpp itself uses for its regex path): every ASCII code point stays itself, and every other one becomes
one character naming its category in llama.cpp's own Unicode 15.1 tables (``\\xd2`` a letter, ``\\xd1`` a
number, ``\\xd4`` a mark, ``\\v`` any whitespace, ...). One code point stays one character, so a match's
length is the word's length in the original text; ASCII text is its own collapsed text. The classes are
then small and exact, and never depend on the Unicode version of Python's regex engine:

=========== ==================== =================================================================
 class       pattern              llama.cpp's test in the loop
=========== ==================== =================================================================
 letter      ``[A-Za-z\\xd2]``     ``flags.is_letter``
 number      ``[0-9\\xd1]``        ``flags.is_number``
 mark        ``\\xd4``             ``flags.is_accent_mark`` (Qwen3.5 counts marks as letters)
 whitespace  ``[\\t-\\r ]``         ``flags.is_whitespace``: the six ASCII ones; all others are ``\\v``
=========== ==================== =================================================================

Why each pattern equals its loop is written next to it: the alternatives come in the order the loop tests
its branches, and each consumes what that branch consumes. Each ends with ``(?s:.)``, the loop's last resort
of emitting one code point, so nothing is ever dropped. A loop works on one piece at a time and its
look-aheads stop at the piece's end; a pattern runs with ``endpos`` at the piece's end, which Python's engine
treats as the end of the string. ``tests/test_pretokenize.py`` checks every pattern against its loop on
generated text (every Unicode category, the whole whitespace set, contractions in every case, digit runs,
invalid code points), and the golden fixtures and ``make fuzz`` check the ids against llama.cpp.

>>> [FAST[p].findall("We'LL pay 12345\\n\\n  x") for p in (LLAMA3, GPT2)]
[['We', "'LL", ' pay', ' ', '123', '45', '\\n\\n', ' ', ' x'], ['We', "'", 'LL', ' pay', ' 12345', '\\n\\n ', ' x']]

**Without collapsing.** Collapsing gives the words' lengths, not the words: cutting the text at those lengths
costs as much again. :func:`bmp_pattern` rewrites each class of a pattern as the code points whose collapsed
character it matches, so the pattern runs on the text itself and ``findall`` returns the words. It is
limited to the Basic Multilingual Plane because Python's engine tests a class of code points up to U+FFFF in
one step (a bitmap per block of 256) but a class reaching past it as a list of ranges, one by one: measured
here, findall ran 7 to 10 times slower. A text with a code point past U+FFFF takes the collapsed path.

>>> bmp_pattern(FAST[GPT2]).findall("naïve 漢字 ١٢٣")
['naïve', ' 漢字', ' ١٢٣']
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from .regex_split import COLLAPSE_TABLE
from .splitters import CUSTOM

# Classes of the collapsed text (see the table above).
_LETTER = "A-Za-z\xd2"
_NUMBER = "0-9\xd1"
_MARK = "\xd4"
_SPACE = "\\t-\\r "  # \t \n \v \f \r and the space; every non-ASCII whitespace code point is collapsed to \v
_WHITESPACE_RUNS = f"|[{_SPACE}]+(?![^{_SPACE}])|[{_SPACE}]+|(?s:.)"


def _gpt2() -> str:
    """GPT-2's loop (``splitters.gpt2``), branch by branch:

    1. ``'`` then ``s t m d`` (2 code points) or ``re ve ll`` (3), case-sensitive;
    2. an optional space, then a run of letters, or of numbers (the space is taken only if a run follows);
    3. an optional space, then a run of anything but whitespace, letters and numbers;
    4. the whitespace tail: a run of ``n`` whitespace code points is cut before its last one if a
       non-whitespace code point follows (``\\s+(?!\\S)`` backs off by one), else taken whole (``\\s+`` also
       takes a single one before a non-space, where the loop emits ``n`` = 1);
    5. anything else alone (the loop's last resort; unreachable, every code point is in some class).
    """
    return (f"'(?:[stmd]|re|ve|ll)| ?[{_LETTER}]+| ?[{_NUMBER}]+| ?[^{_SPACE}{_LETTER}{_NUMBER}]+"
            + _WHITESPACE_RUNS)


def _llama3_family(digits: int, marks: bool) -> str:
    """Llama 3's, Qwen2's and Qwen3.5's loop (``splitters._llama3_family``), branch by branch:

    1. ``'`` then a code point that llama.cpp lowercases to ``s t m d``, or two to ``re ve ll`` (its
       lowercase table maps only ``S T M D R E V L`` to these, so ASCII classes say it all);
    2. one code point that is not CR, LF, a letter or a number, then a run of word code points (letters;
       Qwen3.5: letters and marks), or the run alone. A word code point never starts the optional part
       (Qwen3.5: a mark may, and then the run starts at the next one, or the mark is the run), so the run
       starts where the loop's does;
    3. numbers one at a time (Qwen) or up to three (Llama 3: a longer run is cut in threes from the left,
       as ``_digits_in_threes`` does);
    4. an optional space, a run of anything but whitespace, word code points and numbers, then any CR/LF;
    5. the whitespace tail: up to the last CR or LF of a whitespace run if it has one (``\\s*[\\r\\n]+``
       backs off to it), else the run less its last code point when a non-whitespace one follows, else the
       whole run; then anything else alone (the loop's last resort).
    """
    word = _LETTER + _MARK if marks else _LETTER
    numbers = f"[{_NUMBER}]{{1,3}}" if digits == 3 else f"[{_NUMBER}]"
    return (f"'(?:[sStTmMdD]|[rR][eE]|[vV][eE]|[lL][lL])|[^\\r\\n{_LETTER}{_NUMBER}]?[{word}]+|{numbers}"
            f"| ?[^{_SPACE}{word}{_NUMBER}]+[\\r\\n]*|[{_SPACE}]*[\\r\\n]+" + _WHITESPACE_RUNS)


def _fast_patterns() -> dict[str, re.Pattern[str]]:
    by_splitter = {
        "gpt2": _gpt2(),
        "llama3": _llama3_family(3, marks=False),
        "qwen2": _llama3_family(1, marks=False),
        "qwen35": _llama3_family(1, marks=True),
        "newlines": "[^\\n]+|\\n+",  # alternating runs of newlines and of the rest: the loop exactly
    }
    compiled = {name: re.compile(p) for name, p in by_splitter.items()}
    return {rx: compiled[fn.__name__] for rx, fn in CUSTOM.items() if fn.__name__ in compiled}


# llama.cpp's pattern string -> the compiled equivalent of its hand-written splitter (Kimi K2's and the AFMoE
# digit splitter have none: they run as loops).
FAST: dict[str, re.Pattern[str]] = _fast_patterns()
GPT2 = next(rx for rx, fn in CUSTOM.items() if fn.__name__ == "gpt2")
LLAMA3 = next(rx for rx, fn in CUSTOM.items() if fn.__name__ == "llama3")


# Marks a piece's end in a joined collapsed text: never in a collapsed text (ASCII and the markers only).
PIECE_END = "\uffff"


@lru_cache(maxsize=16)
def joined_pattern(collapsed: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern that cuts the pieces of a collapsed text joined by :data:`PIECE_END` as ``collapsed`` cuts
    each piece searched alone (with ``endpos`` at its end): ``findall`` of the joined text returns every
    piece's words, in order, in one call (one call per piece cost about 2.5 µs: 120 ms for the 50,000 pieces
    of English prose that Falcon's punctuation split leaves).

    Every negated class also refuses :data:`PIECE_END`, and the last resort ``(?s:.)`` becomes "anything but
    it"; no other part of the pattern can match it (the positive classes and literals are ASCII and markers).
    So every step that reads a character fails on :data:`PIECE_END` as it fails at the end of the piece, and
    the one look-ahead, ``(?![^...])`` (no character of a negated class follows), holds before it as at the
    end. A match attempt inside a piece therefore goes exactly as in the piece alone, no match holds
    :data:`PIECE_END`, and at :data:`PIECE_END` itself nothing matches (no alternative matches the empty
    string: checked here), so ``findall`` steps over it.

    >>> joined_pattern(FAST[GPT2]).findall("a  \uffffb \uffff 1"), [FAST[GPT2].findall(p) for p in ("a  ", "b ", " 1")]
    (['a', '  ', 'b', ' ', ' 1'], [['a', '  '], ['b', ' '], [' 1']])
    """
    source = collapsed.pattern
    if PIECE_END in source or source.count("(?s:.)") > 1 or collapsed.match(""):
        raise ValueError(f"not a pattern of this module: {source!r}")
    return re.compile(source.replace("[^", "[^" + PIECE_END).replace("(?s:.)", f"[^{PIECE_END}]"))


_CLASS = re.compile(r"\[(\^?)((?:\\.|[^\]\\])+)\]")  # a class of a pattern above: no nested or escaped brackets
# a code point past U+FFFF, which bmp_pattern's patterns are not made for
ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=64)
def _bmp_class(negated: str, body: str) -> str:
    """The class ``[body]`` of the collapsed text as a class of BMP code points (``negated`` is ``^`` or ``""``)."""
    on_collapsed = re.compile(f"[{body}]")
    accepted = [b for b in range(256) if on_collapsed.match(chr(b))]
    members = np.isin(COLLAPSE_TABLE[:0x10000], accepted)
    edges = np.flatnonzero(np.diff(np.concatenate(([False], members, [False])).astype(np.int8)))
    ranges = zip(edges[::2].tolist(), (edges[1::2] - 1).tolist(), strict=True)
    return f"[{negated}" + "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


@lru_cache(maxsize=16)
def bmp_pattern(collapsed: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern that cuts a text with no code point past U+FFFF as ``collapsed`` cuts its collapsed text.

    Every class becomes the BMP code points whose collapsed character it matches; the rest of the pattern is
    ASCII, and every ASCII code point is its own collapsed character, so each step of a match is the same
    step on both texts (``tests/test_pretokenize.py`` holds them equal).
    """
    outside = _CLASS.sub("", collapsed.pattern)
    if not outside.isascii():
        raise ValueError(f"a non-ASCII character outside a class: {collapsed.pattern!r}")
    return re.compile(_CLASS.sub(lambda m: _bmp_class(m.group(1), m.group(2)), collapsed.pattern))
