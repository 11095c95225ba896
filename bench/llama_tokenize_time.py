"""Run by the oracle's Python: time llama_tokenize on files. Prints JSON {file: best seconds}.

Usage: python llama_tokenize_time.py VOCAB.gguf REPEATS FILE...
"""

import json
import sys

import llama_cpp as L
from _llama import silence, time_tokenize


def main() -> None:
    vocab_path, repeats, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    silence()
    L.llama_backend_init()
    params = L.llama_model_default_params()
    params.vocab_only = True
    model = L.llama_model_load_from_file(vocab_path.encode(), params)
    vocab = L.llama_model_get_vocab(model)
    out = {}
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        best, ids = time_tokenize(vocab, data, repeats)
        out[path] = {"seconds": best, "tokens": len(ids)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
