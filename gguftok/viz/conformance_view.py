"""Views for checking gguftok against llama.cpp: ids printed the way ``llama-tokenize`` prints them, pass tables
of llama.cpp's own test cases, summaries and spot checks of the recorded golden fixtures, and a comparison
of any id list (a student's, another port's) with the reference ids that marks the first difference.

Pure functions returning :class:`Rendered`; the widget factory imports ipywidgets inside itself and the
figure imports matplotlib inside itself. The first difference is marked three ways at once: a thick border,
a colour, and the label ``FIRST DIFFERENCE`` (``<<< first difference`` in the plain-text form).

>>> first_difference([1, 2, 3], [1, 2, 4]), first_difference([1, 2], [1, 2, 5]), first_difference([7], [7])
(2, 2, None)
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..conformance.cases import first_difference
from .render import PALETTE, TEXT, Rendered, escape_visible, folded

_MONO = "font-family:monospace"
_OK = PALETTE[2]  # green: agrees
_BAD = PALETTE[5]  # vermillion: the first difference
_LATER = PALETTE[7]  # grey: after the first difference


# ----------------------------------------------------------------------------------------------- facts
def parse_ids(text: str) -> list[int]:
    """Ids typed by hand or pasted from ``llama-tokenize --ids``: ``"[1, 2, 3]"``, ``"1 2 3"`` or ``"1,2,3"``.

    >>> parse_ids("[9707, 1879,11]"), parse_ids("")
    ([9707, 1879, 11], [])
    """
    body = text.strip().removeprefix("[").removesuffix("]")
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    bad = [p for p in parts if not re.fullmatch(r"-?\d+", p)]
    if bad:
        raise ValueError(f"not an id: {bad[0]!r}")
    return [int(p) for p in parts]


def _piece(tok, tid: int) -> str:
    """A token's piece as ``llama-tokenize`` shows it (special tokens written out, cut at a NUL), or a note
    for an id outside the vocabulary."""
    if not 0 <= tid < tok.n_vocab:
        return f"(no token {tid})"
    return tok.token_to_piece(tid, special=True).split(b"\0")[0].decode("utf-8", "replace")


# ------------------------------------------------------------------------------------ llama-tokenize lines
def tokenize_lines(tok, text: str | bytes, add_special: bool | None = None, parse_special: bool = True,
                   show: Sequence[int] | None = None) -> Rendered:
    """``text`` encoded as ``llama-tokenize`` (and ``gguftok tokenize``) encode it by default, BOS only if the
    vocabulary asks for it, special tokens parsed, and printed as they print it: ``{id:6d} -> '{piece}'``.
    The text form keeps the pieces raw, like the tools; the HTML form shows whitespace as glyphs. With
    ``show`` (line indices), the HTML shows those lines and the whole listing behind a toggle."""
    add = tok.add_bos if add_special is None else add_special
    ids = tok.encode(text, add_special=add, parse_special=parse_special)
    pieces = [_piece(tok, i) for i in ids]
    lines = [f"{i:6d} -> '{p}'" for i, p in zip(ids, pieces, strict=True)]
    divs = [f"<div style='{_MONO};white-space:pre'>{i:6d} -&gt; '"
            f"<span style='background:{_OK[1]};color:{TEXT};border:1px solid {_OK[0]}'>"
            f"{html.escape(escape_visible(p))}</span>'</div>" for i, p in zip(ids, pieces, strict=True)]
    rows = "".join(divs)
    if show is not None:
        picked = list(show)
        rows = (f"<div style='font-style:italic'>lines {picked[0] + 1} to {picked[-1] + 1} of {len(divs)}:</div>"
                + "".join(divs[k] for k in picked) + folded(f"all {len(divs)} lines", rows))
    ids_line = "[" + ", ".join(map(str, ids)) + "]"
    return Rendered(f"<div>{rows}<div style='{_MONO};margin-top:2px'>{html.escape(ids_line)}</div></div>",
                    "\n".join(lines) + "\n" + ids_line)


# ---------------------------------------------------------------------------------------- case pass table
@dataclass(frozen=True)
class CaseRow:
    """One vocabulary's result on llama.cpp's ``.inp``/``.out`` cases: ``total`` is ``None`` without cases."""

    name: str
    passed: int
    total: int | None
    first_failure: str = ""


def case_rows(folder=None) -> list[CaseRow]:
    """:func:`gguftok.conformance.cases.run_cases` for every ``ggml-vocab-*.gguf`` in ``folder``."""
    from ..conformance.cases import run_cases
    from ..data import vocab_dir
    from ..tokenizer import Tokenizer

    rows = []
    for path in sorted(Path(folder or vocab_dir()).glob("ggml-vocab-*.gguf")):
        name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
        results = run_cases(Tokenizer.from_gguf(path), path)
        if results is None:
            rows.append(CaseRow(name, 0, None))
            continue
        bad = next((r for r in results if not r.ok), None)
        note = "" if bad is None else escape_visible(bad.text.decode("utf-8", "replace"))[:40]
        rows.append(CaseRow(name, sum(r.ok for r in results), len(results), note))
    return rows


def case_table(rows: Sequence[CaseRow], keep: Sequence[str] | None = None) -> Rendered:
    """The pass table: one line per vocabulary, then the totals over the vocabularies that have cases. With
    ``keep`` (vocabulary names), the HTML shows those rows and the totals, and the whole table behind a
    toggle."""
    with_cases = [r for r in rows if r.total is not None]
    passed = sum(r.passed for r in with_cases)
    total = sum(r.total or 0 for r in with_cases)
    head = f"{len(with_cases)} of {len(rows)} vocabularies have cases: {passed}/{total} passed"
    lines = [head, f"{'vocabulary':<16s} {'passed':>7s}  result"]
    trs, names = [], [r.name for r in rows]
    for r in rows:
        if r.total is None:
            verdict, colour, shown = "no .inp/.out", _LATER, "-"
        elif r.passed == r.total:
            verdict, colour, shown = "PASS", _OK, f"{r.passed}/{r.total}"
        else:
            verdict, colour, shown = f"FAIL (first: {r.first_failure})", _BAD, f"{r.passed}/{r.total}"
        lines.append(f"{r.name:<16s} {shown:>7s}  {verdict}")
        trs.append(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(r.name)}</td>"
                   f"<td style='padding:0 6px;text-align:right;{_MONO}'>{shown}</td><td style='padding:0 6px'>"
                   f"<span style='padding:0 4px;border:1px solid {colour[0]};background:{colour[1]};color:{TEXT}'>"
                   f"{html.escape(verdict)}</span></td></tr>")
    lines.append(f"{'total':<16s} {f'{passed}/{total}':>7s}")
    trs.append(f"<tr><td style='padding:0 6px;font-weight:bold'>total</td><td style='padding:0 6px;"
               f"text-align:right;{_MONO};font-weight:bold'>{passed}/{total}</td><td></td></tr>")
    def table(picked: Sequence[str]) -> str:
        return "<table><tr><th>vocabulary</th><th>passed</th><th>result</th></tr>" + "".join(picked) + "</table>"

    shown = table(trs)
    if keep is not None:
        shown = table([trs[names.index(n)] for n in keep] + trs[-1:]) + folded(f"all {len(rows)} vocabularies",
                                                                               table(trs))
    return Rendered(f"<div>{html.escape(head)}</div>{shown}", "\n".join(lines))


# ------------------------------------------------------------------------------------------ golden fixtures
def _family(name: str) -> str:
    if name.startswith("pre-"):
        return "pre-* (a real vocabulary relabelled with each pre-tokenizer name)"
    if name.startswith("synthetic-"):
        return "synthetic-* (built vocabularies for the other tokenizer types)"
    return name


def fixture_summary(fixtures: Iterable, keep: Sequence[str] | None = None) -> Rendered:
    """Counts per fixture: encode cases (each answered under four flag pairs), decode cases, and how many of
    those answers were a llama.cpp crash. The 19 vocabularies one by one, relabelled and synthetic ones
    grouped. With ``keep`` (fixture names, ``pre-*`` and ``synthetic-*`` for the groups), the HTML shows those
    rows and the whole table behind a toggle."""
    groups: dict[str, list[int]] = {}
    for fx in fixtures:
        g = groups.setdefault(_family(fx.name), [0, 0, 0, 0])
        g[0] += 1
        g[1] += len(fx.encode)
        g[2] += len(fx.decode)
        g[3] += int(fx.header.get("crashes", 0))
    tot = [sum(g[k] for g in groups.values()) for k in range(4)]
    head = f"{tot[0]} fixtures: {tot[1]} encode cases x 4 flag pairs, {tot[2]} decode cases x 4, {tot[3]} crashes"
    lines = [head, f"{'fixture':<18s} {'files':>5s} {'encode':>7s} {'decode':>7s} {'crashes':>7s}"]
    trs, shorts = [], []
    for name, (n, e, d, c) in groups.items():
        short = name.split(" ")[0]
        shorts.append(short)
        lines.append(f"{short:<18s} {n:>5d} {e:>7d} {d:>7d} {c:>7d}")
        trs.append(f"<tr><td style='padding:0 6px;{_MONO}' title='{html.escape(name, quote=True)}'>"
                   f"{html.escape(short)}</td>" + "".join(f"<td style='padding:0 6px;text-align:right'>{v}</td>"
                                                          for v in (n, e, d, c)) + "</tr>")
    def table(picked: Sequence[str]) -> str:
        return ("<table><tr><th>fixture</th><th>files</th><th>encode cases</th><th>decode cases</th>"
                "<th>llama.cpp crashes</th></tr>" + "".join(picked) + "</table>")

    shown = table(trs)
    if keep is not None:
        shown = table([trs[shorts.index(n)] for n in keep]) + folded(f"all {len(trs)} rows", table(trs))
    return Rendered(f"<div>{html.escape(head)}</div>{shown}", "\n".join(lines))


def spot_check(tok, fixture, indices: Sequence[int]) -> Rendered:
    """Chosen encode cases of a golden fixture re-run through ``tok`` under the four ``(add_special,
    parse_special)`` pairs; each answer compared with llama.cpp's recorded one (a crash must meet an error)."""
    from ..conformance.golden import ENCODE_FLAGS, agree, ours
    from ..conformance.oracle import Crash

    lines, trs, agreed, n = [f"{fixture.name}: encode cases {list(indices)}"], [], 0, 0
    for k in indices:
        case = fixture.encode[k]
        text = case.text if isinstance(case.text, str) else case.text.decode("utf-8", "replace")
        shown = escape_visible(text)
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        marks = []
        for (add, parse), ref in zip(ENCODE_FLAGS, case.answers, strict=True):
            got = ours(tok.encode, case.text, add_special=add, parse_special=parse)
            ok = agree(ref, got)
            agreed, n = agreed + ok, n + 1
            what = "crash" if isinstance(ref, Crash) else f"{len(ref)} ids"
            marks.append((f"{'T' if add else 'F'}{'T' if parse else 'F'}", ok, what))
        lines.append(f"#{k:<4d} {shown:<40s} " + " ".join(f"{f}:{'same' if ok else 'DIFF'}({w})"
                                                           for f, ok, w in marks))
        cells = "".join(f"<td style='padding:0 4px'><span style='padding:0 3px;border:1px solid "
                        f"{(_OK if ok else _BAD)[0]};background:{(_OK if ok else _BAD)[1]};color:{TEXT}'>"
                        f"{'same' if ok else 'DIFF'} · {html.escape(w)}</span></td>" for f, ok, w in marks)
        trs.append(f"<tr><td style='padding:0 4px'>{k}</td><td style='padding:0 4px;{_MONO};white-space:pre'>"
                   f"{html.escape(shown)}</td>{cells}</tr>")
    lines.append(f"{agreed}/{n} answers agree")
    table = ("<table><tr><th>#</th><th>text</th>" + "".join(
        f"<th>add_special={a}<br>parse_special={p}</th>" for a, p in ENCODE_FLAGS) + "</tr>" + "".join(trs)
        + "</table>")
    return Rendered(f"<div>{html.escape(lines[0])}</div>{table}<div>{agreed}/{n} answers agree</div>",
                    "\n".join(lines))


