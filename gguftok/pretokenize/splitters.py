"""llama.cpp's hand-written pre-tokenizer splitters, ported as behaviour (``src/unicode.cpp``).

For a few regexes llama.cpp does not run a regex engine at all: it recognises the exact pattern string and
runs a hand-written loop instead (GPT-2's, Llama 3's, Qwen2's, Qwen3.5's, Kimi K2's, AFMoE's digits and a
newline splitter). The loops are close to their regexes but not equal to them (Qwen2 cuts digits one by one,
the contractions ignore case through llama.cpp's own lowercase table, ...), so we port the loops.

Each splitter takes the code points of the text and the current pieces (lengths in code points) and returns
the new pieces; every piece is split on its own, and nothing is ever dropped.

>>> cps = [ord(c) for c in "Hello world's 12345!!\\n\\n"]
>>> pieces = llama3(cps, [len(cps)])
>>> ["".join(map(chr, p)) for p in cut(cps, pieces)]
['Hello', ' world', "'s", ' ', '123', '45', '!!\\n\\n']
"""

from __future__ import annotations

from collections.abc import Iterator

from .unicode import ACCENT_MARK, LETTER, NUMBER, WHITESPACE, flags, to_lower

_CR, _LF, _SPACE, _QUOTE = 0x0D, 0x0A, 0x20, 0x27
_OUT = -1  # "out of range" code point


def cut(cps: list[int], lengths: list[int]) -> Iterator[list[int]]:
    """The code points of each piece."""
    start = 0
    for n in lengths:
        yield cps[start:start + n]
        start += n


def _pieces(lengths: list[int]) -> Iterator[tuple[int, int]]:
    start = 0
    for n in lengths:
        yield start, start + n
        start += n


class _Piece:
    """One piece being split: bounded accessors and the token emitter of llama.cpp's splitters."""

    __slots__ = ("cps", "end", "fl", "ini", "out", "prev")

    def __init__(self, cps: list[int], fl: list[int], ini: int, end: int, out: list[int]) -> None:
        self.cps, self.fl, self.ini, self.end, self.prev, self.out = cps, fl, ini, end, ini, out

    def cpt(self, pos: int) -> int:
        return self.cps[pos] if self.ini <= pos < self.end else _OUT

    def flags(self, pos: int) -> int:
        return self.fl[pos] if self.ini <= pos < self.end else 0

    def add(self, end: int) -> int:
        n = end - self.prev
        if n > 0:
            self.out.append(n)
        self.prev = end
        return n


def _whitespace_tail(p: _Piece, pos: int, newlines: bool) -> int:
    """The shared ending of the splitters: ``\\s*[\\r\\n]+`` (if ``newlines``), ``\\s+(?!\\S)``, ``\\s+``, else 1."""
    n = 0
    last_newline = 0
    while p.flags(pos + n) & WHITESPACE:
        if newlines and p.cpt(pos + n) in (_CR, _LF):
            last_newline = pos + n + 1
        n += 1
    if last_newline > 0:
        p.add(last_newline)
        return last_newline
    if n > 1 and p.cpt(pos + n) != _OUT:
        p.add(pos + n - 1)
        return pos + n - 1
    if n > 0:
        p.add(pos + n)
        return pos + n
    p.add(pos + 1)
    return pos + 1


def _digits_in_threes(p: _Piece, pos: int) -> int:
    r"""``\p{N}{1,3}`` repeated: a token every three number code points, then the rest."""
    start = pos
    while p.flags(pos) & NUMBER:
        pos += 1
        if pos - start >= 3:
            p.add(pos)
            start = pos
    p.add(pos)
    return pos


def _punctuation_run(p: _Piece, pos: int, f2: int, stop: int) -> int:
    """``<space>?[^\\s...]+[\r\n]*`` from ``pos`` (the caller has checked how it starts)."""
    pos += p.cpt(pos) == _SPACE
    while not f2 & stop and f2:
        pos += 1
        f2 = p.flags(pos)
    while p.cpt(pos) in (_CR, _LF):
        pos += 1
    p.add(pos)
    return pos


