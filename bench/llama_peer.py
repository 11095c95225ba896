"""Run by the oracle's Python (llama-cpp-python 0.3.36): llama.cpp's side of bench_peers.py, in one process.

Usage: python llama_peer.py VOCAB.gguf REPEATS PROMPTS.json FILE...

Prints one JSON object: the best vocab-only load time, the growth of the peak resident memory over the
load (``VmHWM``, KB), then for each file the best ``llama_tokenize`` time, the token count and a digest of
the ids (a file named ``*.stream.json`` holds a JSON list of prompts: the best time of tokenizing them one after
another, one call each through the Python binding, and the digest of all their ids in order), and the mean time
per call of ``llama_tokenize`` on short prompts through the Python binding (``parse_special=True``, as a chat
application calls it). Needs no gguftok.
"""

import hashlib
import json
import resource
import sys

import llama_cpp as L
from _llama import clock, evict_caches, silence, time_tokenize


def peak_kb() -> int:
    """The peak resident memory of this process (VmHWM; ru_maxrss would start at the parent's peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def digest(ids) -> str:
    return hashlib.sha256(json.dumps(list(ids)).encode()).hexdigest()[:16]


def main() -> None:
    path, repeats, prompts_file, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    silence()
    L.llama_backend_init()
    params = L.llama_model_default_params()
    params.vocab_only = True
    before = peak_kb()
    load = float("inf")
    model = None
    for _ in range(repeats):
        if model is not None:
            L.llama_model_free(model)
        t = clock()
        model = L.llama_model_load_from_file(path.encode(), params)
        load = min(load, clock() - t)
        if not model:
            raise SystemExit(f"llama.cpp could not load {path}")
    rss = peak_kb() - before
    vocab = L.llama_model_get_vocab(model)
    out = {"load": load, "rss_kb": rss, "files": {}}

    def tokenize(text: bytes, parse_special: bool = True) -> list[int]:
        # what an application does per prompt through the binding: a buffer, the call, the ids as a list
        buf = (L.llama_token * (len(text) + 8))()
        n = L.llama_tokenize(vocab, text, len(text), buf, len(text) + 8, False, parse_special)
        return buf[:n]

    for f in files:
        if f.endswith(".stream.json"):
            with open(f, encoding="utf-8") as fh:
                stream = [p.encode("utf-8", "surrogatepass") for p in json.load(fh)]
            ids = [i for p in stream for i in tokenize(p, False)]
            best = float("inf")
            for _ in range(repeats):
                evict_caches()
                t = clock()
                for p in stream:
                    tokenize(p, False)
                best = min(best, clock() - t)
            out["files"][f] = {"seconds": best, "tokens": len(ids), "digest": digest(ids)}
            continue
        with open(f, "rb") as fh:
            data = fh.read()
        best, ids = time_tokenize(vocab, data, repeats)
        out["files"][f] = {"seconds": best, "tokens": len(ids), "digest": digest(ids)}
    with open(prompts_file, encoding="utf-8") as fh:
        prompts = [p.encode() for p in json.load(fh)]

    chat = [tokenize(p) for p in prompts]
    rounds = 200
    best = float("inf")
    for _ in range(repeats):
        t = clock()
        for _ in range(rounds):
            for p in prompts:
                tokenize(p)
        best = min(best, (clock() - t) / (rounds * len(prompts)))
    out["chat"] = {"per_call": best, "tokens": sum(map(len, chat)) / len(chat),
                   "digest": digest([i for ids in chat for i in ids])}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
