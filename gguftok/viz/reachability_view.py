"""Views of odd tokens: tokens whose own text encodes to something else (the data behind "glitch tokens"), and
the trailing-space pitfall. The data comes from :mod:`gguftok.reachability`.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> print(trailing_space_examples(tok, ["Hello"]))
word | word | word + space | space + word
Hello | 259:Hello | 259:Hello 32:␣ | 32:␣ 259:Hello  <- ends in a lone space token
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..reachability import REASONS, piece_text, reason, trailing_space_ids
from .render import PALETTE, TEXT, Rendered, escape_visible, token_chips

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer

_CELL = "padding:2px 6px;vertical-align:top"
_MONO = "font-family:monospace"


def _stored(tok: Tokenizer, tid: int) -> str:
    """A token's text as stored, in a framed box (``Ġ`` and ``▁`` as they are)."""
    border, fill = PALETTE[7]
    return (f"<span style='display:inline-block;padding:0 3px;border:1px solid {border};border-radius:3px;"
            f"background:{fill};color:{TEXT};{_MONO};white-space:pre'>"
            f"{html.escape(escape_visible(tok.vocab.texts[tid]))}</span>")


def reachability_view(tok: Tokenizer, ids: Sequence[int], limit: int = 12) -> Rendered:
    """The first ``limit`` of ``ids`` (say, :func:`~gguftok.reachability.unreachable`'s): each token's id, its
    text as stored, the text it stands for (:func:`~gguftok.reachability.piece_text`; U+FFFD for part of a
    character), what that text encodes to (as chips), and why it is not the token itself."""
    shown = list(ids)[:limit]
    head = f"{len(shown)} of {len(ids)} tokens"
    lines = [head, f"{'id':>7s}  {'token text':<16s} {'stands for':<12s} {'encodes to':<32s} why"]
    trs = []
    for tid in shown:
        piece = piece_text(tok, tid)
        ids_of = tok.encode(piece, add_special=False)
        why = "encodes to itself" if ids_of == [tid] else reason(tok, piece)
        chips = token_chips(tok, ids_of)
        text = escape_visible(piece.decode("utf-8", "replace"))
        lines.append(f"{tid:>7d}  {escape_visible(tok.vocab.texts[tid]):<16s} {text:<12s} "
                     f"{chips.text or '(nothing)':<32s} {why}")
        trs.append(f"<tr><td style='{_CELL};{_MONO};text-align:right'>{tid}</td><td style='{_CELL}'>"
                   f"{_stored(tok, tid)}</td><td style='{_CELL};{_MONO};white-space:pre'>{html.escape(text)}</td>"
                   f"<td style='{_CELL}'>{chips.html if ids_of else '(nothing)'}</td>"
                   f"<td style='{_CELL}'>{html.escape(why)}</td></tr>")
    table = (f"<div>{html.escape(head)}</div><table style='border-collapse:collapse'><tr><th style='{_CELL}'>id</th>"
             f"<th style='{_CELL}'>token text</th><th style='{_CELL}'>stands for</th>"
             f"<th style='{_CELL}'>its text encodes to</th><th style='{_CELL}'>why</th></tr>" + "".join(trs)
             + "</table>")
    return Rendered(table, "\n".join(line.rstrip() for line in lines))


def counts_view(counts: Mapping[str, Mapping[str, int]]) -> Rendered:
    """:func:`gguftok.reachability.counts` as a table: per vocabulary, tokens considered, unreachable, and why."""
    reasons = [r for r in REASONS if any(r in row for row in counts.values())]
    cols = ["considered", "unreachable", *reasons]
    first = max([len("vocabulary")] + [len(n) for n in counts])
    widths = [max(len(c), 7) for c in cols]
    lines = [f"{'vocabulary':<{first}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cols, widths, strict=True))]
    trs = []
    for name, row in counts.items():
        values = [row.get(c, 0) for c in cols]
        lines.append(f"{name:<{first}}  " + "  ".join(f"{v:>{w},}" for v, w in zip(values, widths, strict=True)))
        trs.append(f"<tr><td style='{_CELL};{_MONO}'>{html.escape(name)}</td>"
                   + "".join(f"<td style='{_CELL};text-align:right'>{v:,}</td>" for v in values) + "</tr>")
    heads = "".join(f"<th style='{_CELL}'>{html.escape(c)}</th>" for c in cols)
    return Rendered(f"<table style='border-collapse:collapse'><tr><th style='{_CELL}'>vocabulary</th>{heads}</tr>"
                    + "".join(trs) + "</table>", "\n".join(lines))


def trailing_space_examples(tok: Tokenizer, words: Sequence[str]) -> Rendered:
    """For each word, the tokens of ``word``, ``word + " "`` and ``" " + word``
    (:func:`~gguftok.reachability.trailing_space_ids`): a prompt that ends in a space ends in a lone space
    token, where text almost always has the space at the start of the next word."""
    heads = ("word", "word", "word + space", "space + word")
    lines = [" | ".join(heads)]
    trs = []
    for w, *encoded in trailing_space_ids(tok, words):
        alone, spaced = encoded[0], encoded[1]
        trailing = (len(spaced) > len(alone) and spaced[:len(alone)] == alone
                    and all(tok.token_to_piece(i).strip(b" ") == b"" for i in spaced[len(alone):]))
        note = "ends in a lone space token" if trailing else ""
        chipped = [token_chips(tok, ids) for ids in encoded]
        lines.append(" | ".join([escape_visible(w)] + [c.text for c in chipped]) + (f"  <- {note}" if note else ""))
        trs.append(f"<tr><td style='{_CELL};{_MONO}'>{html.escape(escape_visible(w))}</td>"
                   + "".join(f"<td style='{_CELL}'>{c.html}</td>" for c in chipped)
                   + f"<td style='{_CELL}'>{html.escape(note)}</td></tr>")
    ths = "".join(f"<th style='{_CELL}'>{html.escape(h)}</th>" for h in (*heads, ""))
    return Rendered(f"<table style='border-collapse:collapse'><tr>{ths}</tr>" + "".join(trs) + "</table>",
                    "\n".join(lines))
