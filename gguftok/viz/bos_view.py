"""Views of BOS, EOS and end of generation: whether a prompt starts with a BOS id (and why), which EOS is
added, and which ids stop generation. Pure functions returning :class:`Rendered`; the widget factory imports
ipywidgets inside itself, the figure imports matplotlib inside itself.

Every fact here is read from a loaded :class:`~gguftok.Tokenizer` (``tok.vocab``), which replays llama.cpp's
load step; nothing is hard-coded per model.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> bos_reason(tok.vocab)[0]
False
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..stdmap_order import iteration_order
from ..vocab import _ROLE_TEXTS, CONTROL, NULL
from .render import PALETTE, TEXT, Rendered, escape_visible, folded
from .special_view import special_chips

_MONO = "font-family:monospace"
# add_bos / add_eos that each vocabulary type starts from before any key is read (llama-vocab.cpp load)
TYPE_DEFAULTS = {"spm": (True, False), "wpm": (True, False), "ugm": (False, True), "bpe": (False, False),
                 "rwkv": (False, False), "plamo2": (False, False), "none": (False, False), "test": (False, False)}


# ----------------------------------------------------------------------------------------------- rules
def bos_reason(vocab) -> tuple[bool, str]:
    """``(add_bos, why)``: the rule that decided ``vocab.add_bos``, the last one that applied winning.

    Order, as llama.cpp loads: the vocabulary type's default; a pre-tokenizer that sets it (``llama-bpe`` and
    the other Llama 3 strings); the key ``tokenizer.ggml.add_bos_token``; finally Gemma 4 forces it on.
    """
    why = f"{vocab.type} default"
    value = TYPE_DEFAULTS.get(vocab.type, (False, False))[0]
    cfg = vocab.pre_config
    if cfg is not None and "add_bos" in cfg.sets:
        value, why = bool(cfg.sets["add_bos"]), f"pre {vocab.pre!r} sets it"
    key = vocab.md.get("tokenizer.ggml.add_bos_token")
    if isinstance(key, bool):
        value, why = key, f"key add_bos_token = {str(key).lower()}"
    if cfg is not None and cfg.type == "GEMMA4" and not value:
        value, why = True, "Gemma 4 forces it on"
    return value, why


def eos_reason(vocab) -> tuple[bool, str]:
    """``(add_eos, why)``: the vocabulary type's default, unless ``tokenizer.ggml.add_eos_token`` says."""
    key = vocab.md.get("tokenizer.ggml.add_eos_token")
    if isinstance(key, bool):
        return key, f"key add_eos_token = {str(key).lower()}"
    return TYPE_DEFAULTS.get(vocab.type, (False, False))[1], f"{vocab.type} default"


def eog_reasons(vocab) -> list[tuple[int, str, str]]:
    """``[(id, text, why), ...]`` for every end-of-generation id, in id order. ``why`` names each role the id
    holds (``eos``, ``eot``, ``eom``, ``fim_pad``...) and ``text list`` when its text alone puts it there."""
    from ..vocab import _EOG_TEXTS

    out = []
    for tid in sorted(vocab.eog):
        roles = [r for r in ("eos", "eot", "eom", "fim_pad", "fim_rep", "fim_sep") if vocab.special[r] == tid]
        if vocab.texts[tid] in _EOG_TEXTS:
            roles.append("text list")
        out.append((tid, vocab.texts[tid], "+".join(roles) or "?"))
    return out


def _text(vocab, tid: int) -> str:
    return escape_visible(vocab.texts[tid]) if 0 <= tid < vocab.n_vocab else "—"


def bos_eos_facts(tok) -> dict[str, Any]:
    """The BOS/EOS/EOG facts of one tokenizer, each id with its (visible) text and each flag with its rule."""
    v = tok.vocab
    add_bos, bos_why = bos_reason(v)
    add_eos, eos_why = eos_reason(v)
    assert add_bos == v.add_bos and add_eos == v.add_eos, "bos_reason/eos_reason disagree with the vocabulary"
    return {"type": v.type, "pre": v.pre, "add_bos": v.add_bos, "bos_why": bos_why, "add_eos": v.add_eos,
            "eos_why": eos_why, "bos": v.special["bos"], "bos_text": _text(v, v.special["bos"]),
            "eos": v.special["eos"], "eos_text": _text(v, v.special["eos"]), "eot": v.special["eot"],
            "eot_text": _text(v, v.special["eot"]),
            "eog": [(i, escape_visible(t), why) for i, t, why in eog_reasons(v)]}