# ------------------------------------------------------------------------------------- id list comparison
def compare_ids(tok, candidate: Sequence[int], reference: Sequence[int], labels: tuple[str, str] = (
        "your ids", "llama.cpp / gguftok"), context: int = 3) -> Rendered:
    """Two id lists side by side, position by position, with pieces; the first position where they differ is
    framed, coloured and labelled. Shows ``context`` positions before it and after it (all if they agree)."""
    candidate, reference = list(candidate), list(reference)
    at = first_difference(candidate, reference)
    n = max(len(candidate), len(reference))
    if at is None:
        head = f"identical: {len(reference)} tokens"
        keep = range(n)
    else:
        head = (f"first difference at index {at} ({labels[0]}: {len(candidate)} tokens, "
                f"{labels[1]}: {len(reference)} tokens)")
        keep = range(max(0, at - context), min(n, at + context + 1))
    lines = [head, f"{'#':>4s}  {labels[0]:<28s} {labels[1]:<28s}"]
    trs = []

    def cell(ids: list[int], k: int) -> str:
        if k >= len(ids):
            return "(none)"
        if not 0 <= ids[k] < tok.n_vocab:
            return f"{ids[k]} (no such token)"
        return f"{ids[k]} '{escape_visible(_piece(tok, ids[k]))}'"

    if keep and keep[0] > 0:
        lines.append(f"{'...':>4s}  ({keep[0]} identical before)")
        trs.append(f"<tr><td colspan='4' style='padding:0 6px'>... ({keep[0]} identical before)</td></tr>")
    for k in keep:
        a, b = cell(candidate, k), cell(reference, k)
        if at is None or k < at:
            colour, border, mark, note = _OK, "1px solid", "", "same"
        elif k == at:
            colour, border, mark, note = _BAD, "3px solid", "  <<< first difference", "FIRST DIFFERENCE"
        else:
            colour, border, mark, note = _LATER, "1px dashed", "", "after"
        lines.append(f"{k:>4d}  {a:<28s} {b:<28s}{mark}")
        style = (f"padding:0 4px;{_MONO};white-space:pre;border:{border} {colour[0]};background:{colour[1]};"
                 f"color:{TEXT}")
        label = (f"<span style='font-weight:bold;font-size:80%;color:{TEXT};background:{_BAD[1]};"
                 f"border:1px solid {_BAD[0]};padding:0 3px'>{note}</span>" if k == at
                 else f"<span style='font-size:80%'>{note}</span>")
        trs.append(f"<tr><td style='padding:0 4px;text-align:right'>{k}</td><td style='{style}'>"
                   f"{html.escape(a)}</td><td style='{style}'>{html.escape(b)}</td><td style='padding:0 4px'>"
                   f"{label}</td></tr>")
    if keep and keep[-1] < n - 1:
        lines.append(f"{'...':>4s}  ({n - 1 - keep[-1]} more positions)")
        trs.append(f"<tr><td colspan='4' style='padding:0 6px'>... ({n - 1 - keep[-1]} more positions)</td></tr>")
    table = (f"<table><tr><th>#</th><th>{html.escape(labels[0])}</th><th>{html.escape(labels[1])}</th>"
             f"<th></th></tr>" + "".join(trs) + "</table>")
    return Rendered(f"<div style='font-weight:bold'>{html.escape(head)}</div>{table}", "\n".join(lines))


