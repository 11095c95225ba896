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

The student's own ``merge_word`` (``mytok/merge_queue.py``) can be played beside gguftok's: given a list as
its keyword ``trace``, it appends one tuple ``(rank, position, left, right, merged)`` per pop, and
:func:`beside_frames` / :func:`beside_table` replay those pops next to gguftok's, marking the first one that
differs. Until the student has written it, both say so in one frame.

>>> def mine(word, ranks, *, trace=None):
...     raise NotImplementedError
>>> print(beside_table("lower", ranks, mine).text)  # doctest: +NORMALIZE_WHITESPACE
merge_word('lower'): your merge_word (mytok/merge_queue.py) is not written yet: it still raises
NotImplementedError; write it, save the file, and run this again
"""

from __future__ import annotations

import gc
import html
import math
import random
import string
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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


# ------------------------------------------------------------------------------------- any word, any vocabulary
TOY_LABEL = "toy merges"


def word_frames(model, text: str, *, top: int = 6) -> list[Rendered]:
    """The frames of every word of ``text``, one word after the other: ``model`` is a byte-level BPE
    :class:`~gguftok.Tokenizer` (the words its pre-tokenizer makes, each from :meth:`Tokenizer.trace
    <gguftok.Tokenizer.trace>`) or a toy merge table (``{"l o": 0, ...}``; the words are cut at whitespace).
    With several words each frame is headed by the word it shows.

    >>> from gguftok.models.bpe import merge_ranks
    >>> frames = word_frames(merge_ranks(["l o", "lo w"]), "low ow")
    >>> len(frames), frames[0].text.splitlines()[0]
    (4, "word 1 of 2: 'low'")
    """
    if isinstance(model, dict):
        runs = [(w, queue_frames(w, model, top=top)) for w in text.split()]
    else:
        runs = [(wt.word, trace_frames(model, wt, top=top)) for wt in model.trace(text)]
    if not runs:
        msg = "type a word: its merges, pop by pop, play here"
        return [Rendered(f'<div style="{_BOX}">{html.escape(msg)}</div>', msg)]
    if len(runs) == 1:
        return runs[0][1]
    out = []
    for k, (word, frames) in enumerate(runs, 1):
        head = f"word {k} of {len(runs)}: {escape_visible(word)!r}"
        for f in frames:
            out.append(Rendered(f'<div style="font-weight:bold">{html.escape(head)}</div>{f.html}',
                                f"{head}\n{f.text}"))
    return out


def byte_level_vocabs(folder=None) -> dict[str, object]:
    """``{short name: path}`` of the byte-level BPE vocabularies among the fetched ``ggml-vocab-*.gguf``
    (``tokenizer.ggml.model`` is ``gpt2``), read from each file's metadata once."""
    from .widgets import vocab_models

    return {name: path for name, (path, model) in vocab_models(folder).items() if model == "gpt2"}


def queue_explorer(word: str = " tokenization", vocab: str = "qwen2", toy: dict[str, int] | None = None, *,
                   folder=None, interval: int = 900):
    """A word box, a vocabulary choice (the byte-level BPE vocabularies, and ``toy`` merges when given) and a
    speed control over :func:`word_frames`: type any word and play its merge queue. Each vocabulary is loaded
    on first choice and kept."""
    import ipywidgets as W

    from ..tokenizer import Tokenizer

    files = byte_level_vocabs(folder)
    options = ([TOY_LABEL] if toy is not None else []) + list(files)
    box = W.Text(value=word, description="word", continuous_update=True)
    choice = W.Dropdown(options=options, value=vocab if vocab in options else options[0], description="vocabulary")
    loaded: dict[str, object] = {}

    def frames(text: str, name: str) -> list[Rendered]:
        if name == TOY_LABEL:
            return word_frames(toy, text)
        if name not in loaded:
            loaded[name] = Tokenizer.from_gguf(files[name])
        return word_frames(loaded[name], text)

    from .widgets import frames_player

    return frames_player(frames, [box, choice], interval=interval)


# ------------------------------------------------------------------------------------ yours beside gguftok's
Pop = tuple[int, int, str, str, bool]  # one pop of the student's trace: (rank, position, left, right, merged)


@dataclass(frozen=True)
class YourRun:
    """The student's ``merge_word`` on one word: what it returned and the pops it recorded, or why there is
    nothing to play (``problem``: not written yet, an exception, no trace)."""

    word: str
    symbols: list[str] | None = None
    pops: list[Pop] = field(default_factory=list)
    problem: str | None = None