def gpt2(cps: list[int], lengths: list[int]) -> list[int]:
    """``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)``, case-sensitive."""
    fl = [flags(c) for c in cps]
    out: list[int] = []
    for ini, end in _pieces(lengths):
        p = _Piece(cps, fl, ini, end, out)
        pos = ini
        while pos < end:
            c = cps[pos]
            f = fl[pos]
            if c == _QUOTE and pos + 1 < end:
                nxt = p.cpt(pos + 1)
                if nxt in (0x73, 0x74, 0x6D, 0x64):  # s t m d
                    pos += p.add(pos + 2)
                    continue
                if pos + 2 < end and (nxt, p.cpt(pos + 2)) in ((0x72, 0x65), (0x76, 0x65), (0x6C, 0x6C)):
                    pos += p.add(pos + 3)
                    continue
            f2 = p.flags(pos + 1) if c == _SPACE else f
            for kind in (LETTER, NUMBER):
                if f2 & kind:
                    pos += c == _SPACE
                    while f2 & kind:
                        pos += 1
                        f2 = p.flags(pos)
                    p.add(pos)
                    break
            else:
                if not f2 & (WHITESPACE | LETTER | NUMBER) and f2:
                    pos += c == _SPACE
                    while not f2 & (WHITESPACE | LETTER | NUMBER) and f2:
                        pos += 1
                        f2 = p.flags(pos)
                    p.add(pos)
                    continue
                pos = _whitespace_tail(p, pos, newlines=False)
    return out


def _llama3_family(cps: list[int], lengths: list[int], digits: int, marks: bool) -> list[int]:
    """Llama 3 (``digits=3``), Qwen2 (``digits=1``) and Qwen3.5 (``digits=1``, marks count as letters)."""
    fl = [flags(c) for c in cps]
    word = LETTER | ACCENT_MARK if marks else LETTER
    out: list[int] = []
    for ini, end in _pieces(lengths):
        p = _Piece(cps, fl, ini, end, out)
        pos = ini
        while pos < end:
            c = cps[pos]
            f = fl[pos]
            # (?i:'s|'t|'re|'ve|'m|'ll|'d), lowercased with llama.cpp's table
            if c == _QUOTE and pos + 1 < end:
                nxt = to_lower(p.cpt(pos + 1))
                if nxt in (0x73, 0x74, 0x6D, 0x64):
                    pos += p.add(pos + 2)
                    continue
                if pos + 2 < end and (nxt, to_lower(p.cpt(pos + 2))) in ((0x72, 0x65), (0x76, 0x65), (0x6C, 0x6C)):
                    pos += p.add(pos + 3)
                    continue
            # [^\r\n\p{L}\p{N}]?\p{L}+  (Qwen3.5: [\p{L}\p{M}]+)
            if not (c in (_CR, _LF) or f & NUMBER) and (f & word or p.flags(pos + 1) & word):
                pos += 1
                while p.flags(pos) & word:
                    pos += 1
                p.add(pos)
                continue
            # \p{N}{1,3} (Llama 3) or \p{N} (Qwen)
            if f & NUMBER:
                if digits == 1:
                    pos += 1
                    p.add(pos)
                else:
                    pos = _digits_in_threes(p, pos)
                continue
            # <space>?[^\s\p{L}\p{N}]+[\r\n]*  (the second test is on the current code point, as in llama.cpp)
            f2 = p.flags(pos + 1) if c == _SPACE else f
            stop = WHITESPACE | word | NUMBER
            if not f2 & stop and f:
                pos = _punctuation_run(p, pos, f2, stop)
                continue
            pos = _whitespace_tail(p, pos, newlines=True)
    return out


def llama3(cps: list[int], lengths: list[int]) -> list[int]:
    """Llama 3's pattern: contractions, letter runs with one leading non-letter, digits in threes, ..."""
    return _llama3_family(cps, lengths, digits=3, marks=False)


def qwen2(cps: list[int], lengths: list[int]) -> list[int]:
    """Qwen2's pattern: like Llama 3's but every digit alone."""
    return _llama3_family(cps, lengths, digits=1, marks=False)


def qwen35(cps: list[int], lengths: list[int]) -> list[int]:
    """Qwen3.5's pattern: like Qwen2's, with combining marks inside letter runs."""
    return _llama3_family(cps, lengths, digits=1, marks=True)


