"""The capstone's scoreboard: which parts of the student's tokenizer are theirs, how it scores on each vocabulary
against llama.cpp, and the first mismatch, whole.

Pure renderers (HTML with inline styles + plain text); :func:`scoreboard_widget` wraps them with a button that
reads the student's package again and re-grades it.

>>> from gguftok.exercises.capstone import Part
>>> print(parts_table([Part("bytemap", ("bytes_to_unicode", "decode_token"), ("decode_token",))]).text)
lesson  stage             status                   written by you
02      mytok/bytemap.py  ◐ partly yours (1 of 2)  decode_token
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..exercises.capstone import FUZZ, ROUND_TRIP, Grade, Mismatch, Part, VocabGrade
from .render import PALETTE, TEXT, Rendered, escape_visible

_OK, _BAD, _REF = PALETTE[2], PALETTE[5], PALETTE[7]
_CELL = "border:1px solid #999999;padding:2px 6px;text-align:left;font-family:monospace"
_MARK = {"yours": "● yours", "partly yours": "◐ partly yours", "reference": "○ reference (not written yet)"}


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], tints: Sequence[tuple[str, str] | None],
           caption: str) -> Rendered:
    head = "".join(f'<th style="{_CELL}">{_e(h)}</th>' for h in header)
    body = ""
    for row, tint in zip(rows, tints, strict=True):
        style = f"background:{tint[1]};color:{TEXT};" if tint else ""
        body += "<tr>" + "".join(f'<td style="{style}{_CELL}">{_e(c)}</td>' for c in row) + "</tr>"
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in [header, *rows]]
    return Rendered(f'<table style="border-collapse:collapse;color:inherit;margin:4px 0">'
                    f'<caption style="color:inherit;text-align:left;font-weight:bold">{_e(caption)}</caption>'
                    f"<tr>{head}</tr>{body}</table>", "\n".join(lines))


def parts_table(parts: Sequence[Part]) -> Rendered:
    """One row per stage: yours, partly yours, or the reference's (and which functions are yours)."""
    rows, tints = [], []
    for p in parts:
        status = _MARK[p.status] + (f" ({len(p.mine)} of {len(p.names)})" if p.status == "partly yours" else "")
        rows.append([f"{p.lesson:02d}", f"mytok/{p.stage}.py", status, ", ".join(p.mine) or "-"])
        tints.append(_OK if p.status == "yours" else _REF if p.status == "reference" else PALETTE[3])
    table = _table(["lesson", "stage", "status", "written by you"], rows, tints, "")
    return Rendered(table.html.replace("<caption", "<caption hidden", 1), table.text)


def _frac(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}" if pair[1] else "-"


def grade_table(vocabs: Sequence[VocabGrade]) -> Rendered:
    """One row per vocabulary: llama.cpp's own cases, the fuzz and the round trip, passed of total."""
    rows, tints = [], []
    for v in vocabs:
        verdict = ("✗ cannot load" if v.error else "✓ all agree" if v.ok else
                   "✗ first mismatch: " + ", ".join(v.first))
        rows.append([v.name, v.family, _frac(v.cases), _frac(v.fuzz), _frac(v.round_trip), verdict])
        tints.append(_OK if v.ok else _BAD)
    return _table(["vocabulary", "family", "llama.cpp's cases", "fuzz vs gguftok", "round trip", "verdict"],
                  rows, tints, "")


def _first_index(a: object, b: object) -> str:
    if isinstance(a, list) and isinstance(b, list):
        k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        return f"first difference at index {k} (lengths {len(a)} and {len(b)})"
    return ""


def mismatch_view(v: VocabGrade, measure: str | None = None) -> Rendered:
    """The first mismatch of one vocabulary (of ``measure``, default the first that failed), with the call that
    reproduces it."""
    if v.error:
        text = f"{v.name}: GgufTokenizer.from_gguf raised {v.error}"
        return Rendered(f'<div style="{_box(_BAD)}">{_e(text)}</div>', text)
    if not v.first:
        text = f"{v.name}: every case agrees"
        return Rendered(f'<div style="{_box(_OK)}">{_e(text)}</div>', text)
    measure = measure if measure in v.first else next(iter(v.first))
    m: Mismatch = v.first[measure]
    add = "True" if measure == "fuzz" else "False"
    if measure == "round trip":
        call = f"tok.decode(tok.encode({m.text!r}, False, False))"
    else:
        call = f"tok.encode({m.text!r}, {add}, False)"
    lines = [f"{v.name}, {measure}: the first mismatch",
             f"  text:     {escape_visible(m.text)}",
             f"  expected: {m.expected!r}",
             f"  yours:    {m.got!r}"]
    where = _first_index(m.expected, m.got)
    if where:
        lines.append(f"  {where}")
    lines += ["  run it again:",
              f'    tok = GgufTokenizer.from_gguf("../data/vocab/ggml-vocab-{v.name}.gguf")',
              f"    {call}"]
    text = "\n".join(lines)
    body = (f'<div style="{_box(_BAD)}"><div style="font-weight:bold">{_e(lines[0])}</div>'
            f'<div style="font-family:monospace;white-space:pre-wrap">{_e(chr(10).join(x[2:] for x in lines[1:]))}'
            "</div></div>")
    return Rendered(body, text)