def _student_merge_word() -> tuple[Callable[..., object] | None, str | None]:
    """The student's ``merge_word``, read afresh from their package, or why it cannot be had."""
    from ..errors import WorkspaceError
    from ..exercises.workspace import load

    try:
        module = load("merge_queue")
    except WorkspaceError as e:
        return None, str(e)
    except Exception as e:  # the student's module raised while it was imported
        return None, f"mytok/merge_queue.py raised {type(e).__name__} when imported: {e}"
    fn = getattr(module, "merge_word", None)
    if not callable(fn):
        return None, "mytok/merge_queue.py has no merge_word: keep the name the template gave it"
    return fn, None


def _bad_pop(pop: object) -> bool:
    return not (isinstance(pop, tuple | list) and len(pop) == 5 and isinstance(pop[0], int)
                and isinstance(pop[1], int) and isinstance(pop[2], str) and isinstance(pop[3], str)
                and isinstance(pop[4], bool))


def run_yours(word: str, ranks: dict[str, int], mine: Callable[..., object] | None = None) -> YourRun:
    """Run the student's ``merge_word`` (``mine``, default: the one in their package now) on ``word`` with a
    trace; never raises for the student's mistakes, it says what went wrong in ``problem``."""
    if mine is None:
        mine, problem = _student_merge_word()
        if mine is None:
            return YourRun(word, problem=problem)
    pops: list = []
    try:
        symbols = mine(word, ranks, trace=pops)
    except NotImplementedError:
        return YourRun(word, problem="your merge_word (mytok/merge_queue.py) is not written yet: it still raises "
                                     "NotImplementedError; write it, save the file, and run this again")
    except TypeError as e:
        if "trace" in str(e):
            return YourRun(word, problem="your merge_word takes no keyword trace: keep the template's signature, "
                                         "merge_word(word, ranks, *, trace=None)")
        return YourRun(word, problem=f"your merge_word raised TypeError: {e}")
    except Exception as e:
        return YourRun(word, problem=f"your merge_word raised {type(e).__name__}: {e}")
    if symbols is Ellipsis:
        return YourRun(word, problem="your merge_word (mytok/merge_queue.py) is not written yet: it returns ...; "
                                     "write it, save the file, and run this again")
    bad = next((k for k, p in enumerate(pops) if _bad_pop(p)), None)
    if bad is not None:
        return YourRun(word, problem=f"entry {bad} of your trace is {short_repr(pops[bad])}, not a tuple "
                                     "(rank, position, left, right, merged)")
    shown = list(symbols) if isinstance(symbols, list | tuple) else None
    if shown is None:
        return YourRun(word, problem=f"your merge_word returned {short_repr(symbols)}, not a list of symbols")
    return YourRun(word, shown, [tuple(p) for p in pops])


def short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass(frozen=True)
class _Replayed:
    symbols: list[str]  # after the pop
    new_at: int | None  # index of the symbol it made
    note: str  # why a pop recorded as merged could not be applied to these symbols ("" when it could)


def replay(word: str, pops: Sequence[Pop]) -> list[_Replayed]:
    """The symbols after each of the student's pops, rebuilt from the pops alone: a merged pop joins the symbol
    that starts at its ``position`` with the next one, when they are its ``left`` and ``right``.

    >>> [r.symbols for r in replay("abc", [(0, 1, "b", "c", True), (5, 0, "a", "b", False)])]
    [['a', 'bc'], ['a', 'bc']]
    """
    syms, starts = list(word), list(range(len(word)))
    out = []
    for _rank, pos, left, right, merged in pops:
        new_at, note = None, ""
        if merged:
            k = starts.index(pos) if pos in starts else -1
            if 0 <= k < len(syms) - 1 and syms[k] == left and syms[k + 1] == right:
                syms[k:k + 2] = [left + right]
                del starts[k + 1]
                new_at = k
            else:
                note = (f"recorded as merged, but these symbols have no {escape_visible(left)}+"
                        f"{escape_visible(right)} at position {pos}")
        out.append(_Replayed(list(syms), new_at, note))
    return out


def _ref_pops(word: str, ranks: dict[str, int]) -> tuple[list[str], list[MergeStep], list[tuple[int, str, str, bool]]]:
    steps: list[MergeStep] = []
    symbols = merge_word(word, ranks, steps)
    pops = []
    for s in steps:
        left, right = split_pair(s.pair, s.rank, ranks) or (s.pair, "")
        pops.append((s.rank, left, right, s.merged))
    return symbols, steps, pops