_HAN_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
               (0x2B820, 0x2CEAF), (0x2CEB0, 0x2EBEF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_han(cp: int) -> bool:
    """llama.cpp's ``unicode_cpt_is_han``: the CJK ideograph blocks it lists."""
    return any(a <= cp <= b for a, b in _HAN_RANGES)


def kimi_k2(cps: list[int], lengths: list[int]) -> list[int]:
    """Kimi K2's whole pattern, hand-coded by llama.cpp: Han runs, letter runs (with one leading
    non-letter and a contraction suffix), digits in threes, punctuation runs, and the whitespace rules."""
    fl = [flags(c) for c in cps]
    out: list[int] = []
    for ini, end in _pieces(lengths):
        p = _Piece(cps, fl, ini, end, out)

        def letter(pos: int, p: _Piece = p) -> bool:
            return bool(p.flags(pos) & LETTER) and not is_han(p.cpt(pos))

        pos = ini
        while pos < end:
            c = cps[pos]
            f = fl[pos]
            if is_han(c):
                while is_han(p.cpt(pos)):
                    pos += 1
                p.add(pos)
                continue
            other = not (c in (_CR, _LF) or f & (LETTER | NUMBER))
            if (f & LETTER and not is_han(c)) or (other and letter(pos + 1)):
                leading = False
                if other:
                    leading = True
                    pos += 1
                has_letters = False
                while letter(pos):
                    has_letters = True
                    pos += 1
                if has_letters or (not leading and letter(pos)):
                    if not has_letters:
                        pos += 1
                    while letter(pos):
                        pos += 1
                    if p.cpt(pos) == _QUOTE and pos + 1 < end:
                        nxt = to_lower(p.cpt(pos + 1))
                        if nxt in (0x73, 0x74, 0x6D, 0x64):
                            pos += 2
                        elif pos + 2 < end and (nxt, to_lower(p.cpt(pos + 2))) in ((0x72, 0x65), (0x76, 0x65),
                                                                                   (0x6C, 0x6C)):
                            pos += 3
                    p.add(pos)
                    continue
                if leading:
                    pos -= 1
            if f & NUMBER:
                pos = _digits_in_threes(p, pos)
                continue
            f2 = p.flags(pos + 1) if c == _SPACE else f
            if not f2 & (WHITESPACE | LETTER | NUMBER) and f2:  # K2 tests the next code point's flags here
                pos = _punctuation_run(p, pos, f2, WHITESPACE | LETTER | NUMBER)
                continue
            pos = _whitespace_tail(p, pos, newlines=True)
    return out


def afmoe_digits(cps: list[int], lengths: list[int]) -> list[int]:
    """Digit runs (any ``\\p{N}``) cut in threes from the right; text before a run joins its first group."""
    fl = [flags(c) for c in cps]
    out: list[int] = []
    for ini, end in _pieces(lengths):
        p = _Piece(cps, fl, ini, end, out)
        pos = ini
        while pos < end:
            if fl[pos] & NUMBER:
                start = pos
                while pos < end and fl[pos] & NUMBER:
                    pos += 1
                count = pos - start
                current = start
                if count % 3:
                    current += count % 3
                    p.add(current)
                while current < start + count:
                    current += 3
                    p.add(current)
                continue
            pos += 1
        if p.prev < end:
            p.add(end)
    return out


def newlines(cps: list[int], lengths: list[int]) -> list[int]:
    """``[^\\n]+|[\\n]+``: alternating runs of newlines and of everything else."""
    out: list[int] = []
    for ini, end in _pieces(lengths):
        pos = ini
        while pos < end:
            is_nl = cps[pos] == _LF
            start = pos
            while pos < end and (cps[pos] == _LF) == is_nl:
                pos += 1
            out.append(pos - start)
    return out


# The exact pattern strings llama.cpp recognises (unicode_regex_split_custom), and their splitters.
CUSTOM = {
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)": gpt2,
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
    "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": llama3,
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": llama3,
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": qwen2,
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}"
    "| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": qwen35,
    "\\p{Han}+": kimi_k2,  # Kimi K2's first pattern stands for all of them
    "\\p{AFMoE_digits}": afmoe_digits,
    "[^\\n]+|[\\n]+": newlines,
    "\\d{1,3}(?=(?:\\d{3})*\\b)": afmoe_digits,  # tiny_aya: llama.cpp runs the AFMoE digit splitter for it
}