def synthetic_rule_cases() -> list[tuple[str, bool, str, bool, str]]:
    """The add_bos/add_eos rules on tiny vocabularies written here and now (``gguftok.writer``): one per rule,
    ``[(case, add_bos, why, add_eos, why), ...]``."""
    from ..metadata import read_metadata
    from ..tokenizer import Tokenizer
    from ..writer import gguf_bytes

    tokens = ["<s>", "</s>", "a", "b", "ab", "<unk>"]
    base = {"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": ["a b"]}
    cases = [
        ("byte-level BPE, pre qwen2, no key", {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2"}),
        ("byte-level BPE, pre llama-bpe", {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"}),
        ("SentencePiece (model llama)", {"tokenizer.ggml.model": "llama"}),
        ("Unigram (model t5)", {"tokenizer.ggml.model": "t5"}),
        ("pre qwen2 + add_bos_token true", {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2",
                                            "tokenizer.ggml.add_bos_token": True}),
        ("pre llama-bpe + add_bos_token false", {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe",
                                                 "tokenizer.ggml.add_bos_token": False}),
        ("SentencePiece + add_eos_token true", {"tokenizer.ggml.model": "llama",
                                                "tokenizer.ggml.add_eos_token": True}),
        ("model gemma4 + add_bos_token false", {"tokenizer.ggml.model": "gemma4",
                                                "tokenizer.ggml.add_bos_token": False}),
    ]
    out = []
    for label, kv in cases:
        kv = {**base, **kv}
        if kv["tokenizer.ggml.model"] in ("llama", "t5"):
            kv["tokenizer.ggml.scores"] = [0.0] * len(tokens)
            kv["tokenizer.ggml.token_type"] = [3, 3, 1, 1, 1, 2]
        v = Tokenizer(read_metadata(gguf_bytes(kv))).vocab
        out.append((label, *bos_reason(v), *eos_reason(v)))
    return out


def bos_presets() -> list[str]:
    """The ``tokenizer.ggml.pre`` strings whose preset turns BOS on (rule 2), sorted."""
    from ..pretokenize import PRE_STRINGS

    return sorted(k for k, v in PRE_STRINGS.items() if v["set"].get("add_bos"))


def synthetic_eog(tokens: Sequence[str], eos: int) -> list[int]:
    """The end-of-generation ids of a byte-level BPE vocabulary of ``tokens`` whose file names ``eos``."""
    from ..metadata import ValueType, read_metadata
    from ..tokenizer import Tokenizer
    from ..writer import gguf_bytes

    kv = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2", "tokenizer.ggml.tokens": list(tokens),
          "tokenizer.ggml.merges": ["h e"],
          "tokenizer.ggml.eos_token_id": (ValueType.UINT32, eos)}
    return sorted(Tokenizer(read_metadata(gguf_bytes(kv))).vocab.eog)


def format_rule_cases(cases: Sequence[tuple[str, bool, str, bool, str]]) -> str:
    width = max(len(c[0]) for c in cases)
    lines = [f"{'case':{width}s}  add_bos  {'because':30s} add_eos  because"]
    for label, b, bw, e, ew in cases:
        lines.append(f"{label:{width}s}  {b!s:7s}  {bw:30s} {e!s:7s}  {ew}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ table
def _cell(s: str, mono: bool = False, right: bool = False) -> str:
    style = "padding:1px 6px;border-bottom:1px solid #888888;vertical-align:top"
    style += f";{_MONO}" if mono else ""
    style += ";text-align:right" if right else ""
    return f'<td style="{style}">{html.escape(s)}</td>'


def _flag(value: bool) -> str:
    border, fill = PALETTE[2] if value else PALETTE[7]
    return (f'<td style="padding:1px 6px;border-bottom:1px solid #888888"><span style="display:inline-block;'
            f'padding:0 4px;border:1px solid {border};border-radius:3px;background:{fill};color:{TEXT}">'
            f'{"yes" if value else "no"}</span></td>')


def facts_table(facts: Mapping[str, Mapping[str, Any]], keep: Sequence[str] | None = None) -> Rendered:
    """One row per vocabulary: add_bos/add_eos with their rule, the BOS/EOS/EOT ids and texts, the EOG set.

    With ``keep``, the HTML shows those vocabularies' rows, and the whole table behind a toggle under them (the
    text form always has every row)."""
    heads = ["vocabulary", "type", "add_bos", "why", "add_eos", "why", "BOS", "EOS", "EOT", "end of generation"]
    rows, lines = [], []
    width = max(map(len, facts))

    def idt(i: int, t: str) -> str:
        return "—" if i == NULL else f"{i} {t}"

    for name, f in facts.items():
        eog = ", ".join(f"{i} {t}" for i, t, _ in f["eog"])
        rows.append("<tr>" + _cell(name) + _cell(f["type"]) + _flag(f["add_bos"]) + _cell(f["bos_why"])
                    + _flag(f["add_eos"]) + _cell(f["eos_why"]) + _cell(idt(f["bos"], f["bos_text"]), True)
                    + _cell(idt(f["eos"], f["eos_text"]), True) + _cell(idt(f["eot"], f["eot_text"]), True)
                    + _cell(eog, True) + "</tr>")
        lines.append(f"{name:{width}s} {f['type']:4s} bos={'+' if f['add_bos'] else '-'} "
                     f"eos={'+' if f['add_eos'] else '-'}  BOS {idt(f['bos'], f['bos_text'])} | "
                     f"EOS {idt(f['eos'], f['eos_text'])} | EOT {idt(f['eot'], f['eot_text'])} | EOG [{eog}]")
    head = "".join(f'<th style="padding:1px 6px;text-align:left;border-bottom:2px solid #888888">{html.escape(h)}'
                   "</th>" for h in heads)

    def table(trs: Sequence[str]) -> str:
        return f'<table style="border-collapse:collapse;font-size:85%"><tr>{head}</tr>{"".join(trs)}</table>'

    if keep is None:
        return Rendered(table(rows), "\n".join(lines))
    names = list(facts)
    shown = table([rows[names.index(n)] for n in keep])
    return Rendered(shown + folded(f"all {len(names)} vocabularies", table(rows)), "\n".join(lines))


def eog_table(tok) -> Rendered:
    """Each end-of-generation id of one vocabulary, with the roles that put it in the set and whether the
    load step made it a CONTROL token."""
    v = tok.vocab
    lines = [f"{'id':>7s}  {'text':22s} {'why':18s} file type -> control?"]
    trs = []
    for tid, text, why in eog_reasons(v):
        was = {1: "normal", 2: "unknown", 3: "control", 4: "user-defined", 5: "unused", 6: "byte"}.get(
            v.types[tid], str(v.types[tid]))
        now = "control" if v.attrs[tid] & CONTROL else "not control"
        change = f"{was} -> {now}" if (was == "control") != (now == "control") else now
        lines.append(f"{tid:>7d}  {escape_visible(text):22s} {why:18s} {change}")
        trs.append("<tr>" + _cell(str(tid), True, True) + _cell(escape_visible(text), True) + _cell(why)
                   + _cell(change) + "</tr>")
    head = "".join(f'<th style="padding:1px 6px;text-align:left">{h}</th>'
                   for h in ("id", "text", "why", "type in file → after load"))
    return Rendered(f'<table style="border-collapse:collapse"><tr>{head}</tr>{"".join(trs)}</table>',
                    "\n".join(lines))


def eot_candidates(tok, role: str = "eot") -> list[tuple[int, int, str]]:
    """``[(position in hash-map order, id, text), ...]`` for every token whose text llama.cpp would accept for
    ``role``, in the order its ``token_to_id`` map visits them (:mod:`gguftok.stdmap_order`): the first wins
    (when the file does not name the role's id itself)."""
    v = tok.vocab
    ids = [v.token_to_id[t] for t in _ROLE_TEXTS[role] if t in v.token_to_id]
    if not ids:
        return []
    keys = [t.encode("utf-8", "surrogateescape") for t in v.token_to_id]
    values = list(v.token_to_id.values())
    position = {values[k]: p for p, k in enumerate(iteration_order(keys))}
    return sorted((position[i], i, v.texts[i]) for i in ids)


# ----------------------------------------------------------------------------------------------- prompts
def starts_with_double_bos(tok, ids: Sequence[int]) -> bool:
    """Whether ``ids`` starts with BOS twice (llama.cpp warns about this prompt)."""
    bos = tok.vocab.special["bos"]
    return bos != NULL and len(ids) >= 2 and ids[0] == ids[1] == bos


def prompt_view(tok, text: str, cases: Iterable[tuple[bool, bool]] = ((True, False), (False, False))) -> Rendered:
    """``text`` encoded once per ``(add_special, parse_special)`` pair: chips, ids, and a warning line when
    the result starts with two BOS ids."""
    blocks_html, blocks = [], []
    for add_special, parse_special in cases:
        ids = tok.encode(text, add_special=add_special, parse_special=parse_special)
        head = f"add_special={add_special}, parse_special={parse_special}: {len(ids)} tokens"
        warn = "two BOS ids at the start: the model never saw this in training" if starts_with_double_bos(
            tok, ids) else ""
        view = special_chips(tok, ids)
        border, fill = PALETTE[5]
        warn_html = (f'<div style="margin-top:2px;padding:0 4px;border:1px solid {border};background:{fill};'
                     f'color:{TEXT}">⚠ {html.escape(warn)}</div>') if warn else ""
        blocks_html.append(f'<div style="padding:4px;margin:2px 0;border:1px solid #888888">'
                           f'<div style="font-weight:bold">{html.escape(head)}</div>{view.html}'
                           f'<div style="{_MONO};font-size:85%">ids {html.escape(str(ids))}</div>{warn_html}</div>')
        blocks.append(f"{head}\n  {view.text}\n  ids {ids}" + (f"\n  ⚠ {warn}" if warn else ""))
    return Rendered("<div>" + "".join(blocks_html) + "</div>", "\n".join(blocks))


def vocab_bos_view(tok, text: str, name: str = "") -> Rendered:
    """One vocabulary's BOS/EOS/EOG facts and ``text`` encoded with add_special on and off (the widget's view)."""
    f = bos_eos_facts(tok)
    row = facts_table({name or "vocabulary": f})
    eog = eog_table(tok)
    prompts = prompt_view(tok, text)
    return Rendered(f"<div>{row.html}<div style='margin-top:4px'>{eog.html}</div>{prompts.html}</div>",
                    f"{row.text}\n{eog.text}\n{prompts.text}")


def bos_explorer(folder=None, text: str = "Hello world", vocab: str = "llama-bpe"):
    """A vocabulary file and a text box over :func:`vocab_bos_view`. Tokenizers are loaded on first use and
    kept."""
    import ipywidgets as W

    from .widgets import vocab_playground

    box = W.Text(value=text, description="text", layout=W.Layout(width="95%"))
    choice, out = vocab_playground(lambda tok, name, t: vocab_bos_view(tok, t, name).html, [box], folder=folder,
                                   vocab=vocab, short=False, description="file", layout=W.Layout(width="28em"))
    return W.VBox([choice, box, out])


# ------------------------------------------------------------------------------------------------ figure
def eog_figure(facts: Mapping[str, Mapping[str, Any]]):
    """Horizontal bars: how many ids stop generation per vocabulary, split into the EOS id and the others,
    with the texts written beside each bar."""
    import matplotlib.pyplot as plt

    names = list(facts)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(names) + 1.2))
    for k, name in enumerate(names):
        f = facts[name]
        eos = sum(1 for i, _, _ in f["eog"] if i == f["eos"])
        other = len(f["eog"]) - eos
        (b1, f1), (b2, f2) = PALETTE[4], PALETTE[0]
        ax.barh(k, eos, color=f1, edgecolor=b1, hatch="//", label="the EOS id" if k == 0 else None)
        ax.barh(k, other, left=eos, color=f2, edgecolor=b2, hatch="..",
                label="other end-of-generation ids" if k == 0 else None)
        label = " ".join(t for _, t, _ in f["eog"])  # non-ASCII escaped: the default font lacks some glyphs
        ax.text(len(f["eog"]) + 0.1, k, label.encode("ascii", "backslashreplace").decode(), va="center",
                fontsize=7)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("ids that end generation")
    ax.set_xlim(0, max(len(f["eog"]) for f in facts.values()) + 3.5)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("End-of-generation set per vocabulary (computed by gguftok)")
    fig.tight_layout()
    return fig
