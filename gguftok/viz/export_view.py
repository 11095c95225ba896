"""Views of an export (:mod:`gguftok.export`): the five stages of the Hugging Face pipeline, filled in from
llama.cpp's rules, and three engines side by side on the texts where two of them part.

Pure functions returning :class:`~gguftok.viz.render.Rendered`; nothing here imports ``tokenizers`` itself (the
pipeline passed in does).

>>> from gguftok import Tokenizer
>>> from gguftok.export import to_tokenizers
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> print(pipeline_view(to_tokenizers(tok)).text.splitlines()[2])
normalizer      (none)
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from .render import PALETTE, TEXT, Rendered, escape_visible

# stage -> where a student of this workbook built it
LESSONS = {"normalizer": "11 (SentencePiece's ▁ and space prefix)", "pre_tokenizer": "04 (the pre-type's regexes)",
           "model": "03 and 05 (ranks, the merge queue); 11 (other families)", "post_processor": "07 (BOS and EOS)",
           "decoder": "02 and 08 (pieces back to bytes)", "added_tokens": "06 (the special-token partition)"}
STAGES = ("added_tokens", "normalizer", "pre_tokenizer", "model", "post_processor", "decoder")


def _describe(part: Any) -> str:
    """A one-line account of one stage of a ``tokenizer.json``."""
    if part is None:
        return "(none)"
    kind = part.get("type", "")
    if kind == "Sequence":
        inner = part.get("normalizers") or part.get("pretokenizers") or part.get("decoders") or \
            part.get("processors") or []
        names = [p.get("type", "?") for p in inner]
        squeezed: list[str] = []
        for n in names:  # a run of one kind of step is counted, not listed
            if squeezed and squeezed[-1].split(" ×")[0] == n:
                base, _, k = squeezed[-1].partition(" ×")
                squeezed[-1] = f"{base} ×{int(k or 1) + 1}"
            else:
                squeezed.append(n)
        return " → ".join(squeezed)
    if kind in ("BPE", "WordPiece", "Unigram"):
        vocab = part.get("vocab") or []
        extra = [f"{len(vocab):,} tokens"]
        if kind == "BPE":
            extra.append(f"{len(part.get('merges') or []):,} merges")
            extra += [k for k in ("ignore_merges", "byte_fallback") if part.get(k)]
        return f"{kind}: " + ", ".join(extra)
    if kind == "TemplateProcessing":
        return "TemplateProcessing: " + " ".join(
            ("$" if "Sequence" in p else "") + next(iter(p.values()))["id"] for p in part.get("single", []))
    return kind or "?"


def pipeline_view(hf: Any) -> Rendered:
    """The stages of an exported ``tokenizers.Tokenizer``, each with what it holds and the lesson it comes from."""
    data = json.loads(hf.to_str())
    rows = []
    for stage in STAGES:
        if stage == "added_tokens":
            added = data.get("added_tokens") or []
            special = sum(1 for t in added if t.get("special"))
            what = f"{len(added):,} texts cut out first ({special:,} special: only with parse_special)"
        else:
            what = _describe(data.get(stage))
        rows.append((stage, what, LESSONS[stage]))
    cells = "".join(
        f'<tr><td style="padding:2px 8px;font-family:monospace">{html.escape(s)}</td>'
        f'<td style="padding:2px 8px">{html.escape(w)}</td><td style="padding:2px 8px">{html.escape(lesson)}</td></tr>'
        for s, w, lesson in rows)
    head = ('<tr><th style="text-align:left;padding:2px 8px">stage</th><th style="text-align:left;padding:2px 8px">'
            'what it holds</th><th style="text-align:left;padding:2px 8px">you built it in</th></tr>')
    page = f'<table style="border-collapse:collapse">{head}{cells}</table>'
    text = "\n".join([f"{'stage':15s} what it holds"] + [f"{s:15s} {w}" for s, w, _ in rows])
    return Rendered(page, text)


def _mark(ok: bool) -> tuple[str, str]:
    """A verdict as a word and a symbol, with a border colour (never the colour alone)."""
    border, fill = PALETTE[2] if ok else PALETTE[5]
    word = "✓ same" if ok else "✗ differs"
    return (f'<span style="border:1px solid {border};background:{fill};color:{TEXT};padding:0 4px;'
            f'border-radius:3px">{word}</span>', word)


def agreement_view(rows: Sequence[tuple[str, str, list[int], list[int] | str, list[int]]]) -> Rendered:
    """``rows`` of ``(vocabulary, text, llama.cpp's ids, the other engine's ids or why it has none, the
    export's ids)``: each engine's ids against llama.cpp's, with the ids where they differ."""
    out_html, out_text = [], [f"{'vocabulary':15s} {'text':22s} {'transformers':14s} export"]
    for vocab, text, want, other, export in rows:
        cells = []
        texts = []
        for got in (other, export):
            if isinstance(got, str):
                cells.append(f"<td style=\"padding:2px 8px\">{html.escape(got)}</td>")
                texts.append(got)
                continue
            mark_html, mark_text = _mark(got == want)
            ids = "" if got == want else f' <span style="font-family:monospace">{html.escape(str(got))}</span>'
            cells.append(f'<td style="padding:2px 8px">{mark_html}{ids}</td>')
            texts.append(mark_text)
        out_html.append(f'<tr><td style="padding:2px 8px">{html.escape(vocab)}</td>'
                        f'<td style="padding:2px 8px;font-family:monospace">{escape_visible(text)}</td>'
                        f'<td style="padding:2px 8px;font-family:monospace">{html.escape(str(want))}</td>'
                        + "".join(cells) + "</tr>")
        out_text.append(f"{vocab:15s} {text!r:22s} {texts[0]:14s} {texts[1]}")
    head = "".join(f'<th style="text-align:left;padding:2px 8px">{h}</th>'
                   for h in ("vocabulary", "text", "llama.cpp's ids", "transformers' conversion", "the export"))
    return Rendered(f'<table style="border-collapse:collapse"><tr>{head}</tr>{"".join(out_html)}</table>',
                    "\n".join(out_text))
