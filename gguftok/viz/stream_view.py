"""Ids back to text: per-token decoding against :class:`gguftok.stream.TextStream`, frame by frame.

Every streamed string here comes from :class:`~gguftok.stream.TextStream` (what :meth:`Tokenizer.stream
<gguftok.Tokenizer.stream>` returns), and every per-token string from ``bytes.decode(errors="replace")`` of
the same piece, so a view cannot show text the library would not produce.

>>> steps = stream_steps([b" \\xf0\\x9f", b"\\x98\\x80", b" ok"])
>>> [(s.naive, s.emitted, s.held.hex()) for s in steps]
[(' �', ' ', 'f09f'), ('��', '😀', ''), (' ok', ' ok', '')]
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..detokenize import clean_spaces
from ..stream import TextStream
from .render import PALETTE, TEXT, Rendered, escape_visible, folded

_BOX = "border:1px solid #888888;border-radius:4px;padding:6px 8px;margin:2px 0;line-height:1.9"
_MONO = "font-family:monospace;white-space:pre"
FFFD = "\ufffd"


# ------------------------------------------------------------------------------------------------ facts
@dataclass(frozen=True)
class StreamStep:
    """One token through both decoders: its bytes, the text decoded on its own (``naive``), the text the
    stream emitted for it, and the bytes the stream holds back afterwards."""

    index: int
    piece: bytes
    naive: str
    emitted: str
    held: bytes


def stream_steps(pieces: Sequence[bytes]) -> list[StreamStep]:
    """Each piece pushed through one :class:`TextStream`, next to ``piece.decode(errors="replace")``."""
    stream = TextStream(lambda i: pieces[i])
    out = []
    for i, p in enumerate(pieces):
        emitted = stream.push(i)
        out.append(StreamStep(i, p, p.decode("utf-8", "replace"), emitted, stream.pending))
    return out


def stream_flush(pieces: Sequence[bytes]) -> str:
    """What a stream fed ``pieces`` still has to say at the end (U+FFFD for an unfinished character)."""
    stream = TextStream(lambda i: pieces[i])
    for i in range(len(pieces)):
        stream.push(i)
    return stream.flush()


def token_pieces(tok, ids: Sequence[int], special: bool = False) -> list[bytes]:
    """``Tokenizer.token_to_piece`` for each id."""
    return [tok.token_to_piece(i, special=special) for i in ids]


def mid_character(tok, text: str, special: bool = False) -> tuple[int, int]:
    """``(tokens that end in the middle of a character, tokens)`` for ``text`` encoded without BOS."""
    ids = tok.encode(text, add_special=False)
    steps = stream_steps(token_pieces(tok, ids, special))
    return sum(1 for s in steps if s.held), len(steps)


# ------------------------------------------------------------------------------------------------ tables
def _show(text: str) -> str:
    return '"' + escape_visible(text) + '"'


def _pre(text: str) -> Rendered:
    return Rendered(f'<pre style="margin:0">{html.escape(text)}</pre>', text)


def naive_vs_stream(pieces: Sequence[bytes], ids: Sequence[int] | None = None,
                    keep: Sequence[int] | None = None) -> Rendered:
    """One line per token: its bytes, the per-token text, the streamed text, the bytes held back; then the
    two joined results (the stream flushed at the end). With ``keep`` (token indices), the HTML shows only
    those rows, and the whole table behind a toggle under them; the text form always has every row."""
    steps = stream_steps(pieces)
    names = [str(i) for i in ids] if ids is not None else [f"#{s.index}" for s in steps]
    rows = [(n, s.piece.hex(" ") or "(none)", _show(s.naive), _show(s.emitted), s.held.hex(" ") or "-")
            for n, s in zip(names, steps, strict=True)]
    head = ("token", "bytes", "per token", "streamed", "held back")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(5)]
    lines = ["  ".join(f"{c:{w}s}" for c, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]
    naive = "".join(s.naive for s in steps)
    streamed = "".join(s.emitted for s in steps) + stream_flush(pieces)
    lines += ["", f"per token: {_show(naive)}  ({naive.count(FFFD)} × U+FFFD)",
              f"streamed : {_show(streamed)}  ({streamed.count(FFFD)} × U+FFFD)"]
    text = "\n".join(lines)
    cells = []
    for r, s in zip(rows, steps, strict=True):
        bad = FFFD in s.naive and FFFD not in s.emitted
        style = f"padding:0 8px;{_MONO}"
        naive_style = style + (f";background:{PALETTE[5][1]};color:{TEXT};border:1px solid {PALETTE[5][0]}"
                               if bad else "")
        cells.append("<tr>" + "".join(f"<td style='{naive_style if k == 2 else style}'>{html.escape(c)}</td>"
                                      for k, c in enumerate(r)) + "</tr>")
    def table(trs: Sequence[str]) -> str:
        return ("<table><tr>" + "".join(f"<th style='padding:0 8px'>{html.escape(h)}</th>" for h in head)
                + "</tr>" + "".join(trs) + "</table>")

    foot = html.escape("\n".join(lines[-2:]))
    if keep is None:
        shown = table(cells)
    else:
        shown = (table([cells[k] for k in keep]) + f"<div>{len(keep)} of {len(cells)} tokens shown</div>"
                 + folded(f"all {len(cells)} tokens", table(cells)))
    return Rendered(f'<div>{shown}<pre style="margin:4px 0 0 0">{foot}</pre></div>', text)


def offsets_table(tok, text: str, add_special: bool = False, parse_special: bool = False) -> Rendered:
    """Each token of ``text`` with the characters of ``text`` it covers (:func:`gguftok.offsets.token_offsets`):
    its id, its piece's bytes, its span ``(start, end)`` and ``text[start:end]``; a token that shares a
    character with a neighbour (it holds only some of that character's bytes) is marked."""
    from ..offsets import token_offsets

    ids = tok.encode(text, add_special=add_special, parse_special=parse_special)
    spans = token_offsets(tok, text, add_special=add_special, parse_special=parse_special)

    def shares(k: int) -> bool:
        a, b = spans[k]
        return any(j != k and 0 <= j < len(spans) and spans[j][0] < b and a < spans[j][1] for j in (k - 1, k + 1))

    head = ("#", "id", "piece (bytes)", "span", "covers", "")
    rows = [(str(k), str(i), tok.token_to_piece(i, special=True).hex(" ") or "(none)", f"({a}, {b})",
             _show(text[a:b]), "shares a character" if shares(k) else "")
            for k, (i, (a, b)) in enumerate(zip(ids, spans, strict=True))]
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(len(head))]
    lines = [f"text: {_show(text)}"] + ["  ".join(f"{c:{w}s}" for c, w in zip(r, widths, strict=True)).rstrip()
                                        for r in [head, *rows]]
    held_b, held_f = PALETTE[0]
    trs = []
    for r in rows:
        style = f"padding:0 8px;{_MONO}"
        mark = (f";background:{held_f};color:{TEXT};border:1px dashed {held_b}" if r[5] else "")
        trs.append("<tr>" + "".join(f"<td style='{style}{mark if c in (4, 5) else ''}'>{html.escape(v)}</td>"
                                    for c, v in enumerate(r)) + "</tr>")
    table = ("<table><tr>" + "".join(f"<th style='padding:0 8px;text-align:left'>{html.escape(h)}</th>"
                                     for h in head) + "</tr>" + "".join(trs) + "</table>")
    return Rendered(f"<div><div style='{_MONO}'>{html.escape(lines[0])}</div>{table}</div>", "\n".join(lines))