def conformance_view(tok, text: str, candidate: Sequence[int] | str, add_special: bool | None = None,
                     parse_special: bool = True) -> Rendered:
    """``candidate`` ids (a list, or a string for :func:`parse_ids`) checked against gguftok's ids for
    ``text`` with ``llama-tokenize``'s defaults (BOS if the vocabulary adds it, special tokens parsed)."""
    ids = parse_ids(candidate) if isinstance(candidate, str) else list(candidate)
    add = tok.add_bos if add_special is None else add_special
    reference = tok.encode(text, add_special=add, parse_special=parse_special)
    return compare_ids(tok, ids, reference)


def conformance_playground(folder=None, text: str = "Hello world, it's 2026!", ids: str = "",
                           vocab: str = "qwen2"):
    """A vocabulary, a text and an id list (typed or pasted) over :func:`conformance_view`. An empty id box is
    filled with the reference ids. Tokenizers load on first use."""
    import ipywidgets as W

    from .widgets import vocab_playground

    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="4em"))
    id_box = W.Textarea(value=ids, description="ids", layout=W.Layout(width="95%", height="4em"))

    def render(tok, _, t, typed):
        if not typed.strip():
            id_box.value = str(tok.encode(t, add_special=tok.add_bos, parse_special=True))
            return None  # setting the box renders again
        return conformance_view(tok, t, typed).html

    choice, out = vocab_playground(render, [box, id_box], folder=folder, vocab=vocab)
    return W.VBox([choice, box, id_box, out])


