"""What the same sentence costs in each language: a vocabulary trained mostly on English spends more tokens on
other scripts, so the same meaning fills more of the context window and costs more to generate.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> cost_numbers({"toy": tok}, {"English": "Hello world", "German": "Hallo Welt"})
{'toy': {'English': 2, 'German': 10}}
>>> print(cost_table({"toy": tok}, {"English": "Hello world", "German": "Hallo Welt"}))
tokens (per character, relative to English)
vocabulary  English           German
toy         2 (0.18/ch, 1.0x) 10 (1.00/ch, 5.0x)
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .families_view import counts_figure, family, token_counts
from .render import Rendered

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..tokenizer import Tokenizer

# One sentence, the same meaning in each language.
SAMPLES: dict[str, str] = {
    "English": "The weather is nice today, so we are going for a walk in the park.",
    "German": "Heute ist das Wetter schön, deshalb gehen wir im Park spazieren.",
    "French": "Il fait beau aujourd'hui, alors nous allons nous promener dans le parc.",
    "Spanish": "Hoy hace buen tiempo, así que vamos a dar un paseo por el parque.",
    "Russian": "Сегодня хорошая погода, поэтому мы идём гулять в парк.",
    "Chinese": "今天天气很好，所以我们去公园散步。",
    "Japanese": "今日は天気がいいので、公園を散歩します。",
    "Hindi": "आज मौसम अच्छा है, इसलिए हम पार्क में टहलने जा रहे हैं।",
    "Arabic": "الطقس جميل اليوم، لذلك سنتمشى في الحديقة.",
    "Korean": "오늘은 날씨가 좋아서 공원에 산책하러 갑니다.",
}
BASE = "English"
_CELL = "padding:2px 6px;text-align:right"
_MONO = "font-family:monospace"


def cost_numbers(toks: Mapping[str, Tokenizer], samples: Mapping[str, str] = SAMPLES) -> dict[str, dict[str, int]]:
    """``{vocabulary: {language: tokens}}`` without BOS/EOS (:func:`~gguftok.viz.families_view.token_counts`)."""
    return token_counts(toks, samples)


def relative(counts: Mapping[str, Mapping[str, int]], base: str = BASE) -> dict[str, dict[str, float]]:
    """Each count divided by the same vocabulary's count for ``base`` (``nan`` where that is 0); a
    ``ValueError`` if there is no ``base`` count.

    >>> relative({"v": {"English": 4, "German": 6}})
    {'v': {'English': 1.0, 'German': 1.5}}
    """
    if any(base not in row for row in counts.values()):
        raise ValueError(f"the samples have no {base!r} sentence to compare with")
    return {name: {lang: (n / row[base] if row[base] else float("nan")) for lang, n in row.items()}
            for name, row in counts.items()}


def cost_table(toks: Mapping[str, Tokenizer], samples: Mapping[str, str] = SAMPLES, base: str = BASE) -> Rendered:
    """Vocabulary by language: tokens, tokens per character, and tokens relative to ``base`` (English) in the
    same vocabulary. ``base`` must be one of the samples."""
    counts = cost_numbers(toks, samples)
    rel = relative(counts, base)
    langs = list(samples)
    cell = {name: [f"{row[lang]} ({row[lang] / max(len(samples[lang]), 1):.2f}/ch, {rel[name][lang]:.1f}x)"
                   for lang in langs] for name, row in counts.items()}
    widths = [max([len(lang)] + [len(cell[n][k]) for n in cell]) for k, lang in enumerate(langs)]
    first = max([len("vocabulary")] + [len(n) for n in toks])
    lines = [f"tokens (per character, relative to {base})",
             f"{'vocabulary':<{first}}  " + " ".join(f"{lang:<{w}}" for lang, w in zip(langs, widths, strict=True))]
    trs = []
    for name in counts:
        lines.append(f"{name:<{first}}  " + " ".join(f"{c:<{w}}" for c, w in zip(cell[name], widths, strict=True)))
        tds = "".join(f"<td style='{_CELL}'><b>{counts[name][lang]}</b><br><span style='font-size:85%'>"
                      f"{counts[name][lang] / max(len(samples[lang]), 1):.2f}/ch · {rel[name][lang]:.1f}×</span></td>"
                      for lang in langs)
        trs.append(f"<tr><td style='padding:2px 6px;{_MONO}'>{html.escape(name)} "
                   f"<span style='font-size:85%'>({html.escape(family(toks[name]))})</span></td>{tds}</tr>")
    heads = "".join(f"<th style='{_CELL}' title='{html.escape(samples[lang], quote=True)}'>{html.escape(lang)}</th>"
                    for lang in langs)
    table = (f"<div>Tokens of the same sentence; below each: tokens per character, and × the {html.escape(base)} "
             f"count in the same vocabulary.</div><table style='border-collapse:collapse'><tr>"
             f"<th style='padding:2px 6px'>vocabulary</th>{heads}</tr>" + "".join(trs) + "</table>")
    return Rendered(table, "\n".join(line.rstrip() for line in lines))


def cost_figure(toks: Mapping[str, Tokenizer], samples: Mapping[str, str] = SAMPLES, base: str = BASE) -> Figure:
    """Grouped bars (:func:`~gguftok.viz.families_view.counts_figure`): for each vocabulary, each other language's
    tokens relative to its ``base`` count (``base`` itself is the dotted line at 1: as cheap as English).
    Deterministic: the same vocabularies and samples draw the same figure."""
    rel = {name: {lang: x for lang, x in row.items() if lang != base}
           for name, row in relative(cost_numbers(toks, samples), base).items()}
    fig = counts_figure(rel, {name: family(tok) for name, tok in toks.items()})
    ax = fig.axes[0]
    ax.axvline(1.0, color="#333333", linestyle=":", linewidth=1)
    ax.set_xlabel(f"tokens relative to {base} in the same vocabulary (add_special=False)")
    ax.set_ylabel("vocabulary (family)")
    ax.set_title("What the same sentence costs in each language")
    ax.legend(fontsize=7, loc="lower right", ncols=2)
    fig.tight_layout()
    return fig
