"""What the benchmarks share: best-of timing and running a script in the llama.cpp oracle's Python."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from gguftok.conformance.oracle import oracle_python

HERE = Path(__file__).resolve().parent


def clock() -> Callable[[], float]:
    """The bench's clock: wall time, or with ``GGUFTOK_BENCH_CLOCK=cpu`` (``bench_peers.py --clock cpu``) this
    process's CPU time, which a shared machine's other work disturbs far less (every peer timed here runs on one
    thread; the llama.cpp oracle reads the same variable)."""
    return time.process_time if os.environ.get("GGUFTOK_BENCH_CLOCK") == "cpu" else time.perf_counter


# More than this machine's last-level cache (32 MB on the 2-core machines these figures come from).
EVICT_BYTES = 64 << 20


def evict_caches() -> None:
    """Leave the CPU's caches cold, as between two prompts of an application whose model runs in between: write
    ``EVICT_BYTES``. Every timed run on both sides starts so (the llama.cpp side does the same in ``_llama.py``):
    a 1 KB encode with the caches warm from the run before took half the time (Llama 3: 93 µs against 185)."""
    b"\x01" * EVICT_BYTES  # written, byte by byte: a zeroed allocation would map untouched pages


def best_of(repeats: int, fn: Callable[[], object]) -> float:
    """The shortest of ``repeats`` wall-clock runs of ``fn``, in seconds. Each starts after a full garbage
    collection (untimed), so that no run pays for collecting what an earlier one left behind, and with the CPU
    caches cold (:func:`evict_caches`); the collector stays on during the run, as in real use."""
    best, now = float("inf"), clock()
    for _ in range(repeats):
        gc.collect()
        evict_caches()
        t = now()
        fn()
        best = min(best, now() - t)
    return best


def best_cold(repeats: int, make: Callable[[], object], run: Callable[[object], object]) -> float:
    """Like :func:`best_of`, but each run gets a fresh ``make()`` (a new tokenizer: an empty cache), which is
    not timed: the shortest time of ``run(fresh)``."""
    best, now = float("inf"), clock()
    for _ in range(repeats):
        fresh = make()
        gc.collect()  # as in best_of
        evict_caches()
        t = now()
        run(fresh)
        best = min(best, now() - t)
        del fresh  # garbage before the next one is made
    return best


def run_in_oracle(script: str, *args: str) -> dict | str:
    """Run ``bench/<script>`` with the oracle's Python; its last stdout line as JSON, or why it could not run."""
    python = oracle_python()
    if python is None:
        return "llama.cpp: skipped (llama_cpp is not importable and no oracle environment exists: make oracle)"
    proc = subprocess.run([python, str(HERE / script), *args], capture_output=True, text=True,
                          env={**os.environ, "GGML_NO_BACKTRACE": "1"})
    if proc.returncode != 0:
        return f"llama.cpp: failed ({proc.stderr.strip()[-300:]})"
    return json.loads(proc.stdout.strip().splitlines()[-1])
