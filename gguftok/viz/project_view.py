"""The whole tokenizer in one object (notebook 12): the lesson's self-test, the pipeline map, one text traced
end to end, agreement with llama.cpp's recorded answers, and tokens per character across vocabularies.

Every function returns a :class:`~gguftok.viz.render.Rendered` (or plain data); HTML uses inline styles only,
every token text is escaped, and coloured boxes set their own text colour and a border.
"""

from __future__ import annotations

import html
import os
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from .render import PALETTE, TEXT, Rendered, escape_visible

# The lesson's alphabet for random round-trip strings: ASCII, accents, CJK, an emoji, tab, newline, <|>.
ALPHABET = "abc XYZ 012 éü 世界 😀\n\t<|>"
LESSON_TEXTS = ("Hello world", "Hello the cat", "2026", "héllo 😀")
CHAT = "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"
LESSON_FILE_BYTES = 4693

# (step, module, what it does)
PIPELINE = [
    ("read metadata", "gguftok.metadata", "decode the GGUF key/value list, never the tensors"),
    ("build the vocabulary", "gguftok.vocab", "token texts, types, scores, merge ranks, BOS/EOS/EOG rules"),
    ("split out special tokens", "gguftok.special", "control and user-defined texts become ids (parse_special)"),
    ("pre-tokenize", "gguftok.pretokenize", "the regex of tokenizer.ggml.pre cuts text into words"),
    ("merge", "gguftok.models.bpe", "each word: bytes to symbols, then merges lowest rank first"),
    ("detokenize", "gguftok.detokenize", "ids back to bytes, as llama_detokenize"),
    ("stream", "gguftok.stream", "ids to text one at a time, holding back partial characters"),
]


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _pre(text: str) -> Rendered:
    return Rendered(f'<pre style="font-family:monospace;color:inherit">{_e(text)}</pre>', text)


def _box(label: str, colour: int) -> str:
    border, fill = PALETTE[colour % len(PALETTE)]
    return (f'<span style="display:inline-block;margin:1px 2px;padding:1px 4px;border:1px solid {border};'
            f'border-radius:3px;background:{fill};color:{TEXT};font-family:monospace;white-space:pre">'
            f'{_e(label)}</span>')


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], caption: str = "") -> Rendered:
    cell = 'style="border:1px solid #999999;padding:2px 6px;text-align:left;font-family:monospace"'
    head = "".join(f"<th {cell}>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {cell}>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    cap = f'<caption style="color:inherit">{_e(caption)}</caption>' if caption else ""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
             for r in [header, *rows]]
    text = (caption + "\n" if caption else "") + "\n".join(lines)
    return Rendered(f'<table style="border-collapse:collapse;color:inherit">{cap}<tr>{head}</tr>{body}</table>',
                    text)


# ------------------------------------------------------------------------------------------- self-test
def random_strings(n: int = 300, seed: int = 17, alphabet: str = ALPHABET) -> list[str]:
    """``n`` random strings of 0 to 29 characters from ``alphabet`` (Python's generator, not Java's)."""
    rng = random.Random(seed)
    chars = list(alphabet)
    return ["".join(rng.choice(chars) for _ in range(rng.randrange(30))) for _ in range(n)]


def round_trip_count(tok, strings: Sequence[str]) -> int:
    """How many strings come back unchanged from encode (no specials added or parsed) then decode."""
    return sum(tok.decode(tok.encode(s, add_special=False, parse_special=False)) == s for s in strings)


def vocab_summary(tok, metadata: Mapping[str, object]) -> dict[str, int]:
    """Token count, merge count, special count (control + user-defined) of one vocabulary."""
    types = list(metadata.get("tokenizer.ggml.token_type", []))
    return {"tokens": tok.n_vocab, "merges": len(metadata.get("tokenizer.ggml.merges", [])),
            "special": sum(t in (3, 4) for t in types)}


