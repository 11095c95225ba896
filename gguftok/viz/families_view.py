"""Views of the tokenizer families other than byte-level BPE: SentencePiece (``spm``), WordPiece (``wpm``),
Unigram (``ugm``), RWKV and PLaMo-2. Pure functions returning :class:`Rendered`; the widget factory imports
ipywidgets inside itself, the figure imports matplotlib inside itself.

>>> texts, scores = toy_spm_vocab()
>>> toy_spm_encode("Hello world", texts, scores)
['▁Hello', '▁world']
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..models.spm import UTF8_LEN, SPMModel
from ..models.wpm import preprocess
from .render import PALETTE, TEXT, Rendered, escape_visible, folded, token_chips

SPACE = "\u2581"
_MONO = "font-family:monospace"
FAMILY_NAMES = {"spm": "SentencePiece BPE", "bpe": "byte-level BPE", "wpm": "WordPiece", "ugm": "Unigram",
                "rwkv": "RWKV trie", "plamo2": "PLaMo-2", "test": "test", "none": "none"}

# A toy SentencePiece vocabulary: (text, score). Higher score = merged earlier.
_TOY = [(SPACE, -1.0), (SPACE + "H", -9.0), (SPACE + "He", -7.0), (SPACE + "Hel", -6.8), (SPACE + "Hello", -3.0),
        ("lo", -5.0), (SPACE + "w", -6.0), ("or", -5.5), (SPACE + "wor", -4.0), ("ld", -4.5), (SPACE + "world", -2.0),
        ("H", -10.0), ("e", -10.0), ("l", -10.0), ("o", -10.0), ("w", -10.0), ("r", -10.0), ("d", -10.0)]


def toy_spm_vocab() -> tuple[list[str], list[float]]:
    """The toy vocabulary's texts and scores, followed by the 256 byte tokens ``<0x00>``..``<0xFF>`` (score 0:
    byte tokens never take part in merging, they only catch what is left over)."""
    texts = [t for t, _ in _TOY] + [f"<0x{b:02X}>" for b in range(256)]
    scores = [s for _, s in _TOY] + [0.0] * 256
    return texts, scores


def spm_escape(text: str, prefix: bool = True) -> str:
    """What SentencePiece tokenizes: spaces as ``▁``, and (with ``prefix``) one ``▁`` in front.

    >>> spm_escape("a b")
    '▁a▁b'
    """
    return (SPACE if prefix else "") + text.replace(" ", SPACE)


def toy_spm_encode(text: str, texts: Sequence[str], scores: Sequence[float], prefix: bool = True) -> list[str]:
    """``text`` through :class:`~gguftok.models.spm.SPMModel` on a vocabulary: the token texts."""
    model = SPMModel(texts, scores)
    return [texts[i] for i in model.encode(spm_escape(text, prefix).encode("utf-8"))]


def _symbols(data: bytes) -> list[bytes]:
    """``data`` cut into characters by UTF-8 lead byte (no validation), as llama.cpp's SPM session does."""
    syms, i = [], 0
    while i < len(data):
        size = min(UTF8_LEN[data[i] >> 4], len(data) - i)
        syms.append(data[i:i + size])
        i += size
    return syms


def spm_steps(data: bytes, bytes_to_id: Mapping[bytes, int], scores: Sequence[float]) -> list[tuple[bytes, float,
                                                                                                       list[bytes]]]:
    """The merges of SentencePiece-style BPE one at a time, by the plain rule (highest score first, leftmost
    on ties): ``[(merged, score, symbols after the merge)]``. A slow twin of
    :func:`gguftok.models.spm.spm_merge`, for showing the order; both end in the same symbols.

    >>> [m for m, _, _ in spm_steps(b"abc", {b"ab": 0, b"bc": 1}, [-2.0, -1.0])]
    [b'bc']
    """
    syms = _symbols(data)
    steps = []
    while True:
        best, best_score = -1, float("-inf")
        for k in range(len(syms) - 1):
            tid = bytes_to_id.get(syms[k] + syms[k + 1])
            if tid is not None and scores[tid] > best_score:
                best, best_score = k, scores[tid]
        if best < 0:
            return steps
        syms[best:best + 2] = [syms[best] + syms[best + 1]]
        steps.append((syms[best], best_score, list(syms)))


