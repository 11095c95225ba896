"""How fast does gguftok load a vocabulary? Ratios against gguf.GGUFReader and llama.cpp, in one run.

    python bench/bench_metadata.py            # ggml-vocab-qwen2.gguf (151,936 tokens, 151,387 merges)
    python bench/bench_metadata.py --all      # every pinned vocabulary (GGUFReader alone takes ~2 minutes)
    python bench/bench_metadata.py --all --no-reader   # skip GGUFReader

Two gguftok figures: ``read_metadata`` alone (what GGUFReader does), and ``Tokenizer.from_gguf`` (what
llama.cpp's vocab-only load does: read, then build every table the tokenizer needs).

Each figure is the best of several runs in this process (GGUFReader: one run, it is that slow).
gguftok and GGUFReader are asked for the same thing: every key, with the tokenizer's string arrays as
Python lists. llama.cpp's vocab-only load (``llama_model_load_from_file`` with ``vocab_only``) is timed
in the oracle's own environment (``make oracle``) when it exists, else skipped with the reason printed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
from pathlib import Path

import gguf
from _common import best_of, run_in_oracle

from gguftok import Tokenizer, read_metadata
from gguftok.data import vocab_dir


def gguf_reader_load(path: Path) -> None:
    reader = gguf.GGUFReader(path)
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.ggml."):
            field.contents()  # the strings and numbers a tokenizer needs, as Python objects


def llama_cpp_times(paths: list[Path], repeats: int) -> dict[str, float] | str:
    return run_in_oracle("llama_vocab_load.py", str(repeats), *map(str, paths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="every pinned vocabulary, not only qwen2")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-reader", action="store_true", help="do not time gguf.GGUFReader (slow)")
    args = parser.parse_args()
    names = sorted(vocab_dir().glob("ggml-vocab-*.gguf")) if args.all else [vocab_dir() / "ggml-vocab-qwen2.gguf"]
    if not names or not names[0].exists():
        raise SystemExit("the vocabularies are missing: run `make vocab`")

    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
          f"gguf {importlib.metadata.version('gguf')}; best of {args.repeats} runs (GGUFReader: 1 run)")
    llama = llama_cpp_times(names, args.repeats)
    if isinstance(llama, str):
        print(llama)
        llama = {}
    print(f"{'file':32s} {'read s':>7s} {'GGUFReader s':>13s} {'x faster':>9s} "
          f"{'load s':>7s} {'llama.cpp s':>12s} {'load/llama':>11s}")
    worst = 0.0
    for path in names:
        ours = best_of(args.repeats, lambda p=path: read_metadata(p))
        load = best_of(3, lambda p=path: Tokenizer.from_gguf(p))
        line = f"{path.name:32s} {ours:7.3f}"
        if args.no_reader:
            line += f" {'-':>13s} {'-':>9s}"
        else:
            theirs = best_of(1, lambda p=path: gguf_reader_load(p))
            line += f" {theirs:13.2f} {theirs / ours:9.1f}"
        line += f" {load:7.3f}"
        if str(path) in llama:
            ratio = load / llama[str(path)]
            worst = max(worst, ratio)
            line += f" {llama[str(path)]:12.3f} {ratio:10.2f}x"
        print(line, flush=True)
    if worst:
        print(f"slowest gguftok load relative to llama.cpp's vocab-only load: {worst:.2f}x")


if __name__ == "__main__":
    main()
