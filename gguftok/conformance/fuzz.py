"""The differential fuzzer: random inputs through gguftok and through llama.cpp, every answer compared.

    python -m gguftok.conformance.fuzz --vocab qwen2 -n 20000          # or: make fuzz VOCAB=qwen2 N=20000
    python -m gguftok.conformance.fuzz --vocab gpt-2 --pre tekken      # a real vocabulary, relabelled
    python -m gguftok.conformance.fuzz --vocab all-bpe --seconds 600
    python -m gguftok.conformance.fuzz --vocab qwen2 --pre all --long 0.5   # long texts: the bulk paths
    python -m gguftok.conformance.fuzz --vocab rwkv -n 20000           # a synthetic vocabulary in data/synthetic/
    python -m gguftok.conformance.fuzz --vocab path/to/model.gguf      # any GGUF file on disk

Each input is encoded under the four ``(add_special, parse_special)`` combinations, and a random id
sequence is decoded under the four ``(remove_special, unparse_special)`` ones. Where llama.cpp crashes,
gguftok must raise a ``ValueError``. A disagreement is shrunk to a small input that still disagrees and
printed with both id lists and their pieces. Exit status 1 if anything disagreed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..data import vocab_dir
from ..metadata import read_metadata
from ..pretokenize import PRE_STRINGS
from ..tokenizer import Tokenizer
from ..writer import write_metadata
from .generate import Generators, id_sequence
from .golden import (
    ATTR_BYTE,
    ATTR_CONTROL,
    ATTR_UNKNOWN,
    ATTR_USER_DEFINED,
    DECODE_FLAGS,
    ENCODE_FLAGS,
    agree,
    ours,
)
from .oracle import Crash, Oracle

BPE_VOCABS = ["aquila", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "gpt-neox",
              "llama-bpe", "mpt", "qwen2", "qwen35", "refact", "starcoder"]


@dataclass
class Report:
    name: str
    inputs: int = 0
    calls: int = 0
    reference_crashes: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.name:28s} {self.inputs:7d} inputs {self.calls:8d} comparisons "
                f"{self.reference_crashes:5d} llama.cpp crashes (gguftok raised each time) "
                f"{len(self.mismatches):4d} mismatches {self.seconds:7.1f} s")


class Fuzzer:
    def __init__(self, tok: Tokenizer, oracle: Oracle, name: str, seed: int, long: float = 0.01) -> None:
        self.tok, self.oracle, self.rng = tok, oracle, random.Random(seed)
        self.long = long  # the share of inputs that are long texts (500 to 6,000 code points)
        facts = oracle.facts()
        attrs = facts["attrs"]
        pieces = oracle.pieces(special=False)
        special = oracle.pieces(special=True)
        self.special_ids = [i for i, a in enumerate(attrs) if a & (ATTR_CONTROL | ATTR_USER_DEFINED | ATTR_UNKNOWN)]
        self.byte_ids = [i for i, a in enumerate(attrs) if a & ATTR_BYTE] or [
            i for i, p in enumerate(pieces) if len(p) == 1]
        self.n_vocab = facts["n_vocab"]
        self.gen = Generators(pieces, [special[i].decode("utf-8", "replace") for i in self.special_ids if special[i]])
        self.report = Report(name)

    def encode_differs(self, text: str | bytes, add: bool, parse: bool) -> tuple[object, object] | None:
        want = self.oracle.tokenize(text, add, parse)
        got = ours(self.tok.encode, text, add_special=add, parse_special=parse)
        self.report.calls += 1
        return None if agree(want, got) else (want, got)

    def shrink(self, text: str | bytes, add: bool, parse: bool, budget: int = 400) -> str | bytes:
        """Delete chunks of the input while it still disagrees (delta debugging, bounded)."""
        chunk = max(1, len(text) // 2)
        while chunk >= 1 and budget > 0:
            i, shrunk = 0, False
            while i < len(text) and budget > 0:
                candidate = text[:i] + text[i + chunk:]
                budget -= 1
                if candidate and self.encode_differs(candidate, add, parse):
                    text, shrunk = candidate, True
                else:
                    i += chunk
            if not shrunk:
                chunk //= 2
        return text

    def describe(self, text: str | bytes, add: bool, parse: bool) -> str:
        diff = self.encode_differs(text, add, parse)
        if diff is None:
            return f"encode({text!r}) disagreed, but not after shrinking"
        want, got = diff

        def show(ids):
            return ids if isinstance(ids, Crash) else [(i, self.tok.token_to_piece(i, special=True)) for i in ids]

        return (f"encode({text!r}, add_special={add}, parse_special={parse})\n"
                f"    llama.cpp: {want}\n      pieces: {show(want)}\n"
                f"    gguftok:   {got}\n      pieces: {show(got)}")

    def one_input(self) -> None:
        rng = self.rng
        long = rng.random() < self.long
        text = self.gen.long_text(rng, rng.choice([500, 2000, 6000])) if long else self.gen.text(rng)
        self.report.inputs += 1
        for add, parse in ENCODE_FLAGS:
            if self.encode_differs(text, add, parse) is None:
                continue
            small = self.shrink(text, add, parse)
            self.report.mismatches.append(self.describe(small, add, parse))
            print("MISMATCH " + self.report.mismatches[-1], flush=True)
            break
        ids = id_sequence(rng, self.n_vocab, self.special_ids, self.byte_ids)
        for remove, unparse in DECODE_FLAGS:
            want = self.oracle.detokenize(ids, remove, unparse)
            got = ours(self.tok.decode_bytes, ids, remove_special=remove, unparse_special=unparse)
            self.report.calls += 1
            if not agree(want, got):
                self.report.mismatches.append(f"decode({ids}, remove_special={remove}, unparse_special={unparse})\n"
                                              f"    llama.cpp: {want!r}\n    gguftok:   {got!r}")
                print("MISMATCH " + self.report.mismatches[-1], flush=True)
                break


SYNTHETIC = Path(__file__).resolve().parents[2] / "data" / "synthetic"


def vocab_path(name: str) -> Path:
    """The file a ``--vocab`` names: a pinned vocabulary (``qwen2``), one of the synthetic vocabularies of
    ``data/synthetic/`` (``rwkv``, ``plamo2``: llama.cpp ships none of these families), or a path to a GGUF.

    >>> vocab_path("rwkv").name, vocab_path("qwen2").name
    ('rwkv.gguf', 'ggml-vocab-qwen2.gguf')
    """
    if name.endswith(".gguf") or "/" in name:
        return Path(name)
    if (SYNTHETIC / f"{name}.gguf").is_file():
        return SYNTHETIC / f"{name}.gguf"
    return vocab_dir() / f"ggml-vocab-{name}.gguf"


def fuzz_vocab(name: str, n: int, seconds: float, seed: int, pre: str | None = None,
               log: Callable[[str], None] = lambda m: print(m, flush=True), long: float = 0.01) -> Report:
    path = vocab_path(name)
    if not path.is_file():
        raise SystemExit(f"fuzz: no vocabulary {name!r}: {path} is not a file (make vocab fetches the pinned ones)")
    md = read_metadata(path)
    name = path.stem.removeprefix("ggml-vocab-") if name.endswith(".gguf") or "/" in name else name
    label = name if pre is None else f"{name}+pre={pre}"
    with tempfile.TemporaryDirectory() as tmp:
        ref_path = path
        if pre is not None:
            md = md.with_changes({"tokenizer.ggml.pre": pre})
            ref_path = write_metadata(Path(tmp) / "relabelled.gguf", read_metadata(path), {"tokenizer.ggml.pre": pre})
        tok = Tokenizer(md)
        t0 = time.perf_counter()
        with Oracle(ref_path) as oracle:
            fz = Fuzzer(tok, oracle, label, seed, long)
            while fz.report.inputs < n and time.perf_counter() - t0 < seconds:
                fz.one_input()
                if fz.report.inputs % 2000 == 0:
                    log(f"  {label}: {fz.report.inputs} inputs, {len(fz.report.mismatches)} mismatches")
            fz.report.reference_crashes = oracle.crashes
        fz.report.seconds = time.perf_counter() - t0
    return fz.report


def pre_strings() -> list[str]:
    return list(PRE_STRINGS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gguftok.conformance.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", default="qwen2",
                        help="a pinned vocabulary name, all-bpe, a synthetic one (rwkv, plamo2) or a GGUF path")
    parser.add_argument("--pre", default=None,
                        help="relabel the vocabulary with this tokenizer.ggml.pre (all: each of the 91 in turn; "
                             "from:NAME: from that one on)")
    parser.add_argument("-n", type=int, default=2000, help="inputs per vocabulary (default 2000)")
    parser.add_argument("--seconds", type=float, default=float("inf"), help="time limit per vocabulary")
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    parser.add_argument("--long", type=float, default=0.01,
                        help="the share of inputs that are long texts, 500 to 6,000 code points (default 0.01)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    names = BPE_VOCABS if args.vocab == "all-bpe" else [args.vocab]
    if args.pre == "all":
        pres = pre_strings()
    elif args.pre and args.pre.startswith("from:"):  # resume a --pre all run at this pre string
        pres = pre_strings()[pre_strings().index(args.pre[5:]):]
    else:
        pres = [args.pre]
    print(f"seed {seed}", flush=True)
    reports = []
    for name in names:
        for pre in pres:
            reports.append(fuzz_vocab(name, args.n, args.seconds, seed, pre, long=args.long))
            print(reports[-1].line(), flush=True)
    if len(reports) > 1:
        total = sum(len(r.mismatches) for r in reports)
        print(f"\n{len(reports)} runs, {sum(r.inputs for r in reports):,} inputs, {total} mismatches")
    return 1 if any(r.mismatches for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