# ------------------------------------------------------------------------------------------------ figure
def tokens_per_character(toks: Mapping[str, object], texts: Sequence[str]) -> dict[str, list[float]]:
    """``{vocabulary: [tokens per character of each text]}``, encoded without BOS and without special parsing
    (so only the text itself is counted)."""
    return {name: [len(tok.encode(t, add_special=False, parse_special=False)) / len(t) for t in texts]
            for name, tok in toks.items()}


def density_table(data: Mapping[str, Sequence[float]], text_labels: Sequence[str],
                  sizes: Mapping[str, int] | None = None, keep: Sequence[str] | None = None) -> Rendered:
    """:func:`tokens_per_character` as a table with headers: one row per vocabulary (with its number of tokens
    when ``sizes`` is given), one column per text. With ``keep``, the HTML shows those rows and the whole table
    behind a toggle; the text form has every row."""
    heads = ["vocabulary", *(["tokens in vocabulary"] if sizes else []), *text_labels]
    rows = [[name, *([f"{sizes[name]:,}"] if sizes else []), *(f"{v:.2f}" for v in values)]
            for name, values in data.items()]
    widths = [max(len(r[k]) for r in [heads, *rows]) for k in range(len(heads))]
    lines = ["  ".join(f"{c:<{w}s}" if k == 0 else f"{c:>{w}s}" for k, (c, w) in enumerate(zip(r, widths,
                                                                                                 strict=True)))
             for r in [heads, *rows]]
    trs = ["<tr>" + "".join(f"<td style='padding:0 8px;{_MONO}" + (";text-align:right" if k else "") + f"'>"
                            f"{html.escape(c)}</td>" for k, c in enumerate(r)) + "</tr>" for r in rows]
    names = list(data)

    def table(picked: Sequence[str]) -> str:
        return ("<table><tr>" + "".join(f"<th style='padding:0 8px'>{html.escape(h)}</th>" for h in heads)
                + "</tr>" + "".join(picked) + "</table>")

    shown = table(trs)
    if keep is not None:
        shown = table([trs[names.index(n)] for n in keep]) + folded(f"all {len(trs)} vocabularies", table(trs))
    return Rendered(shown, "\n".join(lines))


def tokens_per_character_figure(data: Mapping[str, Sequence[float]], text_labels: Sequence[str]):
    """Grouped horizontal bars: for each vocabulary, tokens per character of each text (lower is denser).
    The texts differ in colour, hatching and legend label."""
    import matplotlib.pyplot as plt

    names = list(data)
    k = len(text_labels)
    height = 0.8 / k
    hatches = ["", "//", "..", "xx", "\\\\"]
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(names) + 1.4))
    for j, label in enumerate(text_labels):
        border, fill = PALETTE[(j * 2) % len(PALETTE)]
        ys = [i + (j - (k - 1) / 2) * height for i in range(len(names))]
        ax.barh(ys, [data[n][j] for n in names], height=height, color=fill, edgecolor=border, hatch=hatches[j],
                label=label)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("tokens per character (without BOS)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=k, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
