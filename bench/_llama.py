"""What the oracle-side bench scripts share (run by the oracle's Python: stdlib and llama_cpp only)."""

import ctypes
import os
import time

import llama_cpp as L


@L.llama_log_callback
def _quiet(level, text, user_data):
    pass


def silence() -> None:
    """No llama.cpp log lines in the bench's output."""
    L.llama_log_set(_quiet, ctypes.c_void_p(0))


# the clock of bench/_common.py: CPU time with GGUFTOK_BENCH_CLOCK=cpu, else wall time
clock = time.process_time if os.environ.get("GGUFTOK_BENCH_CLOCK") == "cpu" else time.perf_counter


# as bench/_common.py: more than the machine's last-level cache
EVICT_BYTES = 64 << 20


def evict_caches() -> None:
    """Leave the CPU's caches cold before a timed run, as ``_common.evict_caches`` does on gguftok's side."""
    b"\x01" * EVICT_BYTES  # written, byte by byte: a zeroed allocation would map untouched pages


def time_tokenize(vocab, data: bytes, repeats: int):
    """The best of ``repeats`` calls of ``llama_tokenize`` on ``data`` (no BOS, no special parsing), each with the
    CPU caches cold, and the ids."""
    buf = (L.llama_token * (len(data) + 16))()
    best, n = float("inf"), 0
    for _ in range(repeats):
        evict_caches()
        t = clock()
        n = L.llama_tokenize(vocab, data, len(data), buf, len(data) + 16, False, False)
        best = min(best, clock() - t)
    return best, buf[:n]
