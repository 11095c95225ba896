"""Views of special tokens: which token texts the partition cuts out of the input, in what order, with what
attributes, and how ``parse_special`` changes the ids. Pure functions returning :class:`Rendered`; the one
widget factory imports ipywidgets inside itself, the figure imports matplotlib inside itself.

A special token is drawn differently from an ordinary one in three ways at once: a thick dashed border, a
label naming its attributes (``control``, ``user-defined``, ``unknown``, plus ``lstrip``/``rstrip``), and the
colour of its kind. The plain-text form writes it as ``⟨id text kind⟩``.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> print(special_chips(tok, tok.encode("<|im_start|>user", parse_special=True)).text)
⟨283 <|im_start|> control⟩ 273:user
"""

from __future__ import annotations

import copy
import html
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..special import partition
from ..vocab import ATTR_NAMES, CONTROL, LSTRIP, NORMAL, RSTRIP, UNKNOWN, USER_DEFINED
from .render import PALETTE, TEXT, Rendered, character_chips, escape_visible, titled_chips
from .vocab import _TYPE_COLOUR, TYPE_NAMES

SPECIAL_BITS = CONTROL | USER_DEFINED | UNKNOWN
_MONO = "font-family:monospace"


# ----------------------------------------------------------------------------------------------- facts
def special_label(attr: int) -> str:
    """The attribute names a special token's chip carries (``normal`` left out: it says nothing here).

    >>> special_label(NORMAL | CONTROL), special_label(CONTROL | USER_DEFINED | RSTRIP)
    ('control', 'control·user-defined·rstrip')
    """
    return "·".join(name for bit, name in ATTR_NAMES.items() if attr & bit and bit != NORMAL) or "normal"


def cut_rule(attr: int) -> str | None:
    """When the partition cuts a token out of text: ``"always"`` (user-defined and nothing else),
    ``"parse_special"`` (control or unknown: only with ``parse_special=True``), or ``None`` (never).

    >>> cut_rule(USER_DEFINED), cut_rule(CONTROL | USER_DEFINED), cut_rule(NORMAL)
    ('always', 'parse_special', None)
    """
    if attr & (CONTROL | UNKNOWN):
        return "parse_special"
    if attr & USER_DEFINED:
        return "always"
    return None


def _kind(attr: int) -> str:
    return "control" if attr & CONTROL else "user-defined" if attr & USER_DEFINED else "unknown"


def _raw_text(tok, tid: int) -> bytes:
    return tok.vocab.texts[tid].encode("utf-8", "surrogateescape")


def _show(data: bytes) -> str:
    return escape_visible(data.decode("utf-8", "replace"))


def _special_chip(tok, tid: int) -> tuple[str, str]:
    """(html, text) of one special token: thick dashed border, a label, its raw text escaped."""
    attr = tok.vocab.attrs[tid]
    label = special_label(attr)
    border, fill = PALETTE[_TYPE_COLOUR[_kind(attr)]]
    shown = _show(tok.token_to_piece(tid, special=True))
    rule = cut_rule(attr)
    when = {"always": "cut from text always", "parse_special": "cut from text only with parse_special=True"}
    title = f"id {tid} · {label} · {when.get(rule, 'not cut')}"
    chip = (f'<span title="{html.escape(title, quote=True)}" style="display:inline-block;margin:1px 2px;'
            f'padding:0 3px;border:2px dashed {border};border-radius:3px;background:{fill};color:{TEXT};'
            f'{_MONO};white-space:pre"><span style="font-size:70%;font-weight:bold;color:{TEXT};'
            f'margin-right:4px">{html.escape(label.upper())}</span>{html.escape(shown)}</span>')
    return chip, f"⟨{tid} {shown} {label}⟩"


def _is_special(tok, tid: int) -> bool:
    return bool(tok.vocab.attrs[tid] & SPECIAL_BITS)


# ------------------------------------------------------------------------------------------------ chips
def special_chips(tok, ids: Sequence[int], title: str = "") -> Rendered:
    """Chips for ``ids``: ordinary tokens as :func:`~gguftok.viz.render.token_chips` draws them (whitespace
    visible, split characters framed together), special tokens with a dashed border and a label."""
    ids = list(ids)
    html_parts: list[str] = []
    text_parts: list[str] = []
    colour = 0
    k = 0
    while k < len(ids):
        if _is_special(tok, ids[k]):
            h, t = _special_chip(tok, ids[k])
            html_parts.append(h)
            text_parts.append(t)
            k += 1
            continue
        run = []
        while k < len(ids) and not _is_special(tok, ids[k]):
            run.append(ids[k])
            k += 1
        h, t, colour = character_chips(run, [tok.token_to_piece(i, special=True) for i in run], colour)
        html_parts += h
        text_parts += t
    return titled_chips(html_parts, text_parts, title)


