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
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import gguf

from gguftok import Tokenizer, read_metadata
from gguftok.data import cache_dir, vocab_dir

HERE = Path(__file__).resolve().parent


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def gguf_reader_load(path: Path) -> None:
    reader = gguf.GGUFReader(path)
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.ggml."):
            field.contents()  # the strings and numbers a tokenizer needs, as Python objects


def oracle_python() -> str | None:
    try:
        import llama_cpp  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    venv = Path(os.environ.get("GGUFTOK_ORACLE_VENV") or cache_dir() / "oracle-venv")
    python = venv / "bin" / "python"
    return str(python) if python.exists() else None


def llama_cpp_times(paths: list[Path], repeats: int) -> dict[str, float] | str:
    python = oracle_python()
    if python is None:
        return "llama.cpp: skipped, llama_cpp is not importable and no oracle environment exists (make oracle)"
    proc = subprocess.run([python, str(HERE / "llama_vocab_load.py"), str(repeats), *map(str, paths)],
                          capture_output=True, text=True, env={**os.environ, "GGML_NO_BACKTRACE": "1"})
    if proc.returncode != 0:
        return f"llama.cpp: failed ({proc.stderr.strip()[-300:]})"
    return json.loads(proc.stdout.strip().splitlines()[-1])


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
