"""Run by the oracle's Python (llama-cpp-python 0.3.36): llama.cpp's side of bench_export.py, in one process.

Usage: python _export_peers.py VOCAB.gguf REPEATS ROUNDS PROMPT.txt BATCH.json LARGE.txt

Times three workloads with ``llama_tokenize`` (no BOS, no special parsing), each the best of ``REPEATS`` runs,
on both clocks (this process's CPU time and wall time; each clock's best separately):

- ``single``: ``PROMPT.txt`` tokenized ``ROUNDS`` times (after one untimed call), one call at a time,
  each through the Python binding as an application calls it (a buffer, the call, the ids as a list);
- ``batch``: each prompt of ``BATCH.json`` (a JSON list of strings) in turn, the same way: llama.cpp has no
  batch call, and it runs on one thread;
- ``large``: ``LARGE.txt`` in one call.

Prints one JSON object with the times and a digest of the ids of each text (the batch: one per prompt), which
bench_export.py compares with gguftok's. Needs no gguftok.
"""

import hashlib
import json
import sys
import time

import llama_cpp as L
from _llama import silence


def digest(ids) -> str:
    return hashlib.sha256(json.dumps(list(ids)).encode()).hexdigest()[:16]


def best(repeats: int, fn) -> dict:
    """The shortest CPU time and the shortest wall time of ``repeats`` runs of ``fn``."""
    cpu = wall = float("inf")
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
    return {"cpu": cpu, "wall": wall}


def main() -> None:
    path, repeats, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    prompt_file, batch_file, large_file = sys.argv[4:7]
    silence()
    L.llama_backend_init()
    params = L.llama_model_default_params()
    params.vocab_only = True
    model = L.llama_model_load_from_file(path.encode(), params)
    if not model:
        raise SystemExit(f"llama.cpp could not load {path}")
    vocab = L.llama_model_get_vocab(model)

    def tokenize(text: bytes) -> list[int]:
        buf = (L.llama_token * (len(text) + 8))()
        n = L.llama_tokenize(vocab, text, len(text), buf, len(text) + 8, False, False)
        if n < 0:
            raise SystemExit(f"llama_tokenize needs {-n} tokens")
        return buf[:n]

    with open(prompt_file, "rb") as f:
        prompt = f.read()
    with open(batch_file, encoding="utf-8") as f:
        batch = [p.encode("utf-8") for p in json.load(f)]
    with open(large_file, "rb") as f:
        large = f.read()

    def single() -> None:
        for _ in range(rounds):
            tokenize(prompt)

    def run_batch() -> None:
        for p in batch:
            tokenize(p)

    big = (L.llama_token * (len(large) + 16))()
    warm = digest(tokenize(prompt))  # a call before the timing, as for the other sides
    out = {
        "single": {**best(repeats, single), "digest": warm},
        "batch": {**best(repeats, run_batch), "digests": [digest(tokenize(p)) for p in batch]},
    }
    n = L.llama_tokenize(vocab, large, len(large), big, len(large) + 16, False, False)
    large_time = best(repeats, lambda: L.llama_tokenize(vocab, large, len(large), big, len(large) + 16, False, False))
    out["large"] = {**large_time, "digest": digest(big[:n])}
    L.llama_model_free(model)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
