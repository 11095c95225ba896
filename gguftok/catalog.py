"""The pinned reference vocabularies at a glance: one row of tokenizer facts per file.

>>> qwen2 = {row.name: row for row in catalog()}["qwen2"]   # needs `make vocab`
>>> qwen2.model, qwen2.pre, qwen2.tokens, qwen2.merges
('gpt2', 'qwen2', 151936, 151387)
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from pathlib import Path

from .data import vocab_dir
from .metadata import read_metadata
from .vocab import Vocab


@dataclass(frozen=True)
class VocabSummary:
    """What a GGUF file says about its tokenizer, in a few numbers and names."""

    name: str
    gguf_version: int
    model: str | None  # tokenizer.ggml.model: gpt2 = byte-level BPE, llama = SentencePiece, ...
    pre: str | None  # tokenizer.ggml.pre: which pre-tokenizer splits text before the model runs
    tokens: int
    merges: int
    architecture: str | None
    bos: int | None = None  # the special ids and BOS rule as llama.cpp resolves them at load
    eos: int | None = None
    eot: int | None = None
    add_bos: bool | None = None

    @classmethod
    def of(cls, path: Path) -> VocabSummary:
        md = read_metadata(path)
        v = Vocab(md)
        special = {k: (None if v.special[k] < 0 else v.special[k]) for k in ("bos", "eos", "eot")}
        return cls(
            name=path.name.removeprefix("ggml-vocab-").removesuffix(".gguf"),
            gguf_version=md.version,
            model=md.get("tokenizer.ggml.model"),
            pre=md.get("tokenizer.ggml.pre"),
            tokens=len(md.get("tokenizer.ggml.tokens", ())),
            merges=len(md.get("tokenizer.ggml.merges", ())),
            architecture=md.get("general.architecture"),
            add_bos=v.add_bos,
            **special,
        )


def catalog(folder: Path | None = None) -> list[VocabSummary]:
    """A summary of every ``ggml-vocab-*.gguf`` in ``folder`` (default: the fetched ``data/vocab``)."""
    folder = vocab_dir() if folder is None else Path(folder)
    return [VocabSummary.of(p) for p in sorted(folder.glob("ggml-vocab-*.gguf"))]


def format_catalog(rows: list[VocabSummary]) -> str:
    """A plain-text table of :func:`catalog`'s rows (absent keys shown as ``-``).

    >>> print(format_catalog([VocabSummary("tiny", 3, "gpt2", None, 9, 3, "llama", None, 0, 0, False)]))
    name  gguf_version  model  pre  tokens  merges  architecture  bos  eos  eot  add_bos
    tiny             3  gpt2   -         9       3  llama         -      0    0    False
    """
    names = [f.name for f in fields(VocabSummary)]
    cells = [names] + [["-" if v is None else str(v) for v in astuple(r)] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(names))]
    numeric = [isinstance(getattr(rows[0], n), int) if rows else False for n in names]
    lines = []
    for row in cells:
        parts = [c.rjust(w) if num and row is not cells[0] else c.ljust(w)
                 for c, w, num in zip(row, widths, numeric, strict=True)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)
