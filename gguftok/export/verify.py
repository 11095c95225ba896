"""Proof of an export: the exported ``tokenizers`` pipeline against gguftok (and so llama.cpp) on every input.

Three sources of inputs, each under all four ``(add_special, parse_special)`` combinations of encoding, and
the four ``(remove_special, unparse_special)`` combinations of decoding:

- llama.cpp's own test cases (``ggml-vocab-*.gguf.inp``), where the vocabulary has them;
- the golden fixture's inputs and id sequences (``data/golden/``, recorded from llama.cpp);
- seeded fuzz texts (:class:`gguftok.conformance.generate.Generators`: vocabulary fragments, every script and
  whitespace, contractions, digits, code, special-token texts glued to text) and fuzz id sequences.

Agreement with gguftok is agreement with llama.cpp: the differential fuzzer and the golden fixtures check that.
Inputs that are not text (bytes that are not UTF-8, lone surrogates) are left out and counted: ``tokenizers``
takes ``str`` only.

>>> from gguftok import Tokenizer
>>> from gguftok.export import to_tokenizers
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> r = verify(tok, to_tokenizers(tok), fuzz=200, seed=1)
>>> r.differences, r.encode_calls > 600
(0, True)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..conformance.cases import read_cases
from ..conformance.generate import Generators, id_sequence
from ..vocab import BYTE, CONTROL, UNKNOWN, USER_DEFINED

ENCODE_FLAGS = ((False, False), (True, False), (False, True), (True, True))  # (add_special, parse_special)
DECODE_FLAGS = ((False, False), (True, False), (False, True), (True, True))  # (remove_special, unparse_special)


@dataclass
class Mismatch:
    """One input on which the two engines differ: ``what`` is ``"encode"`` or ``"decode"``."""

    what: str
    source: str
    value: Any
    flags: tuple[bool, bool]
    want: Any
    got: Any

    def __str__(self) -> str:
        names = ("add_special", "parse_special") if self.what == "encode" else ("remove_special", "unparse_special")
        flags = ", ".join(f"{n}={f}" for n, f in zip(names, self.flags, strict=True))
        return f"{self.what}({self.value!r}, {flags}) [{self.source}]: gguftok {self.want!r}, export {self.got!r}"


@dataclass
class Verification:
    """What :func:`verify` found: counts per source, and the first mismatches (at most ``keep``)."""

    name: str
    texts: dict[str, int] = field(default_factory=dict)  # source -> texts compared
    id_sequences: int = 0
    not_text: int = 0
    encode_calls: int = 0
    decode_calls: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    failed: dict[tuple[str, tuple[bool, bool]], int] = field(default_factory=dict)  # (what, flags) -> count
    # hf.decode(ids, skip_special_tokens=not unparse_special) alone, without gguftok.export.decode's help, for the
    # three combinations one flag stands for (remove_special and unparse_special together have no flag)
    direct_calls: int = 0
    direct_differences: int = 0

    @property
    def differences(self) -> int:
        return sum(self.failed.values())

    @property
    def encode_differences(self) -> int:
        return sum(n for (what, _), n in self.failed.items() if what == "encode")

    @property
    def decode_differences(self) -> int:
        return sum(n for (what, _), n in self.failed.items() if what == "decode")

    @property
    def calls(self) -> int:
        return self.encode_calls + self.decode_calls

    @property
    def agreement(self) -> float:
        return 1.0 - self.differences / self.calls if self.calls else 1.0

    def line(self) -> str:
        src = ", ".join(f"{n} {k}" for k, n in self.texts.items())
        return (f"{self.name:24s} encode {self.encode_calls - self.encode_differences:7d}/{self.encode_calls:<7d} "
                f"decode {self.decode_calls - self.decode_differences:7d}/{self.decode_calls:<7d} agree "
                f"(hf.decode alone {self.direct_calls - self.direct_differences}/{self.direct_calls}) "
                f"(texts: {src}; {self.id_sequences} id sequences; {self.not_text} inputs not text, left out)")

    def failing_flags(self) -> str:
        """Which flag combinations differ, and how often: ``"decode remove_special=F unparse_special=T: 3"``."""
        out = []
        for (what, flags), n in sorted(self.failed.items()):
            names = ("add_special", "parse_special") if what == "encode" else ("remove_special", "unparse_special")
            out.append(f"{what} " + " ".join(f"{k}={'TF'[not f]}" for k, f in zip(names, flags, strict=True))
                       + f": {n}")
        return "; ".join(out)


def _as_text(value: str | bytes) -> str | None:
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def case_texts(gguf: str | Path) -> list[str | bytes]:
    """llama.cpp's test inputs for the vocabulary at ``gguf`` (``[]`` when it has none)."""
    inp, out = Path(f"{gguf}.inp"), Path(f"{gguf}.out")
    if not inp.exists() or not out.exists():
        return []
    return [t for t, _ in read_cases(inp.read_bytes(), out.read_text(encoding="utf-8"))]


