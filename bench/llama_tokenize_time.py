"""Run by the oracle's Python: time llama_tokenize on files. Prints JSON {file: best seconds}.

Usage: python llama_tokenize_time.py VOCAB.gguf REPEATS FILE...
"""

import ctypes
import json
import sys
import time

import llama_cpp as L


@L.llama_log_callback
def _quiet(level, text, user_data):
    pass


def main() -> None:
    vocab_path, repeats, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    L.llama_log_set(_quiet, ctypes.c_void_p(0))
    L.llama_backend_init()
    params = L.llama_model_default_params()
    params.vocab_only = True
    model = L.llama_model_load_from_file(vocab_path.encode(), params)
    vocab = L.llama_model_get_vocab(model)
    out = {}
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        buf = (L.llama_token * (len(data) + 16))()
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            n = L.llama_tokenize(vocab, data, len(data), buf, len(data) + 16, False, False)
            best = min(best, time.perf_counter() - t)
        out[path] = {"seconds": best, "tokens": n}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
