"""Tokenize a corpus with the Hugging Face ``datasets`` map, offline, over two worker processes.

    make corpus-example          # installs datasets into .venv, then runs this file

Each worker loads the tokenizer once, from the GGUF path (``gguftok.batch.cached_tokenizer``); only the
path travels with the map function. The same ``tokenize`` function works unchanged as the function of a
Dask bag's ``map_partitions`` or of Ray Data's ``map_batches`` across many machines, as long as each machine
can read the GGUF file (a vocabulary is a few MB; a model's GGUF file is read only up to its metadata).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # nothing here needs the network

from datasets import Dataset

from gguftok import Tokenizer
from gguftok.batch import cached_tokenizer

VOCAB = Path(__file__).resolve().parent.parent / "data" / "vocab" / "ggml-vocab-qwen2.gguf"


def tokenize(batch: dict[str, list[str]], path: str = str(VOCAB)) -> dict[str, list[list[int]]]:
    """A batched map function: the texts of a batch to their ids (and their counts)."""
    tok = cached_tokenizer(path)
    ids = [tok.encode(text, add_special=False) for text in batch["text"]]
    return {"ids": ids, "n_tokens": [len(x) for x in ids]}


def corpus() -> list[str]:
    """A small corpus that ships with Python: the paragraphs of the language reference's help topics."""
    from pydoc_data.topics import topics

    return [p for name in sorted(topics) for p in topics[name].split("\n\n") if p.strip()]


def main() -> int:
    texts = corpus()
    start = time.perf_counter()
    ds = Dataset.from_dict({"text": texts}).map(tokenize, batched=True, batch_size=256, num_proc=2)
    seconds = time.perf_counter() - start
    # the answer is what encoding one text at a time gives
    tok = Tokenizer.from_gguf(VOCAB)
    if ds["ids"] != [tok.encode(t, add_special=False) for t in texts]:
        print("the map's ids differ from Tokenizer.encode", file=sys.stderr)
        return 1
    print(f"{len(texts):,} texts, {sum(ds['n_tokens']):,} tokens in {seconds:.1f} s over 2 processes "
          "(the same ids as Tokenizer.encode)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