def self_test_lines(path: str | os.PathLike[str]) -> list[str]:
    """The lesson's test program, run with gguftok on ``path`` (the synthetic byte-level vocabulary)."""
    from ..metadata import read_metadata
    from ..tokenizer import Tokenizer

    md = read_metadata(path)
    tok = Tokenizer(md)
    s = vocab_summary(tok, md)
    out = [f"vocab {s['tokens']} tokens, {s['merges']} merges, {s['special']} special, "
           f"file {Path(path).stat().st_size} bytes"]
    for text in LESSON_TEXTS:
        ids = tok.encode(text, add_special=True, parse_special=False)
        pieces = "".join(f"[{tok.token_text(i)}]" for i in ids)
        out.append(f'"{text}" -> {ids} {pieces} -> "{tok.decode(ids)}"')
    out.append(f"chat, parse_special=true : {tok.encode(CHAT, add_special=False, parse_special=True)}")
    out.append(f"chat, parse_special=false: {len(tok.encode(CHAT, add_special=False, parse_special=False))} tokens")
    ids = tok.encode(" 😀!", add_special=False)
    stream = tok.stream()
    pieces = "".join(f"[{stream.push(i)}]" for i in ids)
    out.append(f'streamed pieces of " 😀!": {pieces}')
    out.append(f"round trip on random strings: {round_trip_count(tok, random_strings())}/300")
    im_end = tok.token_id("<|im_end|>")
    out.append(f"add BOS {str(tok.add_bos).lower()}, end of generation: {str(tok.is_eog(tok.eos_id)).lower()} "
               f"for <|endoftext|>, {str(tok.is_eog(im_end)).lower()} for <|im_end|>")
    return out


def self_test(path: str | os.PathLike[str]) -> Rendered:
    return _pre("\n".join(self_test_lines(path)))


# ------------------------------------------------------------------------------------------- pipeline
def pipeline_map() -> Rendered:
    """The steps of ``Tokenizer`` as a row of boxes (the diagram) over a table naming each module."""
    arrow = '<span style="color:inherit;padding:0 2px">→</span>'
    boxes = arrow.join(_box(step, k) for k, (step, _, _) in enumerate(PIPELINE))
    table = _table(["step", "module", "what it does"], PIPELINE)
    diagram = " → ".join(f"[{step}]" for step, _, _ in PIPELINE)
    return Rendered(f'<div style="margin-bottom:6px">{boxes}</div>{table.html}', diagram + "\n\n" + table.text)


# ------------------------------------------------------------------------------------------- one text
def trace_text(tok, text: str, parse_special: bool = True) -> Rendered:
    """``text`` through every stage: fragments, words, merges per word, ids, then streamed back."""
    data = text.encode("utf-8")
    frags = []
    for f in tok.fragments(data, parse_special):
        frags.append(f"special {f} {tok.token_text(f)}" if isinstance(f, int)
                     else f"text {escape_visible(data[f[0]:f[0] + f[1]].decode('utf-8', 'replace'))}")
    words = [f"<{w}>" if isinstance(w, int) else escape_visible(w) for w in tok.words(text, parse_special)]
    rows = []
    for t in tok.trace(text, parse_special):
        merges = " ".join(s.pair for s in t.steps if s.merged) or "-"
        rows.append((escape_visible(t.word), merges, " ".join(escape_visible(x) for x in t.symbols), t.ids))
    ids = tok.encode(text, add_special=False, parse_special=parse_special)
    stream = tok.stream(special=True)
    streamed = [stream.push(i) for i in ids]
    streamed.append(stream.flush())
    lines = ["1 fragments: " + " | ".join(frags), "2 words:     " + " | ".join(words)]
    table = _table(["word", "merges applied", "symbols", "ids"], rows, "3 merges per word")
    tail = [f"4 encode:    {ids}", "5 stream:    " + "".join(f"[{escape_visible(s)}]" for s in streamed)]
    text_out = "\n".join(lines) + "\n" + table.text + "\n" + "\n".join(tail)
    htm = ("".join(f'<div style="font-family:monospace;color:inherit">{_e(x)}</div>' for x in lines) + table.html
           + "".join(f'<div style="font-family:monospace;color:inherit">{_e(x)}</div>' for x in tail))
    return Rendered(htm, text_out)


