"""The merge queue of one word, frame by frame: symbols, the queue's next entries, the pair popped.

Every frame comes from :func:`gguftok.models.bpe.merge_word`'s own trace (the code that produces the ids),
so a frame cannot show a merge the tokenizer did not make. Frame 0 is the word before any pop; frame ``k``
is the state after the ``k``-th pop. A queue entry whose pair no longer exists is *stale*: it is struck
through and labelled, and when it is popped the frame says it was skipped.

>>> from gguftok.models.bpe import merge_ranks
>>> ranks = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
>>> frames = queue_frames("lower", ranks)
>>> len(frames)
6
>>> print(frames[-1].text)
step 5 of 5: pop rank 8 w+er -> skipped (stale: its left side was merged into its neighbour)
symbols: [lower]
queue: (empty)
"""

from __future__ import annotations

import gc
import html
import math
import random
import string
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise

from ..models.bpe import MergeStep, merge_word
from .render import PALETTE, TEXT, Rendered, _chip, escape_visible

_GREY_BORDER, _GREY_FILL = PALETTE[7]
_NEW_BORDER, _NEW_FILL = PALETTE[2]
_BOX = "border:1px solid #888888;border-radius:4px;padding:6px 8px;margin:2px 0;line-height:1.9"


# ------------------------------------------------------------------------------------------------ facts
def split_pair(pair: str, rank: int, ranks: dict[str, int]) -> tuple[str, str] | None:
    """The two symbols a queue entry joins: the split of ``pair`` whose merge has rank ``rank``.

    A rank names exactly one merge, so the split is unique.

    >>> split_pair("lower", 3, {"low er": 3, "lo wer": 9})
    ('low', 'er')
    """
    for cut in range(1, len(pair)):
        if ranks.get(pair[:cut] + " " + pair[cut:]) == rank:
            return pair[:cut], pair[cut:]
    return None


def initial_queue(word: str, ranks: dict[str, int]) -> list[tuple[int, str]]:
    """The queue before the first pop: every adjacent pair of characters that has a rank, in pop order
    (lowest rank first, leftmost first on ties)."""
    entries = [(ranks[word[i] + " " + word[i + 1]], i, word[i] + word[i + 1]) for i in range(len(word) - 1)
               if word[i] + " " + word[i + 1] in ranks]
    return [(r, text) for r, _, text in sorted(entries)]


def stale_counts(symbols: Sequence[str], queue: Sequence[tuple[int, str]], ranks: dict[str, int]) -> dict[int, int]:
    """``{rank: how many of the queue's entries of that rank are stale}`` for the current ``symbols``.

    Each pair of neighbours that has a rank is in the queue exactly once (queued when its newer side was
    made), so the entries of a rank beyond the number of such neighbour pairs describe pairs that are gone.
    """
    waiting = Counter(r for r, _ in queue)
    out = {}
    for r, n in waiting.items():
        pair_text = next(text for rr, text in queue if rr == r)
        split = split_pair(pair_text, r, ranks)
        live = sum(1 for a, b in pairwise(symbols) if (a, b) == split) if split else 0
        out[r] = max(n - live, 0)
    return out


# ------------------------------------------------------------------------------------------------ pieces
def _pair_label(pair: str, rank: int, ranks: dict[str, int]) -> tuple[str, str]:
    """(html, text) of an entry: its two sides with a visible join."""
    split = split_pair(pair, rank, ranks)
    if split is None:
        return html.escape(escape_visible(pair)), escape_visible(pair)
    a, b = (escape_visible(s) for s in split)
    return (f'{html.escape(a)}<span style="margin:0 2px;font-weight:bold">+</span>{html.escape(b)}', f"{a}+{b}")


