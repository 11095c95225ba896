"""Your own text through several vocabularies at once, side by side: the tokens as chips, how many, and how many
per character. Like the tokenizer playgrounds on the web, with llama.cpp's exact ids (gguftok's ids are
llama.cpp's: the conformance tests hold them to it).

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> print(side_by_side({"toy": tok}, "Hello world"))
text: Hello␣world (11 characters)
toy  byte-level BPE  2 tokens  0.18 per character  259:Hello 264:␣world
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .families_view import FAMILY_NAMES, family, short_name, vocab_files
from .render import Rendered, escape_visible, token_chips

if TYPE_CHECKING:
    from pathlib import Path

    import ipywidgets

    from ..tokenizer import Tokenizer

# A few vocabularies of different families, as the widget starts: Llama 3 and Qwen2 (byte-level BPE), Llama 2
# (SentencePiece), Gemma 4 (BPE over ▁-escaped text), BERT (WordPiece).
DEFAULT_VOCABS = ("llama-bpe", "qwen2", "llama-spm", "gemma-4", "bert-bge")
_CELL = "padding:2px 6px;vertical-align:top"
_MONO = "font-family:monospace"


def family_label(tok: Tokenizer) -> str:
    """The family's name for people: Gemma 4 is BPE over ``▁``-escaped text with byte fallback, not byte-level.

    >>> from gguftok import Tokenizer
    >>> family_label(Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf"))
    'byte-level BPE'
    """
    if family(tok) == "bpe" and not tok.model.byte_encode:
        return "BPE (▁ for spaces, byte fallback)"
    return FAMILY_NAMES.get(family(tok), family(tok))


def per_character(count: int, text: str) -> float:
    """Tokens per character (``len(text)`` characters: Python's code points); 0 for an empty text."""
    return count / len(text) if text else 0.0


def side_by_side(toks: Mapping[str, Tokenizer], text: str, add_special: bool = False) -> Rendered:
    """One row per vocabulary: its name, family, token count, tokens per character, and the tokens of ``text``
    as chips (id and bytes on hover; ``id:piece`` in the plain text). A vocabulary that refuses the text (an
    :class:`~gguftok.errors.EncodeError`) says why in its row."""
    head = f"text: {escape_visible(text)} ({len(text)} characters)"
    lines, trs = [head], []
    width = max((len(n) for n in toks), default=0)
    for name, tok in toks.items():
        fam = family_label(tok)
        try:
            ids = tok.encode(text, add_special=add_special)
        except ValueError as e:  # EncodeError: what llama.cpp would abort on
            lines.append(f"{name:<{width}}  {fam}  refused: {e}")
            trs.append(_row(name, fam, "", "", html.escape(f"refused: {e}")))
            continue
        rate = per_character(len(ids), text)
        chipped = token_chips(tok, ids)
        lines.append(f"{name:<{width}}  {fam}  {len(ids)} tokens  {rate:.2f} per character  {chipped.text}".rstrip())
        trs.append(_row(name, fam, str(len(ids)), f"{rate:.2f}", chipped.html))
    table = (f"<table style='border-collapse:collapse'><tr><th style='{_CELL}'>vocabulary</th>"
             f"<th style='{_CELL}'>family</th><th style='{_CELL}'>tokens</th>"
             f"<th style='{_CELL}'>per character</th><th style='{_CELL};text-align:left'>tokens of the text</th></tr>"
             + "".join(trs) + "</table>")
    return Rendered(f"<div><div style='{_MONO};margin-bottom:4px'>{html.escape(head)}</div>{table}</div>",
                    "\n".join(lines))


def _row(name: str, fam: str, count: str, rate: str, chips_html: str) -> str:
    return (f"<tr><td style='{_CELL};{_MONO}'>{html.escape(name)}</td><td style='{_CELL}'>{html.escape(fam)}</td>"
            f"<td style='{_CELL};text-align:right'>{count}</td>"
            f"<td style='{_CELL};text-align:right'>{rate}</td><td style='{_CELL}'>{chips_html}</td></tr>")


def side_by_side_widget(text: str = "Hello world! Tokenizers split 2026 and 日本語 differently 😀",
                        vocabs: Iterable[str] = DEFAULT_VOCABS, folder: str | Path | None = None,
                        add_special: bool = False) -> ipywidgets.VBox:
    """A text box and one checkbox per vocabulary file (19 at most, never a vocabulary's tokens) over
    :func:`side_by_side`; ``vocabs`` (short names) start ticked. A vocabulary is loaded when first ticked."""
    import ipywidgets as W

    from ..tokenizer import Tokenizer

    files = {short_name(p): p for p in vocab_files(folder)}
    wanted = set(vocabs)
    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="4em"))
    ticks = {name: W.Checkbox(value=name in wanted, description=name, indent=False,
                              layout=W.Layout(width="auto", margin="0 12px 0 0")) for name in files}
    out = W.HTML()
    loaded: dict[str, Tokenizer] = {}

    def update(*_: object) -> None:
        chosen = [name for name, tick in ticks.items() if tick.value]
        for name in chosen:
            if name not in loaded:
                loaded[name] = Tokenizer.from_gguf(files[name])
        if not chosen:
            out.value = "<div>Tick a vocabulary to see the text's tokens.</div>"
            return
        out.value = side_by_side({n: loaded[n] for n in chosen}, box.value, add_special).html

    for w in (box, *ticks.values()):
        w.observe(update, names="value")
    update()
    picks = W.HBox(list(ticks.values()), layout=W.Layout(flex_flow="row wrap"))
    return W.VBox([box, picks, out])