# ------------------------------------------------------------------------------------------- golden
def fixture_tokenizer(fx):
    """The tokenizer a golden fixture was recorded with (as tests/test_golden.py loads it)."""
    from ..data import REPO_DATA, vocab_dir
    from ..metadata import read_metadata
    from ..tokenizer import Tokenizer

    h = fx.header
    if h["name"].startswith("synthetic-"):
        return Tokenizer.from_gguf(Path(REPO_DATA) / "synthetic" / h["file"])
    md = read_metadata(vocab_dir() / h["file"])
    if h["pre"] is not None:
        md = md.with_changes({"tokenizer.ggml.pre": h["pre"]})
    return Tokenizer(md)


def golden_counts(names: Sequence[str]) -> list[tuple[str, int, int]]:
    """For each fixture name: (name, encode answers that agree, encode answers) over all four flag sets."""
    from ..conformance.golden import ENCODE_FLAGS, GOLDEN_DIR, agree, ours, read_fixture

    out = []
    for name in names:
        fx = read_fixture(Path(GOLDEN_DIR) / f"{name}.jsonl.xz")
        tok = fixture_tokenizer(fx)
        n = ok = 0
        for case in fx.encode:
            for (add, parse), want in zip(ENCODE_FLAGS, case.answers, strict=True):
                n += 1
                ok += agree(want, ours(tok.encode, case.text, add_special=add, parse_special=parse))
        out.append((name, ok, n))
    return out


def golden_view(counts: Sequence[tuple[str, int, int]]) -> Rendered:
    rows = [(name, f"{ok} of {n} agree") for name, ok, n in counts]
    ok, n = sum(c[1] for c in counts), sum(c[2] for c in counts)
    t = _table(["fixture", "encode answers"], rows, "gguftok against llama.cpp's recorded answers")
    return Rendered(t.html + f'<div style="color:inherit">total: {ok} of {n} agree</div>',
                    t.text + f"\ntotal: {ok} of {n} agree")


# ------------------------------------------------------------------------------------------- CLI, figure
def cli_examples() -> Rendered:
    """The command-line equivalents of this notebook's calls (shown, not run)."""
    return _pre("\n".join([
        "gguftok info data/synthetic/byte-level-286.gguf",
        'gguftok tokenize -m data/synthetic/byte-level-286.gguf -p "Hello world" --ids --no-bos',
        "gguftok tokenize -m data/synthetic/byte-level-286.gguf "
        '-p "<|im_start|>user\\nHello<|im_end|>" --show-count',
        "gguftok detokenize -m data/synthetic/byte-level-286.gguf 259 264",
        "gguftok conformance ...   # compare with llama.cpp (needs llama-cpp-python)",
    ]))


def tokens_per_char(toks: Mapping[str, object], text: str) -> dict[str, float]:
    """Tokens per character of ``text`` (no special tokens added) for each tokenizer, sorted ascending."""
    n = max(1, len(text))
    vals = {name: len(t.encode(text, add_special=False)) / n for name, t in toks.items()}
    return dict(sorted(vals.items(), key=lambda kv: (kv[1], kv[0])))


def tokens_per_char_table(values: Mapping[str, float]) -> Rendered:
    return _table(["vocabulary", "tokens per character"], [(k, f"{v:.3f}") for k, v in values.items()])


def tokens_per_char_figure(values: Mapping[str, float], title: str = "Tokens per character, one paragraph"):
    import matplotlib.pyplot as plt

    names, vals = list(values), list(values.values())
    fig, ax = plt.subplots(figsize=(7, 0.28 * len(names) + 1))
    ax.barh(names, vals, color=PALETTE[4][0], edgecolor=TEXT)
    ax.invert_yaxis()
    ax.set_xlabel("tokens per character (lower = more text per token)")
    ax.set_title(title)
    for y, v in enumerate(vals):
        ax.text(v, y, f" {v:.2f}", va="center", fontsize=8)
    fig.tight_layout()
    return fig