def fuzz_inputs(tok, n: int, seed: int) -> tuple[list[str | bytes], list[list[int]]]:
    """``n`` fuzz texts and ``max(n // 5, 1)`` id sequences for ``tok``, from ``seed``."""
    v = tok.vocab
    special_ids = [i for i, a in enumerate(v.attrs) if a & (CONTROL | USER_DEFINED | UNKNOWN)]
    pieces = tok.pieces.every()
    specials = [tok.token_to_piece(i, special=True).decode("utf-8", "replace") for i in special_ids]
    gen = Generators(pieces, [s for s in specials if s])
    byte_ids = [i for i, a in enumerate(v.attrs) if a & BYTE] or [i for i, p in enumerate(pieces) if len(p) == 1]
    rng = random.Random(seed)
    texts = [gen.text(rng) for _ in range(n)]
    texts += [gen.long_text(rng, rng.randint(500, 3000)) for _ in range(max(n // 500, 1))]
    seqs = [id_sequence(rng, tok.n_vocab, special_ids, byte_ids) for _ in range(max(n // 5, 1))]
    return texts, seqs


def _encode_all(hf: Any, texts: list[str], add: bool, parse: bool) -> list[list[int]]:
    before = hf.encode_special_tokens
    hf.encode_special_tokens = not parse
    try:
        return [e.ids for e in hf.encode_batch(texts, add_special_tokens=add)]
    finally:
        hf.encode_special_tokens = before


def verify(tok, hf: Any, *, gguf: str | Path | None = None, fixture: Any = None, fuzz: int = 20000, seed: int = 0,
           extra: Iterable[str] = (), keep: int = 20, name: str | None = None) -> Verification:
    """Compare ``hf`` (from :func:`gguftok.export.to_tokenizers`) with ``tok`` on llama.cpp's cases of ``gguf``,
    the ``fixture``'s inputs (a :class:`gguftok.conformance.golden.Fixture`), ``fuzz`` seeded texts and
    ``extra`` texts, under every flag combination; the ids of one text in four are decoded too, besides the
    fixture's and the fuzz's id sequences."""
    from . import decode

    report = Verification(name or tok.vocab.model)
    sources: list[tuple[str, Sequence[str | bytes]]] = []
    seqs: list[tuple[str, list[int]]] = []
    if gguf is not None:
        sources.append(("llama.cpp cases", case_texts(gguf)))
    if fixture is not None:
        sources.append(("golden", [c.text for c in fixture.encode]))
        seqs += [("golden", c.ids) for c in fixture.decode]
    if fuzz:
        texts, fuzz_seqs = fuzz_inputs(tok, fuzz, seed)
        sources.append(("fuzz", texts))
        seqs += [("fuzz", s) for s in fuzz_seqs]
    sources.append(("extra", list(extra)))

    def differ(m: Mismatch) -> None:
        report.failed[m.what, m.flags] = report.failed.get((m.what, m.flags), 0) + 1
        if len(report.mismatches) < keep:
            report.mismatches.append(m)

    for source, values in sources:
        texts = [t for t in (_as_text(v) for v in values) if t is not None]
        report.not_text += len(values) - len(texts)
        if not texts:
            continue
        report.texts[source] = len(texts)
        for add, parse in ENCODE_FLAGS:
            got = _encode_all(hf, texts, add, parse)
            for k, (text, g) in enumerate(zip(texts, got, strict=True)):
                try:
                    want: Any = tok.encode(text, add_special=add, parse_special=parse)
                except ValueError as e:  # llama.cpp aborts here (a BOS the vocabulary lacks)
                    want = f"error: {e}"
                report.encode_calls += 1
                if want != g:
                    differ(Mismatch("encode", source, text, (add, parse), want, g))
                if add and parse and isinstance(want, list) and k % 4 == 0:  # one text in four decoded back
                    seqs.append((source, want))
    n_vocab = tok.n_vocab
    for source, ids in seqs:
        if any(not 0 <= i < n_vocab for i in ids):
            continue
        report.id_sequences += 1
        for remove, unparse in DECODE_FLAGS:
            want = tok.decode(ids, remove_special=remove, unparse_special=unparse)
            got = decode(hf, tok, ids, remove_special=remove, unparse_special=unparse)
            report.decode_calls += 1
            if want != got:
                differ(Mismatch("decode", source, ids, (remove, unparse), want, got))
            if not (remove and unparse):
                report.direct_calls += 1
                report.direct_differences += want != hf.decode(ids, skip_special_tokens=not unparse)
    return report