def _ids_line(ids: Sequence[int]) -> str:
    return f'<div style="{_MONO};font-size:85%;margin-top:2px">ids {html.escape(str(list(ids)))}</div>'


def compare_parse_special(tok, text: str, add_special: bool = True) -> Rendered:
    """``text`` encoded with ``parse_special=True`` and ``False``, side by side: chips, ids and counts."""
    cols_html, blocks = [], []
    for ps in (True, False):
        ids = tok.encode(text, add_special=add_special, parse_special=ps)
        n_special = sum(_is_special(tok, i) for i in ids)
        head = f"parse_special={ps}: {len(ids)} tokens, {n_special} of them special"
        view = special_chips(tok, ids)
        cols_html.append(f'<div style="flex:1;min-width:0;padding:4px;border:1px solid #888888">'
                         f'<div style="font-weight:bold">{html.escape(head)}</div>{view.html}{_ids_line(ids)}</div>')
        blocks.append(f"{head}\n  {view.text}\n  ids {ids}")
    return Rendered(f'<div style="display:flex;gap:8px">{"".join(cols_html)}</div>', "\n".join(blocks))


# --------------------------------------------------------------------------------------------- partition
def _fragments_view(tok, data: bytes, frags: Sequence, head: str, fold: bool = False) -> Rendered:
    """The fragments one after the other; with ``fold``, a run of the same token id is one entry with its count
    (``×15``), numbered by the range of fragments it stands for."""
    strip, lines = [], [head]
    n = 0
    while n < len(frags):
        f = frags[n]
        if isinstance(f, int):
            run = 1
            while fold and n + run < len(frags) and frags[n + run] == f:
                run += 1
            h, t = _special_chip(tok, f)
            if run > 1:
                strip.append(f'{h}<span style="font-weight:bold;margin-right:4px">×{run}</span>')
                lines.append(f"  {f'{n}-{n + run - 1}':>2s}  id {f:<7d} {t} ×{run}")
            else:
                strip.append(h)
                lines.append(f"  {n:>2d}  id {f:<7d} {t}")
            n += run
            continue
        off, ln = f
        shown = _show(data[off:off + ln])
        strip.append(f'<span title="raw text, offset {off}, length {ln}" style="display:inline-block;'
                     f'margin:1px 2px;padding:0 3px;border:1px dotted #888888;{_MONO};white-space:pre">'
                     f'<span style="font-size:70%;margin-right:4px">({off}, {ln})</span>'
                     f'{html.escape(shown)}</span>')
        lines.append(f"  {n:>2d}  raw {f!s:<7s} {shown}")
        n += 1
    return Rendered(f'<div><div style="font-weight:bold">{html.escape(head)}</div>{"".join(strip)}</div>',
                    "\n".join(lines))


