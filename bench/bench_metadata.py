"""How fast does gguftok load a vocabulary? Ratios against gguf.GGUFReader and llama.cpp, in one run.

    python bench/bench_metadata.py            # ggml-vocab-qwen2.gguf (151,936 tokens, 151,387 merges)
    python bench/bench_metadata.py --all      # every pinned vocabulary (GGUFReader alone takes ~2 minutes)
    python bench/bench_metadata.py --all --no-reader   # skip GGUFReader
    python bench/bench_metadata.py --all --read-only --baseline OLD.py   # read_metadata against another metadata.py
    python bench/bench_metadata.py --hostile [--baseline OLD.py]        # hostile shapes: peak memory and time

``--baseline`` loads another copy of ``gguftok/metadata.py`` (say the one before a change, from ``git show``)
beside this one and times both in the same run, with the ratio. ``--hostile`` writes files of the shapes that
the count limits are for (issue 19, item 7: millions of small pairs, tens of millions of empty strings) and
some at the limits, and reads each in a fresh process: the time, the peak RSS over the process's before the
parse (the memory-mapped pages of the file count: they are the bytes read) and the outcome.

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
import statistics
import struct
from collections.abc import Callable
from pathlib import Path

import gguf
from _common import HERE, best_of, run_in_oracle

from gguftok import Tokenizer, read_metadata
from gguftok.data import vocab_dir


def gguf_reader_load(path: Path) -> None:
    reader = gguf.GGUFReader(path)
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.ggml."):
            field.contents()  # the strings and numbers a tokenizer needs, as Python objects


def load_baseline(path: str):
    """Another copy of gguftok/metadata.py as the module ``gguftok._metadata_baseline`` (its relative imports
    resolve in gguftok)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("gguftok._metadata_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------- hostile shapes

def _header(n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 0, n_kv)


def _key(name: bytes) -> bytes:
    return struct.pack("<Q", len(name)) + name


def many_keys(n: int) -> bytes:
    """``n`` pairs of 20 bytes: a 7-byte key and a uint8 value."""
    tail = struct.pack("<I", 0) + b"\x01"
    return _header(n) + b"".join(_key(b"k%06x" % i) + tail for i in range(n))


def string_array(n: int, item: bytes | None = None) -> bytes:
    """One array of ``n`` strings: empty ones (``item=None``), else ``item`` with a 2-byte counter after it, so
    that no two are the same object."""
    head = _header(1) + _key(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, n)
    if item is None:
        return head + bytes(8 * n)
    length = struct.pack("<Q", len(item) + 2)
    return head + b"".join(length + item + struct.pack("<H", i & 0xFFFF) for i in range(n))


def nested_arrays(n: int) -> bytes:
    """An array of ``n`` empty arrays of uint8 (12 bytes each)."""
    return (_header(1) + _key(b"test.nested") + struct.pack("<IIQ", 9, 9, n)
            + struct.pack("<IQ", 0, 0) * n)


def _many_arrays(n: int, count: int) -> bytes:
    """``n`` keys, each an array of ``count`` empty strings (zero bytes: every offset looks like a length)."""
    return _header(n) + b"".join(_key(b"a%06x" % i) + struct.pack("<IIQ", 9, 8, count) + bytes(8 * count)
                                 for i in range(n))


def _hostile_cases(max_items: int, max_keys: int) -> list[tuple[str, Callable[[], bytes]]]:
    return [
        ("4,300,000 pairs of 20 bytes (issue)", lambda: many_keys(4_300_000)),
        ("30,000,000 empty strings (issue)", lambda: string_array(30_000_000)),
        (f"{max_keys:,} pairs (the key limit)", lambda: many_keys(max_keys)),
        (f"{max_items:,} empty strings (the item limit)", lambda: string_array(max_items)),
        (f"{max_items:,} distinct 2-byte strings", lambda: string_array(max_items, b"")),
        (f"{max_items:,} distinct 3-byte strings, one U+0100 each", lambda: string_array(max_items, b"\xc4\x80")),
        (f"{max_items // 8:,} empty inner arrays (8 items each)", lambda: nested_arrays(max_items // 8)),
        ("4,096 arrays of 256 empty strings", lambda: _many_arrays(4096, 256)),
        ("16 arrays of 65,536 empty strings", lambda: _many_arrays(16, 65536)),
    ]


_CHILD = r"""
import resource, sys, time
import importlib.util
if sys.argv[2]:
    spec = importlib.util.spec_from_file_location("gguftok._metadata_baseline", sys.argv[2])
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
    read_metadata = mod.read_metadata
else:
    from gguftok.metadata import read_metadata
from gguftok.errors import GGUFError
def rss(field):  # kB; VmHWM is this process's own peak (ru_maxrss keeps the parent's across fork and exec)
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
try:
    open("/proc/self/clear_refs", "w").write("5")  # reset VmHWM to the current RSS
    before, peak = rss("VmRSS"), lambda: rss("VmHWM")
except OSError:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
try:
    md = read_metadata(sys.argv[1])
    outcome = f"read, {len(md)} keys"
except GGUFError as e:
    outcome = "refused: " + str(e).split(": ", 1)[1][:70]
dt = time.perf_counter() - t
print((peak() - before) * 1024, dt, outcome, sep="\t")
"""


def hostile(baseline: str | None) -> None:
    import subprocess
    import sys
    import tempfile

    from gguftok.metadata import MAX_ARRAY_ITEMS, MAX_KEYS

    impls = [("now", "")] + ([("baseline", baseline)] if baseline else [])
    print(f"{'case':52s} {'file MB':>8s} " + " ".join(f"{n + ' s':>8s} {n + ' +MB':>9s}" for n, _ in impls))
    with tempfile.TemporaryDirectory(prefix="bench_metadata_") as tmp:
        for label, make in _hostile_cases(MAX_ARRAY_ITEMS, MAX_KEYS):
            path = Path(tmp) / "hostile.gguf"
            path.write_bytes(make())
            cells, outcomes = [], []
            for _, impl in impls:
                proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), impl], capture_output=True,
                                      text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
                if proc.returncode != 0:
                    cells.append(f"{'failed':>18s}")
                    outcomes.append(proc.stderr.strip().splitlines()[-1][:80])
                    continue
                rss, secs, outcome = proc.stdout.strip().split("\t")
                cells.append(f"{float(secs):8.2f} {int(rss) / 2**20:9.0f}")
                outcomes.append(outcome)
            print(f"{label:52s} {path.stat().st_size / 2**20:8.1f} " + " ".join(cells), flush=True)
            for (name, _), outcome in zip(impls, outcomes, strict=True):
                print(f"    {name}: {outcome}")
            path.unlink()


def llama_cpp_times(paths: list[Path], repeats: int) -> dict[str, float] | str:
    return run_in_oracle("llama_vocab_load.py", str(repeats), *map(str, paths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="every pinned vocabulary, not only qwen2")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-reader", action="store_true", help="do not time gguf.GGUFReader (slow)")
    parser.add_argument("--read-only", action="store_true",
                        help="time read_metadata alone (no GGUFReader, Tokenizer or llama.cpp)")
    parser.add_argument("--baseline", metavar="METADATA_PY", help="another gguftok/metadata.py to time beside it")
    parser.add_argument("--hostile", action="store_true", help="hostile shapes: peak memory and time per read")
    args = parser.parse_args()
    if args.hostile:
        hostile(args.baseline)
        return
    names = sorted(vocab_dir().glob("ggml-vocab-*.gguf")) if args.all else [vocab_dir() / "ggml-vocab-qwen2.gguf"]
    if not names or not names[0].exists():
        raise SystemExit("the vocabularies are missing: run `make vocab`")

    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
          f"gguf {importlib.metadata.version('gguf')}; best of {args.repeats} runs (GGUFReader: 1 run)")
    if args.read_only:
        old = load_baseline(args.baseline).read_metadata if args.baseline else None
        print(f"{'file':32s} {'MB':>6s} {'read s':>7s}" + (f" {'baseline s':>10s} {'now/base':>9s}" if old else ""))
        ratios = []
        for path in names:
            ours = best_of(args.repeats, lambda p=path: read_metadata(p))
            line = f"{path.name:32s} {path.stat().st_size / 2**20:6.1f} {ours:7.3f}"
            if old:
                theirs = best_of(args.repeats, lambda p=path: old(p))
                ratios.append(ours / theirs)
                line += f" {theirs:10.3f} {ours / theirs:8.2f}x"
            print(line, flush=True)
        if ratios:
            print(f"now/baseline: geometric mean {statistics.geometric_mean(ratios):.2f}x, "
                  f"worst {max(ratios):.2f}x")
        return
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
