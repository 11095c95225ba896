"""Views of a vocabulary: its metadata keys, and one page of its tokens at a time (never the whole list)."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..vocab import ATTR_NAMES
from .render import PALETTE, TEXT, Rendered, escape_visible

TYPE_NAMES = {0: "undefined", 1: "normal", 2: "unknown", 3: "control", 4: "user-defined", 5: "unused", 6: "byte"}
_TYPE_COLOUR = {"normal": 7, "control": 5, "user-defined": 2, "byte": 1, "unknown": 0, "unused": 6, "undefined": 3}


def _short(value: Any, width: int = 60) -> str:
    if isinstance(value, str):
        s = repr(value)
    elif isinstance(value, list):
        s = f"[{len(value)} strings] " + ", ".join(repr(v) for v in value[:4]) + (" ..." if len(value) > 4 else "")
    elif hasattr(value, "dtype"):
        s = f"[{len(value)} x {value.dtype}] " + ", ".join(map(str, value[:6].tolist())) + (
            " ..." if len(value) > 6 else "")
    else:
        s = repr(value)
    return s if len(s) <= width else s[: width - 3] + "..."


def metadata_table(md: Mapping[str, Any], prefix: str = "tokenizer.") -> Rendered:
    """Every key under ``prefix`` with its GGUF type and a short view of its value."""
    rows = [(k, md.type_name(k), _short(v)) for k, v in md.items() if k.startswith(prefix)]
    widths = [max(len(r[i]) for r in rows) for i in range(2)] if rows else [0, 0]
    text = "\n".join(f"{k:{widths[0]}s}  {t:{widths[1]}s}  {v}" for k, t, v in rows)
    cells = "".join(f"<tr><td style='padding:0 8px;font-family:monospace'>{html.escape(k)}</td>"
                    f"<td style='padding:0 8px'>{html.escape(t)}</td>"
                    f"<td style='padding:0 8px;font-family:monospace'>{html.escape(v)}</td></tr>" for k, t, v in rows)
    return Rendered(f"<table><tr><th>key</th><th>type</th><th>value</th></tr>{cells}</table>", text)


def type_counts(types) -> Counter:
    """How many tokens of each GGUF token type (by name)."""
    return Counter(TYPE_NAMES.get(int(t), "undefined") for t in types)


def token_types_by_vocabulary(folder=None) -> dict[str, Counter]:
    """``{vocabulary name: Counter of GGUF token types}`` for every fetched ``ggml-vocab-*.gguf``."""
    from pathlib import Path

    from ..data import vocab_dir
    from ..metadata import read_metadata

    out = {}
    for path in sorted(Path(folder or vocab_dir()).glob("ggml-vocab-*.gguf")):
        md = read_metadata(path)
        name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
        types = md.get("tokenizer.ggml.token_type")
        out[name] = type_counts(types) if types is not None else Counter(normal=len(md["tokenizer.ggml.tokens"]))
    return out


def format_type_counts(counts: Mapping[str, Counter]) -> str:
    """A plain table of :func:`token_types_by_vocabulary`."""
    kinds = ["normal", "byte", "control", "user-defined", "unknown", "unused", "undefined"]
    kinds = [k for k in kinds if any(c.get(k) for c in counts.values())]
    width = max(map(len, counts))
    lines = [f"{'':{width}s} " + " ".join(f"{k:>12s}" for k in kinds)]
    lines += [f"{name:{width}s} " + " ".join(f"{c.get(k, 0):>12,d}" for k in kinds) for name, c in counts.items()]
    return "\n".join(lines)


def vocab_page(tok, query: str = "", page: int = 0, per_page: int = 25) -> Rendered:
    """One page of tokens whose text (or decoded bytes) contains ``query``: id, text, type, final attributes.

    >>> from gguftok import Tokenizer
    >>> tok = Tokenizer.from_gguf("data/synthetic/tiny-9.gguf")
    >>> print(vocab_page(tok, "ab").text)
    3 tokens match 'ab'; page 1 of 1
         5  ab    normal  normal
         6  Ġab   normal  normal
         7  abc   normal  normal
    """
    v = tok.vocab
    if query:
        ids = [i for i, t in enumerate(v.texts) if query in t
               or query in tok.token_to_piece(i, special=True).decode("utf-8", "replace")]
    else:
        ids = range(v.n_vocab)
    total = len(ids)
    pages = max(1, -(-total // per_page))
    page = min(max(page, 0), pages - 1)
    shown = list(ids[page * per_page:(page + 1) * per_page])
    head = f"{total} tokens match {query!r}; page {page + 1} of {pages}" if query else \
        f"{total} tokens; page {page + 1} of {pages}"
    lines, rows = [head], []
    text_width = max([len(escape_visible(v.texts[i])) for i in shown] + [4])
    for i in shown:
        kind = TYPE_NAMES.get(v.types[i], "undefined")
        attrs = "|".join(name for bit, name in ATTR_NAMES.items() if v.attrs[i] & bit) or "undefined"
        shown_text = escape_visible(v.texts[i])
        lines.append(f"{i:>6d}  {shown_text:{text_width}s}  {kind}  {attrs}")
        border, fill = PALETTE[_TYPE_COLOUR[kind]]
        rows.append(f"<tr><td style='text-align:right;padding:0 6px;font-family:monospace'>{i}</td>"
                    f"<td style='padding:0 6px'><span style='font-family:monospace;white-space:pre;"
                    f"border:1px solid {border};background:{fill};color:{TEXT};padding:0 3px'>"
                    f"{html.escape(shown_text)}</span></td>"
                    f"<td style='padding:0 6px'>{html.escape(kind)}</td>"
                    f"<td style='padding:0 6px'>{html.escape(attrs)}</td></tr>")
    table = ("<table><tr><th>id</th><th>text</th><th>GGUF type</th><th>attributes</th></tr>"
             + "".join(rows) + "</table>")
    return Rendered(f"<div>{html.escape(head)}</div>{table}", "\n".join(lines))
