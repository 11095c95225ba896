"""BPE training, step by step: the pair counts, the pair chosen, the new token, the corpus rewritten.

The steps come from :func:`gguftok.models.bpe_train.train_bpe` (the pure training function); this module only
draws them. Frame 0 is the corpus cut into characters with its pair counts; frame ``k`` is step ``k``.

>>> frames = training_frames("low low lower", 2)
>>> print(frames[1].text)
step 1 of 2: the most frequent pair is l + o (3 times) -> new token 'lo'
pair counts: l+o 3 (chosen; tie: the first in the corpus wins) | o+w 3 | w+e 1 | e+r 1
corpus: [lo]*[w] ×2 | [lo]*[w][e][r]
merges so far: l o
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..models.bpe_train import TrainStep, Word, corpus_words, pair_counts, train_bpe
from .render import PALETTE, TEXT, Rendered, _chip, candidate_chip, escape_visible

_BOX = "border:1px solid #888888;border-radius:4px;padding:6px 8px;margin:2px 0;line-height:1.9"
_LABEL = ('style="display:inline-block;min-width:8em;padding-right:0.5em;font-weight:bold;vertical-align:top;'
          'white-space:nowrap"')
_MONO = "font-family:monospace;white-space:pre"

# The instructor's default corpus: Sennrich's classic, with a few repeats so the counts differ.
CORPUS = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"


def _pair(a: str, b: str) -> str:
    return f"{escape_visible(a)}+{escape_visible(b)}"


def _counts_parts(counts: Sequence[tuple[tuple[str, str], int]], chosen: tuple[str, str] | None,
                  top: int) -> tuple[str, str]:
    """The first ``top`` pair counts as (html, text); the chosen pair marked in words and by a thick border."""
    if not counts:
        return '<span style="font-style:italic">(no pairs: every word is one symbol)</span>', "(no pairs)"
    tie = chosen is not None and len(counts) > 1 and counts[1][1] == counts[0][1]
    html_parts, text_parts = [], []
    for (a, b), n in counts[:top]:
        label = f"{_pair(a, b)} {n}"
        note = "chosen; tie: the first in the corpus wins" if tie else "chosen"
        html_parts.append(candidate_chip(label, chosen=(a, b) == chosen, note=note,
                                         title="the most frequent pair" if (a, b) == chosen else ""))
        text_parts.append(f"{label} ({note})" if (a, b) == chosen else label)
    more = len(counts) - top
    if more > 0:
        html_parts.append(f'<span style="margin-left:4px">… and {more} more pairs</span>')
        text_parts.append(f"... +{more} more")
    return "".join(html_parts), " | ".join(text_parts)


def _corpus_parts(words: Sequence[tuple[Word, int]], new: str | None) -> tuple[str, str]:
    """Each distinct word as chips (×count), the symbols that are the new token marked "new"."""
    html_parts, text_parts = [], []
    for word, n in words:
        chips, texts = [], []
        for k, sym in enumerate(word):
            shown = escape_visible(sym)
            if sym == new:
                chips.append(_chip(shown, "the new token", k, ";border-width:2px;font-weight:bold")
                             + '<sup style="margin-right:2px">new</sup>')
                texts.append(f"[{shown}]*")
            else:
                chips.append(_chip(shown, f"symbol {k + 1} of {len(word)}", k))
                texts.append(f"[{shown}]")
        times = f" ×{n}" if n > 1 else ""
        html_parts.append(f'<span style="display:inline-block;margin:0 10px 2px 0">{"".join(chips)}'
                          f"{html.escape(times)}</span>")
        text_parts.append("".join(texts) + times)
    return "".join(html_parts), " | ".join(text_parts)


def _frame(head_html: str, head_text: str, rows: Sequence[tuple[str, str, str]]) -> Rendered:
    body = "".join(f"<div><span {_LABEL}>{html.escape(name)}</span>{h}</div>" for name, h, _ in rows)
    text = "\n".join([head_text, *(f"{name}: {t}" for name, _, t in rows)])
    return Rendered(f'<div style="{_BOX}"><div>{head_html}</div>{body}</div>', text)


def training_frames(corpus: str, n_merges: int = 10, *, top: int = 6) -> list[Rendered]:
    """The start and one frame per step of :func:`~gguftok.models.bpe_train.train_bpe` on ``corpus``:
    the pair counts before the step (the first ``top``), the pair chosen (the most frequent; ties: the first in
    the corpus), the new token, the corpus rewritten, and the merge list so far."""
    words = corpus_words(corpus)
    if not words:
        msg = "type a corpus: a few words, some of them repeated"
        return [Rendered(f'<div style="{_BOX}">{html.escape(msg)}</div>', msg)]
    steps: list[TrainStep] = train_bpe(corpus, n_merges)
    n = len(steps)
    total = sum(c for _, c in words)
    symbols = sum(len(w) * c for w, c in words)
    head = (f"start: {total} words ({len(words)} distinct), {symbols} symbols, one per character; "
            f"{n} merge{'' if n == 1 else 's'} to learn")
    c_html, c_text = _counts_parts(pair_counts(words), None, top)
    w_html, w_text = _corpus_parts(words, None)
    frames = [_frame(f'<span style="font-weight:bold">{html.escape(head)}</span>', head,
                     [("pair counts", c_html, c_text), ("corpus", w_html, w_text)])]
    learnt: list[str] = []
    for k, s in enumerate(steps, 1):
        a, b = s.pair
        learnt.append(f"{escape_visible(a)} {escape_visible(b)}")
        head = (f"step {k} of {n}: the most frequent pair is {escape_visible(a)} + {escape_visible(b)} "
                f"({s.count} time{'' if s.count == 1 else 's'}) -> new token {escape_visible(s.token)!r}")
        c_html, c_text = _counts_parts(s.counts, s.pair, top)
        w_html, w_text = _corpus_parts(s.words, s.token)
        border, fill = PALETTE[2]
        token_html = (f'<span style="display:inline-block;padding:0 4px;border:2px solid {border};border-radius:3px;'
                      f'background:{fill};color:{TEXT};{_MONO}">{html.escape(escape_visible(s.token))}</span>')
        head_html = (f'<span style="font-weight:bold">step {k} of {n}</span>: the most frequent pair is '
                     f'<span style="{_MONO}">{html.escape(escape_visible(a))} + {html.escape(escape_visible(b))}'
                     f"</span> ({s.count} time{'' if s.count == 1 else 's'}) → new token {token_html}")
        merged = " | ".join(learnt)
        frames.append(_frame(head_html, head, [
            ("pair counts", c_html, c_text), ("corpus", w_html, w_text),
            ("merges so far", f'<span style="{_MONO}">{html.escape(merged)}</span>', merged)]))
    return frames


def training_player(corpus: str = CORPUS, merges: int = 10, interval: int = 1500):
    """A corpus box and a number of merges over :func:`training_frames`, played step by step (speed control
    included); the frames are computed again at every change."""
    import ipywidgets as W

    from .widgets import frames_player

    box = W.Textarea(value=corpus, description="corpus", layout=W.Layout(width="60%", height="4em"))
    count = W.BoundedIntText(value=merges, min=1, max=200, description="merges")
    return frames_player(lambda text, n: training_frames(text, n), [box, count], interval=interval)
