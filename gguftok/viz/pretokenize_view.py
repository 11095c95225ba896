"""Views of pre-tokenization: how each ``tokenizer.ggml.pre`` string cuts a text into words.

Every view is a pure function returning :class:`~gguftok.viz.render.Rendered`; the widget and the figure
import ipywidgets and matplotlib only when called. Pieces are shown as readable text (the GPT-2 byte
encoding undone) and the vocabulary form the model sees is kept in each chip's tooltip.

>>> print(split_view("llama-bpe", "Hi  there 12345").text)
llama-bpe (pre-type LLAMA3): 6 words
[Hi] [␣] [␣there] [␣] [123] [45]
>>> pieces("gpt-2", "We'LL")
['We', "'", 'LL']
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from ..bytemap import text_to_bytes
from ..pretokenize import PRE_STRINGS, PreTokenizer, PreTokenizerConfig, pre_tokenizer_config
from ..pretokenize.regex_split import collapsed_text, uses_categories, wide_text
from ..pretokenize.splitters import CUSTOM
from ..pretokenize.unicode import WHITESPACE_SET
from .render import PALETTE, TEXT, Rendered, _chip, escape_visible, folded

# The lesson's example line: a contraction with capitals, a number, two newlines, indentation, code.
LESSON_LINE = "We'LL pay 12345 for\n\n  int x=42;"

# Four short texts for comparing pre-tokenizers (piece counts per text).
SAMPLE_TEXTS: dict[str, str] = {
    "English prose": "The committee didn't agree, so they'll meet again on Friday; nobody's happy about it.",
    "code, indented": "def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n"
                      "    return total / len(xs)\n",
    "numbers": "Invoice 2024-06-30: 1,234,567.89 EUR for 42 items (ref 000731).",
    "CJK + emoji": "東京は今日も晴れ☀️ 我们去吃拉面吧！🍜🍜 좋아요 👍",
}

# How the collapsed text (what std::regex sees on the \p{..} path) is drawn: one glyph per code point.
_MARKER_GLYPHS = {"\xd0": "Ⓞ", "\xd1": "Ⓝ", "\xd2": "Ⓛ", "\xd3": "Ⓟ", "\xd4": "Ⓜ", "\xd5": "Ⓢ"}
MARKER_LEGEND = "Ⓛ letter · Ⓝ number · Ⓟ punctuation · Ⓜ mark · Ⓢ symbol · Ⓞ other · ␋ any non-ASCII space"

HAND_WRITTEN = "hand-written splitter"
COLLAPSED = "std::regex on the collapsed text"
WIDE = "std::wregex on the code points"


@cache
def _pretokenizer(pre: str) -> PreTokenizer:
    return PreTokenizer(pre_tokenizer_config(pre))


def readable(word: str, byte_encode: bool) -> str:
    """A pre-tokenizer word as plain text: the GPT-2 byte encoding undone when the pre-type uses it.

    >>> readable("Ġpay", True), readable("Ġpay", False)
    (' pay', 'Ġpay')
    """
    return text_to_bytes(word).decode("utf-8", "replace") if byte_encode else word


def words(pre: str, text: str) -> list[str]:
    """The non-empty words of ``text`` in the model's vocabulary form (``Ġpay``), as BPE will get them.

    Zero-length matches (SuperBPE's lookahead makes some) give empty words; they yield no token, and
    :meth:`gguftok.Tokenizer.words` drops them too. An empty text has no words (and is never split: with
    AFMoE's pre-type the empty result of its digit splitter would send the placeholder pattern to the regex
    engine, as in llama.cpp, which never splits an empty fragment either).
    """
    return [w for w in _pretokenizer(pre).split(text) if w] if text else []


def pieces(pre: str, text: str) -> list[str]:
    """The non-empty words of ``text`` under the pre string ``pre``, as readable text."""
    byte_encode = _pretokenizer(pre).byte_encode
    return [readable(w, byte_encode) for w in words(pre, text)]


def _count(n: int) -> str:
    return f"{n} word" + ("" if n == 1 else "s")


def _title_html(title: str) -> str:
    return f'<div style="margin:4px 0 2px 0;color:inherit;overflow-wrap:anywhere">{html.escape(title)}</div>'


def _piece_chips(pre: str, text: str) -> tuple[str, str, int]:
    """(html chips, text chips, count) for ``text`` under ``pre``; the tooltip names the vocabulary form."""
    pt = _pretokenizer(pre)
    ws = words(pre, text)
    html_parts, text_parts = [], []
    for k, w in enumerate(ws):
        piece = readable(w, pt.byte_encode)
        tip = f"word {k + 1} of {len(ws)} · {len(piece)} code point(s) · vocabulary form {w!r}"
        html_parts.append(_chip(escape_visible(piece), tip, k))
        text_parts.append(f"[{escape_visible(piece)}]")
    return "".join(html_parts), " ".join(text_parts), len(ws)


def split_view(pre: str, text: str) -> Rendered:
    """The pieces of ``text`` under one pre string, as chips (alternating colours, borders, visible
    whitespace), headed by the pre string, its pre-type and the piece count."""
    config = pre_tokenizer_config(pre)
    chip_html, chip_text, n = _piece_chips(pre, text)
    head = f"{pre} (pre-type {config.type}): {_count(n)}"
    return Rendered(f"<div>{_title_html(head)}<div>{chip_html}</div></div>", f"{head}\n{chip_text}")


def compare_splits(pres: Sequence[str], text: str) -> Rendered:
    """The same text under several pre strings, one after the other, then the piece counts side by side."""
    views = [split_view(p, text) for p in pres]
    counts = ", ".join(f"{p} {len(pieces(p, text))}" for p in pres)
    head = f"text: {escape_visible(text)}"
    return Rendered(f"<div>{_title_html(head)}{''.join(v.html for v in views)}{_title_html('words: ' + counts)}"
                    "</div>", "\n".join([head, *(v.text for v in views), "words: " + counts]))


def vocabulary_words(paths: Sequence, text: str) -> Rendered:
    """For each GGUF file: the ``tokenizer.ggml.pre`` it names and the words its tokenizer hands to BPE
    (:meth:`gguftok.Tokenizer.words`), in the vocabulary form (``Ġ`` for a space byte)."""
    from pathlib import Path

    from ..tokenizer import Tokenizer

    lines, blocks = [], []
    for path in paths:
        tok = Tokenizer.from_gguf(path)
        got = tok.words(text)
        head = f"{Path(path).name}: tokenizer.ggml.pre = {tok.vocab.pre_config.pre!r}, {len(got)} words"
        shown = [w if isinstance(w, str) else f"<special {w}>" for w in got]
        lines += [head, "  " + " ".join(f"[{escape_visible(w)}]" for w in shown)]
        chips_html = "".join(_chip(escape_visible(w), f"word {k + 1}", k) for k, w in enumerate(shown))
        blocks.append(f"<div>{_title_html(head)}<div>{chips_html}</div></div>")
    return Rendered("<div>" + "".join(blocks) + "</div>", "\n".join(lines))


# --- a regex list, step by step --------------------------------------------------------------------------


def list_steps(regexes: Sequence[str], text: str) -> list[list[str]]:
    """The pieces of ``text`` after each regex of ``regexes`` in turn, as llama.cpp cuts them (gguftok's
    pre-tokenizer with the list cut short after each step); pieces of no characters left out.

    >>> list_steps([r"\\p{N}", r" ?\\p{L}+"], "Hi you 42")
    [['Hi you ', '4', '2'], ['Hi', ' you', ' ', '4', '2']]
    """
    out = []
    for k in range(1, len(regexes) + 1):
        config = PreTokenizerConfig(None, "regexes", regexes=tuple(regexes[:k]), byte_encode=False)
        out.append([w for w in PreTokenizer(config).words(text) if w] if text else [])
    return out


def list_view(regexes: Sequence[str], text: str) -> Rendered:
    """Each regex of a list, whole, and the pieces after it: how the list cuts ``text`` step by step."""
    head = f"{len(regexes)} regex{'' if len(regexes) == 1 else 'es'} on {escape_visible(text)}"
    lines, parts = [head], [_title_html(head)]
    for k, (rx, cut) in enumerate(zip(regexes, list_steps(regexes, text), strict=True), 1):
        chip_text = " ".join(f"[{escape_visible(p)}]" for p in cut)
        lines.append(f"  after regex {k}, {literal(rx)}: {_count(len(cut))}")
        lines.append(f"    {chip_text}")
        chips_html = "".join(_chip(escape_visible(p), f"word {i + 1} of {len(cut)}", i) for i, p in enumerate(cut))
        parts.append(f"<div style='margin-left:1em'>{_title_html(f'after regex {k}, {_count(len(cut))}:')}"
                     f"<code style='{_CODE_STYLE}'>{html.escape(literal(rx))}</code><div>{chips_html}</div></div>")
    return Rendered(f"<div>{''.join(parts)}</div>", "\n".join(lines))


# --- one pattern, alternative by alternative -------------------------------------------------------------


def alternatives(pattern: str) -> list[str]:
    r"""The top-level alternatives of a pattern: split at each ``|`` outside brackets, groups and escapes.

    >>> alternatives(r"(?:'[sS]|'[tT])|\p{N}{1,3}|[|]+|\s+")
    ["(?:'[sS]|'[tT])", '\\p{N}{1,3}', '[|]+', '\\s+']
    """
    out, start, depth, inside, escaped = [], 0, 0, False, False
    for i, c in enumerate(pattern):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif inside:
            inside = c != "]" or pattern[i - 1] == "["  # a ] first in a class is a member
        elif c == "[":
            inside = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


def alternative_matches(pattern: str, text: str) -> list[tuple[str, int | None]]:
    """The pieces one pattern cuts ``text`` into (plain ``regex``), each with the number of the alternative
    (from 1) that took it, ``None`` for the text between two matches."""
    import regex

    alts = alternatives(pattern)
    compiled = regex.compile("|".join(f"({a})" for a in alts))
    # group k of the joined pattern opens alternative k: count the groups of each alternative to find them
    firsts, n = [], 1
    for a in alts:
        firsts.append(n)
        n += 1 + regex.compile(a).groups
    out, at = [], 0
    for m in compiled.finditer(text):
        if m.start() > at:
            out.append((text[at:m.start()], None))
        if m.end() > m.start():
            out.append((m.group(), next(k for k, g in enumerate(firsts, 1) if m.group(g) is not None)))
        at = m.end()
    if at < len(text):
        out.append((text[at:], None))
    return out


def alternatives_view(pattern: str, text: str) -> Rendered:
    """Each alternative of ``pattern``, whole, and the pieces of ``text`` it took (the alternatives are tried in
    order at each place, and the first that matches wins), then the pieces in text order, numbered by the
    alternative that took them."""
    alts = alternatives(pattern)
    found = alternative_matches(pattern, text)
    head = f"{len(alts)} alternatives, tried in this order at each place, on {escape_visible(text)}"
    lines, rows = [head], []
    for k, alt in enumerate(alts, 1):
        took = [p for p, j in found if j == k]
        chips_text = " ".join(f"[{escape_visible(p)}]" for p in took) or "(nothing here)"
        lines.append(f"  {k}. {literal(alt)}: {chips_text}")
        chips_html = "".join(_chip(escape_visible(p), f"taken by alternative {k}", k - 1) for p in took)
        rows.append(f"<tr><td style='padding:1px 6px;vertical-align:top'>{k}</td><td style='padding:1px 6px;"
                    f"vertical-align:top;{_CODE_STYLE}'>{html.escape(literal(alt))}</td><td style='padding:1px 6px'>"
                    f"{chips_html or html.escape('(nothing here)')}</td></tr>")
    gaps = [p for p, j in found if j is None]
    if gaps:
        lines.append("  no alternative, the text between two matches: " + " ".join(f"[{escape_visible(p)}]"
                                                                                  for p in gaps))
        rows.append("<tr><td></td><td style='padding:1px 6px'>between two matches</td><td style='padding:1px 6px'>"
                    + "".join(_chip(escape_visible(p), "no alternative took it", 7) for p in gaps) + "</td></tr>")
    order = " ".join(f"[{escape_visible(p)}]{j or '·'}" for p, j in found)
    lines.append(f"  in text order: {order}")
    order_html = "".join(_chip(f"{escape_visible(p)} {j or '·'}", "alternative " + (str(j) if j else "none"),
                               (j or 8) - 1) for p, j in found)
    return Rendered(f"<div>{_title_html(head)}<table>{''.join(rows)}</table>"
                    f"{_title_html('in text order (the number is the alternative):')}<div>{order_html}</div></div>",
                    "\n".join(lines))


# --- where the regex module and llama.cpp's tables class a code point differently --------------------------

_CLASSES = {"L": "letter", "N": "number", "M": "mark", "P": "punctuation", "S": "symbol"}
_CLASS_MARKERS = {"L": "\xd2", "N": "\xd1", "M": "\xd4", "P": "\xd3", "S": "\xd5"}


@lru_cache(maxsize=1)
def class_differences() -> dict[str, tuple[list[int], list[int]]]:
    """For each of ``\\p{L}``, ``\\p{N}``, ``\\p{M}``, ``\\p{P}``, ``\\p{S}``: the non-ASCII code points the
    ``regex`` module puts in the class and llama.cpp's tables (Unicode 15.1) do not, and the reverse."""
    import numpy as np
    import regex

    from ..pretokenize.regex_split import COLLAPSE_TABLE

    every = "".join(map(chr, range(0x110000)))
    out = {}
    for name, marker in _CLASS_MARKERS.items():
        theirs = set(np.flatnonzero(ord(marker) == COLLAPSE_TABLE).tolist())
        ours = {m.start() for m in regex.finditer(rf"\p{{{name}}}", every) if m.start() >= 0x80}
        out[name] = (sorted(ours - theirs), sorted(theirs - ours))
    return out


def class_differences_view() -> Rendered:
    """:func:`class_differences` as a table: the counts, and the first few code points of each."""
    diffs = class_differences()
    head = f"{'class':18s} {'regex only':>10s} {'llama.cpp only':>14s}  e.g."
    lines, rows = [head], []
    for name, (ours, theirs) in diffs.items():
        eg = ", ".join(f"U+{c:04X}" for c in (ours or theirs)[:4])
        label = f"\\p{{{name}}} ({_CLASSES[name]})"
        lines.append(f"{label:18s} {len(ours):>10,d} {len(theirs):>14,d}  {eg}")
        rows.append(f"<tr><td style='padding:0 8px;font-family:monospace'>{html.escape(label)}</td>"
                    f"<td style='padding:0 8px;text-align:right'>{len(ours):,}</td>"
                    f"<td style='padding:0 8px;text-align:right'>{len(theirs):,}</td>"
                    f"<td style='padding:0 8px;font-family:monospace'>{html.escape(eg)}</td></tr>")
    total = sum(len(a) + len(b) for a, b in diffs.values())
    lines.append(f"{total:,} code points in all")
    table = ("<table><tr><th>class</th><th>regex only</th><th>llama.cpp only</th><th>e.g.</th></tr>"
             + "".join(rows) + "</table>")
    return Rendered(f"<div>{table}{_title_html(lines[-1])}</div>", "\n".join(lines))


# --- which code runs for a pre string -------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One regex of a pre-type and how llama.cpp runs it."""

    regex: str
    path: str  # HAND_WRITTEN, COLLAPSED or WIDE
    splitter: str | None  # the hand-written function's name


def steps(pre: str) -> list[Step]:
    """The regexes of ``pre``'s pre-type, in order, each with the path llama.cpp takes for it.

    >>> [(s.path, s.splitter) for s in steps("starcoder")]
    [('std::regex on the collapsed text', None), ('hand-written splitter', 'gpt2')]
    """
    out = []
    for rx in pre_tokenizer_config(pre).regexes:
        if rx in CUSTOM:
            out.append(Step(rx, HAND_WRITTEN, CUSTOM[rx].__name__))
        else:
            out.append(Step(rx, COLLAPSED if uses_categories(rx) else WIDE, None))
    return out


def literal(rx: str) -> str:
    r"""A pattern as a Python raw string, whole, as one would write it in a program (``repr`` if a raw string
    cannot hold it: both quote characters, a control character, a trailing backslash).

    >>> print(literal(" ?\\p{L}+"), literal("'s|\\s+"), literal("[\\r\\n]"), literal("[\r\n]"))
    r" ?\p{L}+" r"'s|\s+" r"[\r\n]" '[\r\n]'
    """
    printable = all(c.isprintable() or c == " " for c in rx) and not rx.endswith("\\")
    if printable and '"' not in rx:
        return f'r"{rx}"'
    if printable and "'" not in rx:
        return f"r'{rx}'"
    return repr(rx)


_CODE_STYLE = "font-family:monospace;white-space:pre-wrap;word-break:break-all"


def steps_view(pre: str) -> Rendered:
    """The steps of one pre string: each regex, whole, and the code that runs it."""
    config = pre_tokenizer_config(pre)
    head = (f"{pre} → pre-type {config.type} → {len(config.regexes)} regex(es), applied in order"
            + ("" if config.byte_encode else "; words are not byte-encoded"))
    lines, rows = [head], []
    for k, s in enumerate(steps(pre), 1):
        how = f"{s.path} ({s.splitter})" if s.splitter else s.path
        lines.append(f"  {k}. {how}: {literal(s.regex)}")
        rows.append(f"<li>{html.escape(how)}: <code style='{_CODE_STYLE}'>{html.escape(literal(s.regex))}</code></li>")
    return Rendered(f"<div>{_title_html(head)}<ol style='margin:0'>{''.join(rows)}</ol></div>", "\n".join(lines))


def path_census() -> Rendered:
    """How many of the known pre strings run only hand-written splitters, only regexes, or a mix; and how
    many distinct splitters (regex lists) they come down to."""
    groups = {"only hand-written splitters": [], "hand-written and regex steps": [], "only regex steps": []}
    for pre in PRE_STRINGS:
        kinds = {s.path == HAND_WRITTEN for s in steps(pre)}
        key = ("only hand-written splitters" if kinds == {True} else
               "only regex steps" if kinds == {False} else "hand-written and regex steps")
        groups[key].append(pre)
    all_steps = [s for c in _distinct_configs() for s in steps(c.pre)]
    by_path = {p: sum(s.path == p for s in all_steps) for p in (HAND_WRITTEN, COLLAPSED, WIDE)}
    lines = [f"{len(PRE_STRINGS)} pre strings, {len(_distinct_configs())} distinct splitters"]
    for key, members in groups.items():
        lines.append(f"  {key:30s} {len(members):3d}  e.g. {', '.join(members[:4])}")
    lines.append("steps of the distinct splitters: " + ", ".join(f"{n} {p}" for p, n in by_path.items()))
    body = "".join(f"<tr><td style='padding:0 8px'>{html.escape(k)}</td><td style='padding:0 8px;"
                   f"text-align:right'>{len(m)}</td><td style='padding:0 8px;font-family:monospace'>"
                   f"{html.escape(', '.join(m[:4]))}</td></tr>" for k, m in groups.items())
    return Rendered(f"<div>{_title_html(lines[0])}<table><tr><th>steps</th><th>pre strings</th><th>e.g.</th></tr>"
                    f"{body}</table>{_title_html(lines[-1])}</div>", "\n".join(lines))


def engine_view(pre: str, text: str) -> Rendered:
    """Step by step, what each of ``pre``'s regexes is run on and the pieces after it.

    A hand-written splitter reads the code points and their category flags. A regex step does not see the
    text itself: on the collapsed path each code point becomes one character (ASCII kept, a letter the
    marker Ⓛ, ..., every non-ASCII space ``\\v``); on the wide path the code points stay, except non-ASCII
    spaces, which also become ``\\v``.
    """
    cps = [ord(c) for c in text]
    config = pre_tokenizer_config(pre)
    lines = [f"{pre} on {escape_visible(text)}", f"  legend: {MARKER_LEGEND}"]
    parts = [_title_html(lines[0]), _title_html(lines[1])]
    for k, s in enumerate(steps(pre), 1):
        if s.path == COLLAPSED:
            seen = "".join(_MARKER_GLYPHS.get(c, escape_visible(c)) for c in collapsed_text(cps))
        elif s.path == WIDE:
            seen = escape_visible(wide_text(cps))
        else:
            seen = None
        # the pieces after the first k steps: the same pre-type with its regex list cut short
        prefix = PreTokenizerConfig(pre, config.type, regexes=config.regexes[:k], byte_encode=False)
        cut = _cut(text, PreTokenizer(prefix).split_lengths(cps))
        how = f"{s.path} ({s.splitter})" if s.splitter else s.path
        step_lines = [f"  step {k}: {how}: {literal(s.regex)}"]
        if seen is not None:
            step_lines.append(f"    the engine sees: {seen}")
        step_lines.append("    words: " + " ".join(f"[{escape_visible(p)}]" for p in cut if p))
        lines += step_lines
        chips_html = "".join(_chip(escape_visible(p), f"word {i + 1}", i) for i, p in enumerate(q for q in cut if q))
        seen_html = (f"<div>the engine sees: <span style='font-family:monospace;white-space:pre;border:1px solid "
                     f"{PALETTE[7][0]};background:{PALETTE[7][1]};color:{TEXT};padding:0 3px'>"
                     f"{html.escape(seen)}</span></div>") if seen is not None else ""
        parts.append(f"<div style='margin-left:1em'>{_title_html(step_lines[0].strip())}{seen_html}"
                     f"<div>{chips_html}</div></div>")
    return Rendered(f"<div>{''.join(parts)}</div>", "\n".join(lines))


def _cut(text: str, lengths: list[int]) -> list[str]:
    out, start = [], 0
    for n in lengths:
        out.append(text[start:start + n])
        start += n
    return out


# --- whitespace -----------------------------------------------------------------------------------------


def whitespace_table(keep: Iterable[int] | None = None) -> Rendered:
    """Every code point that llama.cpp or Python calls whitespace: its name, whether llama.cpp's ``\\s``
    matches it (its 25-point White_Space set), whether Python's ``str.isspace`` (and so the standard ``re``
    module's ``\\s``) and the third-party ``regex`` module's ``\\s`` do, and what llama.cpp's regex engine is
    given in its place. With ``keep`` (code points), only those rows are shown, and the whole table sits behind
    a toggle."""
    import regex

    space = regex.compile(r"\s")
    cps = sorted(WHITESPACE_SET | {c for c in range(0x110000) if chr(c).isspace()})
    head = f"{'code':7s} {'name':25s} {'llama.cpp':9s} {'isspace/re':10s} {'regex':5s}  regex engine sees"
    rows, lines = [], [head]
    for cp in cps:
        name = unicodedata.name(chr(cp), None) or _CONTROL_NAMES.get(cp, "<control>")
        ours, py, rx = cp in WHITESPACE_SET, chr(cp).isspace(), bool(space.match(chr(cp)))
        seen = _engine_sees(cp)
        yes = {True: "yes", False: "NO"}
        lines.append(f"U+{cp:04X}  {name[:25]:25s} {yes[ours]:9s} {yes[py]:10s} {yes[rx]:5s}  {seen}")
        cells = []
        for flag in (ours, py, rx):
            border, fill = PALETTE[2 if flag else 5]
            cells.append(f"<td style='padding:0 6px'><span style='border:1px solid {border};background:{fill};"
                         f"color:{TEXT};padding:0 3px'>{yes[flag]}</span></td>")
        rows.append(f"<tr><td style='padding:0 6px;font-family:monospace'>U+{cp:04X}</td>"
                    f"<td style='padding:0 6px'>{html.escape(name)}</td>{''.join(cells)}"
                    f"<td style='padding:0 6px;font-family:monospace'>{html.escape(seen)}</td></tr>")
    summary = (f"{len(WHITESPACE_SET)} code points are whitespace for llama.cpp, "
               f"{sum(chr(c).isspace() for c in cps)} for str.isspace; they disagree on "
               + ", ".join(f"U+{c:04X}" for c in cps if (c in WHITESPACE_SET) != chr(c).isspace()))
    header = ("<tr><th>code</th><th>name</th><th>llama.cpp \\s</th><th>str.isspace, re \\s</th>"
              "<th>regex \\s</th><th>regex engine sees</th></tr>")
    table, lines = _kept(header, rows, lines, cps, keep, f"all {len(cps)} code points")
    lines.append(summary)
    return Rendered(f"<div>{table}{_title_html(summary)}</div>", "\n".join(lines))


def _kept(header: str, rows: Sequence[str], lines: Sequence[str], keys: Sequence, keep: Iterable | None,
          summary: str) -> tuple[str, list[str]]:
    """A table (``header`` and one HTML row per key) and its text (a head line, then one line per key): all of
    it, or with ``keep`` only the rows of those keys, then the whole table behind a ``<details>`` toggle."""
    if keep is None:
        return f"<table>{header}{''.join(rows)}</table>", list(lines)
    wanted = set(keep)
    picked = [k for k, key in enumerate(keys) if key in wanted]
    more = len(keys) - len(picked)
    shown = f"<table>{header}{''.join(rows[k] for k in picked)}</table>"
    toggle = folded(summary, f"<table>{header}{''.join(rows)}</table>") if more else ""
    text = [lines[0], *(lines[k + 1] for k in picked)] + ([f"... and {more} more rows ({summary} in the toggle)"]
                                                          if more else [])
    return shown + toggle, text


def _engine_sees(cp: int) -> str:
    """What llama.cpp's std::regex is given for one code point (its collapsed form), in words."""
    seen = collapsed_text([cp])
    if cp < 0x80:
        return f"itself, {escape_visible(seen)}" + ("" if seen in _STD_SPACE else ", which \\s does not match")
    if seen == "\x0b":
        return "\\v (␋), which \\s matches"
    return f"the marker {_MARKER_GLYPHS.get(seen, escape_visible(seen))}"


_STD_SPACE = frozenset(" \t\n\v\f\r")  # std::regex's \s in the classic locale (C isspace)
_CONTROL_NAMES = {0x09: "CHARACTER TABULATION", 0x0A: "LINE FEED", 0x0B: "LINE TABULATION", 0x0C: "FORM FEED",
                  0x0D: "CARRIAGE RETURN", 0x1C: "FILE SEPARATOR", 0x1D: "GROUP SEPARATOR",
                  0x1E: "RECORD SEPARATOR", 0x1F: "UNIT SEPARATOR", 0x85: "NEXT LINE"}


def whitespace_splits(pres: Sequence[str], texts: Sequence[str]) -> Rendered:
    """Each text under each pre string, next to Python's ``str.split()`` (which splits on ``str.isspace``)."""
    lines, blocks = [], []
    for text in texts:
        head = f"{escape_visible(text)}   (str.split() gives {len(text.split())} part(s))"
        lines.append(head)
        inner = [_title_html(head)]
        for pre in pres:
            chip_html, chip_text, n = _piece_chips(pre, text)
            lines.append(f"  {pre:12s} {_count(n)}: {chip_text}")
            inner.append(f"<div style='margin-left:1em'>{html.escape(pre)}, {_count(n)}: {chip_html}</div>")
        blocks.append("<div>" + "".join(inner) + "</div>")
    return Rendered("<div>" + "".join(blocks) + "</div>", "\n".join(lines))


# --- piece counts across all pre-tokenizers -------------------------------------------------------------


def _key(c: PreTokenizerConfig) -> tuple:
    return c.regexes, c.byte_encode


@lru_cache(maxsize=1)
def _distinct_configs() -> tuple[PreTokenizerConfig, ...]:
    """One configuration per distinct (regex list, byte encoding), labelled by its first pre string."""
    seen: dict[tuple, PreTokenizerConfig] = {}
    for pre in PRE_STRINGS:
        c = pre_tokenizer_config(pre)
        seen.setdefault(_key(c), c)
    return tuple(seen.values())


_PREFERRED_LABELS = ("gpt-2", "llama-bpe", "qwen2", "starcoder", "gemma4", "bloom", "gpt-4o", "deepseek-v3")


@dataclass(frozen=True)
class CountRow:
    """The piece counts of one distinct splitter: a label, every pre string that selects it, the counts."""

    label: str
    pres: tuple[str, ...]
    counts: dict[str, int]


def piece_counts(texts: Mapping[str, str] | None = None) -> list[CountRow]:
    """For every distinct splitter among the known pre strings, the number of pieces of each text; the
    rows are ordered from most pieces to fewest (ties by label)."""
    texts = SAMPLE_TEXTS if texts is None else texts
    rows = []
    for config in _distinct_configs():
        members = tuple(p for p in PRE_STRINGS if _key(pre_tokenizer_config(p)) == _key(config))
        label = next((p for p in _PREFERRED_LABELS if p in members), members[0])
        rows.append(CountRow(label, members, {name: len(pieces(label, t)) for name, t in texts.items()}))
    rows.sort(key=lambda r: (-sum(r.counts.values()), r.label))
    return rows


def piece_count_table(rows: Sequence[CountRow], keep: Iterable[str] | None = None) -> Rendered:
    """:func:`piece_counts` as a table: one line per splitter, one column per text, then the pre strings. With
    ``keep`` (labels), only those rows are shown, and the whole table sits behind a toggle."""
    names = list(rows[0].counts) if rows else []
    width = max([len(r.label) for r in rows] + [8])
    head = f"{'splitter':{width}s} " + " ".join(f"{n[:14]:>14s}" for n in names) + "  pre strings"
    lines = [head]
    body = []
    for r in rows:
        others = f"{len(r.pres)}: " + ", ".join(r.pres[:3]) + (" ..." if len(r.pres) > 3 else "")
        lines.append(f"{r.label:{width}s} " + " ".join(f"{r.counts[n]:>14d}" for n in names) + f"  {others}")
        body.append(f"<tr><td style='padding:0 6px;font-family:monospace'>{html.escape(r.label)}</td>"
                    + "".join(f"<td style='padding:0 6px;text-align:right'>{r.counts[n]}</td>" for n in names)
                    + f"<td style='padding:0 6px;font-family:monospace'>{html.escape(others)}</td></tr>")
    th = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    table, lines = _kept(f"<tr><th>splitter</th>{th}<th>pre strings</th></tr>", body, lines, [r.label for r in rows],
                         keep, f"all {len(rows)} splitters")
    return Rendered(table, "\n".join(lines))


_PANEL_COLOURS = [0, 1, 2, 4, 5, 6]  # Okabe-Ito entries with enough contrast on white


def piece_count_chart(rows: Sequence[CountRow]):
    """Small multiples: one panel per text (titled, so colour is not the cue), one horizontal bar per distinct
    splitter with its count printed at the bar's end, the lesson's three splitters in bold."""
    import matplotlib.pyplot as plt

    names = list(rows[0].counts)
    labels = [f"{r.label} (+{len(r.pres) - 1})" if len(r.pres) > 1 else r.label for r in rows]
    fig, axes = plt.subplots(1, len(names), figsize=(2.5 * len(names) + 1.6, 0.22 * len(rows) + 1.3), sharey=True,
                             dpi=80)
    axes = list(axes) if len(names) > 1 else [axes]
    y = range(len(rows))
    for k, (ax, name) in enumerate(zip(axes, names, strict=True)):
        border, fill = PALETTE[_PANEL_COLOURS[k % len(_PANEL_COLOURS)]]
        values = [r.counts[name] for r in rows]
        ax.barh(y, values, color=fill, edgecolor=border, linewidth=1)
        for yy, v in zip(y, values, strict=True):
            ax.text(v, yy, f" {v}", va="center", fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.set_xlim(0, max(values) * 1.25 + 1)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel("words", fontsize=8)
    axes[0].set_yticks(list(y), labels, fontsize=7)
    for tick, r in zip(axes[0].get_yticklabels(), rows, strict=True):
        if r.label in ("gpt-2", "llama-bpe", "qwen2"):
            tick.set_fontweight("bold")
    axes[0].invert_yaxis()
    fig.tight_layout()
    return fig


# --- yours next to llama.cpp's -------------------------------------------------------------------------

NOT_WRITTEN = "not written yet"


@dataclass(frozen=True)
class YourPieces:
    """What the student's ``mytok/pretokenize.py`` makes of one text: the pieces, or ``None`` and why not;
    ``how`` says which regex list was used."""

    pieces: list[str] | None
    how: str


def your_pieces(pre: str, text: str, module=None) -> YourPieces:
    """The pieces of ``text`` by the student's ``split`` with their ``regexes_for(pre)``, or, while that is not
    written (or does not know ``pre``), with llama.cpp's list for ``pre``. ``module`` is anything with ``split``
    and ``regexes_for`` attributes; by default the student's module, read afresh from disk. Nothing here
    raises: a missing package, an unwritten ``split`` or an exception is said in ``how``.

    >>> your_pieces("qwen2", "a 12", module=object()).how
    'not written yet: there is no split in it'
    """
    if module is None:
        try:
            from ..exercises.workspace import load

            module = load("pretokenize")
        except Exception as e:  # no package, a syntax error, an error while the module runs
            return YourPieces(None, f"{NOT_WRITTEN}: mytok/pretokenize.py does not load ({_said(e)})")
    split = getattr(module, "split", None)
    if not callable(split):
        return YourPieces(None, f"{NOT_WRITTEN}: there is no split in it")
    regexes, how = _your_regexes(module, pre)
    try:
        got = split(text, list(regexes))
    except NotImplementedError:
        return YourPieces(None, f"{NOT_WRITTEN}: your split still raises NotImplementedError")
    except Exception as e:
        return YourPieces(None, f"your split {how} raised {_said(e)}")
    if got is Ellipsis:
        return YourPieces(None, f"{NOT_WRITTEN}: your split still returns ...")
    if not isinstance(got, list | tuple) or not all(isinstance(p, str) for p in got):
        return YourPieces(None, f"your split {how} returned {_short(got)}, not a list of strings")
    return YourPieces(list(got), f"your split {how}")


def _your_regexes(module, pre: str) -> tuple[list[str], str]:
    """The student's list for ``pre`` if they have one, else llama.cpp's; and how to say which it is."""
    llama = list(pre_tokenizer_config(pre).regexes)
    regexes_for = getattr(module, "regexes_for", None)
    if not callable(regexes_for):
        return llama, "with llama.cpp's regex list (there is no regexes_for)"
    try:
        mine = regexes_for(pre)
    except NotImplementedError:
        return llama, "with llama.cpp's regex list (your regexes_for is not written yet)"
    except ValueError:
        return llama, f"with llama.cpp's regex list (your regexes_for does not know {pre!r})"
    except Exception as e:
        return llama, f"with llama.cpp's regex list (your regexes_for raised {_said(e)})"
    if not isinstance(mine, list | tuple) or not all(isinstance(r, str) for r in mine):
        return llama, f"with llama.cpp's regex list (your regexes_for returned {_short(mine)})"
    return list(mine), f"with your regexes_for({pre!r})"


def _said(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _spans(pieces: Sequence[str]) -> list[tuple[int, int]]:
    out, start = [], 0
    for p in pieces:
        out.append((start, start + len(p)))
        start += len(p)
    return out


def _marked_row(pieces: Sequence[str], others: set[tuple[int, int]], whose: str) -> tuple[str, str, int]:
    """Chips for one row; a piece whose place in the text the other row does not have is marked: a red,
    dashed, thicker border and ✗ after it (in the text, ✗ after its brackets)."""
    html_parts, text_parts, marked = [], [], 0
    for k, (piece, span) in enumerate(zip(pieces, _spans(pieces), strict=True)):
        label = escape_visible(piece)
        if span in others:
            tip = f"{whose} word {k + 1} of {len(pieces)}: the same in both"
            html_parts.append(_chip(label, tip, 1 + 3 * (k % 2)))
            text_parts.append(f"[{label}]")
        else:
            marked += 1
            tip = (f"{whose} word {k + 1} of {len(pieces)}, code points {span[0]} to {span[1] - 1}: "
                   "the other row does not have this word")
            html_parts.append(_chip(label, tip, 5, ";border-width:2px;border-style:dashed")
                              + '<span style="color:inherit;font-weight:bold">✗</span>')
            text_parts.append(f"[{label}]✗")
    return "".join(html_parts), " ".join(text_parts), marked


def yours_view(pre: str, text: str, module=None) -> Rendered:
    """Your pieces of ``text`` under ``pre`` next to llama.cpp's (gguftok's pre-tokenizer), each piece that one
    row has and the other does not marked, then the first difference. While your ``split`` is not written, the
    view says so and shows llama.cpp's row alone; see :func:`your_pieces` for ``module``."""
    llama = pieces(pre, text)
    yours = your_pieces(pre, text, module)
    head = f"{pre}: your pre-tokenizer next to llama.cpp's, on {_short(text, 70)}"
    if yours.pieces is None:
        row_html, row_text, _ = _marked_row(llama, set(_spans(llama)), "llama.cpp's")
        lines = [head, f"  llama.cpp's {_count(len(llama))}: {row_text}", f"  yours: {yours.how}"]
        rows = [("llama.cpp's", _count(len(llama)), row_html), ("yours", "", html.escape(yours.how))]
        return Rendered(_rows_html(head, rows, ""), "\n".join(lines))
    mine = yours.pieces
    l_html, l_text, _ = _marked_row(llama, set(_spans(mine)), "llama.cpp's")
    y_html, y_text, _ = _marked_row(mine, set(_spans(llama)), "your")
    if mine == llama:
        verdict = f"the same {_count(len(llama))}"
    else:
        k = next((i for i, (a, b) in enumerate(zip(llama, mine, strict=False)) if a != b), min(len(llama), len(mine)))
        theirs = repr(llama[k]) if k < len(llama) else "nothing (its list ends)"
        ours = repr(mine[k]) if k < len(mine) else "nothing (your list ends)"
        verdict = f"first difference at word {k + 1}: llama.cpp's is {theirs}, yours {ours}"
        if "".join(mine) != text:
            verdict += "; and your words do not join back to the text"
    lines = [head, f"  llama.cpp's {_count(len(llama))}: {l_text}", f"  yours {_count(len(mine))}: {y_text}",
             f"  ({yours.how})", verdict]
    rows = [("llama.cpp's", _count(len(llama)), l_html),
            ("yours", _count(len(mine)), f"{y_html}<div style='color:inherit'>{html.escape(yours.how)}</div>")]
    return Rendered(_rows_html(head, rows, verdict), "\n".join(lines))


def _rows_html(head: str, rows: Sequence[tuple[str, str, str]], verdict: str) -> str:
    body = "".join(f"<tr><td style='padding:2px 8px;vertical-align:top;white-space:nowrap'>{html.escape(who)}"
                   f"<br>{html.escape(count)}</td><td style='padding:2px 8px'>{cells}</td></tr>"
                   for who, count, cells in rows)
    tail = f"<div style='margin:2px 0;font-weight:bold;color:inherit'>{html.escape(verdict)}</div>" if verdict else ""
    return f"<div>{_title_html(head)}<table>{body}</table>{tail}</div>"


# --- two vocabularies side by side ---------------------------------------------------------------------


def vocab_pieces(tok, text: str) -> list[str]:
    """The words ``tok``'s pre-tokenizer cuts ``text`` into (:meth:`gguftok.Tokenizer.words`), as readable text
    (a ``▁`` vocabulary keeps its ``▁``: one character for each space, so the places line up).

    >>> from gguftok import Tokenizer
    >>> vocab_pieces(Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf"), "Hi  there 42")
    ['Hi', ' ', ' there', ' ', '4', '2']
    """
    return [readable(w, tok.vocab.pre_config.byte_encode) for w in tok.words(text) if isinstance(w, str)]


def vocab_splits(toks: Sequence[tuple[str, object]], text: str) -> Rendered:
    """The same text cut by the pre-tokenizers of two vocabularies (``[(name, Tokenizer), ...]``), one under the
    other: a piece that the other does not have at the same place is marked ✗ (and by a dashed red border),
    then the piece counts and the first difference."""
    (a, ta), (b, tb) = toks
    pa, pb = vocab_pieces(ta, text), vocab_pieces(tb, text)
    names = [f"{n} (pre {t.vocab.pre_config.pre!r}, pre-type {t.vocab.pre_config.type})" for n, t in toks]
    a_html, a_text, _ = _marked_row(pa, set(_spans(pb)), f"{a}'s")
    b_html, b_text, _ = _marked_row(pb, set(_spans(pa)), f"{b}'s")
    if pa == pb:
        verdict = f"the same {_count(len(pa))}"
    else:
        k = next((i for i, (x, y) in enumerate(zip(pa, pb, strict=False)) if x != y), min(len(pa), len(pb)))
        xa = repr(pa[k]) if k < len(pa) else "nothing"
        xb = repr(pb[k]) if k < len(pb) else "nothing"
        verdict = f"{a} {len(pa)}, {b} {len(pb)} words; the first difference is word {k + 1}: {xa} against {xb}"
    head = f"text: {escape_visible(text)}"
    lines = [head, f"  {names[0]}, {_count(len(pa))}: {a_text}", f"  {names[1]}, {_count(len(pb))}: {b_text}",
             verdict]
    blocks = "".join(f"<div style='margin:4px 0 6px 0'>{_title_html(f'{name}, {_count(n)}:')}<div>{chips}</div></div>"
                     for name, n, chips in ((names[0], len(pa), a_html), (names[1], len(pb), b_html)))
    tail = f"<div style='margin:2px 0;font-weight:bold;color:inherit'>{html.escape(verdict)}</div>"
    return Rendered(f"<div>{_title_html(head)}{blocks}{tail}</div>", "\n".join(lines))


def vocab_split_explorer(text: str = LESSON_LINE, left: str = "qwen2", right: str = "gpt-2", folder=None):
    """A text box and two choices of vocabulary (those with a pre-tokenizer: BPE) over :func:`vocab_splits`:
    type and compare live. Each vocabulary is loaded on first choice and kept."""
    import ipywidgets as W

    from ..tokenizer import Tokenizer
    from ..vocab import MODEL_TYPES
    from .widgets import vocab_models

    files = {n: p for n, (p, model) in vocab_models(folder).items() if MODEL_TYPES.get(model) == "bpe"}
    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="4em"))
    wide = {"description_width": "initial"}  # "vocabulary" whole, in large type too
    one = W.Dropdown(options=list(files), value=left, description="vocabulary", style=wide)
    two = W.Dropdown(options=list(files), value=right, description="and", style=wide)
    out = W.HTML()
    loaded: dict[str, Tokenizer] = {}

    def tok(name: str) -> Tokenizer:
        if name not in loaded:
            loaded[name] = Tokenizer.from_gguf(files[name])
        return loaded[name]

    def update(*_):
        out.value = vocab_splits([(one.value, tok(one.value)), (two.value, tok(two.value))], box.value).html

    for w in (box, one, two):
        w.observe(update, names="value")
    update()
    return W.VBox([W.HBox([one, two]), box, out])


# --- the explorer ---------------------------------------------------------------------------------------


def explorer_view(pre: str, text: str) -> Rendered:
    """What the explorer shows: the pieces, then the steps that made them."""
    a, b = split_view(pre, text), steps_view(pre)
    return Rendered(f"<div>{a.html}{b.html}</div>", f"{a.text}\n{b.text}")


def pre_options() -> list[tuple[str, str]]:
    """Drop-down entries: ``("qwen2 · QWEN2", "qwen2")`` for each known pre string, sorted by name."""
    return [(f"{p} · {PRE_STRINGS[p]['type']}", p) for p in sorted(PRE_STRINGS)]


def pretokenizer_explorer(text: str = LESSON_LINE, pre: str = "qwen2", yours: bool = False, module=None):
    """A text box and a choice of the 91 pre strings over :func:`explorer_view`. With ``yours``, your pieces
    next to llama.cpp's come first (:func:`yours_view`, your module read afresh at every change; ``module``
    as there)."""
    import ipywidgets as W

    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="5em"))
    choice = W.Dropdown(options=pre_options(), value=pre, description="pre")
    mine = W.HTML()
    out = W.HTML()

    def update(*_):
        if yours:
            mine.value = yours_view(choice.value, box.value, module).html
        out.value = explorer_view(choice.value, box.value).html

    box.observe(update, names="value")
    choice.observe(update, names="value")
    update()
    return W.VBox([choice, box, mine, out] if yours else [choice, box, out])
