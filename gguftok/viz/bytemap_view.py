"""Views for notebook 02: GPT-2's byte-to-unicode map, shown whole and applied to real vocabulary strings.

Every view is a pure function returning :class:`~gguftok.viz.render.Rendered`. A byte that keeps its own
character ("self-mapped") is drawn in a solid box labelled ``=``; a byte moved up past U+00FF ("shifted")
in a dashed, hatched box labelled ``↑`` with what the byte really is, and in text form between brackets.
So the two kinds differ by border, pattern and label, not by colour alone.

>>> print(byte_grid().text.splitlines()[4])
2_  [Ġ]  !   "   #   $   %   &   '   (   )   *   +   ,   -   .   /
>>> print(vocab_text_marked("ĠhÃ©"))
[Ġ]hÃ©
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..bytemap import BYTE_TO_CHAR, CHAR_TO_BYTE, text_to_bytes
from .render import PALETTE, TEXT, Rendered, escape_visible, token_chips

__all__ = ["SELF_MAPPED", "SHIFTED", "byte_grid", "byte_inspector", "byte_map_figure", "byte_name", "byte_usage",
           "byte_usage_figure", "is_shifted", "split_character_view", "stream_steps", "text_bytes_view",
           "vocab_entries_view", "vocab_roundtrip", "vocab_text_marked"]


def is_shifted(b: int) -> bool:
    """Whether byte ``b`` is written with a character other than its own Latin-1 one."""
    return BYTE_TO_CHAR[b] != chr(b)


SELF_MAPPED: list[int] = [b for b in range(256) if not is_shifted(b)]
SHIFTED: list[int] = [b for b in range(256) if is_shifted(b)]

_SELF_BORDER, _SELF_FILL = PALETTE[4]  # blue
_SHIFT_BORDER, _SHIFT_FILL = PALETTE[5]  # vermillion
_HATCH = f"repeating-linear-gradient(135deg,{_SHIFT_FILL} 0 4px,#FFFFFF 4px 6px)"
_SELF_STYLE = f"border:1px solid {_SELF_BORDER};background-color:{_SELF_FILL};color:{TEXT}"
_SHIFT_STYLE = (f"border:2px dashed {_SHIFT_BORDER};background-color:{_SHIFT_FILL};background-image:{_HATCH};"
                f"color:{TEXT}")
_NAMES = {0x00: "NUL", 0x09: "tab", 0x0A: "newline (LF)", 0x0B: "vertical tab", 0x0C: "form feed",
          0x0D: "carriage return (CR)", 0x1B: "escape", 0x20: "space", 0x7F: "delete (DEL)",
          0xA0: "no-break space", 0xAD: "soft hyphen"}


def byte_name(b: int) -> tuple[str, str]:
    """``(glyph, description)`` of what byte ``b`` is on its own (Latin-1 reading): a short visible mark for the
    grid and a few words for the tooltip.

    >>> byte_name(0x20), byte_name(0x0A), byte_name(0x85), byte_name(ord("A"))
    (('␣', 'space'), ('↵', 'newline (LF)'), ('C1', 'C1 control character'), ('A', 'printable'))
    """
    if 0x80 <= b < 0xA0:
        return "C1", "C1 control character"
    if b == 0x7F:
        return "␡", _NAMES[b]
    if b == 0xAD:
        return "SHY", _NAMES[b]
    if b < 0x20 or b in (0x20, 0xA0):
        shown = escape_visible(chr(b))
        glyph = shown if len(shown) == 1 else chr(0x2400 + b)  # the Control Pictures block, U+2400..U+241F
        return glyph, _NAMES.get(b, "control character")
    return chr(b), "printable"


def _char_title(ch: str) -> str:
    b = CHAR_TO_BYTE[ch]
    if is_shifted(b):
        return f"byte 0x{b:02x} ({b}) = {byte_name(b)[1]}; written {ch} U+{ord(ch):04X} (moved up)"
    return f"byte 0x{b:02x} ({b}); written as itself, {ch} U+{ord(ch):04X}"


def _mini(ch: str) -> str:
    """One vocabulary character as a small box: solid for a self-mapped byte, dashed and hatched if shifted."""
    if ch not in CHAR_TO_BYTE:
        return (f'<span title="not a byte-map character" style="border:1px dotted #777777;padding:0 2px;'
                f'font-family:monospace">{html.escape(escape_visible(ch))}</span>')
    style = _SHIFT_STYLE if is_shifted(CHAR_TO_BYTE[ch]) else _SELF_STYLE
    return (f'<span title="{html.escape(_char_title(ch), quote=True)}" style="display:inline-block;{style};'
            f'margin:0 1px;padding:0 2px;font-family:monospace;white-space:pre">{html.escape(ch)}</span>')


def vocab_text_marked(text: str) -> str:
    """A vocabulary string in plain text with each shifted character in brackets (``Ġhi`` -> ``[Ġ]hi``)."""
    return "".join(f"[{c}]" if c in CHAR_TO_BYTE and is_shifted(CHAR_TO_BYTE[c]) else c for c in text)


def _legend() -> str:
    self_cell = f'<span style="display:inline-block;{_SELF_STYLE};padding:0 4px;font-family:monospace">A =</span>'
    shift_cell = f'<span style="display:inline-block;{_SHIFT_STYLE};padding:0 4px;font-family:monospace">Ġ ↑␣</span>'
    return (f'<div style="margin:4px 0">{self_cell} solid box, label <b>=</b>: the byte keeps its own character '
            f'({len(SELF_MAPPED)} bytes) &nbsp; {shift_cell} dashed hatched box, label <b>↑</b> + what the byte '
            f'is: invisible or whitespace, so it is written with a character moved up to U+0100..U+0143 '
            f'({len(SHIFTED)} bytes)</div>')


def byte_grid() -> Rendered:
    """All 256 bytes as a 16 x 16 grid (row = high hex digit, column = low): each cell shows the byte in hex,
    the character that writes it in a vocabulary, and a label: ``=`` if the byte keeps its own character,
    ``↑`` plus a visible mark of the byte (``␣``, ``↵``, ``C1`` ...) if it was moved."""
    head = (f"GPT-2 byte map: {len(SELF_MAPPED)} bytes keep their own character, {len(SHIFTED)} are moved to "
            f"U+{ord(BYTE_TO_CHAR[SHIFTED[0]]):04X}..U+{ord(BYTE_TO_CHAR[SHIFTED[-1]]):04X} (shown [in brackets])")
    lines = [head, "    " + "".join(f" _{c:x} " for c in range(16))]
    rows = []
    for r in range(16):
        cells_t, cells_h = [], []
        for c in range(16):
            b = 16 * r + c
            ch = BYTE_TO_CHAR[b]
            shifted = is_shifted(b)
            cells_t.append(f"[{ch}]" if shifted else f" {ch} ")
            glyph, _ = byte_name(b)
            label = f"↑{glyph}" if shifted else "="
            style = _SHIFT_STYLE if shifted else _SELF_STYLE
            cells_h.append(
                f'<td title="{html.escape(_char_title(ch), quote=True)}" style="{style};padding:1px 2px;'
                f'text-align:center;min-width:2.7em;line-height:1.15">'
                f'<div style="font-size:70%;font-family:monospace">{b:02x}</div>'
                f'<div style="font-size:125%;font-family:monospace;white-space:pre">{html.escape(ch)}</div>'
                f'<div style="font-size:70%;font-family:monospace;white-space:pre">{html.escape(label)}</div></td>')
        lines.append(f"{r:x}_  " + " ".join(cells_t).rstrip())
        rows.append(f'<tr><th style="padding:0 4px;font-family:monospace">{r:x}_</th>{"".join(cells_h)}</tr>')
    header = "<tr><th></th>" + "".join(f'<th style="font-family:monospace;font-weight:normal">_{c:x}</th>'
                                       for c in range(16)) + "</tr>"
    table = f'<table style="border-collapse:separate;border-spacing:2px">{header}{"".join(rows)}</table>'
    return Rendered(f"<div><div>{html.escape(head)}</div>{_legend()}{table}</div>", "\n".join(lines))


def vocab_entries_view(tok, ids: Sequence[int]) -> Rendered:
    """Vocabulary entries decoded by the map alone: id, stored text, the bytes it stands for, those bytes as
    UTF-8 text. ``tok`` only supplies the stored texts; the bytes come from :func:`gguftok.bytemap.text_to_bytes`."""
    rows_t, rows_h = [], []
    texts = [tok.token_text(i) for i in ids]
    tw = max([len(t) for t in texts] + [4])
    bw = max([3 * len(t) - 1 for t in texts] + [5])
    for i, text in zip(ids, texts, strict=True):
        data = text_to_bytes(text)
        shown = escape_visible(data.decode("utf-8", "replace"))
        moved = sum(is_shifted(b) for b in data)
        rows_t.append(f"id {i:>6d}  {text:<{tw}s}  -> bytes {data.hex(' '):<{bw}s}  -> {shown!r}  "
                      f"({moved} of {len(data)} bytes moved)")
        rows_h.append(f"<tr><td style='text-align:right;padding:0 6px;font-family:monospace'>{i}</td>"
                      f"<td style='padding:0 6px'>{''.join(_mini(c) for c in text)}</td>"
                      f"<td style='padding:0 6px;font-family:monospace'>{data.hex(' ')}</td>"
                      f"<td style='padding:0 6px;font-family:monospace;white-space:pre'>{html.escape(shown)}</td>"
                      f"<td style='padding:0 6px'>{moved} of {len(data)}</td></tr>")
    table = ("<table><tr><th>id</th><th>vocabulary text</th><th>bytes</th><th>as UTF-8</th>"
             "<th>bytes moved</th></tr>" + "".join(rows_h) + "</table>")
    return Rendered(f"<div>{table}</div>", "\n".join(rows_t))


def vocab_roundtrip(tok) -> tuple[int, int]:
    """``(tokens checked, tokens whose map-decoded text equals llama.cpp's piece)`` over the tokens of type
    normal in a byte-level vocabulary: the map is all that decoding them needs. Pieces are taken with
    ``special=True``, because llama.cpp may promote a normal token to an end-of-generation control token
    (Qwen2's ``</s>``), which then prints nothing by default."""
    normal = [i for i, t in enumerate(tok.vocab.types) if t == 1]
    agree = sum(text_to_bytes(tok.token_text(i)) == tok.token_to_piece(i, special=True) for i in normal)
    return len(normal), agree


def text_bytes_view(tok, text: str, max_chars: int = 40) -> Rendered:
    """Text -> one line per character (code point, UTF-8 bytes, vocabulary characters) -> ``tok``'s ids, each
    with its stored vocabulary text. Characters after ``max_chars`` are summarised, not listed."""
    data = text.encode("utf-8")
    head = f"{len(text)} characters, {len(data)} UTF-8 bytes, {sum(map(is_shifted, data))} of them moved"
    lines, rows = [head], []
    for ch in text[:max_chars]:
        b = ch.encode("utf-8")
        vocab = "".join(BYTE_TO_CHAR[x] for x in b)
        shown = escape_visible(ch)
        lines.append(f"  {shown!r:<6s} U+{ord(ch):04X}  {b.hex(' '):<11s}  -> {vocab_text_marked(vocab)}")
        rows.append(f"<tr><td style='padding:0 6px;font-family:monospace;white-space:pre'>{html.escape(shown)}</td>"
                    f"<td style='padding:0 6px;font-family:monospace'>U+{ord(ch):04X}</td>"
                    f"<td style='padding:0 6px;font-family:monospace'>{b.hex(' ')}</td>"
                    f"<td style='padding:0 6px'>{''.join(_mini(c) for c in vocab)}</td></tr>")
    if len(text) > max_chars:
        more = f"... {len(text) - max_chars} more characters not listed"
        lines.append("  " + more)
        rows.append(f"<tr><td colspan='4' style='padding:0 6px'>{html.escape(more)}</td></tr>")
    ids = tok.encode(text, add_special=False)
    stored = " ".join(f"{i}:{vocab_text_marked(tok.token_text(i))}" for i in ids)
    lines.append(f"ids ({len(ids)}): {stored}")
    chips = token_chips(tok, ids)
    lines.append("decoded: " + chips.text)
    stored_html = " ".join(f"<span style='white-space:nowrap;margin-right:6px'><span style='font-family:monospace'>"
                           f"{i}</span>:{''.join(_mini(c) for c in tok.token_text(i))}</span>" for i in ids)
    table = ("<table><tr><th>character</th><th>code point</th><th>UTF-8 bytes</th><th>vocabulary characters</th>"
             "</tr>" + "".join(rows) + "</table>")
    body = (f"<div>{html.escape(head)}</div>{table}<div style='margin-top:4px'>ids ({len(ids)}), each with its "
            f"stored text: {stored_html}</div><div style='margin-top:4px'>decoded token by token:</div>{chips.html}")
    return Rendered(f"<div>{body}</div>", "\n".join(lines))


def stream_steps(tok, ids: Sequence[int]) -> list[tuple[int, str, bytes, str]]:
    """``(id, stored text, bytes, text the stream prints)`` per id, from :meth:`Tokenizer.decode_stream`;
    the stream's final flush is appended to the last step."""
    printed = list(tok.decode_stream(ids))
    steps = [(i, tok.token_text(i), tok.token_to_piece(i), out) for i, out in zip(ids, printed[:len(ids)], strict=True)]
    if steps and printed[-1]:
        i, t, b, out = steps[-1]
        steps[-1] = (i, t, b, out + printed[-1])
    return steps


def split_character_view(tok, text: str) -> Rendered:
    """How ``tok`` cuts ``text`` when a character's bytes land in different tokens: the token chips (a split
    character framed as one group) and a step-by-step streamed decode that prints nothing until the
    character is whole."""
    ids = tok.encode(text, add_special=False)
    steps = stream_steps(tok, ids)
    chips = token_chips(tok, ids, title=f"{escape_visible(text)!r} -> {len(ids)} tokens")
    sw = max([len(vocab_text_marked(stored)) for _, stored, _, _ in steps] + [6])
    bw = max([3 * len(data) - 1 for _, _, data, _ in steps] + [5])
    lines = [chips.text, f"step  id      {'stored':<{sw}s}  {'bytes':<{bw}s}  stream prints"]
    rows, taken, given = [], 0, 0
    for n, (i, stored, data, out) in enumerate(steps, 1):
        taken, given = taken + len(data), given + len(out.encode("utf-8"))
        held = taken - given  # bytes of an unfinished character the stream keeps for the next token
        waiting = f"(holding {held} byte{'s' if held > 1 else ''})" if held else ""
        shown = f"{escape_visible(out)!r}" if out else "''"
        lines.append(f"{n:>4d}  {i:<6d}  {vocab_text_marked(stored):<{sw}s}  {data.hex(' '):<{bw}s}  {shown} {waiting}"
                     .rstrip())
        rows.append(f"<tr><td style='text-align:right;padding:0 6px'>{n}</td>"
                    f"<td style='text-align:right;padding:0 6px;font-family:monospace'>{i}</td>"
                    f"<td style='padding:0 6px'>{''.join(_mini(c) for c in stored)}</td>"
                    f"<td style='padding:0 6px;font-family:monospace'>{data.hex(' ')}</td>"
                    f"<td style='padding:0 6px;font-family:monospace;white-space:pre'>{html.escape(shown)} "
                    f"{html.escape(waiting)}</td></tr>")
    table = ("<table><tr><th>step</th><th>id</th><th>stored text</th><th>bytes</th><th>stream prints</th></tr>"
             + "".join(rows) + "</table>")
    return Rendered(f"<div>{chips.html}{table}</div>", "\n".join(lines))


def byte_inspector(tok, value: str = "Hi 😀\\n世界\\t"):
    """A text box over :func:`text_bytes_view`: type, and see the bytes, their vocabulary characters and the ids."""
    import ipywidgets as W

    box = W.Text(value=value, description="text", layout=W.Layout(width="60%"))
    out = W.HTML()

    def update(*_):
        # a Text widget cannot hold a newline: "\n" typed as two characters stands for one
        out.value = text_bytes_view(tok, box.value.replace("\\n", "\n").replace("\\t", "\t")).html

    box.observe(update, names="value")
    update()
    return W.VBox([W.HTML("type text (write \\n for a newline, \\t for a tab)"), box, out])


def byte_usage(tok) -> list[int]:
    """For each byte value, how many tokens of ``tok``'s vocabulary contain it (decoded pieces, normal
    tokens only)."""
    counts = [0] * 256
    for i, t in enumerate(tok.vocab.types):
        if t == 1:
            for b in set(tok.token_to_piece(i)):
                counts[b] += 1
    return counts


def byte_map_figure():
    """Byte value against the code point of the character that writes it: self-mapped bytes lie on the
    diagonal, shifted bytes are stacked just above U+00FF in byte order."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot([0, 255], [0, 255], color="#999999", lw=0.8, ls=":", zorder=0)
    ax.scatter(SELF_MAPPED, [ord(BYTE_TO_CHAR[b]) for b in SELF_MAPPED], s=14, marker="o", color=_SELF_FILL,
               edgecolors=_SELF_BORDER, linewidths=0.8, label=f"keeps its own character ({len(SELF_MAPPED)})")
    ax.scatter(SHIFTED, [ord(BYTE_TO_CHAR[b]) for b in SHIFTED], s=22, marker="s", color=_SHIFT_FILL,
               edgecolors=_SHIFT_BORDER, linewidths=0.8, hatch="////",
               label=f"moved above U+00FF ({len(SHIFTED)})")
    ax.axhline(255.5, color="#555555", lw=0.8)
    ax.text(258, 259, "above U+00FF: outside Latin-1", fontsize=8, ha="right", va="bottom", color="#555555")
    notes = [(0x10, "0x00..0x20: controls and space\n→ U+0100..U+0120 (byte + 256)", (30, 195), "left"),
             (0x7F, "0x7F DEL → U+0121", (118, 305), "right"),
             (0x90, "0x80..0xA0: C1 controls and NBSP\n→ U+0122..U+0142", (160, 90), "left"),
             (0xAD, "0xAD soft hyphen\n→ U+0143", (190, 290), "left")]
    for b, label, xy, align in notes:
        ax.annotate(label, (b, ord(BYTE_TO_CHAR[b])), xytext=xy, fontsize=8, ha=align,
                    arrowprops={"arrowstyle": "->", "color": "#555555", "lw": 0.7})
    ax.set_xlim(-5, 260)
    ax.set_ylim(-5, 340)
    ax.set_xticks(range(0, 257, 32), [f"0x{v:02X}" for v in range(0, 257, 32)])
    ax.set_yticks(range(0, 330, 64), [f"U+{v:04X}" for v in range(0, 330, 64)])
    ax.set_xlabel("byte value")
    ax.set_ylabel("code point of the vocabulary character")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.grid(alpha=0.25)
    fig.tight_layout()
    return fig


def byte_usage_figure(counts: Sequence[int], name: str = "qwen2"):
    """Bars: for each byte, how many tokens contain it (log scale); shifted bytes hatched."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.6))
    for group, border, fill, hatch, label in ((SELF_MAPPED, _SELF_BORDER, _SELF_FILL, "", "keeps its character"),
                                              (SHIFTED, _SHIFT_BORDER, _SHIFT_FILL, "////", "moved above U+00FF")):
        ax.bar(group, [max(counts[b], 0.8) for b in group], width=1.0, color=fill, edgecolor=border,
               linewidth=0.4, hatch=hatch, label=label)
    ax.set_yscale("log")
    ax.set_xlim(-1, 256)
    ax.set_xticks(range(0, 257, 32), [f"0x{v:02X}" for v in range(0, 257, 32)])
    ax.set_xlabel("byte value")
    ax.set_ylabel(f"{name} tokens containing it")
    for b, label in ((0x20, "space"), (0x0A, "\\n")):
        ax.annotate(label, (b, counts[b]), xytext=(0, 4), textcoords="offset points", ha="center", fontsize=8)
    ax.set_ylim(0.7, max(counts) * 8)
    ax.axvspan(0x80 - 0.5, 0xBF + 0.5, color="#999999", alpha=0.12, lw=0)
    ax.text(0xA0, max(counts) * 3, "UTF-8 continuation bytes", ha="center", va="center", fontsize=8)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, frameon=False, ncols=2)
    fig.tight_layout()
    return fig