def _b(piece: bytes) -> str:
    return escape_visible(piece.decode("utf-8", "replace"))


def _box(label: str, colour: int, title: str = "", dashed: bool = False) -> str:
    border, fill = PALETTE[colour % len(PALETTE)]
    return (f'<span title="{html.escape(title, quote=True)}" style="display:inline-block;margin:1px 2px;'
            f'padding:0 3px;border:1px {"dashed" if dashed else "solid"} {border};border-radius:3px;'
            f'background:{fill};color:{TEXT};{_MONO};white-space:pre">{html.escape(label)}</span>')


def spm_steps_view(text: str, texts: Sequence[str], scores: Sequence[float], prefix: bool = True) -> Rendered:
    """Each merge of ``text`` on a vocabulary: the pair merged, its score, the symbols after it."""
    b2i = {t.encode("utf-8"): i for i, t in enumerate(texts)}
    data = spm_escape(text, prefix).encode("utf-8")
    steps = spm_steps(data, b2i, scores)
    chars = _symbols(data)
    lines = [f"start : {' '.join(_b(c) for c in chars)}"]
    rows = [("start", "", chars, None)]
    for n, (merged, score, syms) in enumerate(steps, 1):
        lines.append(f"{n:>2} {score:>6.2f} {_b(merged):<8s}: {' '.join(_b(s) for s in syms)}")
        rows.append((str(n), f"{score:.2f}", syms, merged))
    trs = []
    for n, score, syms, merged in rows:
        cells = "".join(_box(_b(s), 4 if s == merged else 7) for s in syms)
        trs.append(f"<tr><td style='text-align:right;padding:0 6px'>{html.escape(n)}</td>"
                   f"<td style='text-align:right;padding:0 6px;{_MONO}'>{html.escape(score)}</td>"
                   f"<td style='padding:0 6px;{_MONO}'>{html.escape(_b(merged)) if merged else ''}</td>"
                   f"<td style='padding:0 6px'>{cells}</td></tr>")
    table = ("<table><tr><th>step</th><th>score</th><th>merged</th><th>symbols</th></tr>" + "".join(trs)
             + "</table>")
    return Rendered(table, "\n".join(lines))


# ------------------------------------------------------------------------------------------- real vocabs
def family(tok) -> str:
    """The vocabulary's family as llama.cpp names it (``spm``, ``bpe``, ``wpm``, ``ugm``, ...)."""
    return tok.vocab.type


def pieces_table(tok, ids: Sequence[int]) -> Rendered:
    """One row per id: the id, the token's text as stored (``▁`` and ``<0xXX>`` visible), the bytes its piece
    decodes to."""
    lines = [f"{'id':>7s}  {'token text':<14s} piece bytes"]
    trs = []
    for k, tid in enumerate(ids):
        text = escape_visible(tok.token_text(tid))
        piece = tok.token_to_piece(tid, special=True)
        hexed = piece.hex(" ") or "(none)"
        lines.append(f"{tid:>7d}  {text:<14s} {hexed}")
        trs.append(f"<tr><td style='text-align:right;padding:0 6px;{_MONO}'>{tid}</td>"
                   f"<td style='padding:0 6px'>{_box(text, k, f'id {tid}')}</td>"
                   f"<td style='padding:0 6px;{_MONO}'>{html.escape(hexed)}</td></tr>")
    table = ("<table><tr><th>id</th><th>token text</th><th>piece bytes</th></tr>" + "".join(trs) + "</table>")
    return Rendered(table, "\n".join(lines))


def wordpiece_view(tok, text: str) -> Rendered:
    """WordPiece in two stages: the words :func:`gguftok.models.wpm.preprocess` makes (lower-cased, accents
    stripped, punctuation split off), then the greedy longest-match tokens of each word."""
    v = tok.vocab
    words = preprocess(text, v.lowercase, v.strip_accents)
    lines = [f"words: {' | '.join(escape_visible(w) for w in words)}"]
    rows = []
    for w in words:
        ids = tok.model.encode(w.encode("utf-8"))
        pairs = [(i, escape_visible(tok.token_text(i))) for i in ids]
        lines.append(f"  {escape_visible(w):<14s} -> " + " ".join(f"{i}:{t}" for i, t in pairs))
        cells = "".join(_box(t, k, f"id {i}") for k, (i, t) in enumerate(pairs))
        rows.append(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(escape_visible(w))}</td>"
                    f"<td style='padding:0 6px'>{cells}</td></tr>")
    table = "<table><tr><th>word</th><th>tokens</th></tr>" + "".join(rows) + "</table>"
    return Rendered(table, "\n".join(lines))


