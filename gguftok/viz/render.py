"""Pure HTML + text renderers. Every style is inline (notebook sanitizers strip classes and <style>), every
token text is escaped, whitespace is drawn as visible glyphs, and each colour comes with a border and a
label, so colour is never the only cue. Light chip backgrounds carry their own dark text colour: they stay
readable in JupyterLab's dark theme too.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..pretokenize.unicode import WHITESPACE_SET

# Okabe-Ito: distinguishable with the common colour-vision deficiencies; light tints for backgrounds.
PALETTE = [("#E69F00", "#FCEBCB"), ("#56B4E9", "#DCEFFB"), ("#009E73", "#CCEFE3"), ("#F0E442", "#FBF8CF"),
           ("#0072B2", "#CCE3F0"), ("#D55E00", "#F7DCCB"), ("#CC79A7", "#F4E1EC"), ("#999999", "#EBEBEB")]
TEXT = "#1A1A1A"
_GLYPHS = {" ": "␣", "\t": "→", "\n": "↵", "\r": "␍", "\v": "␋", "\f": "␌", "\x00": "␀", "\u00a0": "⍽",
           "\u3000": "□"}
_INVISIBLE_CATEGORIES = {"Zs", "Zl", "Zp", "Cf"}  # spaces, line and paragraph separators, format characters


@dataclass(frozen=True)
class Rendered:
    """A view: ``html`` for the notebook, ``text`` for terminals, tests and nbval."""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


def folded(summary: str, inner_html: str) -> str:
    """``inner_html`` behind a ``<details>`` toggle labelled ``summary`` (closed until clicked): the rows a view
    leaves out of its main table, one click away.

    >>> folded("all 3 rows", "<table></table>")
    '<details><summary style="cursor:pointer;margin-top:4px">all 3 rows</summary><table></table></details>'
    """
    return (f'<details><summary style="cursor:pointer;margin-top:4px">{html.escape(summary)}</summary>'
            f"{inner_html}</details>")


def escape_visible(text: str) -> str:
    """Whitespace and control characters as visible glyphs (``␣ → ↵``), and every other character that would
    not show (a non-ASCII space, a zero-width or bidirectional format character, a line separator) as
    ``‹U+XXXX›``; other characters unchanged. A bidirectional override in a token cannot reorder the view.

    >>> escape_visible("a b\\tc\\n"), escape_visible("x\\u2003y\\u200dz\\u202e")
    ('a␣b→c↵', 'x‹U+2003›y‹U+200D›z‹U+202E›')
    """
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in _GLYPHS:
            out.append(_GLYPHS[ch])
        elif cp < 0x20 or 0x7F <= cp < 0xA0:
            out.append(f"\\x{cp:02x}")
        elif 0xD800 <= cp < 0xE000:
            out.append(f"\\u{cp:04x}")
        elif cp > 0x7F and (cp in WHITESPACE_SET or unicodedata.category(ch) in _INVISIBLE_CATEGORIES):
            out.append(f"‹U+{cp:04X}›")
        else:
            out.append(ch)
    return "".join(out)


def _chip(label: str, title: str, colour: int, extra: str = "") -> str:
    border, fill = PALETTE[colour % len(PALETTE)]
    return (f'<span title="{html.escape(title, quote=True)}" style="display:inline-block;margin:1px 2px;'
            f'padding:0 3px;border:1px solid {border};border-radius:3px;background:{fill};color:{TEXT};'
            f'font-family:monospace;white-space:pre{extra}">{html.escape(label)}</span>')


def candidate_chip(label: str, *, chosen: bool, note: str = "", title: str = "") -> str:
    """One candidate of a step (a pair and its count or score): the chosen one in green with a thick border,
    bold, and ``note`` in words after it (so colour is never the only cue); the others in blue.

    >>> "3px solid" in candidate_chip("a+b 4", chosen=True, note="best"), "best" in candidate_chip("x", chosen=False)
    (True, False)
    """
    border, fill = PALETTE[2] if chosen else PALETTE[4]
    tip = f' title="{html.escape(title, quote=True)}"' if title else ""
    chip = (f'<span{tip} style="display:inline-block;margin:1px 3px;padding:0 4px;border:{3 if chosen else 1}px '
            f'solid {border};border-radius:3px;background:{fill};color:{TEXT};{"font-weight:bold;" if chosen else ""}'
            f'font-family:monospace;white-space:pre">{html.escape(label)}</span>')
    if chosen and note:
        chip += f'<span style="font-style:italic;margin-right:6px">{html.escape(note)}</span>'
    return chip


def chips(items: Iterable[tuple[str, int]], title: str = "") -> Rendered:
    """Generic chips: ``(label, id)`` pairs, coloured in turn, the id in the tooltip.

    >>> print(chips([("<s>", 1)]).html.count("&lt;s&gt;"))
    1
    """
    items = list(items)
    parts = [_chip(escape_visible(label), f"id {tid}", k) for k, (label, tid) in enumerate(items)]
    head = f'<div style="color:inherit;margin-bottom:2px">{html.escape(title)}</div>' if title else ""
    text = " ".join(f"[{escape_visible(label)}]" for label, _ in items)
    return Rendered(f"<div>{head}{''.join(parts)}</div>", (title + "\n" if title else "") + text)


def group_characters(pieces: Sequence[bytes]) -> list[tuple[list[int], str]]:
    """Consecutive tokens grouped so each group decodes to whole characters (a split emoji is one group).

    >>> group_characters([b"a", b"\\xf0\\x9f", b"\\x98\\x80", b"!"])
    [([0], 'a'), ([1, 2], '😀'), ([3], '!')]
    """
    groups: list[tuple[list[int], str]] = []
    pending: list[int] = []
    buf = b""
    for i, p in enumerate(pieces):
        pending.append(i)
        buf += p
        try:
            text = buf.decode("utf-8")
        except UnicodeDecodeError as e:
            if e.reason == "unexpected end of data" and len(buf) - e.start < 4:
                continue  # an incomplete character: wait for the next token
            text = buf.decode("utf-8", "replace")
        groups.append((pending, text))
        pending, buf = [], b""
    if pending:
        groups.append((pending, buf.decode("utf-8", "replace")))
    return groups


def token_chips(tok, ids: Sequence[int], special: bool = True, title: str = "") -> Rendered:
    """The tokens of ``ids`` as chips: visible whitespace, escaped text, id and bytes in the tooltip; tokens
    that only together make a character are framed as one group."""
    html_parts, text_parts, _ = character_chips(ids, [tok.token_to_piece(i, special=special) for i in ids])
    return titled_chips(html_parts, text_parts, title)


def titled_chips(html_parts: Sequence[str], text_parts: Sequence[str], title: str = "") -> Rendered:
    """Chips in one row under an optional title line (the text form: the title, then the parts)."""
    head = f'<div style="margin-bottom:2px">{html.escape(title)}</div>' if title else ""
    return Rendered(f"<div>{head}{''.join(html_parts)}</div>", (title + "\n" if title else "") + " ".join(text_parts))


def character_chips(ids: Sequence[int], pieces: Sequence[bytes], colour: int = 0) -> tuple[list[str], list[str], int]:
    """The chips of :func:`token_chips` for ``ids`` with these ``pieces``, as (html parts, text parts, the next
    colour): one chip per token, coloured in turn from ``colour``, and the tokens that only together make a
    character framed as one group of one colour."""
    html_parts, text_parts = [], []
    for members, text in group_characters(pieces):
        shown = escape_visible(text)
        if len(members) == 1:
            i = members[0]
            html_parts.append(_chip(shown, f"id {ids[i]} · bytes {pieces[i].hex(' ') or '(none)'}", colour))
            text_parts.append(f"{ids[i]}:{shown}")
        else:
            inner = "".join(_chip(pieces[i].hex(" "), f"id {ids[i]} · one byte of {text!r}", colour) for i in members)
            html_parts.append(f'<span style="display:inline-block;border:1px dashed #777777;padding:1px;'
                              f'margin:1px" title="{html.escape(shown, quote=True)}">{inner}'
                              f'<span style="margin-left:2px">= {html.escape(shown)}</span></span>')
            text_parts.append("(" + " ".join(str(ids[i]) for i in members) + f"):{shown}")
        colour += 1
    return html_parts, text_parts, colour