def detokenize_rules(tok, ids: Sequence[int]) -> Rendered:
    """``Tokenizer.decode_bytes(ids, remove_special, unparse_special)`` for the four flag combinations."""
    lines = [f"ids: {' '.join(map(str, ids))}"]
    for rs in (False, True):
        for us in (False, True):
            out = tok.decode_bytes(ids, remove_special=rs, unparse_special=us)
            lines.append(f"remove_special={rs!s:5s} unparse_special={us!s:5s} -> "
                         f"{_show(out.decode('utf-8', 'replace'))}")
    return _pre("\n".join(lines))


def clean_spaces_table(samples: Sequence[str]) -> Rendered:
    """Each sample before and after :func:`gguftok.detokenize.clean_spaces`."""
    width = max(len(_show(s)) for s in samples)
    lines = [f"{_show(s):{width}s} -> {_show(clean_spaces(s.encode()).decode('utf-8', 'replace'))}"
             for s in samples]
    return _pre("\n".join(lines))


def mid_character_table(toks: Mapping[str, object], texts: Mapping[str, str]) -> Rendered:
    """Per vocabulary and text: tokens that end mid-character, out of all tokens."""
    names = list(texts)
    head = f"{'vocabulary':12s}" + "".join(f"{n:>14s}" for n in names)
    lines = [head]
    for vname, tok in toks.items():
        cells = []
        for n in names:
            mid, total = mid_character(tok, texts[n])
            cells.append(f"{f'{mid}/{total}':>14s}")
        lines.append(f"{vname:12s}" + "".join(cells))
    return _pre("\n".join(lines))


