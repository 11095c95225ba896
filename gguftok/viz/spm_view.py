"""SentencePiece's score-ordered merging, step by step, on a real vocabulary (llama-spm, phi-3, baichuan).

The steps come from :func:`gguftok.models.spm.spm_trace`, which reads the tokenizer's own tables (its tokens,
their scores, its byte fallback) and gives :meth:`Tokenizer.encode <gguftok.Tokenizer.encode>`'s ids
(``tests/test_spm_trace.py``). Frame 0 is the text as SentencePiece sees it (a ``▁`` for each space, one in
front), cut into characters; each next frame shows every adjacent pair that is a token with its score, the
best one (the highest score, the leftmost on ties) and the symbols after it; the last frame shows the ids, a
character the vocabulary lacks falling back to its bytes' ``<0xXX>`` tokens.

>>> from types import SimpleNamespace
>>> from gguftok.models.spm import SPMModel
>>> texts = ["▁", "a", "b", "▁a", "ab"] + [f"<0x{b:02X}>" for b in range(256)]
>>> toy = SimpleNamespace(model=SPMModel(texts, [0.0, 0.0, 0.0, -1.0, -2.0] + [0.0] * 256),
...                       vocab=SimpleNamespace(add_space_prefix=True, texts=texts))
>>> frames = spm_frames(toy, "ab")
>>> print(frames[1].text)
step 1 of 1: best ▁+a (score -1.00) -> ▁a
candidates: ▁+a -1.00 (best) | a+b -2.00
symbols after: [▁a] [b]
>>> print(frames[-1].text)
done: no two neighbours make a token; 2 symbols -> 2 ids
ids: [▁a]=3 [b]=2
"""

from __future__ import annotations

import html

from ..models.spm import spm_trace
from .render import Rendered, _chip, candidate_chip, escape_visible

SPACE = "\u2581"
_BOX = "border:1px solid #888888;border-radius:4px;padding:6px 8px;margin:2px 0;line-height:1.9"
_LABEL = ('style="display:inline-block;min-width:8em;padding-right:0.5em;font-weight:bold;vertical-align:top;'
          'white-space:nowrap"')
_MONO = "font-family:monospace;white-space:pre"
# the longest text the step-through takes: it rescans every pair after each merge, and a class reads a few words
MAX_BYTES = 400
SPM_VOCABS = ("llama-spm", "phi-3", "baichuan")


def _s(sym: bytes) -> str:
    return escape_visible(sym.decode("utf-8", "replace"))


def sentencepiece_input(tok, text: str) -> bytes:
    """What the SentencePiece session gets for ``text``: the space the vocabulary puts in front
    (``add_space_prefix``), and every space as ``▁``, in UTF-8 (as :meth:`Tokenizer.encode` passes it).

    >>> class T:
    ...     class vocab:
    ...         add_space_prefix = True
    >>> sentencepiece_input(T, "a b").decode()
    '▁a▁b'
    """
    return ((" " if tok.vocab.add_space_prefix else "") + text).replace(" ", SPACE).encode("utf-8")


def _symbols(syms, new_at: int | None) -> tuple[str, str]:
    html_parts, text_parts = [], []
    for k, sym in enumerate(syms):
        shown = _s(sym)
        if k == new_at:
            html_parts.append(_chip(shown, "made by this step's merge", k, ";border-width:2px;font-weight:bold")
                              + '<sup style="margin-right:3px">new</sup>')
        else:
            html_parts.append(_chip(shown, f"symbol {k + 1} of {len(syms)}", k))
        text_parts.append(f"[{shown}]")
    return "".join(html_parts), " ".join(text_parts)


def _candidates(step, top: int) -> tuple[str, str]:
    """The candidate pairs, highest score first (leftmost first on ties), the best one marked."""
    order = sorted(range(len(step.candidates)), key=lambda k: (-step.candidates[k][2], k))
    html_parts, text_parts = [], []
    for k in order[:top]:
        pos, tid, score = step.candidates[k]
        label = f"{_s(step.symbols[pos])}+{_s(step.symbols[pos + 1])} {score:.2f}"
        title = f"token {tid}, score {score}"
        html_parts.append(candidate_chip(label, chosen=k == step.best, note="best", title=title))
        text_parts.append(f"{label} (best)" if k == step.best else label)
    more = len(order) - top
    if more > 0:
        html_parts.append(f'<span style="margin-left:4px">… and {more} more</span>')
        text_parts.append(f"... +{more} more")
    return "".join(html_parts), " | ".join(text_parts)


def _frame(head_html: str, head_text: str, rows) -> Rendered:
    body = "".join(f"<div><span {_LABEL}>{html.escape(name)}</span>{h}</div>" for name, h, _ in rows)
    text = "\n".join([head_text, *(f"{name}: {t}" for name, _, t in rows)])
    return Rendered(f'<div style="{_BOX}"><div>{head_html}</div>{body}</div>', text)