def _pop_text(rank: int, left: str, right: str, merged: bool, pos: int | None = None) -> str:
    at = f" at {pos}" if pos is not None else ""
    return f"r{rank} {escape_visible(left)}+{escape_visible(right)}{at} {'merged' if merged else 'skipped'}"


def _first_difference(ref_pops, ref_steps, your_pops, your_states) -> int | None:
    """The index of the first pop where the two runs part (other pop, or other symbols after it), else None."""
    for k in range(max(len(ref_pops), len(your_pops))):
        if k >= len(ref_pops) or k >= len(your_pops):
            return k
        rank, _, left, right, merged = your_pops[k]
        if (rank, left, right, merged) != ref_pops[k] or your_states[k].symbols != ref_steps[k].symbols \
                or your_states[k].note:
            return k
    return None


def _symbols_text(symbols: Sequence[str]) -> str:
    return " ".join(f"[{escape_visible(s)}]" for s in symbols)


def _message(word: str, text: str) -> Rendered:
    full = f"merge_word({escape_visible(word)!r}): {text}"
    body = (f'<div style="{_BOX};border-color:{_GREY_BORDER};background:{_GREY_FILL};color:{TEXT}">'
            f"{html.escape(full)}</div>")
    return Rendered(body, full)


def _no_pops_problem(run: YourRun, ref_symbols: list[str], ref_steps: list[MergeStep]) -> str | None:
    if run.problem:
        return run.problem
    if not run.pops and ref_steps:
        return (f"your merge_word returned {short_repr(run.symbols)} (gguftok's: {short_repr(ref_symbols)}) but "
                "recorded no pops: append (rank, position, left, right, merged) to trace at each pop to see them here")
    return None


def beside_table(word: str, ranks: dict[str, int], mine: Callable[..., object] | None = None) -> Rendered:
    """The student's pops beside gguftok's, one line per pop, the first that differs marked; or one line saying
    why there is nothing to show (the student's ``merge_word`` is not written yet, say). ``mine`` defaults to
    the ``merge_word`` of the student's package as it is on disk now."""
    run = run_yours(word, ranks, mine)
    ref_symbols, ref_steps, ref_pops = _ref_pops(word, ranks)
    problem = _no_pops_problem(run, ref_symbols, ref_steps)
    if problem:
        return _message(word, problem)
    states = replay(word, run.pops)
    first = _first_difference(ref_pops, ref_steps, run.pops, states)
    n_ref, n_yours = len(ref_pops), len(run.pops)
    if first is None and run.symbols == ref_symbols:
        verdict = f"the same {n_ref} pops in the same order" if n_ref else "no pops on either side"
    elif first is None:
        verdict = f"the same {n_ref} pops, but your merge_word returned other symbols than its own trace makes"
    else:
        verdict = f"gguftok's {n_ref} pops, yours {n_yours}: the first difference is pop {first + 1}"
    rows = []
    for k in range(max(n_ref, n_yours)):
        ref = _pop_text(*ref_pops[k]) if k < n_ref else "(no more pops)"
        if k < n_yours:
            rank, pos, left, right, merged = run.pops[k]
            yours = _pop_text(rank, left, right, merged, pos)
        else:
            yours = "(no more pops)"
        mark = "<- first difference" if k == first else ""
        note = states[k].note if k < n_yours and states[k].note else ""
        rows.append((str(k + 1), ref, yours, "; ".join(x for x in (mark, note) if x)))
    head = ("pop", "gguftok's", "yours", "")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    lines = [f"merge_word({escape_visible(word)!r}) beside gguftok's: {verdict}"]
    for r in [head, *rows]:
        lines.append(f"{r[0]:>{widths[0]}s}  {r[1]:{widths[1]}s}  {r[2]:{widths[2]}s}  {r[3]}".rstrip())
    lines.append(f"symbols: gguftok's {_symbols_text(ref_symbols)}; yours {_symbols_text(run.symbols or [])}")
    cells = ""
    for r in rows:
        bad = r[3].startswith("<-")
        style = (f"padding:0 8px;font-family:monospace;white-space:pre;border:1px solid {PALETTE[5][0]};"
                 f"background:{PALETTE[5][1]};color:{TEXT}" if bad else
                 "padding:0 8px;font-family:monospace;white-space:pre")
        cells += "<tr>" + "".join(f"<td style='{style}'>{html.escape(c)}</td>" for c in r) + "</tr>"
    table = (f"<div>{html.escape(lines[0])}</div><table><tr>"
             + "".join(f"<th>{html.escape(h)}</th>" for h in head) + f"</tr>{cells}</table>"
             f"<div>{html.escape(lines[-1])}</div>")
    return Rendered(table, "\n".join(lines))


