"""The word cache, counted: how many merge steps a cache saves, and how often an LRU of a given size hits.

``BPEModel.word_ids`` keeps an LRU ``OrderedDict`` of word -> ids (``cache_size`` entries, 32,768 by
default). Everything here is counted, never timed, so every number is the same on every machine: queue pops
come from :func:`gguftok.models.bpe.merge_word`'s own trace, and hits and misses from :func:`simulate_lru`,
which follows ``word_ids``'s policy step for step (a test checks it leaves the same cache contents).

>>> run = simulate_lru(["a", "b", "a", "c", "b"], 2)
>>> run.hits, run.misses, list(run.cache)
(1, 4, ['c', 'b'])
"""

from __future__ import annotations

import html
import tempfile
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..models.bpe import MergeStep, merge_word
from .render import PALETTE, TEXT, Rendered, escape_visible

# The lesson's example: the merges that spell these words left to right, and one line of code repeated.
LESSON_WORDS = (" return", " value", " int", " i", ";", " +=", " =", " 0")
LESSON_LINE = "int i = 0; int value = 0; value += i; return value; "
LESSON_REPEAT = 50
SIZES = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 10_000)


def lesson_text() -> str:
    """The lesson's synthetic text: one line of code, 50 times."""
    return LESSON_LINE * LESSON_REPEAT


def lesson_tokenizer(pre: str = "gpt-2", cache_size: int = 10_000):
    """A byte-level vocabulary whose merges spell :data:`LESSON_WORDS` (built by
    :func:`gguftok.synthetic.byte_level_vocab`, written to a temporary GGUF and read back)."""
    from .. import Tokenizer
    from ..synthetic import byte_level_vocab
    from ..writer import write_tokenizer

    v = byte_level_vocab(LESSON_WORDS)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_tokenizer(Path(tmp) / "lesson.gguf", v["tokens"], model=v["model"], pre=pre,
                               token_types=v["token_types"], merges=v["merges"], special_ids=v["special_ids"])
        return Tokenizer.from_gguf(path, cache_size=cache_size)


def plain_words(tok, text: str) -> list[str]:
    """The words ``tok`` hands to BPE for ``text`` (special-token ids, if any, left out)."""
    return [w for w in tok.words(text) if isinstance(w, str)]


def pops(word: str, ranks: dict[str, int]) -> int:
    """Queue pops (merges plus skipped stale entries) for one word."""
    steps: list[MergeStep] = []
    merge_word(word, ranks, trace=steps)
    return len(steps)