def mid_character_figure(toks: Mapping[str, object], texts: Mapping[str, str]):
    """Grouped bars: the share of tokens that end in the middle of a character, per text and vocabulary."""
    import matplotlib.pyplot as plt

    names = list(texts)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.8 / max(len(toks), 1)
    hatches = ["", "//", "..", "xx"]
    for k, (vname, tok) in enumerate(toks.items()):
        shares = []
        for n in names:
            mid, total = mid_character(tok, texts[n])
            shares.append(100 * mid / total if total else 0)
        border, fill = PALETTE[k * 2 % len(PALETTE)]
        xs = [i + (k - (len(toks) - 1) / 2) * width for i in range(len(names))]
        ax.bar(xs, shares, width, color=fill, edgecolor=border, hatch=hatches[k % len(hatches)], label=vname)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("% of tokens ending mid-character")
    ax.set_title("tokens a per-token decoder would garble")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------------ frames
def _byte_chips(data: bytes, border: str, fill: str, dashed: bool = False) -> str:
    line = "dashed" if dashed else "solid"
    return "".join(f'<span style="display:inline-block;margin:1px;padding:0 3px;border:1px {line} {border};'
                   f'border-radius:3px;background:{fill};color:{TEXT};{_MONO}">{b:02x}</span>' for b in data)


def _text_box(text: str, border: str, fill: str) -> str:
    shown = escape_visible(text)
    if not shown:
        return '<span style="font-style:italic">(nothing)</span>'
    return (f'<span style="display:inline-block;padding:0 3px;border:1px solid {border};border-radius:3px;'
            f'background:{fill};color:{TEXT};{_MONO}">{html.escape(shown)}</span>')


def stream_frames(pieces: Sequence[bytes], ids: Sequence[int] | None = None) -> list[Rendered]:
    """Frame 0 before any id, frame ``k`` after the ``k``-th id (``len(pieces) + 1`` frames): the id and its
    bytes, the text emitted now, the bytes held back, and everything shown so far."""
    steps = stream_steps(pieces)
    names = [str(i) for i in ids] if ids is not None else [f"#{s.index}" for s in steps]
    flush = stream_flush(pieces)
    label = 'style="display:inline-block;width:7.5em;font-weight:bold"'
    new_b, new_f = PALETTE[2]
    held_b, held_f = PALETTE[0]
    bad_b, bad_f = PALETTE[5]
    frames = []
    so_far = ""
    start = f"start: {len(steps)} ids to come, nothing received"
    frames.append(Rendered(f'<div style="{_BOX}"><div style="font-weight:bold">{html.escape(start)}</div>'
                           f'<div><span {label}>shown so far</span>{_text_box("", new_b, new_f)}</div></div>',
                           f"{start}\nshown so far: \"\""))
    for k, (name, s) in enumerate(zip(names, steps, strict=True), 1):
        so_far += s.emitted
        head = f"id {k} of {len(steps)}: {name}"
        garbled = FFFD in s.naive and FFFD not in s.emitted
        naive_html = _text_box(s.naive, bad_b, bad_f) if garbled else _text_box(s.naive, new_b, new_f)
        end = ""
        end_text = ""
        if k == len(steps) and flush:
            end = f'<div><span {label}>flush at end</span>{_text_box(flush, bad_b, bad_f)}</div>'
            end_text = f"\nflush at end: {_show(flush)}"
        body = (f'<div style="{_BOX}"><div style="font-weight:bold">{html.escape(head)}</div>'
                f'<div><span {label}>bytes</span>{_byte_chips(s.piece, new_b, new_f) or "(none)"}</div>'
                f'<div><span {label}>alone</span>{naive_html}'
                + (' <span style="font-style:italic">garbled</span>' if garbled else "") + "</div>"
                f'<div><span {label}>emitted</span>{_text_box(s.emitted, new_b, new_f)}</div>'
                f'<div><span {label}>held back</span>'
                + (_byte_chips(s.held, held_b, held_f, dashed=True) or '<span style="font-style:italic">(none)'
                                                                         "</span>")
                + f'</div><div><span {label}>shown so far</span>{_text_box(so_far, new_b, new_f)}</div>'
                f"{end}</div>")
        text = (f"{head}\nbytes: {s.piece.hex(' ') or '(none)'}\nalone: {_show(s.naive)}"
                + (" (garbled)" if garbled else "")
                + f"\nemitted: {_show(s.emitted)}\nheld back: {s.held.hex(' ') or '(none)'}"
                f"\nshown so far: {_show(so_far)}{end_text}")
        frames.append(Rendered(body, text))
    return frames


def stream_player(frames: Sequence[Rendered], interval: int = 700):
    """A Play button and a slider jslinked to a Stack of the precomputed frames (no kernel round trips)."""
    from .queue_view import queue_player

    return queue_player(frames, interval=interval)