def _ids_parts(tok, syms, ids) -> tuple[str, str, int]:
    """The final symbols with their ids; a symbol that is no token as its bytes' tokens, framed and labelled."""
    html_parts, text_parts, fallback = [], [], 0
    for k, (sym, group) in enumerate(zip(syms, ids, strict=True)):
        shown = _s(sym)
        if sym in tok.model.bytes_to_id:
            html_parts.append(_chip(f"{shown} = {group[0]}", f"token {group[0]}", k))
            text_parts.append(f"[{shown}]={group[0]}")
            continue
        fallback += 1
        texts = [tok.vocab.texts[i] for i in group]
        inner = "".join(_chip(f"{t} = {i}", f"byte 0x{b:02X} of {shown!r}", k) for t, i, b in zip(texts, group, sym,
                                                                                                    strict=True))
        html_parts.append(f'<span style="display:inline-block;border:2px dashed #777777;padding:1px;margin:1px" '
                          f'title="not in the vocabulary: one token per byte">{inner}<span style="margin-left:2px">'
                          f"= {html.escape(shown)} (byte fallback: not in the vocabulary)</span></span>")
        text_parts.append(f"[{shown}]=byte fallback " + " ".join(f"{t}={i}" for t, i in zip(texts, group, strict=True)))
    return "".join(html_parts), " ".join(text_parts), fallback


def spm_frames(tok, text: str, *, top: int = 8) -> list[Rendered]:
    """The start, one frame per merge of :func:`~gguftok.models.spm.spm_trace` (the candidate pairs with their
    scores, the first ``top`` of them, the best, the symbols after), and the ids at the end."""
    data = sentencepiece_input(tok, text)
    if not text:
        msg = "type a word: SentencePiece's merges, best score first, play here"
        return [Rendered(f'<div style="{_BOX}">{html.escape(msg)}</div>', msg)]
    if len(data) > MAX_BYTES:
        raise ValueError(f"the step-through takes up to {MAX_BYTES} bytes of text; this is {len(data)}")
    steps, syms, ids = spm_trace(data, tok.model)
    n = len(steps)
    first = steps[0].symbols if steps else syms
    head = (f"start: {_s(data)} as SentencePiece sees it (a ▁ for each space), {len(first)} symbols, one per "
            f"character; {n} merge{'' if n == 1 else 's'} to come")
    frames = []
    s_html, s_text = _symbols(first, None)
    rows = [("symbols", s_html, s_text)]
    if steps:
        c_html, c_text = _candidates(steps[0], top)
        rows.append(("candidates", c_html, c_text))
    frames.append(_frame(f'<span style="font-weight:bold">{html.escape(head)}</span>', head, rows))
    for k, step in enumerate(steps, 1):
        pos, _, score = step.candidates[step.best]
        a, b = _s(step.symbols[pos]), _s(step.symbols[pos + 1])
        merged = _s(step.merged)
        head = f"step {k} of {n}: best {a}+{b} (score {score:.2f}) -> {merged}"
        c_html, c_text = _candidates(step, top)
        s_html, s_text = _symbols(step.after, pos)
        head_html = (f'<span style="font-weight:bold">step {k} of {n}</span>: best '
                     f'<span style="{_MONO}">{html.escape(a)}+{html.escape(b)}</span> (score {score:.2f}) → '
                     f'<span style="{_MONO};font-weight:bold">{html.escape(merged)}</span>')
        frames.append(_frame(head_html, head, [("candidates", c_html, c_text),
                                               ("symbols after", s_html, s_text)]))
    i_html, i_text, fallback = _ids_parts(tok, syms, ids)
    flat = [i for g in ids for i in g]
    head = (f"done: no two neighbours make a token; {len(syms)} symbols -> {len(flat)} ids"
            + (f", {fallback} by byte fallback" if fallback else ""))
    frames.append(_frame(f'<span style="font-weight:bold">{html.escape(head)}</span>', head,
                         [("ids", i_html, i_text)]))
    return frames


def spm_player(text: str = "Hello wörld 😀", vocab: str = "llama-spm", vocabs=SPM_VOCABS, *, folder=None,
               interval: int = 1200):
    """A text box and a choice of SentencePiece vocabularies over :func:`spm_frames`, played step by step (speed
    control included). Each vocabulary is loaded on first choice and kept."""
    from pathlib import Path

    import ipywidgets as W

    from ..data import vocab_dir
    from ..tokenizer import Tokenizer
    from .widgets import frames_player

    box = W.Text(value=text, description="text", continuous_update=True)
    choice = W.Dropdown(options=list(vocabs), value=vocab, description="vocabulary")
    loaded: dict[str, Tokenizer] = {}

    def frames(typed: str, name: str) -> list[Rendered]:
        if name not in loaded:
            loaded[name] = Tokenizer.from_gguf(Path(folder or vocab_dir()) / f"ggml-vocab-{name}.gguf")
        return spm_frames(loaded[name], typed)

    return frames_player(frames, [box, choice], interval=interval)