def _entry(label_html: str, title: str, *, stale: bool, count: int = 1, note: str = "") -> str:
    times = f" ×{count}" if count > 1 else ""
    if stale:
        box = (f"display:inline-block;margin:1px 3px;padding:0 4px;border:1px dashed {_GREY_BORDER};"
               f"border-radius:3px;background:{_GREY_FILL};color:{TEXT};font-family:monospace;white-space:pre;"
               "text-decoration:line-through")
    else:
        border, fill = PALETTE[4]
        box = (f"display:inline-block;margin:1px 3px;padding:0 4px;border:1px solid {border};border-radius:3px;"
               f"background:{fill};color:{TEXT};font-family:monospace;white-space:pre")
    tag = f'<span style="font-style:italic;margin-right:6px">{html.escape(note)}</span>' if note else ""
    return f'<span title="{html.escape(title, quote=True)}" style="{box}">{label_html}{times}</span>{tag}'


def _queue_parts(queue: Sequence[tuple[int, str]], symbols: Sequence[str], ranks: dict[str, int],
                 top: int) -> tuple[str, str]:
    """The queue's first ``top`` groups (identical entries together) as html and text."""
    stale = stale_counts(symbols, queue, ranks)
    groups: list[tuple[int, str, int]] = []
    for r, text in queue:
        if groups and groups[-1][0] == r:
            groups[-1] = (r, text, groups[-1][2] + 1)
        else:
            groups.append((r, text, 1))
    html_parts, text_parts = [], []
    for r, text, n in groups[:top]:
        label_html, label_text = _pair_label(text, r, ranks)
        s = stale.get(r, 0)
        times = f" ×{n}" if n > 1 else ""
        if s == 0:
            note_text = ""
        elif s == n:
            note_text = "stale"
        else:
            note_text = f"{s} of {n} stale"
        html_parts.append(_entry(f"r{r} {label_html}", f"rank {r}: {text}", stale=s == n, count=n,
                                 note=note_text))
        text_parts.append(f"r{r} {label_text}{times}" + (f" ({note_text})" if note_text else ""))
    more = len(groups) - top
    if more > 0:
        rest = sum(n for *_, n in groups[top:])
        html_parts.append(f'<span style="margin-left:4px">… and {rest} more</span>')
        text_parts.append(f"... +{rest} more")
    if not queue:
        return '<span style="font-style:italic">(empty)</span>', "(empty)"
    return "".join(html_parts), " | ".join(text_parts)


def _symbol_chips(symbols: Sequence[str], new_at: int | None) -> tuple[str, str]:
    html_parts, text_parts, start = [], [], 0
    for k, sym in enumerate(symbols):
        shown = escape_visible(sym)
        if k == new_at:
            html_parts.append(_chip(shown, f"new: made by this step's merge · starts at character {start}", start,
                                    ";border-width:2px;font-weight:bold")
                              + '<sup style="margin-right:3px">new</sup>')
            text_parts.append(f"[{shown}]*")
        else:
            html_parts.append(_chip(shown, f"starts at character {start}", start))
            text_parts.append(f"[{shown}]")
        start += len(sym)
    return "".join(html_parts), " ".join(text_parts)


def _merged_at(before: Sequence[str], after: Sequence[str]) -> int | None:
    for k, (a, b) in enumerate(zip(before, after, strict=False)):
        if a != b:
            return k
    return None


def _frame(header_html: str, header_text: str, symbols: Sequence[str], new_at: int | None,
           queue: Sequence[tuple[int, str]], ranks: dict[str, int], top: int) -> Rendered:
    sym_html, sym_text = _symbol_chips(symbols, new_at)
    q_html, q_text = _queue_parts(queue, symbols, ranks, top)
    label = 'style="display:inline-block;width:5.5em;font-weight:bold"'
    body = (f'<div style="{_BOX}"><div>{header_html}</div>'
            f"<div><span {label}>symbols</span>{sym_html}</div>"
            f"<div><span {label}>queue</span>{q_html}</div></div>")
    return Rendered(body, f"{header_text}\nsymbols: {sym_text}\nqueue: {q_text}")


