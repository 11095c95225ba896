"""How fast does gguftok encode? Ratios against llama.cpp's llama_tokenize, measured in the same run.

    python bench/bench_encode.py                      # qwen2, llama-bpe, gpt-2
    python bench/bench_encode.py --vocab qwen2 --scaling

1. Throughput on about 1 MB of mixed text (prose, code, many scripts, numbers; seeded), cold (empty word
   cache) and warm (the same text again), against llama.cpp on the same bytes (vocab-only model, timed inside
   the oracle's process, so no pipe overhead is counted).
2. ``--scaling``: pathological inputs at 3 sizes (a text without whitespace, one character repeated), to
   show that time grows as n log n, not n squared: the ratio t(2n)/t(n) stays near 2.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

from _common import best_of, run_in_oracle

from gguftok import Tokenizer
from gguftok.conformance.generate import Generators
from gguftok.data import vocab_dir


def mixed_text(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    gen = Generators([], [])
    return gen.long_text(rng, size)


def llama_times(vocab: Path, files: list[Path], repeats: int) -> dict | str:
    return run_in_oracle("llama_tokenize_time.py", str(vocab), str(repeats), *map(str, files))


def timed(fn, repeats: int = 1) -> float:
    return best_of(repeats, fn)


def throughput(names: list[str], size: int) -> None:
    text = mixed_text(size)
    data = text.encode()
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "mixed.txt"
        f.write_bytes(data)
        print(f"\n## throughput: {len(data):,} bytes of mixed text (seeded), add_special=False, parse_special=False")
        print(f"{'vocab':12s} {'tokens':>9s} {'cold s':>8s} {'warm s':>8s} {'llama.cpp s':>12s} "
              f"{'cold/llama':>11s} {'warm/llama':>11s} {'MB/s warm':>10s}")
        for name in names:
            path = vocab_dir() / f"ggml-vocab-{name}.gguf"
            tok = Tokenizer.from_gguf(path)
            cold = timed(lambda tok=tok: tok.encode(text, add_special=False))
            ids = tok.encode(text, add_special=False)
            warm = timed(lambda tok=tok: tok.encode(text, add_special=False), 3)
            ref = llama_times(path, [f], 3)
            line = f"{name:12s} {len(ids):9,d} {cold:8.2f} {warm:8.2f}"
            if isinstance(ref, dict):
                r = ref[str(f)]
                assert r["tokens"] == len(ids), "gguftok and llama.cpp disagree on this text"
                line += f" {r['seconds']:12.3f} {cold / r['seconds']:10.1f}x {warm / r['seconds']:10.1f}x"
            else:
                line += f" {'-':>12s} {'-':>11s} {'-':>11s}"
            print(line + f" {len(data) / warm / 1e6:10.2f}", flush=True)
            if isinstance(ref, str):
                print(ref)


def scaling(name: str, sizes: list[int]) -> None:
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    cases = {
        "no whitespace": lambda n: "".join(random.Random(n).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
        "one character": lambda n: "a" * n,
        "one digit": lambda n: "7" * n,
    }
    print(f"\n## scaling on {name}: seconds per size, and t(2n)/t(n) (2 means linear, 2.1-2.3 n log n, 4 quadratic)")
    with tempfile.TemporaryDirectory() as tmp:
        files, texts = [], {}
        for label, make in cases.items():
            for n in sizes:
                p = Path(tmp) / f"{label.replace(' ', '_')}_{n}.txt"
                texts[str(p)] = make(n)
                p.write_text(texts[str(p)])
                files.append(p)
        ref = llama_times(path, files, 1)
        for label in cases:
            row, prev = [], None
            for n in sizes:
                p = str(Path(tmp) / f"{label.replace(' ', '_')}_{n}.txt")
                tok = Tokenizer.from_gguf(path)  # a cold cache for every size
                t = timed(lambda p=p, tok=tok: tok.encode(texts[p], add_special=False))
                cell = f"{n:>9,d}: {t:6.2f} s"
                if prev:
                    cell += f" (x{t / prev:.2f})"
                if isinstance(ref, dict):
                    cell += f" llama.cpp {ref[p]['seconds']:.3f} s"
                row.append(cell)
                prev = t
            print(f"{label:14s} " + " | ".join(row), flush=True)
        if isinstance(ref, str):
            print(ref)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", action="append", help="repeatable; default qwen2, llama-bpe, gpt-2")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--scaling", action="store_true", help="also the n log n check (takes a minute or two)")
    args = parser.parse_args()
    names = args.vocab or ["qwen2", "llama-bpe", "gpt-2"]
    print(f"# CPython {sys.version.split()[0]}, {os.cpu_count()} cores")
    throughput(names, args.size)
    if args.scaling:
        scaling(names[0], [250_000, 500_000, 1_000_000])


if __name__ == "__main__":
    main()
