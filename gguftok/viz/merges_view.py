"""Views of a merge list (``tokenizer.ggml.merges``): ranks, look-ups, how many merges build each token,
and how llama.cpp splits a merge line. The ranks always come from :func:`gguftok.models.bpe.merge_ranks`,
the table the tokenizer itself encodes with, so a view cannot disagree with the ids.

>>> index = MergeIndex(["a b", "Ġ ab", "ab c"], {"a": 0, "b": 1, "c": 2, "Ġ": 3, "ab": 4, "Ġab": 5, "abc": 6})
>>> print(rank_lookup(index, "a b").text)
pair "a" + "b": rank 0 -> "ab" (id 4)
>>> print(rank_lookup(index, "abc").text)
"abc" (id 6) is built by 1 merge:
  rank 2: "ab" + "c"
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..bytemap import BYTE_TO_CHAR, bytes_to_text, text_to_bytes
from ..models.bpe import merge_ranks, split_merge
from .render import PALETTE, TEXT, Rendered, _chip, escape_visible

_NORMAL = 1  # GGUF token type "normal"


def as_text(vocab_text: str) -> str:
    """What a byte-level vocabulary text reads as (``Ġt`` -> `` t``), or the text itself when it is not in
    the byte-to-unicode form. Bytes that are not whole UTF-8 characters become U+FFFD."""
    try:
        return text_to_bytes(vocab_text).decode("utf-8", "replace")
    except KeyError:
        return vocab_text


@dataclass(frozen=True)
class Merge:
    """One entry of the merge list: its rank (position), its two sides, and the id of what it builds."""

    rank: int
    left: str
    right: str
    token_id: int | None

    @property
    def merged(self) -> str:
        return self.left + self.right


@dataclass
class MergeIndex:
    """A merge list with the look-ups the views need: pair -> rank (``merge_ranks``), and merged text ->
    every rank that builds it. Build it once per vocabulary (the reverse index takes a moment on 280,000
    merges) and hand it to the views and widgets."""

    merges: Sequence[str]
    token_to_id: Mapping[str, int]
    normal: frozenset[str] = frozenset()  # texts of the tokens of GGUF type "normal"
    byte_level: bool = True
    ranks: dict[str, int] = field(init=False, repr=False)
    by_result: dict[str, list[int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.ranks = merge_ranks(self.merges)
        by_result: dict[str, list[int]] = {}
        for rank, line in enumerate(self.merges):
            sides = split_merge(line)
            if sides is not None and self.ranks.get(line) == rank:  # a later duplicate never fires
                by_result.setdefault(sides[0] + sides[1], []).append(rank)
        self.by_result = by_result

    @classmethod
    def from_tokenizer(cls, tok) -> MergeIndex:
        v = tok.vocab
        normal = frozenset(t for t, kind in zip(v.texts, v.types, strict=True) if kind == _NORMAL)
        byte_level = bool(getattr(v.pre_config, "byte_encode", True))
        return cls(list(v.merges), v.token_to_id, normal, byte_level)

    def merge(self, rank: int) -> Merge:
        sides = split_merge(self.merges[rank]) or ("", "")
        return Merge(rank, sides[0], sides[1], self.token_to_id.get(sides[0] + sides[1]))

    def paths(self, text: str) -> list[int]:
        """The ranks of every merge that builds ``text`` (empty for a single byte or a non-token)."""
        return self.by_result.get(text, [])

    def paths_per_token(self) -> Counter:
        """``{merged text: how many merges build it}``."""
        return Counter({t: len(r) for t, r in self.by_result.items()})


# ----------------------------------------------------------------------------------------------- views
def _q(s: str) -> str:
    return '"' + escape_visible(s) + '"'


def _cell(content: str, right: bool = False) -> str:
    align = "text-align:right;" if right else ""
    return f"<td style='{align}padding:0 6px;font-family:monospace'>{content}</td>"


def _tok(text: str, colour: int, index: MergeIndex) -> str:
    tid = index.token_to_id.get(text)
    title = (f"id {tid}" if tid is not None else "not a token") + (
        f" · reads as {escape_visible(as_text(text))!r}" if index.byte_level else "")
    return _chip(escape_visible(text), title, colour)


def first_merges(index: MergeIndex, start: int = 0, count: int = 8) -> Rendered:
    """``count`` merges from rank ``start``: the two sides, what they build, what that reads as, its id."""
    start = max(0, min(start, len(index.merges) - 1))
    rows = [index.merge(r) for r in range(start, min(start + count, len(index.merges)))]
    head = f"merges {start}..{start + len(rows) - 1} of {len(index.merges):,}"
    lines, cells = [head], []
    for m in rows:
        tid = "-" if m.token_id is None else str(m.token_id)
        gap = "" if m.token_id is None else f"  (id - rank = {m.token_id - m.rank})"
        reads = f"  reads {_q(as_text(m.merged))}" if index.byte_level else ""
        lines.append(f"rank {m.rank}: {_q(m.left)} + {_q(m.right)} -> {_q(m.merged)}{reads}  id {tid}{gap}")
        cells.append("<tr>" + _cell(str(m.rank), True) + _cell(_tok(m.left, 0, index)) + _cell("+")
                     + _cell(_tok(m.right, 1, index)) + _cell("→") + _cell(_tok(m.merged, 2, index))
                     + _cell(html.escape(escape_visible(as_text(m.merged))) if index.byte_level else "")
                     + _cell(tid, True) + "</tr>")
    table = ("<table><tr><th>rank</th><th>left</th><th></th><th>right</th><th></th><th>merged</th>"
             "<th>reads as</th><th>token id</th></tr>" + "".join(cells) + "</table>")
    return Rendered(f"<div>{html.escape(head)}</div>{table}", "\n".join(lines))


def rank_lookup(index: MergeIndex, query: str, limit: int = 12) -> Rendered:
    """The rank of a pair (``"Ġ t"``: two vocabulary texts and a space, split as llama.cpp splits a merge
    line) or every merge that builds a text (``"Ġt"``; in a byte-level vocabulary plain text such as
    ``" t"`` works too)."""
    lines: list[str] = []
    if not query:
        lines.append('type a pair such as "Ġ t" or a merged text such as "Ġt"')
    elif (sides := split_merge(query)) is not None:
        left, right = sides
        rank = index.ranks.get(query)
        merged = left + right
        if rank is not None:
            tid = index.token_to_id.get(merged)
            lines.append(f"pair {_q(left)} + {_q(right)}: rank {rank} -> {_q(merged)} (id {tid})")
        else:
            lines.append(f"pair {_q(left)} + {_q(right)}: no merge")
            lines += _built_by(index, merged, limit)
    else:
        text = query
        if index.byte_level and not index.paths(text) and text not in index.token_to_id:
            converted = bytes_to_text(query.encode("utf-8"))
            if converted != query:
                lines.append(f"{_q(query)} in vocabulary form is {_q(converted)}")
                text = converted
        lines += _built_by(index, text, limit)
    body = "".join(f"<div style='font-family:monospace;white-space:pre'>{html.escape(line)}</div>"
                   for line in lines)
    border, fill = PALETTE[4]
    box = (f"<div style='border:1px solid {border};background:{fill};color:{TEXT};padding:4px 6px;"
           f"border-radius:3px'>{body}</div>")
    return Rendered(box, "\n".join(lines))


def rank_lookups(index: MergeIndex, queries: Sequence[str]) -> Rendered:
    """Several :func:`rank_lookup` answers, one after another."""
    views = [rank_lookup(index, q) for q in queries]
    return Rendered("".join(f"<div style='margin:2px 0'>{v.html}</div>" for v in views),
                    "\n".join(v.text for v in views))


def _built_by(index: MergeIndex, text: str, limit: int) -> list[str]:
    tid = index.token_to_id.get(text)
    ranks = index.paths(text)
    if not ranks:
        if tid is None:
            return [f"{_q(text)} is not a token of this vocabulary"]
        if text in BYTE_TO_CHAR or len(text) == 1:
            return [f"{_q(text)} (id {tid}) is a single symbol: no merge builds it, merging starts from it"]
        return [f"{_q(text)} (id {tid}) is a token that no merge builds"]
    out = [f"{_q(text)} (id {tid}) is built by {len(ranks)} merge{'s' if len(ranks) > 1 else ''}:"]
    for r in ranks[:limit]:
        m = index.merge(r)
        out.append(f"  rank {r}: {_q(m.left)} + {_q(m.right)}")
    if len(ranks) > limit:
        out.append(f"  ... and {len(ranks) - limit} more")
    return out


def parse_merge_lines(lines: Sequence[str]) -> Rendered:
    """How llama.cpp reads each line of a merge list: where it splits, which pair it registers, and which
    rank :func:`~gguftok.models.bpe.merge_ranks` keeps for it (the first occurrence of a pair wins)."""
    ranks = merge_ranks(lines)
    out, cells = [], []
    for i, line in enumerate(lines):
        sides = split_merge(line)
        if sides is None:
            split, pair = "no space at index >= 1", "(empty pair)"
            kept = ranks.get(" ")
            verdict = "registers the empty pair: no look-up can reach it"
        else:
            split = f"space at index {line.find(' ', 1)}"
            pair = f"{_q(sides[0])} + {_q(sides[1])}"
            kept = ranks.get(line)
            if kept != i:
                verdict = f"duplicate: rank {kept} was registered first and stays"
            elif " " in sides[1]:
                verdict = "the right side holds a space: no look-up can reach it"
            else:
                verdict = f"rank {i}"
        if sides is None and kept != i:
            verdict = f"duplicate empty pair: rank {kept} stays"
        out.append(f"{i}: {_q(line):14s} {split:24s} {pair:22s} {verdict}")
        colour = 2 if verdict == f"rank {i}" else 5
        cells.append("<tr>" + _cell(str(i), True) + _cell(_chip(escape_visible(line), "the merge line", colour))
                     + _cell(html.escape(split)) + _cell(html.escape(pair)) + _cell(html.escape(verdict)) + "</tr>")
    table = ("<table><tr><th>rank</th><th>line (␣ = space)</th><th>split</th><th>pair</th><th>result</th></tr>"
             + "".join(cells) + "</table>")
    return Rendered(table, "\n".join(out))


# ----------------------------------------------------------------------------------------------- facts
@dataclass(frozen=True)
class MergeFacts:
    """What a merge list says about its vocabulary, computed from the file."""

    n_merges: int
    n_tokens: int
    n_normal: int
    n_results: int  # distinct texts the merges build
    results_are_normal: bool  # every merged text is a normal token
    normal_not_built: int  # normal tokens that no merge builds
    normal_not_built_are_bytes: bool  # ... and they are exactly the 256 single-byte characters
    max_paths: int
    most_paths: tuple[str, ...]  # the tokens built by max_paths merges
    id_is_rank_plus_256: int  # merges whose token id is rank + 256
    uses_later_side: int  # merges with a side that only a later merge builds
    paths_histogram: tuple[tuple[int, int], ...]  # (merges per token, how many tokens)
    # the first merge with a side that only a later merge builds: (its rank, that side, the side's first rank)
    first_later_side: tuple[int, str, int] | None = None


def merge_facts(index: MergeIndex) -> MergeFacts:
    """Count what the merge list builds and compare it with the normal tokens."""
    per_token = index.paths_per_token()
    results = set(per_token)
    not_built = index.normal - results
    hist = Counter(per_token.values())
    top = max(hist) if hist else 0
    first_built = {text: ranks[0] for text, ranks in index.by_result.items()}
    rank_plus = later = 0
    first_later: tuple[int, str, int] | None = None
    for r in range(len(index.merges)):
        m = index.merge(r)
        rank_plus += m.token_id is not None and m.token_id == r + 256
        late = [side for side in (m.left, m.right) if first_built.get(side, -1) > r]
        later += bool(late)
        if late and first_later is None:
            first_later = (r, late[0], first_built[late[0]])
    return MergeFacts(
        n_merges=len(index.merges), n_tokens=len(index.token_to_id), n_normal=len(index.normal),
        n_results=len(results), results_are_normal=results <= index.normal, normal_not_built=len(not_built),
        normal_not_built_are_bytes=not_built == set(BYTE_TO_CHAR),
        max_paths=top, most_paths=tuple(sorted(t for t, n in per_token.items() if n == top)),
        id_is_rank_plus_256=rank_plus, uses_later_side=later, paths_histogram=tuple(sorted(hist.items())),
        first_later_side=first_later)


def format_merge_facts(name: str, f: MergeFacts) -> str:
    """The facts as a few plain lines."""
    lines = [f"{name}: {f.n_merges:,} merges, {f.n_tokens:,} tokens ({f.n_normal:,} normal)",
             f"  distinct merged texts: {f.n_results:,}; all of them normal tokens: {f.results_are_normal}",
             f"  normal tokens no merge builds: {f.normal_not_built:,}; exactly the 256 byte characters: "
             f"{f.normal_not_built_are_bytes}",
             f"  {f.n_results:,} + {f.normal_not_built:,} = {f.n_results + f.normal_not_built:,} "
             f"(normal tokens: {f.n_normal:,})",
             f"  merges per merged token: at most {f.max_paths}"
             + (f", reached by {len(f.most_paths)} tokens: "
                + ", ".join(f"{_q(t[0])} x {len(t)}" if len(set(t)) == 1 else _q(t) for t in f.most_paths)
                if f.max_paths > 1 else ""),
             f"  merges whose token id is rank + 256: {f.id_is_rank_plus_256:,} of {f.n_merges:,}",
             f"  merges with a side that only a later merge builds: {f.uses_later_side:,}"
             + (f"; the first is rank {f.first_later_side[0]}, whose side {_q(f.first_later_side[1])} is first "
                f"built at rank {f.first_later_side[2]}" if f.first_later_side else "")]
    if f.max_paths > 1:
        lines.append("  a text of n characters splits in at most n - 1 ways: "
                     + ", ".join(f"{_q(t[0])} x {len(t)} has {f.max_paths} of {len(t) - 1}" if len(set(t)) == 1
                                 else f"{_q(t)} has {f.max_paths} of {len(t) - 1}" for t in f.most_paths))
    if f.max_paths > 1:
        lines.append("  tokens by number of merges that build them: "
                     + ", ".join(f"{k}: {n:,}" for k, n in f.paths_histogram[:6]) + ", ...")
    return "\n".join(lines)


def scan_merge_lines(folder=None) -> dict[str, dict[str, int]]:
    """For every fetched vocabulary with a merge list: how many lines start with a space, hold more than one
    space, have no space at index >= 1, or repeat an earlier pair (the cases the parsing rule decides)."""
    from ..data import vocab_dir
    from ..metadata import read_metadata

    out = {}
    for path in sorted(Path(folder or vocab_dir()).glob("ggml-vocab-*.gguf")):
        merges = read_metadata(path).get("tokenizer.ggml.merges")
        if merges is None:
            continue
        merges = list(merges)
        out[path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")] = {
            "merges": len(merges),
            "leading space": sum(m.startswith(" ") for m in merges),
            "2+ spaces": sum(m.count(" ") > 1 for m in merges),
            "no split": sum(split_merge(m) is None for m in merges),
            "duplicates": len(merges) - len(merge_ranks(merges)),
        }
    return out


def format_merge_scan(scan: Mapping[str, Mapping[str, int]]) -> str:
    """A plain table of :func:`scan_merge_lines`."""
    cols = ["merges", "leading space", "2+ spaces", "no split", "duplicates"]
    width = max(map(len, scan)) if scan else 4
    lines = [f"{'':{width}s} " + " ".join(f"{c:>13s}" for c in cols)]
    lines += [f"{name:{width}s} " + " ".join(f"{row[c]:>13,d}" for c in cols) for name, row in scan.items()]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- figure
def paths_figure(indexes: Mapping[str, MergeIndex]):
    """Left: how many tokens are built by 1, 2, 3, ... merges, per vocabulary (log scale). Right: for the
    last vocabulary, merges per token against the token's length, under the ceiling length - 1 (a text of
    n characters splits into two non-empty sides in n - 1 ways)."""
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    markers = ["o", "s", "^", "D"]
    for k, (name, index) in enumerate(indexes.items()):
        hist = sorted(Counter(index.paths_per_token().values()).items())
        border, _ = PALETTE[(4, 5, 2, 0)[k % 4]]
        ax1.plot([h for h, _ in hist], [n for _, n in hist], marker=markers[k % 4], ms=4, ls="none",
                 color=border, label=name)
    ax1.set_yscale("log")
    ax1.set_xlabel("merges that build the token")
    ax1.set_ylabel("tokens (log scale)")
    ax1.legend(frameon=False)
    ax1.grid(alpha=0.3)

    name, index = list(indexes.items())[-1]
    per = index.paths_per_token()
    pairs = Counter((len(t), n) for t, n in per.items())
    xs, ys, sizes = zip(*[(x, y, 4 + 3 * c ** 0.5) for (x, y), c in pairs.items()], strict=True)
    border, fill = PALETTE[5]
    ax2.scatter(xs, ys, s=sizes, color=fill, edgecolors=border, linewidths=0.6, label=f"{name} tokens")
    top = max(xs)
    ax2.plot([2, top], [1, top - 1], ls="--", color="#555555", lw=1, label="ceiling: length - 1")
    ax2.set_xlabel("token length (characters of the vocabulary text)")
    ax2.set_ylabel("merges that build it")
    ax2.legend(frameon=False, loc="upper left")
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------- widgets
def rank_lookup_widget(index: MergeIndex, value: str = "Ġ t"):
    """A text box over :func:`rank_lookup`: type a pair (``Ġ t``) or a merged text (``Ġt``, `` the``)."""
    import ipywidgets as W

    query = W.Text(value=value, placeholder="a pair such as Ġ t, or a text such as Ġt", description="look up")
    out = W.HTML()

    def update(*_):
        out.value = rank_lookup(index, query.value).html

    query.observe(update, names="value")
    update()
    return W.VBox([query, out])


def merge_list_widget(index: MergeIndex, count: int = 12):
    """A rank box over :func:`first_merges`: page through the merge list from any rank."""
    import ipywidgets as W

    start = W.BoundedIntText(value=0, min=0, max=max(0, len(index.merges) - 1), step=count, description="from rank")
    out = W.HTML()

    def update(*_):
        out.value = first_merges(index, start.value, count).html

    start.observe(update, names="value")
    update()
    return W.VBox([start, out])