# ------------------------------------------------------------------------------------------------ views
def queue_frames(word: str, ranks: dict[str, int], steps: list[MergeStep] | None = None, *,
                 top: int = 6) -> list[Rendered]:
    """Every frame of merging ``word``: the start, then one frame per pop (``len(steps) + 1`` in all).

    ``steps`` is a trace from :func:`~gguftok.models.bpe.merge_word` (or :meth:`Tokenizer.trace
    <gguftok.Tokenizer.trace>`); without it the word is merged here. ``top`` bounds the queue entries shown
    (identical entries count once).
    """
    if steps is None:
        steps = []
        merge_word(word, ranks, steps)
    queue0 = initial_queue(word, ranks)
    n = len(steps)
    head = f"start: {len(word)} symbols, {len(queue0)} candidate pairs"
    frames = [_frame(f'<span style="font-weight:bold">{html.escape(head)}</span>', head, list(word), None,
                     queue0, ranks, top)]
    before = list(word)
    for k, step in enumerate(steps, 1):
        label_html, label_text = _pair_label(step.pair, step.rank, ranks)
        where = f'<span style="font-weight:bold">step {k} of {n}</span>: pop '
        if step.merged:
            border, fill = _NEW_BORDER, _NEW_FILL
            popped = (f'<span style="display:inline-block;padding:0 4px;border:2px solid {border};'
                      f'border-radius:3px;background:{fill};color:{TEXT};font-family:monospace;white-space:pre">'
                      f"r{step.rank} {label_html}</span> → merged "
                      f'<span style="font-family:monospace">{html.escape(escape_visible(step.pair))}</span>')
            text = f"step {k} of {n}: pop rank {step.rank} {label_text} -> merged '{escape_visible(step.pair)}'"
            new_at = _merged_at(before, step.symbols)
        else:
            popped = (_entry(f"r{step.rank} {label_html}", f"rank {step.rank}: {step.pair}", stale=True)
                      + f" → <span style=\"font-weight:bold\">skipped</span> ({html.escape(step.reason)})")
            text = f"step {k} of {n}: pop rank {step.rank} {label_text} -> skipped ({step.reason})"
            new_at = None
        frames.append(_frame(where + popped, text, step.symbols, new_at, step.queue, ranks, top))
        before = step.symbols
    return frames


def queue_frame(word: str, ranks: dict[str, int], index: int, steps: list[MergeStep] | None = None, *,
                top: int = 6) -> Rendered:
    """One frame of :func:`queue_frames` (negative indices count from the end)."""
    return queue_frames(word, ranks, steps, top=top)[index]


def trace_frames(tok, word_trace, *, top: int = 6) -> list[Rendered]:
    """The frames of one :class:`~gguftok.tokenizer.WordTrace` from :meth:`Tokenizer.trace`.

    A word that the vocabulary holds whole and that skipped the queue (Llama 3's ``ignore_merges``, or
    Gemma 4's runs of newlines) gets one frame saying so.
    """
    word = word_trace.word
    model = tok.model
    if not word_trace.steps and word_trace.symbols == [word] and len(word) > 1:
        why = ("the whole word is a token and this vocabulary sets ignore_merges: no queue at all"
               if getattr(model, "ignore_merges", False) else "the whole word is a token: no queue at all")
        sym_html, sym_text = _symbol_chips([word], None)
        body = (f'<div style="{_BOX}"><div><span style="font-weight:bold">{html.escape(why)}</span></div>'
                f"<div>{sym_html} = id {word_trace.ids[0]}</div></div>")
        return [Rendered(body, f"{why}\nsymbols: {sym_text} = id {word_trace.ids[0]}")]
    return queue_frames(word, model.ranks, word_trace.steps, top=top)


def frames_text(frames: Sequence[Rendered], indices: Iterable[int] | None = None) -> Rendered:
    """Some frames one after the other (all by default): the static twin of :func:`queue_player`."""
    picked = [frames[i] for i in (range(len(frames)) if indices is None else indices)]
    return Rendered("".join(f.html for f in picked), "\n\n".join(f.text for f in picked))