def fragments_view(tok, text: str | bytes, parse_special: bool) -> Rendered:
    """The special-token partition of ``text`` (:meth:`Tokenizer.fragments`): finished token ids, and
    ``(offset, length)`` runs of raw text that still go through the pre-tokenizer and the model."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    frags = tok.fragments(data, parse_special)
    return _fragments_view(tok, data, frags, f"parse_special={parse_special}: {len(frags)} fragments")


def special_order(tok, rows: int = 6, show: Iterable[int] = ()) -> Rendered:
    """``vocab.special_cache``, the order the partition tries special tokens in (longest text first): the
    first ``rows`` entries, and the entries of the ids in ``show`` wherever they are."""
    v = tok.vocab
    cache = v.special_cache
    where = {tid: k for k, tid in enumerate(cache)}
    keep = sorted(set(range(min(rows, len(cache)))) | {where[t] for t in show if t in where})
    head = f"{len(cache)} special tokens, tried in this order (longest text first)"
    lines, trs = [head, f"{'#':>5s}  {'id':>7s}  {'bytes':>5s}  {'text':<24s} attributes / cut from text"], []
    prev = -1
    for k in keep:
        if k > prev + 1:
            lines.append(f"{'...':>5s}  ({k - prev - 1} more)")
            trs.append(f"<tr><td colspan='5' style='padding:0 6px'>... ({k - prev - 1} more)</td></tr>")
        prev = k
        tid = cache[k]
        attr = v.attrs[tid]
        rule = {"always": "always", "parse_special": "only with parse_special=True"}[cut_rule(attr)]
        shown = escape_visible(v.texts[tid])
        label = special_label(attr)
        lines.append(f"{k:>5d}  {tid:>7d}  {len(_raw_text(tok, tid)):>5d}  {shown:<24s} {label} / {rule}")
        chip, _ = _special_chip(tok, tid)
        trs.append(f"<tr><td style='text-align:right;padding:0 6px'>{k}</td>"
                   f"<td style='text-align:right;padding:0 6px;{_MONO}'>{tid}</td>"
                   f"<td style='text-align:right;padding:0 6px'>{len(_raw_text(tok, tid))}</td>"
                   f"<td style='padding:0 6px'>{chip}</td><td style='padding:0 6px'>{html.escape(rule)}</td></tr>")
    if prev < len(cache) - 1:
        lines.append(f"{'...':>5s}  ({len(cache) - 1 - prev} more)")
        trs.append(f"<tr><td colspan='5' style='padding:0 6px'>... ({len(cache) - 1 - prev} more)</td></tr>")
    table = ("<table><tr><th>#</th><th>id</th><th>bytes</th><th>token</th><th>cut from text</th></tr>"
             + "".join(trs) + "</table>")
    return Rendered(f"<div>{html.escape(head)}</div>{table}", "\n".join(lines))


def order_matters(tok, text: str, parse_special: bool = False, fold: bool = True) -> Rendered:
    """The partition of ``text`` with llama.cpp's order (longest first) next to the same partition with the
    order reversed (shortest first), to show what the sort is for; ``fold`` shows a run of one token once, with
    its count."""
    data = text.encode("utf-8")
    v = tok.vocab
    reverse = sorted(v.special_cache, key=lambda i: (len(_raw_text(tok, i)), i))
    real = tok.fragments(data, parse_special)
    wrong = partition(data, reverse, lambda i: _raw_text(tok, i), v.attrs.__getitem__, parse_special)
    a = _fragments_view(tok, data, real, f"longest first (llama.cpp): {len(real)} fragments", fold)
    b = _fragments_view(tok, data, wrong, f"shortest first (not what llama.cpp does): {len(wrong)} fragments", fold)
    return Rendered(f"<div>{a.html}<div style='height:6px'></div>{b.html}</div>", f"{a.text}\n{b.text}")


# ------------------------------------------------------------------------------------------ strip rules
def _without(tok, bit: int):
    """A copy of ``tok`` whose tokens have the attribute ``bit`` switched off (a what-if for teaching; the
    original is untouched)."""
    other = copy.copy(tok)
    other.vocab = copy.copy(tok.vocab)
    other.vocab.attrs = [a & ~bit for a in tok.vocab.attrs]
    return other


def strip_effect(tok, text: str, bit: int, parse_special: bool = True, add_special: bool = False) -> Rendered:
    """What an ``LSTRIP`` or ``RSTRIP`` bit does: the tokens that carry it, then the partition and ids of
    ``text`` as the vocabulary is loaded, and again with the bit switched off."""
    name = ATTR_NAMES[bit]
    v = tok.vocab
    carriers = [i for i in v.special_cache if v.attrs[i] & bit]
    listed = ", ".join(f"{i} {escape_visible(v.texts[i])}" for i in carriers[:4])
    more = f" and {len(carriers) - 4} more" if len(carriers) > 4 else ""
    head = f"{len(carriers)} special tokens carry {name}: {listed}{more}"
    data = text.encode("utf-8")
    blocks_html, blocks_text = [], [head]
    for label, t in ((f"as loaded ({name} on)", tok), (f"{name} switched off (what-if)", _without(tok, bit))):
        frags = t.fragments(data, parse_special)
        ids = t.encode(text, add_special=add_special, parse_special=parse_special)
        fv = _fragments_view(tok, data, frags, f"{label}: {len(frags)} fragments, {len(ids)} tokens")
        chips_view = special_chips(tok, ids)
        blocks_html.append(f'<div style="padding:4px;border:1px solid #888888;margin-top:4px">{fv.html}'
                           f'{chips_view.html}{_ids_line(ids)}</div>')
        blocks_text.append(f"{fv.text}\n  tokens {chips_view.text}\n  ids {ids}")
    return Rendered(f"<div><div>{html.escape(head)}</div>{''.join(blocks_html)}</div>", "\n".join(blocks_text))


# ------------------------------------------------------------------------------------- load-time rewrites
def rewrites_view(tok, include_strip: bool = False) -> Rendered:
    """Tokens whose final attributes differ from what their GGUF ``token_type`` says: llama.cpp's load-time
    rewrites (end-of-generation texts made control, roles found by name, gpt-oss markers, ...)."""
    v = tok.vocab
    mask = ~0 if include_strip else ~(LSTRIP | RSTRIP)
    rows = [i for i in range(v.n_vocab) if (v.attrs[i] & mask) != (v.gguf_attrs[i] & mask)]
    head = f"{len(rows)} tokens change attributes at load time"
    lines = [head] if not rows else [head, f"{'id':>7s}  {'text':<16s} {'file type':<13s} {'final':<24s} eog"]
    trs = []
    for i in rows:
        ftype = TYPE_NAMES.get(v.types[i], "undefined")
        final = "|".join(v.attr_names(i))
        eog = "yes" if i in v.eog else "no"
        shown = escape_visible(v.texts[i])
        lines.append(f"{i:>7d}  {shown:<16s} {ftype:<13s} {final:<24s} {eog}")
        trs.append(f"<tr><td style='text-align:right;padding:0 6px;{_MONO}'>{i}</td>"
                   f"<td style='padding:0 6px;{_MONO};white-space:pre'>{html.escape(shown)}</td>"
                   f"<td style='padding:0 6px'>{html.escape(ftype)}</td><td style='padding:0 6px'>"
                   f"{html.escape(final)}</td><td style='padding:0 6px'>{eog}</td></tr>")
    table = ("<table><tr><th>id</th><th>text</th><th>GGUF type in the file</th><th>final attributes</th>"
             "<th>ends generation</th></tr>" + "".join(trs) + "</table>") if rows else ""
    return Rendered(f"<div>{html.escape(head)}</div>{table}", "\n".join(lines))


def decode_view(tok, ids: Sequence[int]) -> Rendered:
    """``ids`` decoded as plain text and with ``unparse_special=True`` (control tokens written out)."""
    ids = list(ids)
    rows = [("decode(ids)", tok.decode(ids)),
            ("decode(ids, unparse_special=True)", tok.decode(ids, unparse_special=True))]
    width = max(len(r[0]) for r in rows)
    text = f"ids {ids}\n" + "\n".join(f"{call:<{width}s}  {out!r}" for call, out in rows)
    trs = "".join(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(call)}</td><td style='padding:0 6px;"
                  f"{_MONO};white-space:pre'>{html.escape(repr(out))}</td></tr>" for call, out in rows)
    return Rendered(f"<div style='{_MONO}'>ids {html.escape(str(ids))}</div><table>{trs}</table>", text)


# ---------------------------------------------------------------------------------------- prompt injection
def injection_view(tok, before: str, user_text: str, after: str) -> Rendered:
    """A chat prompt built from a trusted template (``before`` + ``after``, parsed for special tokens) around
    untrusted ``user_text``: encoded safely (the user text with ``parse_special=False``) and unsafely (the
    whole string with ``parse_special=True``). Lists the special tokens the model would see in each."""
    safe = (tok.encode(before, add_special=True, parse_special=True)
            + tok.encode(user_text, add_special=False, parse_special=False)
            + tok.encode(after, add_special=False, parse_special=True))
    unsafe = tok.encode(before + user_text + after, add_special=True, parse_special=True)
    blocks_html, blocks_text = [], []
    for label, ids in (("safe: user text encoded with parse_special=False", safe),
                       ("unsafe: the whole prompt encoded with parse_special=True", unsafe)):
        specials = [i for i in ids if _is_special(tok, i)]
        marks = " ".join(escape_visible(tok.vocab.texts[i]) for i in specials)
        head = f"{label}: {len(ids)} tokens, {len(specials)} special"
        view = special_chips(tok, ids)
        blocks_html.append(f'<div style="padding:4px;border:1px solid #888888;margin-top:4px">'
                           f'<div style="font-weight:bold">{html.escape(head)}</div>'
                           f'<div style="{_MONO};white-space:pre-wrap">special tokens: {html.escape(marks)}</div>'
                           f'{view.html}{_ids_line(ids)}</div>')
        blocks_text.append(f"{head}\n  special tokens: {marks}\n  ids {ids}")
    return Rendered(f"<div>{''.join(blocks_html)}</div>", "\n".join(blocks_text))


# ------------------------------------------------------------------------------------------- playground
def playground_view(tok, text: str, parse_special: bool = False, add_special: bool = True) -> Rendered:
    """What the playground widget shows: the partition of ``text``, then its tokens (count and chips)."""
    frag = fragments_view(tok, text, parse_special)
    ids = tok.encode(text, add_special=add_special, parse_special=parse_special)
    view = special_chips(tok, ids, title=f"{len(ids)} tokens")
    return Rendered(f"<div>{frag.html}<div style='height:6px'></div>{view.html}{_ids_line(ids)}</div>",
                    f"{frag.text}\n{view.text}\nids {ids}")


def special_playground(folder=None, text: str = "<|im_start|>user\nHi<|im_end|>\n", vocab: str = "qwen2"):
    """A vocabulary, a text box and a ``parse_special`` switch over :func:`playground_view`. Tokenizers are
    loaded on first use and kept."""
    import ipywidgets as W

    from .widgets import vocab_playground

    box = W.Textarea(value=text, description="text", layout=W.Layout(width="95%", height="5em"))
    toggle = W.Checkbox(value=False, description="parse_special")
    choice, out = vocab_playground(lambda tok, _, t, parse: playground_view(tok, t, parse).html, [box, toggle],
                                   folder=folder, vocab=vocab)
    return W.VBox([W.HBox([choice, toggle]), box, out])


# ----------------------------------------------------------------------------------- across vocabularies
def special_token_stats(folder=None) -> dict[str, list[tuple[int, int, str]]]:
    """``{vocabulary: [(id, text length in bytes, cut rule), ...]}`` for every fetched ``ggml-vocab-*.gguf``
    whose tokenizer loads, in ``special_cache`` order."""
    from ..data import vocab_dir
    from ..tokenizer import Tokenizer

    out = {}
    for path in sorted(Path(folder or vocab_dir()).glob("ggml-vocab-*.gguf")):
        tok = Tokenizer.from_gguf(path)
        name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
        out[name] = [(i, len(_raw_text(tok, i)), cut_rule(tok.vocab.attrs[i])) for i in tok.vocab.special_cache]
    return out


def format_special_stats(stats: Mapping[str, Sequence[tuple[int, int, str]]]) -> str:
    """A plain table of :func:`special_token_stats`: counts by cut rule, and text lengths."""
    width = max(map(len, stats))
    lines = [f"{'':{width}s}  {'always cut':>10s}  {'parse_special':>13s}  {'shortest':>8s}  {'longest':>7s}"]
    for name, rows in stats.items():
        always = sum(r == "always" for _, _, r in rows)
        lengths = [n for _, n, _ in rows]
        lines.append(f"{name:{width}s}  {always:>10d}  {len(rows) - always:>13d}  "
                     f"{min(lengths, default=0):>8d}  {max(lengths, default=0):>7d}")
    return "\n".join(lines)


def special_tokens_figure(stats: Mapping[str, Sequence[tuple[int, int, str]]]):
    """Two panels per vocabulary: how many special tokens are cut always / only with ``parse_special``
    (log scale), and the byte length of every special token's text (the order the partition tries them)."""
    import matplotlib.pyplot as plt

    names = list(stats)
    kinds = (("always", "user-defined: cut always", "s", 2, ".."),
             ("parse_special", "control/unknown: cut with parse_special=True", "o", 5, "//"))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.34 * len(names) + 1.6), sharey=True,
                                      gridspec_kw={"width_ratios": [1, 1.4]})
    for rule, label, marker, colour, hatch in kinds:
        border, fill = PALETTE[colour]
        counts = [sum(r == rule for _, _, r in stats[n]) for n in names]
        xs = [c for c in counts if c]
        ys = [k for k, c in enumerate(counts) if c]
        left.scatter(xs, ys, marker=marker, s=46, color=fill, edgecolors=border, linewidths=1.3, hatch=hatch,
                     label=label)
        for k, name in enumerate(names):
            lengths = sorted({ln for _, ln, r in stats[name] if r == rule})
            offset = -0.17 if rule == "always" else 0.17
            right.scatter(lengths, [k + offset] * len(lengths), marker=marker, s=22, color=fill,
                          edgecolors=border, linewidths=1.0)
    left.set_yticks(range(len(names)), names)
    left.set_xscale("log")
    left.set_xlabel("special tokens (log scale)")
    left.grid(axis="x", alpha=0.3)
    left.invert_yaxis()
    right.set_xlabel("text length in bytes (each distinct length once; tried longest first)")
    right.grid(axis="x", alpha=0.3)
    fig.legend(*left.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