def _box(tint: tuple[str, str]) -> str:
    return (f"padding:4px 8px;margin:4px 0;border:2px solid {tint[0]};border-radius:4px;background:{tint[1]};"
            f"color:{TEXT}")


def scoreboard(grade: Grade, with_mismatch: bool = True) -> Rendered:
    """The whole board: the parts, the grade per vocabulary, and (``with_mismatch``) the first mismatch of the
    first failing vocabulary."""
    mine = sum(p.status == "yours" for p in grade.parts)
    passed = sum(v.ok for v in grade.vocabs)
    head = (f"Your tokenizer: {mine} of {len(grade.parts)} stages written by you; "
            f"{passed} of {len(grade.vocabs)} vocabularies agree on every case")
    pieces = [parts_table(grade.parts), grade_table(grade.vocabs)]
    failing = next((v for v in grade.vocabs if not v.ok), None)
    if failing is not None and with_mismatch:
        pieces.append(mismatch_view(failing))
    return Rendered(f'<div style="color:inherit"><div style="font-weight:bold;margin:4px 0">{_e(head)}</div>'
                    + "".join(p.html for p in pieces) + "</div>",
                    "\n\n".join([head, *(p.text for p in pieces)]))


def scoreboard_widget(fuzz: int = FUZZ, round_trip: int = ROUND_TRIP, grade: Grade | None = None):
    """The scoreboard with a button that reads your package again and re-grades it, and a choice of vocabulary
    for the first mismatch."""
    import ipywidgets as w

    from ..exercises.capstone import grade as run_grade

    state = {"grade": grade or run_grade(fuzz=fuzz, round_trip=round_trip)}
    button = w.Button(description="Grade my tokenizer again", button_style="primary",
                      layout=w.Layout(width="auto"))
    names = [v.name for v in state["grade"].vocabs]
    choice = w.ToggleButtons(options=names, value=next((v.name for v in state["grade"].vocabs if not v.ok),
                                                       names[0] if names else None),
                             description="mismatch:", style={"button_width": "auto"})
    board, detail = w.HTML(), w.HTML()

    def show(*_):
        g = state["grade"]
        board.value = scoreboard(g, with_mismatch=False).html
        chosen = next((v for v in g.vocabs if v.name == choice.value), None)
        detail.value = mismatch_view(chosen).html if chosen else ""

    def regrade(_):
        button.disabled, button.description = True, "grading ..."
        try:
            state["grade"] = run_grade(fuzz=fuzz, round_trip=round_trip)
        finally:
            button.disabled, button.description = False, "Grade my tokenizer again"
        show()

    button.on_click(regrade)
    choice.observe(show, names="value")
    show()
    return w.VBox([button, board, choice, detail])


# ------------------------------------------------------------------------------------------- side by side
class YoursShown:
    """The student's tokenizer of one file, as :func:`gguftok.viz.compare_view.side_by_side` shows a row: the ids
    come from the student's ``encode`` (``parse_special`` off); what else the view asks (the family, each id's
    token and bytes, which are the file's, not anyone's code) from gguftok's tokenizer of the same file. Whatever
    the student's code does wrong (it raises, returns something that is not a list of the file's ids) becomes
    a ``ValueError`` the view shows in the row."""

    def __init__(self, cls: type, path, reference) -> None:
        self.reference, self.error = reference, None
        try:
            self.yours = cls.from_gguf(path)
        except Exception as e:  # the student's code
            self.yours, self.error = None, f"GgufTokenizer.from_gguf raised {type(e).__name__}: {e}"

    def encode(self, text: str, add_special: bool = False) -> list[int]:
        if self.yours is None:
            raise ValueError(self.error)
        try:
            ids = self.yours.encode(text, add_special, False)
        except Exception as e:  # the student's code
            raise ValueError(f"your encode raised {type(e).__name__}: {e}") from e
        n = self.reference.n_vocab
        if not isinstance(ids, list) or not all(isinstance(i, int) and 0 <= i < n for i in ids):
            raise ValueError(f"your encode returned {ids!r:.80}, not a list of ids below {n:,}")
        return ids

    def __getattr__(self, name: str):
        return getattr(self.reference, name)


def yours_beside(cls: type, names: Sequence[str], folder=None) -> dict[str, object]:
    """For each vocabulary of ``names``: gguftok's tokenizer, then the student's ``cls`` on the same file, as the
    rows of :func:`~gguftok.viz.compare_view.side_by_side` (``"qwen2 · gguftok"``, ``"qwen2 · yours"``)."""
    from pathlib import Path

    from ..data import vocab_dir
    from ..tokenizer import Tokenizer

    rows: dict[str, object] = {}
    for name in names:
        path = Path(folder or vocab_dir()) / f"ggml-vocab-{name}.gguf"
        reference = Tokenizer.from_gguf(path)
        rows[f"{name} · gguftok"] = reference
        rows[f"{name} · yours"] = YoursShown(cls, path, reference)
    return rows