def merge_log(words: Iterable[str], ranks: dict[str, int]) -> Rendered:
    """A short log per word: how many pairs the queue starts with, then each merge (with the symbols after it)
    and each stale entry skipped."""
    lines = []
    for word in words:
        steps: list[MergeStep] = []
        merge_word(word, ranks, steps)
        lines.append(f"{escape_visible(word)}: queue starts with {len(initial_queue(word, ranks))} candidate pairs")
        for s in steps:
            if s.merged:
                lines.append(f"  merge rank {s.rank} -> " + "".join(f"[{escape_visible(x)}]" for x in s.symbols))
            else:
                lines.append(f'  skip stale rank {s.rank} "{escape_visible(s.pair)}"')
    text = "\n".join(lines)
    return Rendered(f'<pre style="margin:0">{html.escape(text)}</pre>', text)


def trace_table(tok, traces) -> Rendered:
    """One line per word of :meth:`Tokenizer.trace`: pops, stale pops, final symbols, ids."""
    rows = []
    for wt in traces:
        stale = sum(1 for s in wt.steps if not s.merged)
        whole = not wt.steps and wt.symbols == [wt.word] and len(wt.word) > 1
        note = "whole word is a token: queue skipped" if whole else ""
        rows.append((escape_visible(wt.word), str(len(wt.steps)), str(stale),
                     " ".join(f"[{escape_visible(s)}]" for s in wt.symbols), " ".join(map(str, wt.ids)), note))
    head = ("word", "pops", "stale", "symbols", "ids", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(5)]
    lines = []
    for r in [head, *rows]:
        cols = [f"{c:>{w}s}" if i in (1, 2) else f"{c:{w}s}"
                for i, (c, w) in enumerate(zip(r[:5], widths, strict=True))]
        lines.append("  ".join(cols) + (f"  {r[5]}" if r[5] else ""))
    cells = "".join("<tr>" + "".join(f"<td style='padding:0 8px;font-family:monospace;white-space:pre'>"
                                     f"{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + f"</tr>{cells}</table>"
    return Rendered(table, "\n".join(line.rstrip() for line in lines))


def whole_word_view(tok, word: str) -> Rendered:
    """What ``ignore_merges`` changes for one byte-encoded ``word``: the whole-word id, and the ids the merges
    alone would give."""
    whole = tok.model.token_to_id.get(word)
    merged = merge_word(word, tok.model.ranks)
    ids = tok.model.symbol_ids(merged)
    shown = escape_visible(word)
    lines = [f"{shown}: " + (f"a token of its own, id {whole}" if whole is not None else "not a token"),
             f"merges alone: {' '.join(f'[{escape_visible(s)}]' for s in merged)} = ids {' '.join(map(str, ids))}"]
    sym_html, _ = _symbol_chips(merged, None)
    whole_html, _ = _symbol_chips([word], None)
    body = (f'<div style="{_BOX}"><div>{whole_html} '
            + (f"a token of its own, id {whole}" if whole is not None else "not a token")
            + f"</div><div>merges alone: {sym_html} = ids {html.escape(' '.join(map(str, ids)))}</div></div>")
    return Rendered(body, "\n".join(lines))


# ------------------------------------------------------------------------------------------------ cost
def random_word(n: int, seed: int = 0) -> str:
    """``n`` random lowercase letters, the same for the same ``n`` and ``seed``."""
    rng = random.Random(seed * 1_000_003 + n)
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


def _words(n: int, seed: int) -> dict[str, str]:
    return {"'a'*n": "a" * n, "random": random_word(n, seed)}


def naive_lookups(n: int, merges: int) -> int:
    """Pair lookups of the naive loop that rescans every neighbour pair before each merge (and once more to
    find that nothing is left): ``(n-1) + (n-2) + ... + (n-1-merges)``."""
    return sum(n - 1 - k for k in range(merges + 1)) if n > 1 else 0


def queue_cost(ranks: dict[str, int], lengths: Sequence[int] = (10, 100, 1000), seed: int = 0) -> Rendered:
    """Work counts (no timings) for ``'a'*n`` and ``n`` random letters: merges, queue pops, stale pops, and
    the pair lookups a rescanning loop would make for the same merges."""
    head = f"{'word':7s} {'n':>6s} {'merges':>7s} {'pops':>6s} {'stale':>6s} {'pops/n':>7s} {'rescan lookups':>15s}"
    lines = [head]
    for n in lengths:
        for kind, word in _words(n, seed).items():
            steps: list[MergeStep] = []
            merge_word(word, ranks, steps)
            merges = sum(1 for s in steps if s.merged)
            lines.append(f"{kind:7s} {n:6d} {merges:7d} {len(steps):6d} {len(steps) - merges:6d} "
                         f"{len(steps) / n:7.2f} {naive_lookups(n, merges):15,d}")
    text = "\n".join(lines)
    return Rendered(f'<pre style="margin:0">{html.escape(text)}</pre>', text)


def queue_cost_figure(ranks: dict[str, int], lengths: Sequence[int] = (64, 128, 256, 512, 1024, 2048, 4096),
                      traced_up_to: int = 1024, seed: int = 0, repeat: int = 5):
    """Two panels against word length: the work (queue pops from the trace, and a rescanning loop's
    lookups), and the time of one untraced :func:`merge_word` (best of ``repeat``). Timings are taken here,
    so they change from run to run; the trace keeps a copy of the queue per pop, so pops are counted only up
    to ``traced_up_to`` characters."""
    import matplotlib.pyplot as plt

    fig, (work, clock) = plt.subplots(1, 2, figsize=(10, 4))
    markers = {"'a'*n": "o", "random": "s"}
    for c, kind in enumerate(markers):
        border, _ = PALETTE[c * 4]
        ns, pops, rescans, times = [], [], [], []
        for n in lengths:
            word = _words(n, seed)[kind]
            best = math.inf
            collecting = gc.isenabled()
            gc.disable()  # as timeit does: a collection in the middle of one run is noise, not cost
            try:
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    symbols = merge_word(word, ranks)
                    best = min(best, time.perf_counter() - t0)
            finally:
                if collecting:
                    gc.enable()
            times.append(best)
            rescans.append(naive_lookups(n, n - len(symbols)))
            if n <= traced_up_to:
                steps: list[MergeStep] = []
                merge_word(word, ranks, steps)
                ns.append(n)
                pops.append(len(steps))
        work.plot(ns, pops, marker=markers[kind], color=border, label=f"queue pops, {kind}")
        work.plot(lengths, rescans, marker=markers[kind], linestyle=":", color=border, mfc="none",
                  label=f"rescan lookups, {kind}")
        clock.plot(lengths, [t * 1e3 for t in times], marker=markers[kind], color=border, label=kind)
        if c == 0:
            ref = [times[-1] * 1e3 * (n * math.log2(n)) / (lengths[-1] * math.log2(lengths[-1])) for n in lengths]
            clock.plot(lengths, ref, linestyle="--", color="#777777", label="n log n (through the last point)")
    work.plot(lengths, [3 * n for n in lengths], linestyle="--", color="#777777", label="3n")
    for ax in (work, clock):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("word length n (characters)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, frameon=False)
    work.set_ylabel("operations")
    work.set_title("work: queue pops vs a rescanning loop")
    clock.set_ylabel(f"milliseconds (best of {repeat}, this machine)")
    clock.set_title("time of merge_word, untraced")
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------------ widget
def queue_player(frames: Sequence[Rendered], interval: int = 900):
    """Play / step through precomputed frames in the browser: a Stack of the frames, with a Play button and
    a slider linked to it in JavaScript (no kernel round trip per step)."""
    import ipywidgets as W

    stack = W.Stack([W.HTML(f.html) for f in frames], selected_index=0)
    last = max(len(frames) - 1, 0)
    play = W.Play(value=0, min=0, max=last, step=1, interval=interval, description="play")
    slider = W.IntSlider(value=0, min=0, max=last, description="frame")
    W.jslink((play, "value"), (stack, "selected_index"))
    W.jslink((slider, "value"), (stack, "selected_index"))
    return W.VBox([W.HBox([play, slider]), stack])