@dataclass(frozen=True)
class LRURun:
    """Result of replaying word lookups through an LRU: hits, misses, pops spent on misses, final cache."""

    hits: int
    misses: int
    pops: int
    cache: OrderedDict

    @property
    def lookups(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0


def simulate_lru(words: Iterable[str], size: int | None, ranks: dict[str, int] | None = None) -> LRURun:
    """Replay ``BPEModel.word_ids``'s cache policy: a hit moves the word to the recent end; a miss inserts it
    and, past ``size`` entries, drops the least recently used one. ``size`` 0 caches nothing, ``None`` is
    unbounded. With ``ranks``, each miss also counts the queue pops that encoding the word costs."""
    cache: OrderedDict[str, None] = OrderedDict()
    hits = misses = spent = 0
    for w in words:
        if w in cache:
            hits += 1
            cache.move_to_end(w)
            continue
        misses += 1
        if ranks is not None:
            spent += pops(w, ranks)
        if size is None or size:
            cache[w] = None
            if size is not None and len(cache) > size:
                cache.popitem(last=False)
    return LRURun(hits, misses, spent, cache)


@dataclass(frozen=True)
class StepCounts:
    words: int
    tokens: int
    pops_without: int
    pops_with: int
    distinct: int
    hits: int


def step_counts(tok, text: str) -> StepCounts:
    """The lesson's measurement: queue pops encoding every word afresh, then with an unbounded cache."""
    words = plain_words(tok, text)
    ranks = tok.model.ranks
    without = sum(pops(w, ranks) for w in words)
    run = simulate_lru(words, None, ranks)
    tokens = sum(len(tok.model.symbol_ids(merge_word(w, ranks))) for w in words)
    return StepCounts(len(words), tokens, without, run.pops, len(run.cache), run.hits)


def step_counts_view(rows: Sequence[tuple[str, StepCounts]]) -> Rendered:
    """A table of :class:`StepCounts`, one row per labelled run."""
    head = ["", "words", "tokens", "pops, no cache", "pops, cache", "distinct words", "hits", "saving"]
    body = []
    for label, c in rows:
        saving = f"{c.pops_without / c.pops_with:.1f}×" if c.pops_with else "—"
        body.append([label, f"{c.words:,}", f"{c.tokens:,}", f"{c.pops_without:,}", f"{c.pops_with:,}",
                     f"{c.distinct:,}", f"{c.hits:,}", saving])
    return _table(head, body)


def _table(head: Sequence[str], body: Sequence[Sequence[str]]) -> Rendered:
    cell = "padding:2px 8px;border:1px solid #999999;text-align:right;font-family:monospace"
    h = "".join(f'<th style="{cell}">{html.escape(x)}</th>' for x in head)
    rows = "".join("<tr>" + "".join(f'<td style="{cell}">{html.escape(x)}</td>' for x in r) + "</tr>"
                   for r in body)
    widths = [max(len(str(r[i])) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(str(x).rjust(w) for x, w in zip(r, widths, strict=True)).rstrip() for r in [head, *body]]
    return Rendered(f'<table style="border-collapse:collapse">{"<tr>" + h + "</tr>"}{rows}</table>',
                    "\n".join(lines))


def hit_rates(words: Sequence[str], sizes: Sequence[int] = SIZES) -> list[LRURun]:
    """One :func:`simulate_lru` run per cache size."""
    return [simulate_lru(words, s) for s in sizes]


def hit_rate_view(words: Sequence[str], sizes: Sequence[int] = SIZES) -> Rendered:
    """Hit rate against cache size, as a table."""
    runs = hit_rates(words, sizes)
    body = [[f"{s:,}", f"{r.hits:,}", f"{r.misses:,}", f"{100 * r.hit_rate:.1f}%"] for s, r in zip(sizes, runs,
                                                                                                   strict=True)]
    return _table(["cache size", "hits", "misses", "hit rate"], body)


def hit_rate_figure(series: dict[str, Sequence[str]], sizes: Sequence[int] = SIZES):
    """Hit rate against cache size (log axis), one line per ``label -> words``, each with the ceiling an
    unbounded cache reaches (every first occurrence is a miss whatever the size)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    xs = [max(s, 0.5) for s in sizes]  # size 0 drawn at 0.5 so the log axis can show it
    for k, (label, words) in enumerate(series.items()):
        border, _ = PALETTE[(4, 5, 2, 0)[k % 4]]
        runs = hit_rates(words, sizes)
        ax.plot(xs, [100 * r.hit_rate for r in runs], marker="os^D"[k % 4], color=border,
                label=f"{label} ({len(words):,} words, {len(set(words)):,} distinct)")
        ax.axhline(100 * simulate_lru(words, None).hit_rate, linestyle="--", color=border, alpha=0.6)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cache size in words (0 drawn at 0.5)")
    ax.set_ylabel("hit rate (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title("LRU word cache: hit rate against size (dashed: unbounded)")
    fig.tight_layout()
    return fig


def frequency_view(words: Sequence[str], top: int = 15) -> Rendered:
    """The most frequent words with their counts and share of all lookups: Zipf's law in miniature."""
    counts = Counter(words)
    total = len(words)
    body = []
    for rank, (w, n) in enumerate(counts.most_common(top), 1):
        body.append([str(rank), escape_visible(w), f"{n:,}", f"{100 * n / total:.1f}%"])
    once = sum(1 for n in counts.values() if n == 1)
    t = _table(["rank", "word", "count", "share"], body)
    note = f"{len(counts):,} distinct words in {total:,}; {once:,} occur only once"
    return Rendered(f"<div>{t.html}<div>{html.escape(note)}</div></div>", f"{t.text}\n{note}")


def _box(label: str, title: str, colour: int) -> str:
    border, fill = PALETTE[colour]
    return (f'<span title="{html.escape(title, quote=True)}" style="display:inline-block;margin:1px 2px;'
            f'padding:0 3px;border:1px solid {border};border-radius:3px;background:{fill};color:{TEXT};'
            f'font-family:monospace;white-space:pre">{html.escape(label)}</span>')


def cache_state(words: Sequence[str], size: int | None, top: int = 12) -> Rendered:
    """One cache size: hit rate, and the most frequent words marked by whether they are still cached at the
    end (green, ``cached``) or were evicted (orange, ``evicted``)."""
    run = simulate_lru(words, size)
    name = "unbounded" if size is None else f"{size:,}"
    head = f"cache size {name}: {run.hits:,} hits, {run.misses:,} misses, hit rate {100 * run.hit_rate:.1f}%"
    boxes, lines = [], []
    for w, n in Counter(words).most_common(top):
        kept = w in run.cache
        tag = "cached" if kept else "evicted"
        boxes.append(_box(f"{escape_visible(w)} ×{n} {tag}", f"{tag}: {n} occurrences", 2 if kept else 5))
        lines.append(f"  [{escape_visible(w)}] x{n} {tag}")
    bar = (f'<div style="width:300px;height:10px;border:1px solid #555555;background:#EBEBEB">'
           f'<div style="width:{round(300 * run.hit_rate)}px;height:10px;background:{PALETTE[4][0]}"></div></div>')
    return Rendered(f"<div><div>{html.escape(head)}</div>{bar}<div>{''.join(boxes)}</div></div>",
                    "\n".join([head, *lines]))


def cache_states(words: Sequence[str], sizes: Sequence[int], top: int = 8) -> Rendered:
    """:func:`cache_state` for a few sizes, one under the other: what :func:`cache_explorer` shows at those
    positions of its slider, for a reader without a kernel.

    >>> print(cache_states(["a", "b", "a"], (1, 2), top=1).text)
    cache size 1: 0 hits, 3 misses, hit rate 0.0%
      [a] x2 cached
    <BLANKLINE>
    cache size 2: 1 hits, 2 misses, hit rate 33.3%
      [a] x2 cached
    """
    views = [cache_state(words, s, top) for s in sizes]
    return Rendered("".join(f'<div style="margin:4px 0">{v.html}</div>' for v in views),
                    "\n\n".join(v.text for v in views))


def cache_explorer(words: Sequence[str], sizes: Sequence[int] = SIZES, top: int = 12):
    """A slider over cache sizes; every state is drawn up front and linked in the browser (no kernel)."""
    import ipywidgets as W

    stack = W.Stack([W.HTML(cache_state(words, s, top).html) for s in sizes], selected_index=0)
    slider = W.IntSlider(value=0, min=0, max=len(sizes) - 1, description="size index")
    label = W.HTML(f"sizes: {', '.join(f'{i}→{s:,}' for i, s in enumerate(sizes))}")
    W.jslink((slider, "value"), (stack, "selected_index"))
    return W.VBox([slider, label, stack])


# The lessons whose text notebook 10 replays through a word cache, as a fixed snapshot in data/corpus/
# (written by scripts/corpus_snapshot.py), so that its figures do not move when the lessons' prose is edited.
WORKBOOK_LESSONS = ("01_gguf_metadata", "02_byte_map", "03_merge_ranks", "04_pretokenizers", "05_merge_queue",
                    "06_special_tokens")


def workbook_text_path(part: str = "markdown") -> Path:
    """Where the snapshot of lessons 01 to 06's ``markdown`` or ``code`` is: ``data/corpus/workbook-01-06-*.txt``."""
    from ..data import REPO_DATA

    if part not in ("markdown", "code"):
        raise ValueError(f"part is 'markdown' or 'code', not {part!r}")
    return REPO_DATA / "corpus" / f"workbook-01-06-{part}.txt"


def workbook_text(part: str = "markdown") -> str:
    """The snapshot of lessons 01 to 06's ``markdown`` (their prose) or ``code``, as :func:`notebook_text` read
    it from the lessons when the snapshot was written (the final newline left out)."""
    return workbook_text_path(part).read_text(encoding="utf-8").removesuffix("\n")


def notebook_text(paths: Iterable[str | Path], part: str = "markdown") -> str:
    """The ``markdown`` (comment lines of markdown cells, without ``# ``) or ``code`` cells of jupytext
    ``py:percent`` files, read as plain text and joined in the order given. Each file is read up to its
    ``## Exercises`` section: the lesson's own text, which the exercises appended later do not change."""
    out: list[str] = []
    for path in paths:
        kind = None
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if kind == "markdown" and line == "# ## Exercises":
                while part == "markdown" and out and not out[-1]:
                    out.pop()  # the blank lines between the cells, which the file ended without before
                break
            if line.startswith("# %%"):
                kind = "markdown" if "[markdown]" in line else "code"
                continue
            if kind != part:
                continue
            if part == "markdown":
                out.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
            else:
                out.append(line)
    return "\n".join(out)
