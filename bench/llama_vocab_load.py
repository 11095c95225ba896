"""Run by the oracle's Python (llama-cpp-python 0.3.36): time llama.cpp's vocab-only load of GGUF files.

Prints one JSON object {path: best seconds of N loads}. Used by bench_metadata.py; needs no gguftok.
Usage: python llama_vocab_load.py N PATH...
"""

import ctypes
import json
import sys
import time

import llama_cpp


@llama_cpp.llama_log_callback
def _quiet(level, text, user_data):
    pass


def main() -> None:
    repeats, paths = int(sys.argv[1]), sys.argv[2:]
    llama_cpp.llama_log_set(_quiet, ctypes.c_void_p(0))
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    best = {}
    for path in paths:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            model = llama_cpp.llama_model_load_from_file(path.encode(), params)
            times.append(time.perf_counter() - t)
            if not model:
                raise SystemExit(f"llama.cpp could not load {path}")
            llama_cpp.llama_model_free(model)
        best[path] = min(times)
    print(json.dumps(best))


if __name__ == "__main__":
    main()