def normalize_view(tok, samples: Sequence[str]) -> Rendered:
    """Unigram's normalisation (the precompiled charsmap, then ``▁`` for spaces): input next to output."""
    lines, trs = [], []
    for s in samples:
        out = tok.model.normalize(s.encode("utf-8")).decode("utf-8", "replace")
        cps = " ".join(f"U+{ord(c):04X}" for c in s)
        lines.append(f"{escape_visible(s):<12s} -> {escape_visible(out):<12s} ({cps})")
        trs.append(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(escape_visible(s))}</td>"
                   f"<td style='padding:0 6px;{_MONO}'>{html.escape(escape_visible(out))}</td>"
                   f"<td style='padding:0 6px;{_MONO};font-size:85%'>{html.escape(cps)}</td></tr>")
    table = ("<table><tr><th>input</th><th>normalised</th><th>input code points</th></tr>" + "".join(trs)
             + "</table>")
    return Rendered(table, "\n".join(lines))


def family_view(tok, text: str, add_special: bool = True, title: str = "") -> Rendered:
    """The family, the token count and the tokens of ``text`` as chips."""
    ids = tok.encode(text, add_special=add_special)
    fam = family(tok)
    head = f"{title + ': ' if title else ''}{FAMILY_NAMES.get(fam, fam)} ({fam}), {len(ids)} tokens"
    chipped = token_chips(tok, ids)
    return Rendered(f"<div><div style='margin-bottom:2px'>{html.escape(head)}</div>{chipped.html}</div>",
                    f"{head}\n{chipped.text}")


def vocab_files(folder=None) -> list[Path]:
    """The real test vocabularies, sorted by file name."""
    if folder is None:
        from ..data import vocab_dir
        folder = vocab_dir()
    return sorted(Path(folder).glob("ggml-vocab-*.gguf"))


def short_name(path: Path) -> str:
    """``ggml-vocab-llama-spm.gguf`` -> ``llama-spm``."""
    return Path(path).name.removeprefix("ggml-vocab-").removesuffix(".gguf")


def load_all(folder=None) -> dict[str, object]:
    """Every real test vocabulary, loaded, by short name."""
    from ..tokenizer import Tokenizer
    return {short_name(p): Tokenizer.from_gguf(p) for p in vocab_files(folder)}


def compare_families(toks: Mapping[str, object], text: str, add_special: bool = True,
                     max_ids: int = 12) -> Rendered:
    """``text`` through every vocabulary: family, token count, the ids (the first ``max_ids``)."""
    rows = []
    for name, tok in toks.items():
        ids = tok.encode(text, add_special=add_special)
        rows.append((name, family(tok), ids))
    rows.sort(key=lambda r: (r[1], r[0]))
    lines = [f"{'vocabulary':<16s} {'family':<7s} {'n':>3s}  ids"]
    trs = []
    fams = sorted({r[1] for r in rows})
    for name, fam, ids in rows:
        shown = " ".join(map(str, ids[:max_ids])) + (" ..." if len(ids) > max_ids else "")
        lines.append(f"{name:<16s} {fam:<7s} {len(ids):>3d}  {shown}")
        trs.append(f"<tr><td style='padding:0 6px;{_MONO}'>{html.escape(name)}</td>"
                   f"<td style='padding:0 6px'>{_box(fam, fams.index(fam))}</td>"
                   f"<td style='text-align:right;padding:0 6px'>{len(ids)}</td>"
                   f"<td style='padding:0 6px;{_MONO};font-size:85%'>{html.escape(shown)}</td></tr>")
    head = f"text: {escape_visible(text)}"
    table = ("<table><tr><th>vocabulary</th><th>family</th><th>tokens</th><th>ids</th></tr>" + "".join(trs)
             + "</table>")
    return Rendered(f"<div>{html.escape(head)}</div>{table}", head + "\n" + "\n".join(lines))