def _your_frame(k: int, n: int, run: YourRun, states: list[_Replayed]) -> tuple[str, str]:
    """(html, text) of the student's side after their pop ``k`` (0: the start)."""
    label = 'style="display:inline-block;width:5.5em;font-weight:bold"'
    if k == 0:
        head, symbols, new_at = f"start: {len(run.word)} symbols", list(run.word), None
    elif k <= len(run.pops):
        rank, pos, left, right, merged = run.pops[k - 1]
        state = states[k - 1]
        head = f"pop {k} of {n}: " + _pop_text(rank, left, right, merged, pos)
        if state.note:
            head += f" ({state.note})"
        symbols, new_at = state.symbols, state.new_at
    else:
        head = f"(your trace ended after {len(run.pops)} pops)"
        symbols, new_at = (states[-1].symbols if states else list(run.word)), None
    upcoming = [_pop_text(p[0], p[2], p[3], p[4]) for p in run.pops[k:k + 6]]
    more = len(run.pops) - k - len(upcoming)
    nxt = " | ".join(upcoming) + (f" | ... +{more} more" if more > 0 else "") if upcoming else "(none)"
    sym_html, sym_text = _symbol_chips(symbols, new_at)
    body = (f'<div style="{_BOX}"><div style="font-weight:bold">yours</div><div>{html.escape(head)}</div>'
            f"<div><span {label}>symbols</span>{sym_html}</div>"
            f'<div><span {label}>next pops</span><span style="font-family:monospace">{html.escape(nxt)}</span>'
            "</div></div>")
    return body, f"yours: {head}\nsymbols: {sym_text}\nnext pops: {nxt}"


def beside_frames(word: str, ranks: dict[str, int], mine: Callable[..., object] | None = None, *,
                  top: int = 6) -> list[Rendered]:
    """Frames for :func:`queue_player`: gguftok's frame of each pop (its queue included) beside the student's
    (their pop, the symbols it leaves, and the pops their trace has next), with a line on top saying whether
    the two pops agree. A single frame says why, when the student's ``merge_word`` cannot be played yet."""
    run = run_yours(word, ranks, mine)
    ref_symbols, ref_steps, ref_pops = _ref_pops(word, ranks)
    problem = _no_pops_problem(run, ref_symbols, ref_steps)
    if problem:
        return [_message(word, problem)]
    states = replay(word, run.pops)
    first = _first_difference(ref_pops, ref_steps, run.pops, states)
    ref_frames = queue_frames(word, ranks, ref_steps, top=top)
    n = max(len(ref_steps), len(run.pops))
    frames = []
    for k in range(n + 1):
        if k == 0:
            where = ("the same pops all the way" if first is None else f"the first difference is pop {first + 1}")
            verdict, bad = f"gguftok's {len(ref_steps)} pops, yours {len(run.pops)}: {where}", False
        elif first is None or k - 1 < first:
            verdict, bad = f"pop {k}: the same", False
        elif k - 1 == first:
            verdict, bad = f"pop {k}: the first difference", True
        else:
            verdict, bad = f"pop {k}: after the first difference (pop {first + 1})", True
        if k < len(ref_frames):
            left = ref_frames[k]
        else:
            left = Rendered(f'<div style="{_BOX}">(gguftok\'s queue was empty after {len(ref_steps)} pops)</div>',
                            f"(gguftok's queue was empty after {len(ref_steps)} pops)")
        right_html, right_text = _your_frame(k, n, run, states)
        border, fill = PALETTE[5] if bad else PALETTE[2]
        body = (f'<div style="padding:2px 6px;border:1px solid {border};border-radius:3px;background:{fill};'
                f'color:{TEXT};font-weight:bold">{html.escape(verdict)}</div>'
                '<div style="display:flex;flex-wrap:wrap;gap:8px">'
                f'<div style="flex:1 1 24em"><div style="font-weight:bold">gguftok\'s</div>{left.html}</div>'
                f'<div style="flex:1 1 24em">{right_html}</div></div>')
        frames.append(Rendered(body, f"{verdict}\ngguftok's: {left.text}\n{right_text}"))
    return frames
