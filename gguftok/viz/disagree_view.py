"""Why two engines disagree, shown: a :class:`~gguftok.disagree.Disagreement` as both token rows side by side,
the first differing id marked, the pipeline's stages with the one where the engines part named, the
explanation, and the evidence that proves it.

Pure functions returning :class:`Rendered`; the widget factory imports ipywidgets inside itself, and the other
engine's libraries are imported only by :mod:`gguftok.disagree`. The first difference is marked three ways at
once, as in the conformance views: a thick border, a colour, and the label ``FIRST DIFFERENCE`` (``^^^`` under
it in the plain-text form); the stage where the engines part is framed and labelled ``PARTS HERE``.

>>> from gguftok import Tokenizer
>>> from gguftok.disagree import explain
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> ids = tok.encode("Hello world", add_special=False)
>>> print(disagreement_view(explain(tok, "Hello world", ids + [0], add_special=False), tok).text.splitlines()[0])
the engines part at bos-eos (narrowed from ids alone), first difference at id 2
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .conformance_view import parse_ids
from .render import PALETTE, TEXT, Rendered, escape_visible, folded

_MONO = "font-family:monospace"
_OK = PALETTE[2]  # green: the same on both sides
_BAD = PALETTE[5]  # vermillion: the first difference, the stage where they part
_ALSO = PALETTE[0]  # orange: another stage that differs too
_LATER = PALETTE[7]  # grey: after the first difference
OTHER_ENGINES = ("transformers' conversion", "ids pasted")


# ----------------------------------------------------------------------------------------------- pieces
def _names(d) -> dict[int, str]:
    """Token texts the evidence names (the other engine's own BOS or added tokens, maybe past the vocabulary)."""
    names: dict[int, str] = {}
    for key in ("bos-eos",):
        theirs = d.evidence.get(key, {}).get("theirs")
        if isinstance(theirs, Mapping):
            for part in theirs.values():
                for item in part or ():
                    if isinstance(item, (list, tuple)) and len(item) == 2:
                        names.setdefault(int(item[0]), str(item[1]))
    for _, tid, text in d.evidence.get("special-match", {}).get("theirs", ()):
        names.setdefault(int(tid), str(text))
    return names


def _piece(tok, tid: int, names: Mapping[int, str]) -> str:
    """A token's text as llama.cpp writes it (special tokens written out), visible; a note for an id outside
    the vocabulary (with the other engine's name for it, when the evidence gives one)."""
    if 0 <= tid < tok.n_vocab:
        return escape_visible(tok.token_to_piece(tid, special=True).decode("utf-8", "replace"))
    if tid in names:
        return f"{escape_visible(names[tid])} (past the vocabulary)"
    return "(no such token)"


def _visible(value: Any) -> Any:
    """``value`` with every string in it (at any depth) written with visible whitespace."""
    if isinstance(value, str):
        return escape_visible(value)
    if isinstance(value, (list, tuple)):
        return [_visible(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _visible(v) for k, v in value.items()}
    return value


def _short(value: Any, limit: int = 110) -> str:
    text = repr(_visible(value))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _box(colour: tuple[str, str], border: str = "1px solid") -> str:
    return f"border:{border} {colour[0]};background:{colour[1]};color:{TEXT}"


def _label(text: str, colour: tuple[str, str] = _BAD) -> str:
    return (f"<span style='font-weight:bold;font-size:80%;padding:0 3px;{_box(colour)}'>"
            f"{html.escape(text)}</span>")


# ----------------------------------------------------------------------------------------------- stages
def _stage_strip(d) -> tuple[str, str]:
    """The pipeline's stages in order, the one where the engines part framed and labelled (html, text)."""
    from ..disagree import STAGES

    cells, words = [], []
    for s in STAGES:
        if s == d.stage:
            cells.append(f"<span style='display:inline-block;margin:1px 2px;padding:0 4px;{_box(_BAD, '3px solid')}'>"
                         f"<b>{html.escape(s)}</b> · PARTS HERE</span>")
            words.append(f"[{s}: PARTS HERE]")
        elif s in d.stages:
            cells.append(f"<span style='display:inline-block;margin:1px 2px;padding:0 4px;{_box(_ALSO)}'>"
                         f"{html.escape(s)} · differs too</span>")
            words.append(f"[{s}: differs too]")
        else:
            cells.append(f"<span style='display:inline-block;margin:1px 2px;padding:0 4px;"
                         f"{_box(_LATER, '1px dashed')}'>{html.escape(s)}</span>")
            words.append(s)
    return "<div style='margin:2px 0'>stages: " + " → ".join(cells) + "</div>", "stages: " + " > ".join(words)


# ------------------------------------------------------------------------------------------------- rows
def _id_rows(d, tok, labels: tuple[str, str], context: int) -> tuple[str, list[str]]:
    """Both id lists as two aligned rows (one column per position), around the first difference."""
    ours, theirs = list(d.ours), list(d.theirs)
    names = _names(d)
    at = d.position
    n = max(len(ours), len(theirs))
    lo = 0 if at is None else max(0, at - context)
    hi = n if at is None else min(n, at + 2 * context + 1)
    if at is None and n > 4 * context:
        hi = 4 * context
    keep = range(lo, hi)

    def cell(ids: list[int], k: int) -> tuple[str, str]:
        if k >= len(ids):
            return "", "(none)"
        return str(ids[k]), _piece(tok, ids[k], names)

    heads = ["<th style='padding:0 4px;text-align:left'>#</th>"]
    rows = {0: [f"<th style='padding:0 4px;text-align:left'>{html.escape(labels[0])}</th>"],
            1: [f"<th style='padding:0 4px;text-align:left'>{html.escape(labels[1])}</th>"]}
    if lo > 0:
        heads.append(f"<td style='padding:0 4px'>… {lo} same before</td>")
        for r in rows.values():
            r.append("<td></td>")
    for k in keep:
        if at is None or k < at:
            colour, border, note = _OK, "1px solid", ""
        elif k == at:
            colour, border, note = _BAD, "3px solid", _label("FIRST DIFFERENCE")
        else:
            colour, border, note = _LATER, "1px dashed", ""
        heads.append(f"<td style='padding:0 4px;text-align:center'>{k}{'<br>' + note if note else ''}</td>")
        for r, ids in ((0, ours), (1, theirs)):
            tid, piece = cell(ids, k)
            rows[r].append(f"<td style='padding:0 4px;{_MONO};white-space:pre;vertical-align:top;"
                           f"{_box(colour, border)}'>{html.escape(tid)}<br>{html.escape(piece)}</td>")
    if hi < n:
        heads.append(f"<td style='padding:0 4px'>… {n - hi} more</td>")
    table = ("<table style='border-collapse:separate;border-spacing:2px'><tr>" + "".join(heads) + "</tr><tr>"
             + "".join(rows[0]) + "</tr><tr>" + "".join(rows[1]) + "</tr></table>")

    width = max(len(labels[0]), len(labels[1]))
    cols = [[f"{ids[k]}:{_piece(tok, ids[k], names)}" if k < len(ids) else "(none)" for ids in (ours, theirs)]
            for k in keep]
    widths = [max(map(len, c)) for c in cols]
    lines = []
    for r, label in enumerate(labels):
        parts = [f"{c[r]:<{w}s}" for c, w in zip(cols, widths, strict=True)]
        lines.append((f"{label:<{width}s}  " + ("… " if lo else "") + " ".join(parts) + (" …" if hi < n else "")
                      ).rstrip())
    if at is not None:
        a, b = cell(ours, at), cell(theirs, at)
        lines.append(f"first difference at id {at}: {labels[0]} {' '.join(a).strip()}, "
                     f"{labels[1]} {' '.join(b).strip()}  <<< first difference")
    return table, lines


def _text_rows(d, labels: tuple[str, str]) -> tuple[str, list[str]]:
    """A decode disagreement: both texts, the first character where they part marked."""
    k = d.evidence.get("decoding", {}).get("char")
    if k is None:
        k = next((i for i, (a, b) in enumerate(zip(d.ours, d.theirs, strict=False)) if a != b),
                 min(len(d.ours), len(d.theirs)))
    rows, lines = [], []
    width = max(len(labels[0]), len(labels[1]))
    for label, text in ((labels[0], d.ours), (labels[1], d.theirs)):
        before, here, after = (escape_visible(text[:k]), escape_visible(text[k:k + 1]) or "(end)",
                               escape_visible(text[k + 1:]))
        rows.append(f"<tr><th style='padding:0 4px;text-align:left'>{html.escape(label)}</th>"
                    f"<td style='padding:0 4px;{_MONO};white-space:pre'>{html.escape(before)}"
                    f"<span style='padding:0 2px;{_box(_BAD, '3px solid')}'>{html.escape(here)}</span>"
                    f"{html.escape(after)}</td></tr>")
        lines.append(f"{label:<{width}s}  {before}{here}{after}")
    lines.append(" " * (width + 2 + len(escape_visible(d.ours[:k]))) + "^ first difference, at character "
                 f"{k}")
    token = d.evidence.get("decoding", {}).get("token")
    note = f" (token {d.position}" + (f", id {token[0]} {escape_visible(str(token[1]))!r}" if token else "") + ")"
    head = (f"<tr><th></th><td style='padding:0 4px'>{_label('FIRST DIFFERENCE')} at character {k}"
            f"{html.escape(note)}</td></tr>")
    return "<table>" + head + "".join(rows) + "</table>", lines


# ---------------------------------------------------------------------------------------------- evidence
def _evidence(values: Mapping[str, Any]) -> tuple[str, list[str]]:
    trs, lines = [], []
    for key, value in list(values.items())[:10]:
        shown = _short(value)
        trs.append(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(str(key))}</td>"
                   f"<td style='padding:0 6px;{_MONO};white-space:pre-wrap'>{html.escape(shown)}</td></tr>")
        lines.append(f"  {key}: {shown}")
    return "<table>" + "".join(trs) + "</table>", lines


# ------------------------------------------------------------------------------------------------- view
def disagreement_view(d, tok, labels: Sequence[str] | None = None, context: int = 6) -> Rendered:
    """A :class:`~gguftok.disagree.Disagreement` (of :func:`~gguftok.disagree.explain` or
    :func:`~gguftok.disagree.explain_decode`) with ``tok``, llama.cpp's side: the verdict, the stages in
    pipeline order with the one where the engines part marked, both rows side by side (ids and token texts, or
    the two decoded texts) with the first difference marked, the explanation, and the evidence of each stage
    that differs. ``context`` positions are shown before the first difference (twice as many after it)."""
    labels = tuple(labels or ("llama.cpp", d.other))
    if d.stage is None:
        head = f"the engines agree: {labels[0]} and {labels[1]} give the same {'ids' if d.kind == 'encode' else 'text'}"
    else:
        where = "id" if d.kind == "encode" else "token"
        head = (f"the engines part at {d.stage}" + (" (narrowed from ids alone)" if d.narrowed else "")
                + f", first difference at {where} {d.position}")
    strip_html, strip_text = _stage_strip(d)
    rows_html, rows_text = (_id_rows(d, tok, labels, context) if d.kind == "encode" else _text_rows(d, labels))
    verdict = (_label(f"stage: {d.stage}") if d.stage else _label("they agree", _OK))
    parts = [f"<div style='margin-bottom:2px'>{verdict} <b>{html.escape(head)}</b></div>", strip_html, rows_html]
    lines = [head, strip_text, *rows_text]
    if d.stage is not None:
        parts.append(f"<div style='margin:4px 0;max-width:60em'><b>why:</b> {html.escape(d.explanation)}</div>")
        lines.append("why: " + d.explanation)
        for s in d.stages:
            ev_html, ev_text = _evidence(d.evidence.get(s, {}))
            if s == d.stage:
                parts.append(f"<div><b>evidence ({html.escape(s)}):</b></div>{ev_html}")
            else:
                parts.append(folded(f"evidence ({s}, which differs too)", ev_html))
            lines += [f"evidence ({s}):", *ev_text]
        if d.keys:
            parts.append(f"<div><b>metadata keys behind it:</b> <span style='{_MONO}'>"
                         f"{html.escape(', '.join(d.keys))}</span></div>")
            lines.append("metadata keys behind it: " + ", ".join(d.keys))
    return Rendered("<div>" + "".join(parts) + "</div>", "\n".join(lines))


def playground_disagreement(tok, text: str, other: Any, ids: str = "", add_special: bool = False,
                            parse_special: bool = False):
    """What the playground explains: ``text`` on ``tok`` against ``other`` (an engine), or, when ``other`` is
    ``None``, against the ids typed or pasted in ``ids`` (``[1, 2]``, ``1 2``, ``1,2``)."""
    from ..disagree import explain

    if other is None:
        if not ids.strip():
            raise ValueError("paste the other engine's ids in the ids box")
        other = parse_ids(ids)
    return explain(tok, text, other, add_special=add_special, parse_special=parse_special)


def disagree_playground(folder=None, text: str = "\tThe cat", vocab: str = "deepseek-coder",
                        other: str = OTHER_ENGINES[0], ids: str = "", add_special: bool = False,
                        parse_special: bool = False):
    """A text, a vocabulary, the other engine (transformers' conversion of the same file, or ids pasted from
    anywhere) and the two flags over :func:`disagreement_view`. Tokenizers and conversions are made on first
    use and kept; a vocabulary transformers cannot convert says so."""
    import ipywidgets as W

    from ..disagree import transformers_tokenizer
    from .widgets import vocab_playground

    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="3em"))
    engine = W.ToggleButtons(options=list(OTHER_ENGINES), value=other, description="other engine")
    id_box = W.Textarea(value=ids, description="ids", placeholder="the other engine's ids: [1, 2] or 1 2",
                        layout=W.Layout(width="95%", height="3em"))
    add = W.Checkbox(value=add_special, description="add_special")
    parse = W.Checkbox(value=parse_special, description="parse_special")
    converted: dict[str, Any] = {}

    def render(tok, name, t, which, typed, a, p):
        id_box.layout.display = None if which == OTHER_ENGINES[1] else "none"
        if which == OTHER_ENGINES[1]:
            return disagreement_view(playground_disagreement(tok, t, None, typed, a, p), tok).html
        if name not in converted:
            converted[name] = transformers_tokenizer(tok)
        return disagreement_view(playground_disagreement(tok, t, converted[name], "", a, p), tok).html

    choice, out = vocab_playground(render, [box, engine, id_box, add, parse], folder=folder, vocab=vocab)
    return W.VBox([choice, box, engine, id_box, W.HBox([add, parse]), out])
