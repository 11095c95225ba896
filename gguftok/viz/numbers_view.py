"""How each vocabulary cuts numbers into tokens: in groups of three digits (Llama 3), one digit a token (Qwen2,
Llama 2), or by whatever merges the training text made (GPT-2). It decides how a model sees arithmetic.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> digit_split(tok, "2026")                   # Qwen2's pre-tokenizer: one digit a word
['2', '0', '2', '6']
>>> print(numbers_view({"toy": tok}, ["42", "3.14"]))
vocabulary  42   3.14
toy         4|2  3|.|1|4
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .render import Rendered, escape_visible, token_chips

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer

SAMPLES = ("7", "42", "2026", "1234567", "3.14159", "1,000,000")
_CELL = "padding:2px 6px;vertical-align:top"
_MONO = "font-family:monospace"


def digit_split(tok: Tokenizer, text: str) -> list[str]:
    """The token pieces of ``text`` (``add_special=False``), as text: ``"2026"`` -> ``["202", "6"]`` in Llama 3.
    A SentencePiece vocabulary's pieces include the ``" "`` it puts in front; a piece that is part of a
    character shows as U+FFFD."""
    return [tok.token_to_piece(i).decode("utf-8", "replace") for i in tok.encode(text, add_special=False)]


def numbers_view(toks: Mapping[str, Tokenizer], samples: Sequence[str] = SAMPLES) -> Rendered:
    """A table, vocabulary by sample: each number's tokens as chips (each chip framed, so the cuts show without
    colour; ids on hover). The plain text writes the pieces with ``|`` between them, spaces as ``␣``."""
    cells = {name: [digit_split(tok, s) for s in samples] for name, tok in toks.items()}
    shown = {name: ["|".join(escape_visible(p) for p in pieces) for pieces in row] for name, row in cells.items()}
    widths = [max([len(s)] + [len(shown[n][k]) for n in shown]) for k, s in enumerate(samples)]
    first = max([len("vocabulary")] + [len(n) for n in toks])
    lines = [f"{'vocabulary':<{first}}  " + "  ".join(f"{s:<{w}}" for s, w in zip(samples, widths, strict=True))]
    trs = []
    for name, tok in toks.items():
        lines.append(f"{name:<{first}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(shown[name], widths, strict=True)))
        tds = "".join(f"<td style='{_CELL}'>{token_chips(tok, tok.encode(s, add_special=False)).html}</td>"
                      for s in samples)
        trs.append(f"<tr><td style='{_CELL};{_MONO}'>{html.escape(name)}</td>{tds}</tr>")
    heads = "".join(f"<th style='{_CELL};{_MONO}'>{html.escape(escape_visible(s))}</th>" for s in samples)
    table = f"<table style='border-collapse:collapse'><tr><th style='{_CELL}'>vocabulary</th>{heads}</tr>"
    return Rendered(table + "".join(trs) + "</table>", "\n".join(line.rstrip() for line in lines))