def token_counts(toks: Mapping[str, object], sentences: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """``{vocabulary: {language: tokens}}``, without BOS/EOS/CLS/SEP (``add_special=False``)."""
    return {name: {lang: len(tok.encode(s, add_special=False)) for lang, s in sentences.items()}
            for name, tok in toks.items()}


def counts_table(counts: Mapping[str, Mapping[str, int]], shown: Sequence[str] | None = None) -> Rendered:
    """Tokens per sentence, one row per vocabulary and one column per language: the rows named in ``shown``
    (default: all), then every row in a ``<details>`` toggle (the plain text: the shown rows only).

    >>> print(counts_table({"a": {"English": 3}, "b": {"English": 4}}, ["b"]).text)
    vocabulary        English
    b                       4
    (every vocabulary: 2 rows, in the toggle)
    """
    langs = list(next(iter(counts.values())))
    picked = [n for n in (shown if shown is not None else counts) if n in counts]
    cell = f"padding:2px 6px;border:1px solid #999999;text-align:right;{_MONO}"

    def table(names: Sequence[str]) -> str:
        head = f"<th style='{cell}'>vocabulary</th>" + "".join(f"<th style='{cell}'>{html.escape(x)}</th>"
                                                               for x in langs)
        rows = "".join(f"<tr><td style='{cell};text-align:left'>{html.escape(n)}</td>"
                       + "".join(f"<td style='{cell}'>{counts[n][x]}</td>" for x in langs) + "</tr>" for n in names)
        return f"<table style='border-collapse:collapse'><tr>{head}</tr>{rows}</table>"

    note = f"(every vocabulary: {len(counts)} rows, in the toggle)"
    toggle = folded(f"every vocabulary ({len(counts)})", table(list(counts))) if len(picked) < len(counts) else ""
    text = format_counts({n: counts[n] for n in picked})
    return Rendered(f"<div>{table(picked)}{toggle}</div>", text + (f"\n{note}" if toggle else ""))


def format_counts(counts: Mapping[str, Mapping[str, int]]) -> str:
    langs = list(next(iter(counts.values())))
    lines = [f"{'vocabulary':<16s}" + "".join(f"{lang:>9s}" for lang in langs)]
    for name, row in counts.items():
        lines.append(f"{name:<16s}" + "".join(f"{row[lang]:>9d}" for lang in langs))
    return "\n".join(lines)


def counts_figure(counts: Mapping[str, Mapping[str, int]], families: Mapping[str, str] | None = None):
    """Grouped horizontal bars: tokens per sentence, one group per vocabulary, one bar per language (colour
    plus hatching, so the language is not told by colour alone)."""
    import matplotlib.pyplot as plt

    names = list(counts)
    langs = list(next(iter(counts.values())))
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(names) + 1.2))
    h = 0.8 / len(langs)
    hatches = ["", "//", "..", "xx", "\\\\", "++"]
    for j, lang in enumerate(langs):
        ys = [i + j * h for i in range(len(names))]
        ax.barh(ys, [counts[n][lang] for n in names], height=h, label=lang, color=PALETTE[j % len(PALETTE)][0],
                hatch=hatches[j % len(hatches)], edgecolor="#333333", linewidth=0.4)
    labels = [f"{n} ({families[n]})" if families else n for n in names]
    ax.set_yticks([i + 0.4 - h / 2 for i in range(len(names))], labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("tokens (add_special=False)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("The same sentence in each language, per vocabulary")
    fig.tight_layout()
    return fig


def families_playground(folder=None, text: str = "Hello wörld 😀", vocab: str = "ggml-vocab-llama-spm.gguf"):
    """A text box and a choice of the 19 vocabulary files over :func:`family_view`."""
    import ipywidgets as W

    from .widgets import vocab_playground

    box = W.Textarea(value=text, description="text", layout=W.Layout(width="90%"))
    pick, out = vocab_playground(lambda tok, name, t: family_view(tok, t, title=name).html, [box], folder=folder,
                                 vocab=vocab, short=False)
    return W.VBox([box, pick, out])
